"""The SDK side of the model client: ``Endpoint`` (the ``openai`` SDK, or the ``anthropic`` one for
``--toolcall-api messages``; asyncio, bounded concurrency, one retry policy), served to every pytest
process of a run over a Unix socket by a child process of its own.

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
import ssl
import sys
import time
import urllib.parse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from pytest_toolcall.core.protocol.types import (
    ChatRequest,
    ChatResponse,
    FatalRequestError,
    ModelSettings,
    RequestError,
)
from pytest_toolcall.core.safety import door
from pytest_toolcall.model import messages_api, responses_api, streaming

if TYPE_CHECKING:
    import anthropic
    import openai

#: The largest answer read (bytes): a chat completion is kilobytes; a server sending hundreds of
#: megabytes is broken, and reading it whole would hold it all in memory (and in the store).
MAX_RESPONSE_BYTES = 32 * 2**20

#: Endpoints that gave an answer no retry can fix, by everything that reaches them (model, URL, key):
#: shared by every connection of this process, so that all pytest processes of a run stop at once.
_STOPPED: dict[tuple[str, str | None, str | None, str], str] = {}
#: The endpoints (base URLs) that have answered at least once in this process: until one has, a
#: failure to connect stops the run instead of being retried item after item.
_REACHED: set[str | None] = set()


#: Where each wire format is posted, relative to the SDK's base URL.
_PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/v1/messages"}


class ResponseTooLarge(Exception):
    """The body passed ``MAX_RESPONSE_BYTES``: not read further, not retried."""


class NotJSON(ValueError):
    """A body that is not JSON, named by status and content type (retried like any bad body)."""


class Endpoint:
    """Any OpenAI-compatible endpoint, through ``AsyncOpenAI``: at most ``concurrency`` requests in
    flight, each retried by one policy (the SDK's own retries are off). Runs on whatever event loop
    awaits it; ``main`` below serves one per connected model."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._client: openai.AsyncOpenAI | anthropic.AsyncAnthropic | None = None
        self._slots: asyncio.Semaphore | None = None

    async def open(self) -> None:
        if self.settings.api == "messages":
            return await self._open_messages()
        import openai  # imported only when a real endpoint is used: it takes about a second

        base_url, query = _split_query(self.settings.base_url)
        self._client = openai.AsyncOpenAI(
            api_key=self.settings.api_key or "no-key",  # the SDK insists on one; its header is omitted
            base_url=base_url,
            default_query=query,
            timeout=self.settings.timeout,
            max_retries=0,  # retries are ours: one policy, one place
        )
        self._slots = asyncio.Semaphore(self.settings.concurrency)
        # The body streamed (read here, capped) rather than read whole by the SDK.
        self._headers: dict[str, Any] = {"X-Stainless-Raw-Response": "stream"}
        if not self.settings.api_key:
            # An endpoint that needs no key (an empty --toolcall-api-key-env): no Authorization
            # header at all, rather than a made-up key.
            self._headers["Authorization"] = openai.Omit()

    async def _open_messages(self) -> None:
        """The ``anthropic`` SDK's client: the key goes in the header the installed SDK sends it in
        (``x-api-key`` before 2.0, ``Authorization`` since), whatever that is."""
        import anthropic

        base_url, query = _split_query(self.settings.base_url)
        self._client = anthropic.AsyncAnthropic(
            api_key=self.settings.api_key or "no-key",  # given, so that no environment or profile is read
            base_url=messages_api.sdk_base_url(base_url),
            default_query=query,
            timeout=self.settings.timeout,
            max_retries=0,
        )
        self._slots = asyncio.Semaphore(self.settings.concurrency)
        self._headers = {"X-Stainless-Raw-Response": "stream"}
        if not self.settings.api_key:
            self._headers.update({"X-Api-Key": anthropic.Omit(), "Authorization": anthropic.Omit()})

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    @property
    def _identity(self) -> tuple[str, str | None, str | None, str]:
        # (the API too: an endpoint that does not serve one wire format may serve another)
        return (self.settings.model, self.settings.base_url, self.settings.api_key, self.settings.api)

    async def complete(self, request: ChatRequest) -> ChatResponse:
        assert self._client is not None and self._slots is not None, "open() first"
        asked = time.perf_counter()
        async with self._slots:
            queued = time.perf_counter() - asked  # waiting for a slot: not part of the latency
            attempt = 0
            while True:
                stopped = _STOPPED.get(self._identity)
                if stopped is not None:  # another request already got an answer no retry can fix
                    raise FatalRequestError(stopped)
                started = time.perf_counter()
                try:
                    # The whole request (connect to last byte) within the timeout: httpx's own
                    # timeout applies per read, so a server trickling bytes would never time out.
                    async with asyncio.timeout(self.settings.timeout):
                        completion, problems, first_event = await self._create(request)
                    _REACHED.add(self.settings.base_url)
                    response = _response(completion, time.perf_counter() - started)
                    ttft = None if first_event is None else first_event - started
                    return dataclasses.replace(
                        response, stream_problems=problems, retries=attempt, ttft_s=ttft, queue_s=queued
                    )
                except TimeoutError:
                    exc: Exception = TimeoutError(f"no complete answer within {self.settings.timeout:g}s")
                except Exception as error:
                    exc = error
                unreachable = self._unreachable(exc)
                if unreachable is not None:
                    _STOPPED.setdefault(self._identity, self._masked(unreachable))
                    raise FatalRequestError(_STOPPED[self._identity])
                advice = self._fatal_advice(exc, request.answer_errors)
                if advice is not None:
                    _STOPPED.setdefault(self._identity, f"{self._describe(exc, attempt)}; {advice}")
                    raise FatalRequestError(_STOPPED[self._identity])
                refusal = self._refusal(request, exc, time.perf_counter() - started)
                if refusal is not None:
                    return refusal
                delay = self._retry_delay(exc, attempt)
                if delay is None:
                    raise RequestError(self._describe(exc, attempt)) from None
                attempt += 1
                await asyncio.sleep(delay)

    async def _create(self, request: ChatRequest) -> tuple[Any, list[str], float | None]:
        """POST the body as built here, through the SDK's documented generic ``post``: the SDK
        adds auth, base URL, timeouts and error types, but neither rewrites ``messages``/``tools``
        nor builds typed response objects (a few ms of CPU per request, which limits throughput).
        Returns the answer as a ``chat.completion`` and, for a streamed one, the stream rules it broke
        and when (``perf_counter``) its first event came."""
        settings = self.settings
        sampling = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, **request.sampling}
        values = {k: v for k, v in sampling.items() if v is not None}
        api = settings.api
        if api == "responses":
            body = responses_api.request_body(settings.model, request.messages, request.tools)
            body.update(responses_api.sampling(values))
        elif api == "messages":
            body = messages_api.request_body(settings.model, request.messages, request.tools)
            body.update(messages_api.sampling(values))
        else:
            body = {"model": settings.model, "messages": request.messages}
            if request.tools is not None:
                body["tools"] = request.tools
            body.update(values)
        if settings.stream:
            body["stream"] = True
            if api == "chat":  # a Responses or Messages stream always carries its usage
                body["stream_options"] = {"include_usage": True}
        body.update(settings.extra_body)
        assert self._client is not None
        # The body is streamed, not read whole by the SDK, so that its size can be capped.
        response: Any = await self._client.post(
            _PATHS[api],
            cast_to=_http_response_type(self._client),
            body=body,
            options={"headers": self._headers},
        )
        stream: streaming.ChatStream | responses_api.ResponsesStream | messages_api.MessagesStream | None = None
        if settings.stream:
            names = streaming.tool_names(request.tools)
            if api == "responses":
                stream = responses_api.ResponsesStream(names)
            elif api == "messages":
                stream = messages_api.MessagesStream(names)
            else:
                stream = streaming.ChatStream(names)
        decoder = streaming.SSEDecoder()
        first_event: float | None = None
        try:
            content = bytearray()
            async for chunk in response.aiter_bytes():
                content += chunk
                if len(content) > MAX_RESPONSE_BYTES:
                    raise ResponseTooLarge(
                        f"answer larger than {MAX_RESPONSE_BYTES // 2**20} MiB (HTTP {response.status_code}): not read"
                    )
                if stream is not None:
                    for data in decoder.feed(chunk):
                        if first_event is None:
                            first_event = time.perf_counter()
                        stream.event(data)
        finally:
            await response.aclose()
        if stream is not None:
            for data in decoder.close():
                first_event = first_event or time.perf_counter()
                stream.event(data)
            return stream.finish(), stream.problems, first_event
        try:
            answer = json.loads(content)
            # Through the door's bound: nothing deeper reaches the code that walks answers.
            door.check_depth(answer, f"HTTP {response.status_code} answer")
        except door.Refused:
            raise
        except RecursionError:
            deep = f"nested deeper than {door.MAX_DEPTH} levels"
            raise door.Refused(f"HTTP {response.status_code} answer: {deep}") from None
        except ValueError as exc:
            kind = response.headers.get("content-type") or "no content type"
            if isinstance(exc, UnicodeDecodeError):
                why = f"not valid UTF-8 at byte {exc.start}"
            else:
                why = getattr(exc, "msg", None) or str(exc)
            # Masked before it is cut: a cut through an echoed key would leave a piece of it.
            start = self._masked(bytes(content[:4096]).decode("utf-8", "replace"))[:60]
            raise NotJSON(f"HTTP {response.status_code} answer is not JSON ({kind}; {why}): {start!r}") from None
        if api == "responses" and isinstance(answer, dict):
            answer = responses_api.completion(answer)
        elif api == "messages" and isinstance(answer, dict):
            answer = messages_api.completion(answer)
        return answer, [], None

    def _refusal(self, request: ChatRequest, exc: Exception, latency: float) -> ChatResponse | None:
        """The answer of a request that accepts error answers when ``exc`` is a definite refusal (a
        4xx other than 429): its status and message."""
        if not request.answer_errors or not _is_status_error(exc) or _retryable(exc):
            return None
        return ChatResponse(self._masked(exc.message), None, latency_s=latency, status=exc.status_code)

    def _fatal_advice(self, exc: Exception, answer_errors: bool = False) -> str | None:
        """What to check when ``exc`` is an answer no retry and no other request can change, else None.
        ``answer_errors``: the request expects a refusal, so a 400 naming a setting is its answer."""
        if not _is_status_error(exc):
            return None
        _REACHED.add(self.settings.base_url)  # it answered: a later connection failure is retried
        from pytest_toolcall.core.safety.urls import redact_url

        s = self.settings
        key = f"${s.api_key_env}" if s.api_key_env else "the API key"
        endpoint = redact_url(s.base_url) or "the default endpoint"
        if exc.status_code == 401:
            return f"stopped: check the API key ({key}, chosen with --toolcall-api-key-env) for {endpoint}"
        if exc.status_code == 403:
            return f"stopped: check that the key ({key}) may use model {s.model!r} at {endpoint}"
        if exc.status_code == 404 and s.api == "responses":
            return (
                f"stopped: check that {endpoint} serves the Responses API (POST /responses, --toolcall-api responses)"
            )
        if exc.status_code == 404 and s.api == "messages":
            return (
                f"stopped: check that {endpoint} serves the Messages API (POST /v1/messages, --toolcall-api messages)"
            )
        if exc.status_code == 404:
            return f"stopped: check the model name {s.model!r} and the endpoint {endpoint} (--toolcall-base-url)"
        if exc.status_code == 400 and not answer_errors and _names_setting(exc, s):
            return (
                f"stopped: check the model name {s.model!r} and the request parameters "
                "(--toolcall-temperature, --toolcall-max-tokens, --toolcall-extra-body)"
            )
        return None

    def _unreachable(self, exc: Exception) -> str | None:
        """The line that stops the run when connecting fails (refused, DNS, TLS) to an endpoint that
        has not answered yet: naming host, port and cause; None otherwise (retried as usual)."""
        if self.settings.base_url in _REACHED:
            return None
        # The transport's ``ConnectError`` (httpx, or the fork the SDK ships), by name: which module
        # the SDK's transport comes from is its own business.
        connect = next((e for e in _causes(exc) if type(e).__name__ == "ConnectError"), None)
        if connect is None:
            return None
        # The innermost system error says why (the transport wraps it in one of its own words).
        root = next((e for e in reversed(list(_causes(connect))) if isinstance(e, OSError)), None)
        if isinstance(root, ssl.SSLError) or "SSL" in str(connect) or "certificate" in str(connect):
            cause = f"TLS failed ({root or connect})"
        elif isinstance(root, socket.gaierror) or "Name or service" in str(connect) or "nodename" in str(connect):
            cause = f"the name does not resolve ({root or connect})"
        elif isinstance(root, ConnectionRefusedError) or "refused" in str(connect).lower():
            cause = "connection refused"
        else:
            cause = str(root or connect) or type(connect).__name__
        url = urllib.parse.urlsplit(self.settings.base_url or "https://api.openai.com/v1")
        port = url.port or (443 if url.scheme == "https" else 80)
        return f"cannot connect to {url.hostname}:{port}: {cause}; stopped: check --toolcall-base-url"

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
        if _is_status_error(exc):
            text = f"HTTP {exc.status_code}: {exc.message}"
            if not _retryable(exc):
                text += " (not retried: a 4xx other than 429 will not change on retry)"
        else:
            text = f"{type(exc).__name__}: {exc}"
        text = f"{text} (after {attempt + 1} attempt{'s' if attempt else ''})"
        return self._masked(text)

    def secrets(self) -> list[str]:
        """The key and the credentials of the URL: what no answer or message may carry on."""
        from pytest_toolcall.core.safety.urls import url_secrets

        return [secret for secret in [_secret(self.settings.api_key), *url_secrets(self.settings.base_url)] if secret]

    def _masked(self, text: str) -> str:
        """``text`` without the key or the credentials of the URL (servers echo parts of requests)."""
        return str(_masked_value(text, self.secrets()))


