"""The rules of a case: an answer's tool calls against an ``expect`` of the case-file syntax.

First every call of the answer must be valid, whatever the expectation (K2-Vendor-Verifier's rule,
through ``validate_tool_calls``): a declared tool, arguments that are a JSON object, valid against the
tool's ``parameters``. Then the expectation decides. ``calls`` is a multiset comparison solved as a
maximum bipartite matching, never greedily: with two calls to the same tool, the first expected call
must not take the answer's call that only the second one accepts. What is left unmatched is then
paired by tool name, only to explain what differed argument by argument.

The verdict names one failure kind (docs/contract.md, "Failure kinds"); a failing answer cut by the token limit
is ``truncated`` and one whose missing calls were written into the text is ``tool_markup_in_text``,
because these say more about what to fix than the kind underneath (kept in the message).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.api import (
    EXTRA_CALL,
    INVALID_JSON,
    MISSING_CALL,
    NO_CALL,
    SCHEMA_VIOLATION,
    TOOL_MARKUP_IN_TEXT,
    TRUNCATED,
    UNEXPECTED_CALL,
    UNKNOWN_TOOL_KIND,
    WRONG_ORDER,
    WRONG_VALUE,
    has_tool_markup,
    patterns,
)
from pytest_toolcall.api.native import JSON_DECODE, SCHEMA_ERROR, UNKNOWN_TOOL, compile_schema, validate_tool_calls
from pytest_toolcall.api.text import clip, name

DEFAULT_TOLERANCE = 1e-6  # for {$approx: x} without $tol


@dataclass(frozen=True)
class CallReport:
    """What happened to one call: of the answer (``position`` 1-based) or, when missing, of the expectation."""

    position: int | None  # in the answer; None for an expected call the answer lacks
    name: str
    kind: str | None  # None when the call is valid and (for ``calls``) matched
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseVerdict:
    passed: bool
    failure_kind: str | None  # None when passed
    message: str  # "" when passed; otherwise the kind, then what differed, one line each
    calls: tuple[CallReport, ...] = ()


@dataclass(frozen=True)
class AnswerCall:
    """A call of the answer, its arguments parsed once."""

    position: int
    name: str
    raw_arguments: Any  # the string from the API (an object when a server sent one)
    arguments: Any = None  # the parsed JSON, when ``parse_error`` is ""
    parse_error: str = ""


@dataclass
class _Outcome:
    kind: str | None
    lines: list[str] = field(default_factory=list)
    reports: list[CallReport] = field(default_factory=list)


def judge(
    expect: dict[str, Any],
    calls: list[AnswerCall],
    content: str | None,
    finish_reason: str | None,
    tools: list[dict[str, Any]] | None,
) -> CaseVerdict:
    """The verdict of an answer. ``tools`` None (a Python test that gave none) skips the checks that need
    declarations (unknown tool, schema); the arguments must still be a JSON object."""
    invalid = [report for call in calls if (report := _validity(call, tools)) is not None]
    outcome = _judge(expect, calls, invalid)
    limit = expect.get("max_calls")
    if outcome.kind is None and limit is not None and len(calls) > limit:
        names = ", ".join(c.name for c in calls)
        outcome = _Outcome(EXTRA_CALL, [f"{len(calls)} tool calls ({names}), at most {limit} expected (max_calls)"])
    if outcome.kind is None:
        return CaseVerdict(True, None, "", tuple(CallReport(c.position, c.name, None) for c in calls))
    kind = outcome.kind
    lines = list(outcome.lines)
    if finish_reason == "length":
        kind, lines = (
            TRUNCATED,
            [f"the answer was cut by the token limit (finish_reason 'length'); {outcome.kind}:"]
            + ["  " + line for line in lines],
        )
    elif kind in (NO_CALL, MISSING_CALL) and has_tool_markup(content, _tool_names(expect, tools)):
        kind = TOOL_MARKUP_IN_TEXT
        lines = ["the text contains tool-call syntax instead of a native tool call:", *lines]
    lines.append(f"answer: {describe_answer(calls, content)}")
    return CaseVerdict(False, kind, f"{kind}: " + "\n".join(lines), tuple(outcome.reports))


def parse_call(position: int, name: str, raw_arguments: Any) -> AnswerCall:
    if not isinstance(raw_arguments, str):  # a server that sent an object: taken as it is, like K2VV does
        return AnswerCall(position, name, raw_arguments, raw_arguments)
    try:
        return AnswerCall(position, name, raw_arguments, json.loads(raw_arguments))
    except (ValueError, RecursionError) as exc:
        return AnswerCall(position, name, raw_arguments, None, str(exc) or type(exc).__name__)


# ---- validity -------------------------------------------------------------------------------------


def _validity(call: AnswerCall, tools: list[dict[str, Any]] | None) -> CallReport | None:
    label = f"call {call.position} {name(call.name)}"
    if tools is not None:
        failure = validate_tool_calls(tools, [{"name": call.name, "arguments": call.raw_arguments}])
        if failure is not None and failure.kind == UNKNOWN_TOOL:
            declared = ", ".join(t["function"]["name"] for t in tools) or "none"
            return CallReport(
                call.position, call.name, UNKNOWN_TOOL_KIND, (f"{label}: unknown tool (declared: {declared})",)
            )
    else:
        failure = None
    if call.parse_error or (failure is not None and failure.kind == JSON_DECODE):
        problem = f"{label}: arguments are not valid JSON ({call.parse_error}): {clip(call.raw_arguments)}"
        return CallReport(call.position, call.name, INVALID_JSON, (problem,))
    if not isinstance(call.arguments, dict):
        problem = f"{label}: arguments are not a JSON object: {clip(call.raw_arguments)}"
        return CallReport(call.position, call.name, INVALID_JSON, (problem,))
    if failure is None:
        return None
    if failure.kind == SCHEMA_ERROR:
        problem = f"{label}: {_schema_violation(tools or [], call, failure.message)}"
    else:  # the schema itself could not be used (e.g. an unresolvable $ref): no call to this tool is valid
        problem = failure.message
    return CallReport(call.position, call.name, SCHEMA_VIOLATION, (problem,))


def _schema_violation(tools: list[dict[str, Any]], call: AnswerCall, failure_message: str) -> str:
    """The violation as jsonschema's best match reports it, with its JSON path (``$.unit``)."""
    from jsonschema.exceptions import best_match

    function = next(t["function"] for t in tools if t["function"]["name"] == call.name)
    try:
        error = best_match(compile_schema(function["parameters"]).validator.iter_errors(call.arguments))
        if error is not None:
            return f"schema violation at {error.json_path}: {clip(error.message, 200)}"
    except Exception:  # as validate_tool_calls, which found the violation: e.g. nesting beyond recursion
        pass
    return f"schema violation: {failure_message}"


