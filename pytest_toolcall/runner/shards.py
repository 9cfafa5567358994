"""``--toolcall-shard K/N``: which items this shard runs.

The selection (what is left after ``-k``, ``-m``, ``--lf``...) is cut into N parts by expected
cost with the longest-processing-time rule: groups of items, heaviest first, each to the lightest
shard so far. A group is a unit with all its attempts (``[...@k]``), so that repeats are never
split. Everything is computed from sorted node ids and their weights, so every shard job computes
the same cut whatever the machine or the order of collection; a digest of the cut (``plan``) goes
into the report, and ``pytest-toolcall merge`` refuses shards cut differently.

Weights: the benchmark's ``expected_cost`` of the unit (an agent dialogue weighs many requests).
Nothing a run writes feeds the cut (latencies recorded in a response store did once): shard jobs
run one after another on one store, or a shard re-run after the store changed, would otherwise cut
differently from the jobs before them, and their reports would not merge.
"""

from __future__ import annotations

import hashlib
import heapq
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, Unit

#: The key of the selection in xdist's ``workeroutput`` (workers collect, the controller reports).
WORKER_OUTPUT = "toolcall_selection"

_ATTEMPT = re.compile(r"@\d+\]$")


@dataclass(frozen=True)
class Selection:
    """What a run selected before sharding (its units: benchmark items and the users' tests a
    benchmark counts, no other test), and how it was cut."""

    count: int
    digest: str
    shard: str | None = None
    plan: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "digest": self.digest, "plan": self.plan}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], shard: str | None) -> Selection:
        return cls(int(data["count"]), str(data["digest"]), shard, data.get("plan"))


def group_key(nodeid: str) -> str:
    """The unit an item belongs to: its node id without the attempt suffix of a repeat."""
    return _ATTEMPT.sub("]", nodeid)


def digest(lines: Iterable[str]) -> str:
    hasher = hashlib.sha256()
    for line in lines:
        hasher.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return hasher.hexdigest()[:32]


def selection_of(units: Iterable[str]) -> Selection:
    """The selection of these units' node ids (benchmark items, the users' tests a benchmark counts)."""
    chosen = sorted(units)
    return Selection(len(chosen), digest(chosen))


def weights(items: list[pytest.Item], benchmarks: Mapping[str, Benchmark]) -> dict[str, float]:
    """Expected cost of every group of items (node id without attempt -> weight)."""
    groups: dict[str, float] = {}
    for item in sorted(items, key=lambda item: item.nodeid):  # sorted: the same sums everywhere
        unit = getattr(getattr(item, "callspec", None), "params", {}).get("toolcall_unit")
        benchmark = benchmarks.get(unit.benchmark) if isinstance(unit, Unit) else None
        cost = float(benchmark.expected_cost(unit)) if benchmark is not None and unit else 1.0
        key = group_key(item.nodeid)
        groups[key] = groups.get(key, 0.0) + cost
    return groups


def assign(group_weights: Mapping[str, float], count: int) -> dict[str, int]:
    """Group -> shard (1-based): heaviest first, each to the lightest shard (ties: lowest index)."""
    order = sorted(group_weights, key=lambda key: (-group_weights[key], key))
    loads = [(0.0, index) for index in range(1, count + 1)]
    assignment: dict[str, int] = {}
    for key in order:
        load, index = heapq.heappop(loads)
        assignment[key] = index
        heapq.heappush(loads, (load + group_weights[key], index))
    return assignment


def cut(
    items: list[pytest.Item],
    shard: tuple[int, int],
    benchmarks: Mapping[str, Benchmark],
) -> tuple[list[pytest.Item], list[pytest.Item], str]:
    """(kept, deselected, plan digest) of shard ``shard`` = (K, N)."""
    index, count = shard
    assignment = assign(weights(items, benchmarks), count)
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if assignment[group_key(item.nodeid)] == index else dropped).append(item)
    plan = digest(f"{assignment[key]}\t{key}" for key in sorted(assignment))
    return kept, dropped, plan
