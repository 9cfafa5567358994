"""Under xdist, workers are kept supplied with items deep enough to prefetch from, to the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScheduling

from pytest_toolcall.scheduling import PrefetchLoadScheduling

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


def test_workers_stay_topped_up_to_the_prefetch_depth(pytester: pytest.Pytester) -> None:
    assert least_queued_while_items_remain(pytester, PrefetchLoadScheduling, depth=DEPTH) >= DEPTH * 3 // 4 - 1


def test_xdist_alone_lets_queues_run_dry(pytester: pytest.Pytester) -> None:
    # Why the scheduler exists: with items that wait for a model (0.2 s) xdist keeps two queued.
    assert least_queued_while_items_remain(pytester, LoadScheduling) <= 2


def test_only_the_load_distribution_is_replaced(pytester: pytest.Pytester, acebench_root: Path) -> None:
    for dist, expected in (("load", "PrefetchLoadScheduling"), ("loadscope", "LoadScopeScheduling")):
        args = ["--toolcall-model=oracle", f"--toolcall-data-dir={acebench_root}", "--tx=2*popen", f"--dist={dist}"]
        config = pytester.parseconfigure(*args)
        scheduler = config.hook.pytest_xdist_make_scheduler(config=config, log=Producer("test", enabled=False))
        assert type(scheduler).__name__ == expected
