"""The model client: chat requests through the ``openai`` SDK, or the built-in ``oracle``.

Callers submit requests and collect futures: many are in flight while pytest's own thread only
ever waits. ``Endpoint`` is the SDK side (asyncio, bounded concurrency, retries); it runs in a
child process (``gateway.py``) so that its CPU cost and the SDK's import never slow pytest down.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import openai

ORACLE = "oracle"


@dataclass(frozen=True)
class ModelSettings:
    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float | None = 0.7
    max_tokens: int | None = 1200
    extra_body: dict[str, Any] = field(default_factory=dict)
    timeout: float = 120.0
    max_retries: int = 4
    concurrency: int = 8


@dataclass(frozen=True)
class ChatRequest:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    #: Sampling settings that replace the configured ones for this request (agent loops use their own).
    sampling: dict[str, Any] = field(default_factory=dict)
    #: What the oracle answers: text, or ``{"tool_calls": [...]}``. Never sent, never part of a key.
    reference: Any = field(default=None, compare=False)


@dataclass(frozen=True)
class ChatResponse:
    content: str | None
    finish_reason: str | None = "stop"
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {"id", "name", "arguments"}
    reasoning: str | None = None
    latency_s: float = 0.0


class RequestError(Exception):
    """A request that got no usable answer after the configured retries."""


class Model(Protocol):
    name: str

    def submit(self, request: ChatRequest) -> concurrent.futures.Future[ChatResponse]: ...

    def close(self) -> None: ...


def build_model(settings: ModelSettings) -> Model:
    if settings.model == ORACLE:
        return OracleModel()
    from pytest_toolcall.gateway import GatewayModel

    return GatewayModel(settings)


class OracleModel:
    """Answers every request with its reference, at once and without any network."""

    name = ORACLE

    def submit(self, request: ChatRequest) -> concurrent.futures.Future[ChatResponse]:
        future: concurrent.futures.Future[ChatResponse] = concurrent.futures.Future()
        reference = request.reference
        if isinstance(reference, dict):
            calls = reference.get("tool_calls") or []
            finish = "tool_calls" if calls else "stop"
            future.set_result(ChatResponse(reference.get("content"), finish, list(calls)))
        else:
            future.set_result(ChatResponse(reference))
        return future

    def close(self) -> None:
        pass


class Endpoint:
    """Any OpenAI-compatible endpoint, through ``AsyncOpenAI``: at most ``concurrency`` requests in
    flight, each retried by one policy (the SDK's own retries are off). Runs on whatever event loop
    awaits it; ``gateway.py`` runs it in a process of its own."""

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
                    return _response(await self._create(request), time.perf_counter() - started)
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
        key = self.settings.api_key
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
        return ChatResponse(content, choice.get("finish_reason"), calls, reasoning, latency)
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a chat completion ({type(exc).__name__}: {exc})") from None


def _text(content: Any) -> str | None:
    """Message content as text: some servers send a list of parts."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)
