"""The rules of ``expect.trajectory`` and ``expect.final``: all the calls of a multi-step run, and its
final text answer.

``match`` says how the run's calls R relate to the listed calls L, each listed call standing for at
most one call of the run (a maximum bipartite matching, never greedy):

- ``strict``: R and L have the same length and the i-th call of R matches the i-th of L;
- ``unordered``: every call of R matches a distinct call of L and none of either is left over;
- ``superset``: R includes L: every listed call matches a distinct call of R (R may have more);
- ``subset``: R is among L: every call of R matches a distinct listed call (L may have more).

``args`` says when a run's call matches a listed one of the same tool:

- ``exact``: the arguments are the listed ones (matchers allowed), no more, no less;
- ``superset``: the run's arguments include the listed ones (more are allowed, at any depth);
- ``subset``: every argument of the run's call is listed with a matching value (listed ones may be
  missing);
- ``ignore``: the tool name alone.

``final`` is a string (equal to the text) or a matcher (``$regex`` full-matches it); a run that spent
its step budget has no final answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.api import EXTRA_CALL, MISSING_CALL, STEP_LIMIT, WRONG_FINAL, WRONG_ORDER, WRONG_VALUE
from pytest_toolcall.api.text import clip
from pytest_toolcall.benchmarks.cases.matching import _maximum_matching, parse_call, show, value_diffs

MATCH_MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "subset", "superset", "ignore")


@dataclass(frozen=True)
class Outcome:
    """``kind`` None: passed; else the failure kind and the lines that say what differed."""

    kind: str | None
    lines: tuple[str, ...] = ()


def judge_trajectory(trajectory: dict[str, Any], calls: list[dict[str, Any]]) -> Outcome:
    """The run's ``calls`` (``{"name", "arguments"}``, raw argument strings) against ``trajectory``."""
    listed = trajectory.get("calls") or []
    match = trajectory.get("match", "strict")
    args = trajectory.get("args", "exact")
    run = [_parsed(call) for call in calls]
    diffs = [[_diffs(expected, actual, args) for actual in run] for expected in listed]
    header = f"trajectory (match {match}, args {args}): expected {_list(listed)}; got {_list(calls)}"
    if match == "strict":
        wrong = [i for i in range(min(len(listed), len(run))) if diffs[i][i]]
        if len(listed) == len(run) and not wrong:
            return Outcome(None)
    accepts = [[j for j, d in enumerate(row) if not d] for row in diffs]
    matched = _maximum_matching(accepts, len(run))  # listed index -> run index
    free_listed = [i for i in range(len(listed)) if i not in matched]
    free_run = [j for j in range(len(run)) if j not in matched.values()]
    if match == "strict" and not free_listed and not free_run:
        lines = [f"call {i + 1}: {'; '.join(diffs[i][i])}" for i in wrong]
        return Outcome(WRONG_ORDER, (header, "the calls are right but not in the listed order", *lines))
    missing = free_listed if match in ("strict", "unordered", "superset") else []
    extra = free_run if match in ("strict", "unordered", "subset") else []
    if not missing and not extra:
        return Outcome(None)
    return _explain(header, listed, calls, diffs, (free_listed, missing), (free_run, extra))


def _explain(
    header: str,
    listed: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    diffs: list[list[list[str]]],
    listed_left: tuple[list[int], list[int]],
    run_left: tuple[list[int], list[int]],
) -> Outcome:
    """What is left over (unmatched, and of that what the mode counts) is paired by tool name, fewest
    differences first, to say argument by argument what differed; a pair counts when either of its
    calls does, what stays unpaired is missing or extra."""
    (free_listed, missing), (free_run, extra) = listed_left, run_left
    lines = [header]
    kinds = []
    unpaired_run = list(free_run)
    for i in free_listed:
        same = [j for j in unpaired_run if calls[j]["name"] == listed[i]["name"]]
        if not same:
            if i in missing:
                lines.append(f"missing listed call {i + 1}: {_show_listed(listed[i])}")
                kinds.append(MISSING_CALL)
            continue
        j = min(same, key=lambda j: len(diffs[i][j]))
        unpaired_run.remove(j)
        if i in missing or j in extra:
            lines.append(f"run call {j + 1} {calls[j]['name']} (listed call {i + 1}): {'; '.join(diffs[i][j])}")
            kinds.append(WRONG_VALUE)
    for j in unpaired_run:
        if j in extra:
            lines.append(f"run call {j + 1} is not among the listed calls: {_show_run(calls[j])}")
            kinds.append(EXTRA_CALL)
    kind = next(k for k in (WRONG_VALUE, MISSING_CALL, EXTRA_CALL) if k in kinds)
    return Outcome(kind, tuple(lines))


def judge_final(final: Any, text: str | None, step_limit: bool, steps: int) -> Outcome:
    if text is None:
        why = f"the step budget ({steps}) was spent before a text answer" if step_limit else "no text answer"
        return Outcome(STEP_LIMIT if step_limit else WRONG_FINAL, (f"final: {why}",))
    problems = value_diffs(final, text, "final")
    return Outcome(WRONG_FINAL, tuple(problems)) if problems else Outcome(None)


def _parsed(call: dict[str, Any]) -> Any:
    parsed = parse_call(0, call["name"], call["arguments"])
    return (call["name"], None if parsed.parse_error else parsed.arguments, parsed.parse_error)


def _diffs(expected: dict[str, Any], actual: Any, args: str) -> list[str]:
    name, arguments, parse_error = actual
    if name != expected["name"]:
        return [f"expected tool {expected['name']!r}, got {name!r}"]
    if args == "ignore":
        return []
    if parse_error:
        return [f"the arguments are not JSON ({parse_error})"]
    listed = expected.get("arguments") or {}
    if args == "exact":
        return value_diffs(listed, arguments, name)
    if args == "superset":
        return value_diffs(listed, arguments, name, allow_extra=True)
    if not isinstance(arguments, dict):  # subset
        return [f"{name}: expected an object, got {show(arguments)}"]
    found = []
    for key, value in arguments.items():
        if key not in listed:
            found.append(f"{name}.{key}: not listed, got {show(value)}")
        else:
            found.extend(value_diffs(listed[key], value, f"{name}.{key}"))
    return found


def _list(calls: list[dict[str, Any]]) -> str:
    return "[" + ", ".join(c["name"] for c in calls) + "]"


def _show_listed(call: dict[str, Any]) -> str:
    return f"{call['name']}({clip(json.dumps(call.get('arguments') or {}, ensure_ascii=False))})"


def _show_run(call: dict[str, Any]) -> str:
    return f"{call['name']}({clip(str(call['arguments']))})"
