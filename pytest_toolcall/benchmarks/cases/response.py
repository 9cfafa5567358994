"""The answer a Python test sees (``toolcall_chat`` returns a ``ToolCallResponse``), and the verdict of
an answer of either shape: the plugin's internal ``ChatResponse`` or this public type.

The public type parses each call's arguments once (``arguments``: the JSON value, or None when the
string is not JSON) and keeps the raw string (``raw_arguments``), so a test can inspect either; the
verdict is always computed from the raw string, the way K2-Vendor-Verifier validates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_toolcall.benchmarks.cases.format import Case
from pytest_toolcall.benchmarks.cases.matching import AnswerCall, CaseVerdict, judge, parse_call
from pytest_toolcall.model.types import ChatResponse


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
    for position, call in enumerate(response.tool_calls, start=1):
        if isinstance(call, ToolCall):
            calls.append(parse_call(position, call.name, call.raw_arguments))
        else:
            calls.append(parse_call(position, str(call.get("name")), call.get("arguments")))
    return calls


def judge_response(
    response: ChatResponse | ToolCallResponse, expect: dict[str, Any], tools: list[dict[str, Any]] | None
) -> CaseVerdict:
    """The verdict of an answer against an expectation (assumed valid: see ``format.expect_problem``)."""
    return judge(expect, answer_calls(response), response.content, response.finish_reason, tools)


def judge_case(case: Case, response: ChatResponse | ToolCallResponse) -> CaseVerdict:
    """The verdict of an answer to a loaded case."""
    return judge_response(response, case.expect, case.tools)
