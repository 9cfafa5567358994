"""What changed between two runs of the same data, unit by unit (``pytest-toolcall diff``), and the
same-data check ``diff`` and ``compare`` share.

A unit *changed* when its verdict changed (regressed: passed before, not now; fixed: the other way)
or when its verdict stayed and its answer did not (the raw output or the decoded calls differ). The
two answers' calls are aligned position by position and every argument whose value differs is named,
so the page can mark it. Everything here reads samples as plain JSON: nothing of a benchmark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

REGRESSED, FIXED, CHANGED = "regressed", "fixed", "changed"


class DifferentRuns(ValueError):
    """Two reports that cannot be compared unit by unit; the message is one line naming the difference."""


def same_data_problem(names: list[str], documents: list[dict[str, Any]]) -> str | None:
    """Why these reports are not runs of the same data and selection (None when they are): the first
    report is the reference, the first difference is named."""
    first = documents[0].get("run") or {}
    for name, document in zip(names[1:], documents[1:], strict=True):
        run = document.get("run") or {}
        for key, label in (("datasets", "data"), ("selection", "selection"), ("repeat", "repeat")):
            if (first.get(key) or None) != (run.get(key) or None):
                return (
                    f"{name} is not a run of the same {label} as {names[0]} "
                    f"({_short(run.get(key))} against {_short(first.get(key))})"
                )
    return None


def passed(sample: dict[str, Any]) -> bool:
    return sample.get("outcome") in ("passed", "xpassed")


def calls_of(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """The decoded calls of an answer as ``{"name", "arguments"}`` with the arguments an object where
    they are JSON text (the API's form)."""
    calls = sample.get("tool_calls")
    if not isinstance(calls, list):
        return []
    out = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        inner = call.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else call
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass  # kept as the model wrote it
        out.append({"name": function.get("name"), "arguments": arguments})
    return out


@dataclass
class CallPair:
    """The calls at one position of the two answers (None where an answer has fewer calls)."""

    base: dict[str, Any] | None
    now: dict[str, Any] | None
    #: Argument names whose values differ (all of them when the names of the calls differ).
    differing: list[str] = field(default_factory=list)


def align_calls(base: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[CallPair]:
    pairs = []
    for position in range(max(len(base), len(now))):
        a = base[position] if position < len(base) else None
        b = now[position] if position < len(now) else None
        args_a = a.get("arguments") if a else None
        args_b = b.get("arguments") if b else None
        if isinstance(args_a, dict) and isinstance(args_b, dict):
            keys = list(dict.fromkeys([*args_a, *args_b]))
            differing = [k for k in keys if args_a.get(k, _MISSING) != args_b.get(k, _MISSING)]
        else:
            differing = [] if args_a == args_b else ["(arguments)"]
        if (a or {}).get("name") != (b or {}).get("name"):
            differing = ["(name)", *differing]
        pairs.append(CallPair(a, b, differing))
    return pairs


_MISSING = object()


@dataclass
class Change:
    nodeid: str
    status: str  # regressed, fixed, changed
    base: dict[str, Any]
    now: dict[str, Any]
    calls: list[CallPair]


@dataclass
class RunDiff:
    changes: list[Change]
    only_base: list[str]
    only_now: list[str]

    def counts(self) -> dict[str, int]:
        counts = {REGRESSED: 0, FIXED: 0, CHANGED: 0}
        for change in self.changes:
            counts[change.status] += 1
        return counts


def diff_runs(base: list[dict[str, Any]], now: list[dict[str, Any]]) -> RunDiff:
    """Every unit of both runs whose verdict or answer changed, in the order of the current run."""
    before = {str(s["nodeid"]): s for s in base if isinstance(s.get("nodeid"), str)}
    after = {str(s["nodeid"]): s for s in now if isinstance(s.get("nodeid"), str)}
    changes = []
    for nodeid, sample in after.items():
        old = before.get(nodeid)
        if old is None:
            continue
        status = status_of(old, sample)
        if status is not None:
            changes.append(Change(nodeid, status, old, sample, align_calls(calls_of(old), calls_of(sample))))
    return RunDiff(changes, [n for n in before if n not in after], [n for n in after if n not in before])


def status_of(base: dict[str, Any], now: dict[str, Any]) -> str | None:
    if passed(base) and not passed(now):
        return REGRESSED
    if passed(now) and not passed(base):
        return FIXED
    if base.get("output") != now.get("output") or calls_of(base) != calls_of(now):
        return CHANGED
    return None


def _short(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else f"{text[:limit]}..."
