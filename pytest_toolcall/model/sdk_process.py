"""The parent side of the model client: the ``openai`` SDK runs in one child process per run
(``sdk_server.py``), which every pytest process of the run talks to over a Unix socket.

The SDK costs a second to import and a few milliseconds of CPU per request. In pytest's process
that CPU competes with running the items (one interpreter lock); in a child it runs on another
core. One child serves the whole run: under xdist the controller starts it and its workers
connect (``workerinput``), so the SDK is imported once, not once per worker, while they start.

The child is started from the plugin's earliest hook (``prestart``), before conftests,
configuration and collection, which its import then overlaps. Its listening socket is bound here
and inherited, so connections made before it is ready simply wait in the backlog. It ignores
Ctrl-C and exits when its input (a pipe from the process that started it) closes, so it never
outlives pytest, however pytest ends. Protocol, one JSON object per line, per connection:

    -> {"settings": {...}}            once, first: the model's settings, API key included
    -> {"id": n, "request": {...}}    a ChatRequest (messages, tools, sampling, answer_errors)
    -> {"cancel": n}                  not wanted any more (never sent if still queued)
    <- {"id": n, "response": {...}}   a ChatResponse
    <- {"id": n, "error": "...", "fatal": bool}   no answer after the retries (fatal: none will come)
"""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, InvalidStateError
from pathlib import Path
from typing import IO, Any

from pytest_toolcall.core.protocol.types import (
    ChatRequest,
    ChatResponse,
    FatalRequestError,
    ModelSettings,
    RequestError,
)
from pytest_toolcall.core.safety.text import inert

#: The key of the client's socket address in xdist's ``workerinput``.
WORKER_INPUT = "toolcall_client"


