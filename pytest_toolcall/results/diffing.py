"""What changed between two runs of the same data, unit by unit (``pytest-toolcall diff``), and the
same-data check ``diff`` and ``compare`` share.

A unit *changed* when its verdict changed (regressed: passed before, not now; fixed: the other way)
or when its verdict stayed and its answer did not (the raw output or the decoded calls differ). The
two answers' calls are aligned by matching, not by position (a run that only changed the order of its
calls shows no argument as changed, and says so), and every argument whose value differs is named,
so the page can mark it. Everything here reads samples as plain JSON: nothing of a benchmark.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict, deque
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
    """A call of one answer and the call of the other it was matched with (None: no call matched)."""

    base: dict[str, Any] | None
    now: dict[str, Any] | None
    #: Argument names whose values differ (all of them when the names of the calls differ).
    differing: list[str] = field(default_factory=list)


def align_calls(base: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[CallPair]:
    """The calls of two answers paired by matching: identical calls first, then the remaining calls
    of the same name in their order; a call left over pairs with nothing. In the order of ``now``,
    then ``base``'s calls that matched none. Linear in the number of calls."""
    partner: dict[int, int] = {}  # index in now -> index in base
    identical: defaultdict[str, deque[int]] = defaultdict(deque)
    for index, call in enumerate(base):
        identical[call_key(call)].append(index)
    for index, call in enumerate(now):
        if waiting := identical.get(call_key(call)):
            partner[index] = waiting.popleft()
    matched = set(partner.values())
    same_name: defaultdict[str, deque[int]] = defaultdict(deque)
    for index, call in enumerate(base):
        if index not in matched:
            same_name[_name(call)].append(index)
    for index, call in enumerate(now):
        if index not in partner and (waiting := same_name.get(_name(call))):
            partner[index] = waiting.popleft()
    matched = set(partner.values())
    pairs = [_pair(base[partner[i]] if i in partner else None, call) for i, call in enumerate(now)]
    return pairs + [_pair(call, None) for i, call in enumerate(base) if i not in matched]


def only_reordered(base: list[dict[str, Any]], now: list[dict[str, Any]]) -> bool:
    """Whether two answers make the same calls, only in another order."""
    keys = [call_key(c) for c in base], [call_key(c) for c in now]
    return keys[0] != keys[1] and Counter(keys[0]) == Counter(keys[1])


def call_key(call: dict[str, Any]) -> str:
    return json.dumps([call.get("name"), call.get("arguments")], sort_keys=True, default=str)


def _name(call: dict[str, Any]) -> str:
    return json.dumps(call.get("name"), default=str)


def _pair(a: dict[str, Any] | None, b: dict[str, Any] | None) -> CallPair:
    args_a = a.get("arguments") if a else None
    args_b = b.get("arguments") if b else None
    if isinstance(args_a, dict) and isinstance(args_b, dict):
        keys = list(dict.fromkeys([*args_a, *args_b]))
        differing = [k for k in keys if args_a.get(k, _MISSING) != args_b.get(k, _MISSING)]
    else:
        differing = [] if args_a == args_b else ["(arguments)"]
    if (a or {}).get("name") != (b or {}).get("name"):
        differing = ["(name)", *differing]
    return CallPair(a, b, differing)


_MISSING = object()


@dataclass
class Change:
    nodeid: str
    status: str  # regressed, fixed, changed
    base: dict[str, Any]
    now: dict[str, Any]
    calls: list[CallPair]
    #: The answer makes the same calls as before, only in another order.
    reordered: bool = False


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

    def reordered(self) -> int:
        """How many of the changes only reordered their calls."""
        return sum(change.reordered for change in self.changes)


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
            base_calls, now_calls = calls_of(old), calls_of(sample)
            aligned = align_calls(base_calls, now_calls)
            changes.append(Change(nodeid, status, old, sample, aligned, only_reordered(base_calls, now_calls)))
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