def _split_query(url: str | None) -> tuple[str | None, dict[str, str] | None]:
    """A base URL with a query (``.../openai/v1?api-version=...``) as the SDK takes it: the URL
    without it, and the query given to every request (the SDK would append ``chat/completions``
    after the query otherwise)."""
    if not url or "?" not in url:
        return url, None
    from urllib.parse import parse_qsl

    base, _, query = url.partition("?")
    return base, dict(parse_qsl(query, keep_blank_values=True)) or None


def _http_response_type(client: Any) -> type:
    """The response class of the HTTP library under the client's SDK (httpx, or httpx2 in newer
    releases; the two SDKs need not use the same): given as ``cast_to``, the SDK returns the response
    unread."""
    base = sys.modules[f"{type(client).__module__.split('.')[0]}._base_client"]
    http = getattr(base, "httpx2", None) or base.httpx
    return http.Response


def _names_setting(exc: Exception, settings: ModelSettings) -> bool:
    """Whether a 400 is about the model or a setting sent with every request (so every request would
    get it), not about one request's content (too long a context, a bad message)."""
    error = getattr(exc, "body", None)
    error = error.get("error", error) if isinstance(error, dict) else None
    if not isinstance(error, dict):
        return False
    code, param = str(error.get("code") or ""), str(error.get("param") or "")
    if "model" in code or param == "model":
        return True
    return param in {"temperature", "max_tokens", *settings.extra_body}


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_status_error(exc: Exception) -> TypeGuard[Any]:
    """Whether ``exc`` is an HTTP error answer, as either SDK raises it (both carry ``status_code``,
    ``message``, ``body`` and ``response``); typed ``Any`` so that those are read without a cast."""
    import openai

    kinds: list[type] = [openai.APIStatusError]
    anthropic = sys.modules.get("anthropic")  # loaded only for --toolcall-api messages
    if anthropic is not None:
        kinds.append(anthropic.APIStatusError)
    return isinstance(exc, tuple(kinds))


