"""The answer a Python test sees (``toolcall_chat`` returns a ``ToolCallResponse``), and the verdict of
an answer of either shape: the plugin's internal ``ChatResponse`` or this public type.

The public type parses each call's arguments once (``arguments``: the JSON value, or None when the
string is not JSON) and keeps the raw string (``raw_arguments``), so a test can inspect either; the
verdict is always computed from the raw string, the way K2-Vendor-Verifier validates it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.api import REASONING_ONLY, UNEXPECTED_STATUS, ChatResponse
from pytest_toolcall.api.text import clip
from pytest_toolcall.benchmarks.cases import checks
from pytest_toolcall.benchmarks.cases.format import Case
from pytest_toolcall.benchmarks.cases.matching import AnswerCall, CaseVerdict, describe_answer, judge, parse_call


@dataclass(frozen=True)
class ToolCall:
    id: str | None
    name: str
    arguments: Any  # the parsed JSON (usually a dict); None when the raw string is not JSON
    raw_arguments: str  # exactly what the API returned


@dataclass(frozen=True)
class ToolCallResponse:
    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: dict[str, int] | None = None  # {"prompt_tokens", "completion_tokens"} when the server reported it
    reasoning: str | None = None
    latency_s: float = 0.0

    @classmethod
    def from_chat_response(cls, response: ChatResponse, usage: dict[str, int] | None = None) -> ToolCallResponse:
        """``ChatResponse`` carries no usage; the caller that has it passes it along."""
        calls = tuple(_public_call(call, position) for position, call in enumerate(response.tool_calls, start=1))
        return cls(response.content, calls, response.finish_reason, usage, response.reasoning, response.latency_s)

    def to_message(self) -> dict[str, Any]:
        """This answer as the assistant message of the OpenAI chat format, to send back in the next
        request of a conversation (the raw argument strings, exactly as received)."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id or f"call_{position}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.raw_arguments},
                }
                for position, call in enumerate(self.tool_calls, start=1)
            ]
        return message


class OracleResponse(ToolCallResponse):
    """The oracle's answer to a Python test's request. The oracle answers an expectation, and a test
    states its expectation only when it asserts: the answer is settled by the first
    ``assert_tool_calls`` (or ``check_tool_calls``) it meets, as the oracle's answer to that ``expect``.
    Read before any assertion, it is settled as a text answer (the oracle's answer to ``no_call``)."""

    _tools: list[dict[str, Any]] | None
    _settled: ToolCallResponse | None

    def __init__(self, tools: list[dict[str, Any]] | None) -> None:  # no dataclass __init__: fields are read lazily
        object.__setattr__(self, "_tools", tools)
        object.__setattr__(self, "_settled", None)

    def settle(self, expect: dict[str, Any], tools: list[dict[str, Any]] | None) -> None:
        """Become the oracle's answer to ``expect`` (the first alternative of ``any_of``; a schema-valid
        call for ``should_call_tool: true``); once settled, an answer never changes."""
        if self._settled is not None:
            return
        from pytest_toolcall.benchmarks.cases.oracle import OracleError, oracle_reply

        offered = tools if tools is not None else self._tools or []
        try:
            reply = oracle_reply(expect, offered)
        except OracleError as exc:
            reply = {"content": f"[the oracle cannot answer this expectation: {exc}]"}
        calls = reply.get("tool_calls") or []
        chat = ChatResponse(reply.get("content"), "tool_calls" if calls else "stop", list(calls))
        object.__setattr__(self, "_settled", ToolCallResponse.from_chat_response(chat))

    def _answer(self) -> ToolCallResponse:
        if self._settled is None:
            self.settle({"no_call": True}, None)
        assert self._settled is not None  # settled now, whatever the expectation
        return self._settled

    @property
    def content(self) -> str | None:
        return self._answer().content

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self._answer().tool_calls

    @property
    def finish_reason(self) -> str | None:
        return self._answer().finish_reason


def _public_call(call: dict[str, Any], position: int) -> ToolCall:
    raw = call.get("arguments")
    parsed = parse_call(position, str(call.get("name")), raw)
    raw_text = raw if isinstance(raw, str) else _json_text(raw)
    return ToolCall(call.get("id"), str(call.get("name")), None if parsed.parse_error else parsed.arguments, raw_text)


def _json_text(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def answer_calls(response: ChatResponse | ToolCallResponse) -> list[AnswerCall]:
    """The calls of either response shape, parsed for the matcher."""
    calls: list[AnswerCall] = []
    tool_calls: Sequence[ToolCall | dict[str, Any]] = response.tool_calls
    for position, call in enumerate(tool_calls, start=1):
        if isinstance(call, ToolCall):
            calls.append(parse_call(position, call.name, call.raw_arguments))
        else:
            calls.append(parse_call(position, str(call.get("name")), call.get("arguments")))
    return calls


def judge_response(
    response: ChatResponse | ToolCallResponse,
    expect: dict[str, Any],
    tools: list[dict[str, Any]] | None,
    settings: dict[str, Any] | None = None,
) -> CaseVerdict:
    """The verdict of an answer against an expectation (assumed valid: see ``format.expect_problem``).

    Two rules come before the calls: ``expect.status`` wants the request refused with that HTTP status
    (an answer is the failure ``unexpected_status``); and an answer that is reasoning alone, with
    neither text nor a tool call, fails as ``reasoning_only`` whatever was expected. The expectations
    beside the calls (``checks.py``) come after them; ``settings``: the case's (``response_format``)."""
    status = getattr(response, "status", 200)
    wanted = expect.get("status")
    if wanted is not None or status != 200:
        if status == wanted:
            return CaseVerdict(True, None, "")
        said = (
            f"HTTP {status}: {clip(response.content)}"
            if status != 200
            else describe_answer(answer_calls(response), response.content)
        )
        expected = f"HTTP {wanted}" if wanted is not None else "an answer"
        return CaseVerdict(False, UNEXPECTED_STATUS, f"{UNEXPECTED_STATUS}: expected {expected}, got {said}")
    calls = answer_calls(response)
    if not calls and not (response.content or "").strip() and (response.reasoning or "").strip():
        return CaseVerdict(
            False,
            REASONING_ONLY,
            f"{REASONING_ONLY}: the answer is reasoning alone, with no text and no tool call: "
            f"{clip(response.reasoning)}",
        )
    verdict = judge(expect, calls, response.content, response.finish_reason, tools)
    if not verdict.passed:
        return verdict
    raw = [(call.name, call.raw_arguments) for call in calls]
    beside = checks.check(expect, response.content, raw, response.usage, tools, settings)
    if beside is None:
        return verdict
    kind, message = beside
    return CaseVerdict(False, kind, f"{message}\nanswer: {describe_answer(calls, response.content)}", verdict.calls)


def judge_case(case: Case, response: ChatResponse | ToolCallResponse) -> CaseVerdict:
    """The verdict of an answer to a loaded case."""
    return judge_response(response, case.expect, case.tools, case.settings)
