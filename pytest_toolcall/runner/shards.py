"""``--toolcall-shard K/N``: which items this shard runs.

The selection (what is left after ``-k``, ``-m``, ``--lf``...) is cut into N parts by expected
cost with the longest-processing-time rule: groups of items, heaviest first, each to the lightest
shard so far. A group is a unit with all its attempts (``[...@k]``), so that repeats are never
split. Everything is computed from sorted node ids and their weights, so every shard job computes
the same cut whatever the machine or the order of collection; a digest of the cut (``plan``) goes
into the report, and ``pytest-toolcall merge`` refuses shards cut differently.

Weights: the requests each unit is expected to send, read from its plan (``unit_cost``): the number
of its requests, or what its dialogue expects (``Dialogue.expected_requests``: a case of ``steps: 40``,
an agent's turns), for every attempt under ``--toolcall-repeat``; a benchmark may say it instead
(``Benchmark.expected_cost``). The plan is made with models that are never asked (``UnaskedModels``),
as the run has them. Nothing a run writes feeds the cut (latencies recorded in a response store did once): shard jobs
run one after another on one store, or a shard re-run after the store changed, would otherwise cut
differently from the jobs before them, and their reports would not merge.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import Any

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, Dialogue, Requests, Unit
from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse, Model, Role

# What a report records of the selection lives with the results (merge reads it there too).
from pytest_toolcall.results.selection import digest
from pytest_toolcall.runner.collect import unit_of

#: The attempt suffix of a node id under repeats: ``toolcall::b[key@2]``, or ``file.toolcall.yaml::key@2``
#: for a unit of a user's file.
_ATTEMPT = re.compile(r"@\d+(?=\]$)|@\d+$")


def group_key(nodeid: str) -> str:
    """The unit an item belongs to: its node id without the attempt suffix of a repeat."""
    return _ATTEMPT.sub("", nodeid)


class UnaskedModel:
    """A model of a plan made only to be read: asking it is a bug."""

    name = "unasked"
    oracle = False

    def __init__(self, role: Role) -> None:
        self.role = role

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        raise AssertionError("a plan asked its model while being planned")

    def close(self) -> None:
        pass


class UnaskedModels:
    """The ``Models`` of a plan made only to read its cost: the roles the run has a model for, none
    of them asked, and whether the model under test is the oracle."""

    def __init__(self, roles: Iterable[Role] = (Role.MODEL,), oracle: bool = False) -> None:
        self._models = {role: UnaskedModel(role) for role in roles}
        self.oracle = oracle

    @property
    def model(self) -> Model:
        return self._models[Role.MODEL]

    @property
    def user(self) -> Model | None:
        return self._models.get(Role.USER)

    @property
    def judge(self) -> Model | None:
        return self._models.get(Role.JUDGE)

    def through(self, api: str, stream: bool) -> Model:
        return self.model  # (any path costs what the model under test's does)

    def exchange(self, kind: str, request: Any, perform: Callable[[], Any]) -> Any:
        raise AssertionError("a plan asked its environment while being planned")


def unit_cost(benchmark: Benchmark, unit: Unit, models: UnaskedModels) -> float:
    """The requests a unit is expected to send: the benchmark's word (``expected_cost``), else its
    plan's (a ``Requests``' number, a ``Dialogue``'s ``expected_requests``; a skipped unit 1)."""
    own = benchmark.expected_cost(unit)
    if own is not None:
        return float(own)
    try:
        plan = benchmark.plan(unit, models)
    except Exception:  # the item says what is wrong when it runs; its cost is only a guess meanwhile
        return 1.0
    if isinstance(plan, Requests):
        return float(max(1, len(plan.requests)))
    if isinstance(plan, Dialogue):
        return float(plan.expected_requests)
    return 1.0


def weights(
    items: list[pytest.Item], benchmarks: Mapping[str, Benchmark], models: UnaskedModels | None = None
) -> dict[str, float]:
    """Expected cost of every group of items (node id without attempt -> weight): the sum of its
    attempts' unit costs; an item of no benchmark (a user's test) weighs 1."""
    models = models or UnaskedModels()
    groups: dict[str, float] = {}
    for item in sorted(items, key=lambda item: item.nodeid):  # sorted: the same sums everywhere
        unit = unit_of(item)
        benchmark = benchmarks.get(unit.benchmark) if unit is not None else None
        cost = unit_cost(benchmark, unit, models) if benchmark is not None and unit is not None else 1.0
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
    models: UnaskedModels | None = None,
) -> tuple[list[pytest.Item], list[pytest.Item], str]:
    """(kept, deselected, plan digest) of shard ``shard`` = (K, N); ``models``: the run's roles, for
    reading the units' plans."""
    index, count = shard
    assignment = assign(weights(items, benchmarks, models), count)
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if assignment[group_key(item.nodeid)] == index else dropped).append(item)
    plan = digest(f"{assignment[key]}\t{key}" for key in sorted(assignment))
    return kept, dropped, plan