# ---- the expectation ------------------------------------------------------------------------------


def _judge(expect: dict[str, Any], calls: list[AnswerCall], invalid: list[CallReport]) -> _Outcome:
    if "any_of" in expect:
        return _any_of(expect["any_of"], calls, invalid)
    if expect.get("no_call") or expect.get("should_call_tool") is False:
        if not calls:
            return _Outcome(None)
        names = ", ".join(name(c.name) for c in calls)
        reports = [CallReport(c.position, c.name, UNEXPECTED_CALL) for c in calls]
        return _Outcome(UNEXPECTED_CALL, [f"expected no tool call, got {len(calls)}: {names}"], reports)
    if not calls:
        if "calls" in expect:
            wanted = ", ".join(c["name"] for c in expect["calls"])
            return _Outcome(NO_CALL, [f"expected {len(expect['calls'])} tool call(s) ({wanted}), got none"])
        return _Outcome(NO_CALL, ["expected a tool call, got none"])
    if invalid:
        reports = invalid + [
            CallReport(c.position, c.name, None) for c in calls if c.position not in {r.position for r in invalid}
        ]
        lines = [problem for report in invalid for problem in report.problems]
        return _Outcome(invalid[0].kind, lines, sorted(reports, key=lambda r: r.position or 0))
    if "calls" not in expect:  # should_call_tool: true, and every call is valid
        return _Outcome(None)
    return _compare_calls(expect["calls"], calls, bool(expect.get("ordered")), bool(expect.get("allow_extra")))


