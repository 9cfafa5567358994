"""Under xdist, workers are kept supplied with items deep enough to prefetch from, to the end, and
each process looks ahead only to the items it will run."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScheduling

from pytest_toolcall.model.prefetch import RunOrder
from pytest_toolcall.runner.scheduling import PrefetchLoadScheduling

DEPTH = 8


class Worker:
    """What the scheduler sees of a worker: it is sent item indices, and told to shut down."""

    def __init__(self, name: str) -> None:
        self.gateway = type("Gateway", (), {"id": name})()
        self.shutting_down = False
        self.queue: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.queue.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def least_queued_while_items_remain(pytester: pytest.Pytester, scheduler_class: Any, **kwargs: Any) -> int:
    """Run 200 items on two workers, one item at a time each, as xdist would: the shortest queue a
    worker had while the controller still held items back."""
    config = pytester.parseconfig("--tx=2*popen", "--dist=load", "-p", "no:toolcall")
    scheduler = scheduler_class(config, Producer("test", enabled=False), **kwargs)
    workers = [Worker("gw0"), Worker("gw1")]
    ids = [f"test_{i}" for i in range(200)]
    for worker in workers:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, ids)
    scheduler.schedule()
    least, ran = len(ids), []
    while any(worker.queue for worker in workers):
        for worker in workers:
            if worker.queue:
                ran.append(worker.queue.pop(0))
                scheduler.mark_test_complete(worker, ran[-1], duration=0.2)
                if scheduler.pending:
                    least = min(least, len(worker.queue))
    assert sorted(ran) == list(range(len(ids)))  # every item, once
    return least


@pytest.mark.slow
def test_workers_stay_topped_up_to_the_prefetch_depth(pytester: pytest.Pytester) -> None:
    assert least_queued_while_items_remain(pytester, PrefetchLoadScheduling, depth=DEPTH) >= DEPTH * 3 // 4 - 1


@pytest.mark.slow
def test_xdist_alone_lets_queues_run_dry(pytester: pytest.Pytester) -> None:
    # Why the scheduler exists: with items that wait for a model (0.2 s) xdist keeps two queued.
    assert least_queued_while_items_remain(pytester, LoadScheduling) <= 2


@pytest.mark.slow
def test_only_the_load_distribution_is_replaced(pytester: pytest.Pytester, acebench_root: Path) -> None:
    for dist, expected in (("load", "PrefetchLoadScheduling"), ("loadscope", "LoadScopeScheduling")):
        args = ["--toolcall-model=oracle", f"--toolcall-data-dir={acebench_root}", "--tx=2*popen", f"--dist={dist}"]
        config = pytester.parseconfigure(*args)
        scheduler = config.hook.pytest_xdist_make_scheduler(config=config, log=Producer("test", enabled=False))
        assert type(scheduler).__name__ == expected


# --- which items a process looks ahead to ---------------------------------------------------------


class Queue:
    """xdist's worker queue as the prefetcher reads it: item indices behind a lock."""

    def __init__(self, indices: list[int]) -> None:
        self.indices = indices

    @contextlib.contextmanager
    def lock(self) -> Iterator[list[int]]:
        yield self.indices


class WorkerInteractor:
    """Named as xdist's worker plugin, which the prefetcher finds by its class name."""

    def __init__(self, queue: Any) -> None:
        self.torun = queue


def run_order(items: list[str], *, worker: WorkerInteractor | None = None, on_worker: bool = False) -> RunOrder:
    plugins = [worker] if worker else []
    config = SimpleNamespace(pluginmanager=SimpleNamespace(get_plugins=lambda: plugins))
    if on_worker or worker:
        config.workerinput = {}
    return RunOrder(SimpleNamespace(items=items, config=config))  # type: ignore[arg-type]


ITEMS = [f"item{i}" for i in range(6)]  # (items are known by identity: always ITEMS[i])


def test_without_xdist_the_items_after_the_current_one_in_pytest_order() -> None:
    order = run_order(ITEMS)
    assert list(order.upcoming(ITEMS[2])) == ["item2", "item3", "item4", "item5"]
    assert list(order.upcoming(ITEMS[2], after=ITEMS[4])) == ["item2", "item5"]


def test_a_worker_looks_ahead_only_to_its_own_queue() -> None:
    order = run_order(ITEMS, worker=WorkerInteractor(Queue([4, 1, 5])))
    assert list(order.upcoming(ITEMS[0])) == ["item0", "item4", "item1", "item5"]
    assert list(order.upcoming(ITEMS[0], after=ITEMS[1])) == ["item0", "item5"]


def test_a_worker_whose_queue_cannot_be_read_asks_only_for_the_item_it_runs() -> None:
    # An xdist whose queue has no lock (before 3.6): the other items may belong to other workers.
    assert list(run_order(ITEMS, worker=WorkerInteractor(object())).upcoming(ITEMS[2])) == ["item2"]
    assert list(run_order(ITEMS, on_worker=True).upcoming(ITEMS[2])) == ["item2"]