def _retryable(exc: Exception) -> bool:
    """Everything but a definite refusal is retried: 429 and 5xx, but also connection resets,
    timeouts and bodies that are not a completion, whether the SDK wraps the transport's exception
    (APIConnectionError) or, on some of its paths, lets it escape as is."""
    if _is_status_error(exc):
        return exc.status_code == 429 or exc.status_code >= 500
    return not isinstance(exc, ResponseTooLarge)


def _retry_after(exc: Exception) -> float | None:
    if not _is_status_error(exc):
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
        calls = _calls(message.get("tool_calls"))
        content = _text(message.get("content"))
        reasoning = _text(message.get("reasoning_content") or message.get("reasoning"))
        usage = _usage(completion.get("usage"))
        finish = _text(choice.get("finish_reason"))
        empty = message.get("tool_calls") == []  # not null, not absent: see ChatResponse.empty_tool_calls
        return ChatResponse(content, finish, calls, reasoning, latency, usage, empty_tool_calls=empty)
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a chat completion ({type(exc).__name__}: {exc})") from None


def _calls(tool_calls: Any) -> list[dict[str, Any]]:
    """The answer's tool calls as ``{"id", "name", "arguments"}``. A malformed one (no name, a string
    where an object belongs, ``tool_calls`` itself a string) is kept as a call with what could be read
    (name None when there is none): it is the model's answer, scored as an invalid call as
    K2-Vendor-Verifier does, not a transport fault to retry."""
    if not tool_calls:
        return []
    if not isinstance(tool_calls, list):
        tool_calls = [tool_calls]
    calls = []
    for call in tool_calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            name = function.get("name")
            calls.append(
                {
                    "id": call.get("id") if isinstance(call.get("id"), str) else None,
                    "name": name if isinstance(name, str) else None,
                    "arguments": function.get("arguments"),
                }
            )
        else:
            calls.append({"id": None, "name": None, "arguments": None, "malformed": json.dumps(call)[:300]})
    return calls


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
    """A text field of the answer as text, whatever the server sent: some send a list of parts
    (``{"text": ...}`` or strings), a few an object; nothing else of the plugin expects more."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") if isinstance(part, dict) else part for part in content]
        return "".join(part for part in parts if isinstance(part, str))
    return json.dumps(content, default=repr)


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
    try:
        await endpoint.open()
        unusable = ""
    except Exception as exc:  # the SDK refused its settings: say so to every request, not a dropped line
        unusable = f"the openai client cannot be created: {type(exc).__name__}: {exc}"
    tasks: dict[int, asyncio.Task[None]] = {}

    async def answer(number: int, request: ChatRequest) -> None:
        try:
            if unusable:
                raise FatalRequestError(unusable)
            response = _redacted(await endpoint.complete(request), endpoint.secrets())
            line = json.dumps({"id": number, "response": dataclasses.asdict(response)})
        except RequestError as exc:
            line = json.dumps({"id": number, "error": str(exc), "fatal": isinstance(exc, FatalRequestError)})
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
            request = ChatRequest(
                body["messages"], body["tools"], body["sampling"] or {}, answer_errors=body.get("answer_errors", False)
            )
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


def _redacted(response: ChatResponse, secrets: list[str]) -> ChatResponse:
    """A server that echoes the key (in an answer, an argument, a finish reason, a dict key...) must
    not get it into the store, the reports or the terminal: every string of the answer, whatever its
    place and JSON type, has it replaced before the answer leaves this process."""
    secrets = [secret for secret in secrets if secret]
    fields = dataclasses.asdict(response)
    if not secrets or not any(secret in json.dumps(fields) for secret in secrets):
        return response
    return ChatResponse(**_masked_value(fields, secrets))


def _masked_value(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {_masked_value(k, secrets): _masked_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked_value(v, secrets) for v in value]
    return value


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is pytest's: we stop when our input closes
    listener = socket.socket(fileno=int(sys.argv[1]))  # bound and listening, by the parent
    import openai  # noqa: F401  # now, while pytest is still starting up: it takes about a second

    asyncio.run(_serve(listener))


if __name__ == "__main__":
    main()
