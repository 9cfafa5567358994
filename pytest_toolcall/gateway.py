"""The model client process: the ``openai`` SDK in a child process, spoken to over pipes.

The SDK costs a second to import and a few milliseconds of CPU per request. In pytest's process
that CPU competes with running the items (one interpreter lock); in a child it runs on another
core, and its import overlaps collection. Protocol, one JSON object per line:

    parent -> child   {"settings": {...}}            once, first
                      {"id": n, "request": {...}}    a ChatRequest (messages, tools, sampling)
                      {"cancel": n}                  not wanted any more (never sent if still queued)
    child -> parent   {"id": n, "response": {...}}   a ChatResponse
                      {"id": n, "error": "..."}      no answer after the retries

The API key travels in the child's environment, never on the pipe. The child ignores Ctrl-C and
exits when its input closes, so it never outlives pytest, however pytest ends.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from typing import IO, Any

from pytest_toolcall.client import ChatRequest, ChatResponse, Endpoint, ModelSettings, RequestError

KEY_ENV = "TOOLCALL_GATEWAY_API_KEY"


class GatewayModel:
    """A ``Model`` whose requests run in the client process."""

    def __init__(self, settings: ModelSettings) -> None:
        self.name = settings.model
        self._ids = itertools.count()
        self._pending: dict[int, Future[ChatResponse]] = {}
        self._lock = threading.Lock()
        self._stderr = tempfile.TemporaryFile()  # kept to explain a crash of the child
        env = {**os.environ, KEY_ENV: settings.api_key or ""}
        self._child = subprocess.Popen(
            [sys.executable, "-m", "pytest_toolcall.gateway"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        assert self._child.stdin is not None and self._child.stdout is not None
        self._input: IO[bytes] = self._child.stdin
        public = dataclasses.asdict(dataclasses.replace(settings, api_key=None))
        self._send({"settings": public})
        self._reader = threading.Thread(
            target=self._read, args=(self._child.stdout,), daemon=True, name="toolcall-gateway-reader"
        )
        self._reader.start()

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        future: Future[ChatResponse] = Future()
        number = next(self._ids)
        with self._lock:
            self._pending[number] = future
        body = {"messages": request.messages, "tools": request.tools, "sampling": request.sampling}
        if not self._send({"id": number, "request": body}):
            self._fail(number, RequestError(self._exit_reason()))
        future.add_done_callback(lambda done: done.cancelled() and self._send({"cancel": number}))
        return future

    def close(self) -> None:
        try:
            self._input.close()  # the child cancels what is left and exits
        except OSError:
            pass
        try:
            self._child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        self._reader.join(timeout=10)
        self._stderr.close()

    def _send(self, message: dict[str, Any]) -> bool:
        # ASCII escapes: text may hold lone surrogates, which UTF-8 cannot encode.
        line = json.dumps(message, default=repr).encode("ascii") + b"\n"
        with self._lock:
            try:
                self._input.write(line)
                self._input.flush()
            except (OSError, ValueError):  # the child is gone (or closing)
                return False
        return True

    def _read(self, output: IO[bytes]) -> None:
        for line in output:
            message = json.loads(line)
            number = message["id"]
            if "response" in message:
                with self._lock:
                    future = self._pending.pop(number, None)
                if future is not None and not future.cancelled():
                    future.set_result(ChatResponse(**message["response"]))
            else:
                self._fail(number, RequestError(message["error"]))
        # End of output: the child exited; nothing pending will ever be answered.
        reason = self._exit_reason()
        with self._lock:
            pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(RequestError(reason))

    def _fail(self, number: int, error: Exception) -> None:
        with self._lock:
            future = self._pending.pop(number, None)
        if future is not None and not future.done():
            future.set_exception(error)

    def _exit_reason(self) -> str:
        code = self._child.poll()
        try:
            self._stderr.seek(0)
            tail = self._stderr.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        except (OSError, ValueError):
            tail = []
        detail = f": {' | '.join(tail)}" if tail else ""
        return f"the model client process exited (code {code}){detail}"


# --- the child -------------------------------------------------------------------------------------


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**30)  # a request line holds a whole conversation
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer
    settings = ModelSettings(**json.loads(await reader.readline())["settings"])
    endpoint = Endpoint(dataclasses.replace(settings, api_key=os.environ.get(KEY_ENV) or None))
    await endpoint.open()
    tasks: dict[int, asyncio.Task[None]] = {}

    async def answer(number: int, request: ChatRequest) -> None:
        try:
            response = _redacted(await endpoint.complete(request), endpoint.settings.api_key)
            line = json.dumps({"id": number, "response": dataclasses.asdict(response)})
        except RequestError as exc:
            line = json.dumps({"id": number, "error": str(exc)})
        except Exception as exc:  # never leave the parent waiting
            line = json.dumps({"id": number, "error": f"{type(exc).__name__}: {exc}"}, default=repr)
        out.write(line.encode("ascii") + b"\n")  # ASCII escapes: lone surrogates survive the pipe
        out.flush()
        tasks.pop(number, None)

    while line := await reader.readline():
        message = json.loads(line)
        if "cancel" in message:
            task = tasks.pop(message["cancel"], None)
            if task is not None:
                task.cancel()
            continue
        body = message["request"]
        request = ChatRequest(body["messages"], body["tools"], body["sampling"] or {})
        tasks[message["id"]] = asyncio.create_task(answer(message["id"], request))
    for task in tasks.values():
        task.cancel()
    await asyncio.gather(*tasks.values(), return_exceptions=True)
    await endpoint.close()


def _redacted(response: ChatResponse, key: str | None) -> ChatResponse:
    """A server that echoes the key (in an answer, an argument) must not get it into the store,
    the reports or the terminal: it is replaced before the answer leaves this process."""
    if not key or key not in json.dumps(dataclasses.asdict(response)):
        return response
    calls = [{k: v.replace(key, "***") if isinstance(v, str) else v for k, v in c.items()} for c in response.tool_calls]
    return dataclasses.replace(
        response,
        content=response.content.replace(key, "***") if response.content else response.content,
        reasoning=response.reasoning.replace(key, "***") if response.reasoning else response.reasoning,
        tool_calls=calls,
    )


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is pytest's: we stop when our input closes
    asyncio.run(_serve())


if __name__ == "__main__":
    main()