def _any_of(alternatives: list[dict[str, Any]], calls: list[AnswerCall], invalid: list[CallReport]) -> _Outcome:
    outcomes = [_judge(alternative, calls, invalid) for alternative in alternatives]
    if any(outcome.kind is None for outcome in outcomes):
        return _Outcome(None)
    lines = [f"none of the {len(alternatives)} alternatives passed:"]
    for number, outcome in enumerate(outcomes, start=1):
        lines.append(f"  alternative {number} ({outcome.kind}):")
        lines.extend("    " + line for line in outcome.lines)
    return _Outcome(outcomes[0].kind, lines, outcomes[0].reports)


def _compare_calls(
    expected: list[dict[str, Any]], calls: list[AnswerCall], ordered: bool, allow_extra: bool
) -> _Outcome:
    diffs = [[_call_diffs(e, a, allow_extra) for a in calls] for e in expected]
    accepts = [[j for j, d in enumerate(row) if d == []] for row in diffs]
    matched = _maximum_matching(accepts, len(calls))  # expected index -> answer index
    if len(matched) == len(expected) == len(calls):
        if not ordered or all(diffs[i][i] == [] for i in range(len(expected))):
            return _Outcome(None)
        want = ", ".join(e["name"] for e in expected)
        got = ", ".join(c.name for c in calls)
        reports = [
            CallReport(c.position, c.name, WRONG_ORDER if diffs[i][i] != [] else None) for i, c in enumerate(calls)
        ]
        return _Outcome(
            WRONG_ORDER, [f"the calls are right but not in the expected order: expected {want}; got {got}"], reports
        )
    return _explain(expected, calls, diffs, matched)


def _explain(
    expected: list[dict[str, Any]], calls: list[AnswerCall], diffs: list[list[list[str]]], matched: dict[int, int]
) -> _Outcome:
    """Pairs what is left unmatched by tool name (fewest differences first) to say what differed."""
    free_answers = [j for j in range(len(calls)) if j not in matched.values()]
    reports = {calls[j].position: CallReport(calls[j].position, calls[j].name, None) for j in matched.values()}
    missing: list[CallReport] = []
    lines: list[str] = []
    kinds: list[str] = []
    for i in (i for i in range(len(expected)) if i not in matched):
        candidates = [j for j in free_answers if calls[j].name == expected[i]["name"]]
        if candidates:
            j = min(candidates, key=lambda j: len(diffs[i][j]))
            free_answers.remove(j)
            lines.append(f"call {calls[j].position} {name(calls[j].name)} (expected call {i + 1}):")
            lines.extend("  " + d for d in diffs[i][j])
            reports[calls[j].position] = CallReport(calls[j].position, calls[j].name, WRONG_VALUE, tuple(diffs[i][j]))
            kinds.append(WRONG_VALUE)
        else:
            lines.append(f"missing call {i + 1}: {_show_call(expected[i])}")
            kinds.append(MISSING_CALL)
            missing.append(CallReport(None, expected[i]["name"], MISSING_CALL))
    for j in free_answers:
        call = calls[j]
        again = any(e["name"] == call.name for e in expected)
        lines.append(
            f"extra call {call.position} {name(call.name)}{' (one more than expected)' if again else ''}: "
            f"{clip(call.raw_arguments)}"
        )
        reports[call.position] = CallReport(call.position, call.name, EXTRA_CALL)
        kinds.append(EXTRA_CALL)
    kind = next(k for k in (WRONG_VALUE, MISSING_CALL, EXTRA_CALL) if k in kinds)
    return _Outcome(kind, lines, [reports[p] for p in sorted(reports)] + missing)


def _maximum_matching(accepts: list[list[int]], n_answers: int) -> dict[int, int]:
    """Kuhn's augmenting paths: a maximum matching of expected calls to the answer's calls they accept."""
    owner: list[int | None] = [None] * n_answers  # answer index -> expected index

    def augment(i: int, visited: set[int]) -> bool:
        for j in accepts[i]:
            if j in visited:
                continue
            visited.add(j)
            if owner[j] is None or augment(owner[j], visited):  # type: ignore[arg-type]
                owner[j] = i
                return True
        return False

    for i in range(len(accepts)):
        augment(i, set())
    return {i: j for j, i in enumerate(owner) if i is not None}


