"""The SDK side of the model client: ``Endpoint`` (the ``openai`` SDK, asyncio, bounded
concurrency, one retry policy), served to every pytest process of a run over a Unix socket by a
child process of its own.

    python -m pytest_toolcall.model.sdk_server FD   (started by ``sdk_process.py``, FD its listening socket;
                                             protocol there)
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import signal
import socket
import sys
import time
from typing import TYPE_CHECKING, Any

from pytest_toolcall.model.types import ChatRequest, ChatResponse, ModelSettings, RequestError

if TYPE_CHECKING:
    import openai


class Endpoint:
    """Any OpenAI-compatible endpoint, through ``AsyncOpenAI``: at most ``concurrency`` requests in
    flight, each retried by one policy (the SDK's own retries are off). Runs on whatever event loop
    awaits it; ``main`` below serves one per connected model."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._client: openai.AsyncOpenAI | None = None
        self._slots: asyncio.Semaphore | None = None

    async def open(self) -> None:
        import openai  # imported only when a real endpoint is used: it takes about a second

        self._client = openai.AsyncOpenAI(
            api_key=self.settings.api_key or "unset",
            base_url=self.settings.base_url,
            timeout=self.settings.timeout,
            max_retries=0,  # retries are ours: one policy, one place
        )
        self._slots = asyncio.Semaphore(self.settings.concurrency)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        assert self._client is not None and self._slots is not None, "open() first"
        async with self._slots:
            attempt = 0
            while True:
                started = time.perf_counter()
                try:
                    response = _response(await self._create(request), time.perf_counter() - started)
                    return dataclasses.replace(response, retries=attempt) if attempt else response
                except Exception as exc:
                    delay = self._retry_delay(exc, attempt)
                    if delay is None:
                        raise RequestError(self._describe(exc, attempt)) from None
                attempt += 1
                await asyncio.sleep(delay)

    async def _create(self, request: ChatRequest) -> Any:
        """POST the body as built here, through the SDK's documented generic ``post``: the SDK
        adds auth, base URL, timeouts and error types, but neither rewrites ``messages``/``tools``
        nor builds typed response objects (a few ms of CPU per request, which limits throughput)."""
        settings = self.settings
        body: dict[str, Any] = {"model": settings.model, "messages": request.messages}
        if request.tools is not None:
            body["tools"] = request.tools
        sampling = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, **request.sampling}
        body.update((k, v) for k, v in sampling.items() if v is not None)
        body.update(settings.extra_body)
        assert self._client is not None
        content = await self._client.post("/chat/completions", cast_to=bytes, body=body)
        return json.loads(content)

    def _retry_delay(self, exc: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None when the error is final."""
        if attempt >= self.settings.max_retries or not _retryable(exc):
            return None
        retry_after = _retry_after(exc)
        if retry_after is not None:
            return min(retry_after, 60.0)
        return min(20.0, 0.5 * 2**attempt) * random.uniform(0.5, 1.5)

    def _describe(self, exc: Exception, attempt: int) -> str:
        """The last cause, for a person; never the API key (servers echo parts of requests)."""
        import openai

        if isinstance(exc, openai.APIStatusError):
            text = f"HTTP {exc.status_code}: {exc.message}"
            if not _retryable(exc):
                text += " (not retried: a 4xx other than 429 will not change on retry)"
        else:
            text = f"{type(exc).__name__}: {exc}"
        text = f"{text} (after {attempt + 1} attempt{'s' if attempt else ''})"
        key = _secret(self.settings.api_key)
        return text.replace(key, "***") if key else text


def _retryable(exc: Exception) -> bool:
    """Everything but a definite refusal is retried: 429 and 5xx, but also connection resets,
    timeouts and bodies that are not a completion, whether the SDK wraps the transport's exception
    (APIConnectionError) or, on some of its paths, lets it escape as is."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return True


def _retry_after(exc: Exception) -> float | None:
    import openai

    if not isinstance(exc, openai.APIStatusError):
        return None
    value = exc.response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _response(completion: Any, latency: float) -> ChatResponse:
    """Read a chat.completion body; anything that is not one raises ValueError (retried)."""
    try:
        choice = completion["choices"][0]
        message = choice["message"]
        calls = [
            {"id": call.get("id"), "name": call["function"]["name"], "arguments": call["function"].get("arguments")}
            for call in message.get("tool_calls") or []
            if call.get("function")
        ]
        content = _text(message.get("content"))
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        usage = _usage(completion.get("usage"))
        return ChatResponse(content, choice.get("finish_reason"), calls, reasoning, latency, usage)
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a chat completion ({type(exc).__name__}: {exc})") from None


def _usage(usage: Any) -> dict[str, int] | None:
    """The token counts of an OpenAI ``usage`` object (the nested cached and reasoning counts flattened);
    None when the endpoint sent none. Odd values are left out rather than failing the answer."""
    if not isinstance(usage, dict):
        return None
    prompt_details = usage.get("prompt_tokens_details")
    completion_details = usage.get("completion_tokens_details")
    fields = {
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "cached_tokens": prompt_details.get("cached_tokens") if isinstance(prompt_details, dict) else None,
        "reasoning_tokens": (
            completion_details.get("reasoning_tokens") if isinstance(completion_details, dict) else None
        ),
    }
    kept = {k: v for k, v in fields.items() if type(v) is int and v >= 0}
    return kept or None


def _text(content: Any) -> str | None:
    """Message content as text: some servers send a list of parts."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


# --- the child process -----------------------------------------------------------------------------


async def _serve(listener: socket.socket) -> None:
    """Serve connections until the input from the parent closes."""
    server = await asyncio.start_unix_server(_connection, sock=listener, limit=2**30)  # a line: a conversation
    loop = asyncio.get_running_loop()
    lifeline = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(lifeline), sys.stdin)
    async with server:
        await lifeline.read()
    # The run is over: whatever is still in flight is not wanted. Leave at once: an orderly
    # shutdown (closing connections, tearing down an interpreter that holds the SDK) takes a fifth
    # of a second that pytest would wait for, and the kernel closes the sockets anyway.
    os._exit(0)


async def _connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One model of one pytest process: its settings first, then its requests."""
    first = await reader.readline()
    if not first:
        return
    endpoint = Endpoint(ModelSettings(**json.loads(first)["settings"]))
    await endpoint.open()
    tasks: dict[int, asyncio.Task[None]] = {}

    async def answer(number: int, request: ChatRequest) -> None:
        try:
            response = _redacted(await endpoint.complete(request), _secret(endpoint.settings.api_key))
            line = json.dumps({"id": number, "response": dataclasses.asdict(response)})
        except RequestError as exc:
            line = json.dumps({"id": number, "error": str(exc)})
        except Exception as exc:  # never leave the parent waiting
            line = json.dumps({"id": number, "error": f"{type(exc).__name__}: {exc}"}, default=repr)
        if not writer.is_closing():
            writer.write(line.encode("ascii") + b"\n")  # ASCII escapes: lone surrogates survive
        tasks.pop(number, None)

    try:
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
    except (ConnectionError, ValueError):
        pass  # its process died (mid-line, perhaps)
    # The model was closed, or its process died: what it asked for is not wanted any more.
    for task in tasks.values():
        task.cancel()
    writer.close()
    await endpoint.close()


def _secret(key: str | None) -> str | None:
    """The key if it can be a secret. Local servers are given placeholders (EMPTY, none, x):
    replacing those in answers would rewrite what the model said and change its score."""
    return key if key and len(key) >= 8 else None


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
    listener = socket.socket(fileno=int(sys.argv[1]))  # bound and listening, by the parent
    import openai  # noqa: F401  # now, while pytest is still starting up: it takes about a second

    asyncio.run(_serve(listener))


if __name__ == "__main__":
    main()