class ClientProcess:
    """The child process that serves every model of the run, owned by the process that started it."""

    def __init__(self) -> None:
        remove_dead_folders()
        self.folder = Path(tempfile.mkdtemp(prefix="toolcall-"))  # private (0700): the socket lives here
        self.address = str(self.folder / "client.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.address)
        listener.listen(256)
        self.stderr = tempfile.TemporaryFile()  # kept to explain a crash
        self.child = subprocess.Popen(
            [sys.executable, "-m", "pytest_toolcall.model.sdk_server", str(listener.fileno())],
            stdin=subprocess.PIPE,
            stderr=self.stderr,
            pass_fds=[listener.fileno()],
        )
        listener.close()  # the child has its own copy

    def exit_reason(self) -> str:
        try:
            self.stderr.seek(0)
            tail = self.stderr.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        except (OSError, ValueError):
            tail = []
        detail = f": {' | '.join(tail)}" if tail else ""
        return f"the model client process exited (code {self.child.poll()}){detail}"

    def stop(self) -> None:
        assert self.child.stdin is not None
        try:
            self.child.stdin.close()  # the child drops what is left and exits
        except OSError:
            pass
        try:
            self.child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
        self.stderr.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def remove_dead_folders() -> None:
    """Remove the socket folders of runs that died without removing theirs (kill -9): a folder of
    this user whose socket no client process answers any more."""
    for folder in Path(tempfile.gettempdir()).glob("toolcall-*"):
        try:
            status = folder.stat()
            # Young folders are left alone: between bind() and listen() a live socket refuses too.
            if not folder.is_dir() or status.st_uid != os.getuid() or time.time() - status.st_mtime < 10:
                continue
            address = folder / "client.sock"
            if not address.is_socket():
                continue  # not a folder of ours (or one never used): never remove what we did not make
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.settimeout(1.0)
                probe.connect(str(address))
                continue  # a live run's
            except ConnectionRefusedError:
                pass  # nobody listens: its run is gone
            except OSError:
                continue  # unsure: leave it
            finally:
                probe.close()
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


#: This process's client process, if it started one.
_client: ClientProcess | None = None


def prestart() -> None:
    """Start this process's client process now, ahead of need."""
    global _client
    if _client is None:
        _client = ClientProcess()
        atexit.register(stop_client)  # a run that fails before its end still removes the socket


def client_address() -> str:
    """The socket of this process's client process, started now if it was not already."""
    prestart()
    assert _client is not None
    return _client.address


def own_address() -> str | None:
    """The socket of this process's client process, if it started one."""
    return _client.address if _client is not None else None


def stop_client() -> None:
    """Stop this process's client process (once every model using it is closed)."""
    global _client
    if _client is not None:
        client, _client = _client, None
        client.stop()


class GatewayModel:
    """A ``ModelClient`` whose requests run in the client process."""

    def __init__(self, settings: ModelSettings, address: str) -> None:
        self.name = settings.model
        self._ids = itertools.count()
        self._pending: dict[int, Future[ChatResponse]] = {}
        self._lock = threading.Lock()
        self._closed = False  # the connection ended: no answer will come any more
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.connect(address)
        except OSError:
            self._socket.close()
            raise
        self._send({"settings": dataclasses.asdict(settings)})
        self._reader = threading.Thread(
            target=self._read, args=(self._socket.makefile("rb"),), daemon=True, name="toolcall-gateway-reader"
        )
        self._reader.start()

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        future: Future[ChatResponse] = Future()
        number = next(self._ids)
        with self._lock:
            closed = self._closed
            if not closed:
                self._pending[number] = future
        body = {
            "messages": request.messages,
            "tools": request.tools,
            "sampling": request.sampling,
            "answer_errors": request.answer_errors,
        }
        if closed or not self._send({"id": number, "request": body}):
            with self._lock:
                self._pending.pop(number, None)
            _settle(future, RequestError(self._exit_reason()))
        future.add_done_callback(lambda done: done.cancelled() and self._send({"cancel": number}))
        return future

    def close(self) -> None:
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # the child drops what is left of this model
        except OSError:
            pass
        self._reader.join(timeout=10)
        self._socket.close()

    def _send(self, message: dict[str, Any]) -> bool:
        # ASCII escapes: text may hold lone surrogates, which UTF-8 cannot encode.
        line = json.dumps(message, default=repr).encode("ascii") + b"\n"
        with self._lock:
            try:
                self._socket.sendall(line)
            except OSError:  # the child is gone (or this model is closing)
                return False
        return True

    def _read(self, output: IO[bytes]) -> None:
        try:
            for line in output:
                message = json.loads(line)
                if "response" in message:
                    with self._lock:
                        future = self._pending.pop(message["id"], None)
                    if future is not None:
                        _settle(future, ChatResponse(**message["response"]))
                else:
                    kind = FatalRequestError if message.get("fatal") else RequestError
                    # The server's own words: made inert before any message or traceback quotes them.
                    self._fail(message["id"], kind(inert(message["error"], 4000)))
        except (OSError, ValueError):
            pass  # the connection broke (a child killed mid-exchange): as for its end
        finally:
            # Closed, or the child exited: nothing pending will ever be answered.
            with self._lock:
                self._closed = True
                waiting, self._pending = list(self._pending.values()), {}
            if waiting:
                error = RequestError(self._exit_reason())
                for future in waiting:
                    _settle(future, error)

    def _fail(self, number: int, error: Exception) -> None:
        with self._lock:
            future = self._pending.pop(number, None)
        if future is not None:
            _settle(future, error)

    def _exit_reason(self) -> str:
        if _client is not None:  # this process started the child: say why it ended
            try:
                _client.child.wait(timeout=1)
                return _client.exit_reason()
            except subprocess.TimeoutExpired:
                pass
        return "the model client process closed the connection"


def _settle(future: Future[ChatResponse], outcome: ChatResponse | Exception) -> None:
    """Resolve ``future`` unless it already is (pytest's thread may cancel it at any moment)."""
    try:
        if isinstance(outcome, Exception):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
    except InvalidStateError:
        pass