# ---- arguments ------------------------------------------------------------------------------------


def _call_diffs(expected: dict[str, Any], call: AnswerCall, allow_extra: bool) -> list[str]:
    """Every difference between an expected call and a (valid) answer call; [] when it matches."""
    if call.name != expected["name"]:
        return [f"{call.name}: expected tool {expected['name']!r}, got {call.name!r}"]
    return value_diffs(expected.get("arguments") or {}, call.arguments, call.name, allow_extra)


def value_diffs(expected: Any, actual: Any, path: str, allow_extra: bool = False) -> list[str]:
    """The differences between an expected value (plain JSON or matcher) and an actual one, at ``path``."""
    if is_matcher(expected):
        problem = _matcher_problem(expected, actual)
        return [f"{path}: {problem}, got {show(actual)}"] if problem else []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object {show(expected)}, got {show(actual)}"]
        found: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing (expected {_show_expected(value)})")
            else:
                found.extend(value_diffs(value, actual[key], f"{path}.{key}", allow_extra))
        if not allow_extra:
            found.extend(
                f"{path}.{key}: not expected, got {show(actual[key])}" for key in actual if key not in expected
            )
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {show(expected)}, got {show(actual)}"]
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in value_diffs(e, a, f"{path}[{i}]", allow_extra)
        ]
    if json_equal(expected, actual):
        return []
    return [f"{path}: expected {show(expected)}, got {show(actual)}"]


def is_matcher(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(k, str) and k.startswith("$") for k in value)


def _matcher_problem(matcher: dict[str, Any], actual: Any) -> str:
    """What the actual value lacks, or "" when it satisfies the matcher."""
    if "$any" in matcher:
        return ""
    if "$regex" in matcher:
        pattern = matcher["$regex"]
        if not isinstance(actual, str):
            return f"expected a string matching {pattern!r}"
        try:  # the text is the model's: matched in bounded time (re's verdicts), see core/safety/patterns.py
            if patterns.fullmatch(pattern, actual):
                return ""
        except patterns.PatternTimeout:
            return f"expected a string matching {pattern!r} (not decided within {patterns.FALLBACK_SECONDS:g}s)"
        return f"expected a string matching {pattern!r}"
    if "$one_of" in matcher:
        options = matcher["$one_of"]
        return "" if any(json_equal(option, actual) for option in options) else f"expected one of {show(options)}"
    target, tolerance = matcher["$approx"], matcher.get("$tol", DEFAULT_TOLERANCE)
    if _is_number(actual) and math.isfinite(actual) and abs(actual - target) <= tolerance:
        return ""
    return f"expected {show(target)} ± {show(tolerance)}"


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value (``100 == 100.0``), but a boolean is never a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is bool and type(b) is bool and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---- text -----------------------------------------------------------------------------------------


def _tool_names(expect: dict[str, Any], tools: list[dict[str, Any]] | None) -> list[str]:
    declared = [t["function"]["name"] for t in tools or []]
    return list(dict.fromkeys([*declared, *(c["name"] for c in _expected(expect))]))


def _expected(expect: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(expect.get("calls") or [])
    for alternative in expect.get("any_of") or []:
        found.extend(_expected(alternative))
    return found


def show(value: Any) -> str:
    """A value for a message: strings as Python shows them (``'Lyon'``), the rest as JSON."""
    try:
        return clip(repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        try:
            return clip(repr(value))
        except RecursionError:  # a model's arguments nested beyond what repr can walk
            return f"<{type(value).__name__} nested too deep to show>"


def _show_expected(value: Any) -> str:
    if is_matcher(value):
        return json.dumps(value, ensure_ascii=False)
    return show(value)


def _show_call(call: dict[str, Any]) -> str:
    return f"{call['name']}({clip(json.dumps(call.get('arguments') or {}, ensure_ascii=False))})"


def describe_answer(calls: list[AnswerCall], content: str | None) -> str:
    if calls:
        return "; ".join(
            f"{name(c.name)}({clip(c.raw_arguments if isinstance(c.raw_arguments, str) else show(c.raw_arguments))})"
            for c in calls
        )
    return f"text {show(content or '')}"
