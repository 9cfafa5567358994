"""What a model is to the rest of the plugin: requests in, futures of responses out.

The vocabulary of the protocol, shared by the runner, the benchmarks and the model clients. Callers
submit requests and collect futures: many are in flight while pytest's own thread only ever waits. A
real endpoint is served by a child process (``model/sdk_process.py`` on this side,
``model/sdk_server.py`` there) so that the SDK's import and CPU cost never slow pytest down; the
oracle (``model/oracle.py``) answers at once.
"""

from __future__ import annotations

import concurrent.futures
import enum
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ModelSettings:
    """What the SDK process needs to ask one model; the values come from the resolved options."""

    model: str
    base_url: str | None
    api_key: str | None = field(repr=False)
    temperature: float | None
    max_tokens: int | None
    extra_body: dict[str, Any]
    timeout: float
    max_retries: int
    concurrency: int
    #: The environment variable the key came from ("" for an endpoint that needs none): named in advice.
    api_key_env: str | None = None
    #: Ask with ``stream: true`` and reassemble the answer from its deltas (``--toolcall-stream``).
    stream: bool = False
    #: The wire format: ``chat`` (Chat Completions), ``responses`` or ``messages`` (``--toolcall-api``).
    api: str = "chat"


@dataclass(frozen=True)
class ChatRequest:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    #: Sampling settings that replace the configured ones for this request (agent loops use their own).
    sampling: dict[str, Any] = field(default_factory=dict)
    #: What the oracle answers: text, or ``{"tool_calls": [...]}``. Never sent, never part of a key.
    reference: Any = field(default=None, compare=False)
    #: Which unit, attempt and step asks (``benchmark/unit key/attempt/step``): never sent, part of the
    #: store key, so that identical requests of two units (or two attempts) get answers of their own.
    identity: str | None = field(default=None, compare=False)
    #: An HTTP error answer (a 4xx other than 429) is the answer (``ChatResponse.status``), not a failed
    #: request: the serving contract's probes expect some (``tool_choice: required`` with no tools).
    answer_errors: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class ChatResponse:
    content: str | None
    finish_reason: str | None = "stop"
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {"id", "name", "arguments"}
    reasoning: str | None = None
    latency_s: float = 0.0
    #: The endpoint's ``usage``: ``prompt_tokens``, ``completion_tokens`` and, where given,
    #: ``cached_tokens`` and ``reasoning_tokens``; None when it sent none.
    usage: dict[str, int] | None = None
    #: Retries before this answer came (429, 5xx, resets...).
    retries: int = 0
    #: Answered by the response store: nothing was sent this time.
    from_store: bool = False
    #: When the store kept the answer (seconds since the epoch), for an answer from the store.
    stored_at: float | None = None
    #: The HTTP status: 200, or the 4xx of an error answer a request with ``answer_errors`` accepts
    #: (``content`` is then the error's message).
    status: int = 200
    #: The stream rules a streamed answer broke, each ``"<rule> at chunk <n>: <detail>"``.
    stream_problems: list[str] = field(default_factory=list)
    #: Seconds from sending a streamed request to its first event (None: not streamed); like
    #: ``latency_s``, of the attempt that answered.
    ttft_s: float | None = None
    #: Seconds the request waited for a free slot of ``--toolcall-concurrency`` before it was sent:
    #: not part of ``latency_s``.
    queue_s: float = 0.0
    #: The message carried ``"tool_calls": []`` (an empty list, as vLLM and SGLang send with a text
    #: turn) rather than null or nothing: ``tool_calls`` is empty either way, and a benchmark whose
    #: official handler reads the two differently (BFCL) asks this.
    empty_tool_calls: bool = False


class RequestError(Exception):
    """A request that got no usable answer after the configured retries."""


class FatalRequestError(RequestError):
    """An answer no retry and no other request can change (a bad key, an unknown model or endpoint):
    the run stops sending; the message says what to check."""


class Role(enum.Enum):
    """Whom a model plays in a run; each role's model is configured by its own options."""

    #: The model under test (``--toolcall-model``): the one measured, streamed under ``--toolcall-stream``.
    MODEL = "model"
    #: The user simulator of dialogues (``--toolcall-user-model``).
    USER = "user"
    #: The judge of what no rule can score (``--toolcall-judge-model``).
    JUDGE = "judge"


class ModelClient(Protocol):
    """What answers requests, whoever asks: an endpoint's client, the response store in front of it."""

    name: str

    def submit(self, request: ChatRequest) -> concurrent.futures.Future[ChatResponse]: ...

    def close(self) -> None: ...


class Model(ModelClient, Protocol):
    """A model as a plan or a test gets it: it carries the role it plays, and whether it is the
    built-in oracle (which answers each request with the request's ``reference``)."""

    role: Role
    #: Answers with the references of the requests: attach them (only) when this is true.
    oracle: bool
