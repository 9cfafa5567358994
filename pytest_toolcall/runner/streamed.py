"""``--toolcall-stream off|on|both``, owned by one object: ``StreamMode`` decides how a unit is asked
(once, or twice: plain and streamed), how it is judged and what its record says of the stream.

``off``: plain requests. ``on``: the model under test is asked with streamed requests only; the
unit's answers are the streamed ones, and one that broke a stream rule fails the item with failure
kind ``stream_protocol``. ``both``: the plan is asked twice; the plain answer is scored as always
(the official numbers) and the streamed one is scored too, the unit failing with failure kind
``stream_mismatch`` when it made other tool calls, got another verdict, or broke a stream rule; the
sample's ``score`` stays the plain answer's, so every metric is what a plain run gives.

What a streamed request is on the wire, and the rules its stream is held to, are the model layer's
(``ModelSettings.stream``: each API's stream reassembled and checked there, its broken rules in
``ChatResponse.stream_problems``): this module never looks at a wire format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_toolcall.core.protocol.benchmark import Benchmark, Unit, Verdict
from pytest_toolcall.core.protocol.failure_kinds import STREAM_MISMATCH, STREAM_PROTOCOL
from pytest_toolcall.core.protocol.types import ChatResponse, RequestError, Role


@dataclass(frozen=True)
class Asking:
    """One way a unit's plan is asked."""

    #: The model under test is asked with streamed requests (a user simulator or a judge never is:
    #: they are not measured).
    streamed: bool
    #: Its answer is the unit's score; the other asking's is only compared with it.
    scored: bool

    def streams(self, role: Role) -> bool:
        """Whether a request of this asking to the model of ``role`` is streamed."""
        return self.streamed and role is Role.MODEL


@dataclass(frozen=True)
class Asked:
    """What one asking got: the answer (or the ``RequestError`` it ended in) and every response it
    was made of."""

    answer: Any
    responses: list[ChatResponse]


@dataclass(frozen=True)
class Judged:
    """The verdicts of a unit under the stream mode."""

    #: The verdict whose outcome is the sample's score.
    scored: Verdict
    #: The item's verdict: ``scored``, or a failure of the stream (``stream_protocol``, ``stream_mismatch``).
    item: Verdict
    #: The sample's ``stream`` entry; None under ``off``.
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class StreamMode:
    """``--toolcall-stream``: how each unit is asked, judged and recorded."""

    name: str
    askings: tuple[Asking, ...]

    MODES: ClassVar[tuple[str, ...]] = ("off", "on", "both")

    @classmethod
    def of(cls, name: str) -> StreamMode:
        askings = {
            "off": (Asking(streamed=False, scored=True),),
            "on": (Asking(streamed=True, scored=True),),
            "both": (Asking(streamed=False, scored=True), Asking(streamed=True, scored=False)),
        }
        return cls(name, askings[name])

    @property
    def scored(self) -> Asking:
        """The asking whose answer is scored (and how a user's own test asks)."""
        return self.askings[0]

    @property
    def compares(self) -> bool:
        """Whether a second asking is compared with the scored one (``both``)."""
        return len(self.askings) > 1

    def judge(
        self, benchmark: Benchmark, unit: Unit, verdict: Verdict, scored: Asked, compared: Asked | None
    ) -> Judged:
        """The verdicts of a unit whose scored answer got ``verdict``; ``compared``: what the other
        asking of ``both`` got (None when it was not asked)."""
        if self.name == "on":
            return judge_on(verdict, scored.responses)
        if self.compares and compared is not None:
            return judge_both(benchmark, unit, verdict, scored.responses, compared)
        return Judged(verdict, verdict)


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


def judge_on(verdict: Verdict, responses: list[ChatResponse]) -> Judged:
    """``on``: the verdict, or a failure naming the stream rules broken (scored as such)."""
    problems = problems_of(responses)
    stream: dict[str, Any] = {
        "outcome": "failed" if problems or not verdict.passed else "passed",
        "failure_kind": STREAM_PROTOCOL if problems else _kind(verdict),
        "tool_calls": calls_of(responses),
    }
    if not problems:
        return Judged(verdict, verdict, stream)
    stream["problems"] = problems
    brief = f"{STREAM_PROTOCOL}: {problems[0]}"
    message = "\n  ".join([brief, *problems[1:]])
    fields = {**verdict.fields, "failure_kind": STREAM_PROTOCOL}
    failed = Verdict(False, message, fields, brief=brief)
    return Judged(failed, failed, stream)


def judge_both(
    benchmark: Benchmark, unit: Unit, verdict: Verdict, plain: list[ChatResponse], streamed: Asked
) -> Judged:
    """``both``: the plain verdict is scored; the item fails when the streamed answer does not agree
    with the plain one, saying how."""
    plain_calls = calls_of(plain)
    if isinstance(streamed.answer, RequestError):
        stream: dict[str, Any] = {"outcome": "error", "failure_kind": None, "tool_calls": None}
        detail = f"the streamed request got no answer: {streamed.answer}"
        return _mismatch(stream, verdict, "error", detail, plain_calls, None)
    other = benchmark.score(unit, streamed.answer)
    problems = problems_of(streamed.responses)
    streamed_calls = calls_of(streamed.responses)
    stream = {
        "outcome": "passed" if other.passed and not problems else "failed",
        "failure_kind": STREAM_PROTOCOL if problems else _kind(other),
        "tool_calls": streamed_calls,
    }
    if problems:
        stream["problems"] = problems
        return _mismatch(stream, verdict, STREAM_PROTOCOL, "; ".join(problems), plain_calls, streamed_calls)
    if streamed_calls != plain_calls:
        return _mismatch(stream, verdict, "tool_calls", "other tool calls", plain_calls, streamed_calls)
    if other.passed != verdict.passed:
        said = f"plain {'passed' if verdict.passed else 'failed'}, streamed {'passed' if other.passed else 'failed'}"
        reason = other.brief or other.message.split("\n", 1)[0] if not other.passed else ""
        return _mismatch(stream, verdict, "verdict", f"{said}{': ' + reason if reason else ''}", plain_calls, None)
    return Judged(verdict, verdict, stream)


def _mismatch(
    stream: dict[str, Any],
    verdict: Verdict,
    kind: str,
    detail: str,
    plain_calls: list[Any],
    streamed_calls: list[Any] | None,
) -> Judged:
    stream["mismatch"] = {"kind": kind, "detail": detail}
    if verdict.fields.get("failure_kind"):
        stream["plain_failure_kind"] = verdict.fields["failure_kind"]
    lines = [f"{STREAM_MISMATCH} ({kind}): the streamed answer differs from the plain one: {detail}"]
    lines.append(f"  plain:    {json.dumps(plain_calls, ensure_ascii=False)[:2000]}")
    if streamed_calls is not None:
        lines.append(f"  streamed: {json.dumps(streamed_calls, ensure_ascii=False)[:2000]}")
    if not verdict.passed:
        lines.append(f"  (the plain answer failed too: {verdict.brief or verdict.message.splitlines()[0]})")
    fields = {**verdict.fields, "failure_kind": STREAM_MISMATCH}
    return Judged(verdict, Verdict(False, "\n".join(lines), fields, brief=lines[0]), stream)
