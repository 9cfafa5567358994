"""Streamed answers judged (``--toolcall-stream on|both``): the stream rules a unit's answers broke,
and under ``both`` whether the streamed answer of a unit says what the plain one says.

``on``: the unit's answers are the streamed ones; one that broke a stream rule fails the item with
failure kind ``stream_protocol``. ``both``: the plain answer is scored as always (the official
numbers); the streamed one is scored too, and the unit fails with failure kind ``stream_mismatch``
when it made other tool calls, got another verdict, or broke a stream rule. The sample's ``score``
and ``outcome`` stay the plain answer's, so every metric is what a plain run gives.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_toolcall.core.protocol.benchmark import Benchmark, Unit, Verdict
from pytest_toolcall.core.protocol.failure_kinds import STREAM_MISMATCH, STREAM_PROTOCOL
from pytest_toolcall.core.protocol.types import ChatResponse, RequestError


def calls_of(responses: list[ChatResponse]) -> list[list[dict[str, Any]]]:
    """The tool calls of each answer, as compared: name and arguments (parsed when they are JSON;
    call ids differ between any two answers and are left out)."""
    return [
        [{"name": c.get("name"), "arguments": _parsed(c.get("arguments"))} for c in r.tool_calls] for r in responses
    ]


def _parsed(arguments: Any) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def problems_of(responses: list[ChatResponse]) -> list[str]:
    """Every stream rule the answers broke, each naming the answer (when there are several)."""
    out = []
    for number, response in enumerate(responses, 1):
        prefix = f"answer {number}: " if len(responses) > 1 else ""
        out += [prefix + p for p in response.stream_problems]
    return out


def _kind(verdict: Verdict) -> str | None:
    kind = verdict.fields.get("failure_kind") or verdict.fields.get("error_type")
    return None if verdict.passed else (str(kind) if kind else "failed")


def judge_on(verdict: Verdict, responses: list[ChatResponse], record: dict[str, Any]) -> Verdict:
    """``on``: the verdict, or a failure naming the stream rules broken."""
    problems = problems_of(responses)
    record["stream"] = {
        "outcome": "failed" if problems or not verdict.passed else "passed",
        "failure_kind": STREAM_PROTOCOL if problems else _kind(verdict),
        "tool_calls": calls_of(responses),
    }
    if not problems:
        return verdict
    record["stream"]["problems"] = problems
    brief = f"{STREAM_PROTOCOL}: {problems[0]}"
    message = "\n  ".join([brief, *problems[1:]])
    fields = {**verdict.fields, "failure_kind": STREAM_PROTOCOL}
    return Verdict(False, message, fields, brief=brief)


def judge_both(
    benchmark: Benchmark,
    unit: Unit,
    verdict: Verdict,
    plain: list[ChatResponse],
    streamed: tuple[Any, list[ChatResponse]] | RequestError,
    record: dict[str, Any],
) -> Verdict | None:
    """``both``: None when the streamed answer agrees with the plain one, else the failure that says
    how (``record["stream"]`` is filled either way)."""
    plain_calls = calls_of(plain)
    if isinstance(streamed, RequestError):
        record["stream"] = {"outcome": "error", "failure_kind": None, "tool_calls": None}
        return _mismatch(record, verdict, "error", f"the streamed request got no answer: {streamed}", plain_calls, None)
    answer, responses = streamed
    other = benchmark.score(unit, answer)
    problems = problems_of(responses)
    streamed_calls = calls_of(responses)
    record["stream"] = {
        "outcome": "passed" if other.passed and not problems else "failed",
        "failure_kind": STREAM_PROTOCOL if problems else _kind(other),
        "tool_calls": streamed_calls,
    }
    if problems:
        record["stream"]["problems"] = problems
        return _mismatch(record, verdict, STREAM_PROTOCOL, "; ".join(problems), plain_calls, streamed_calls)
    if streamed_calls != plain_calls:
        return _mismatch(record, verdict, "tool_calls", "other tool calls", plain_calls, streamed_calls)
    if other.passed != verdict.passed:
        said = f"plain {'passed' if verdict.passed else 'failed'}, streamed {'passed' if other.passed else 'failed'}"
        reason = other.brief or other.message.split("\n", 1)[0] if not other.passed else ""
        return _mismatch(record, verdict, "verdict", f"{said}{': ' + reason if reason else ''}", plain_calls, None)
    return None


def _mismatch(
    record: dict[str, Any],
    verdict: Verdict,
    kind: str,
    detail: str,
    plain_calls: list[Any],
    streamed_calls: list[Any] | None,
) -> Verdict:
    record["stream"]["mismatch"] = {"kind": kind, "detail": detail}
    if verdict.fields.get("failure_kind"):
        record["stream"]["plain_failure_kind"] = verdict.fields["failure_kind"]
    lines = [f"{STREAM_MISMATCH} ({kind}): the streamed answer differs from the plain one: {detail}"]
    lines.append(f"  plain:    {json.dumps(plain_calls, ensure_ascii=False)[:2000]}")
    if streamed_calls is not None:
        lines.append(f"  streamed: {json.dumps(streamed_calls, ensure_ascii=False)[:2000]}")
    if not verdict.passed:
        lines.append(f"  (the plain answer failed too: {verdict.brief or verdict.message.splitlines()[0]})")
    fields = {**verdict.fields, "failure_kind": STREAM_MISMATCH}
    return Verdict(False, "\n".join(lines), fields, brief=lines[0])
