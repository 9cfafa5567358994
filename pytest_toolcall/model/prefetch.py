"""Keep the endpoint busy: start the model work of upcoming items while pytest runs them in order.

Before each item runs, the work of the items after it is started until about twice the
concurrency is queued or in flight, so each item mostly finds its answers ready. Work is started in
run order, only for items that will run (pytest's own order without xdist, the worker's queue with
it), and everything not yet sent is cancelled when the session stops (``-x``, ``--maxfail``, Ctrl-C).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

import pytest

from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse, ModelClient


class Job(Protocol):
    def start(self) -> None: ...

    def pending(self) -> int:
        """Requests queued or in flight."""
        ...

    def result(self) -> Any: ...

    def cancel(self) -> None: ...


class RequestsJob:
    """Independent requests (one sample, or the teacher-forced steps of a dialogue)."""

    def __init__(self, model: ModelClient, requests: list[ChatRequest]) -> None:
        self.model = model
        self.requests = requests
        self.futures: list[Future[ChatResponse]] = []
        self._open: list[Future[ChatResponse]] = []

    def start(self) -> None:
        self.futures = [self.model.submit(request) for request in self.requests]
        self._open = [f for f in self.futures if not f.done()]

    def pending(self) -> int:
        self._open = [f for f in self._open if not f.done()]  # called often: only look at open ones
        return len(self._open)

    def result(self) -> list[ChatResponse]:
        return [future.result() for future in self.futures]

    def cancel(self) -> None:
        for future in self.futures:
            future.cancel()


class ThreadJob:
    """Sequential work (an agent rollout) on a thread of its own, so it never blocks other items."""

    def __init__(self, pool: ThreadPoolExecutor, fn: Callable[[], Any]) -> None:
        self.pool = pool
        self.fn = fn
        self.future: Future[Any] | None = None

    def start(self) -> None:
        self.future = self.pool.submit(self.fn)

    def pending(self) -> int:
        return int(self.future is not None and not self.future.done())

    def result(self) -> Any:
        assert self.future is not None
        return self.future.result()

    def cancel(self) -> None:
        if self.future is not None:
            self.future.cancel()


class DoneJob:
    """Work whose result is known without asking (a unit skipped in this configuration)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def start(self) -> None:
        pass

    def pending(self) -> int:
        return 0

    def result(self) -> Any:
        return self.value

    def cancel(self) -> None:
        pass


class Prefetcher:
    def __init__(self, build: Callable[[pytest.Item], Job | None], lookahead: int) -> None:
        self.build = build
        self.lookahead = lookahead
        #: Started and not yet taken, in start order. Bounded, so a fully cached run (every job done
        #: at once) does not start the whole session ahead.
        self.jobs: dict[str, Job] = {}
        self.max_started = max(2 * lookahead, 32)
        #: Of those, the ones still waiting for answers; and the last upcoming item looked at. Both
        #: keep each advance to the new work: it runs before every item.
        self.open: list[Job] = []
        self.frontier: pytest.Item | None = None
        self.stopped = False

    def advance(self, upcoming: Iterable[pytest.Item]) -> None:
        """Start the work of ``upcoming`` items (in run order) until the lookahead is full."""
        if self.stopped:
            return
        counts = [job.pending() for job in self.open]
        self.open = [job for job, count in zip(self.open, counts, strict=True) if count]
        in_flight = sum(counts)
        for item in upcoming:
            if in_flight >= self.lookahead or len(self.jobs) >= self.max_started:
                break
            self.frontier = item
            if item.nodeid in self.jobs:
                continue
            job = self.build(item)
            if job is None:
                continue
            job.start()
            self.jobs[item.nodeid] = job
            if pending := job.pending():
                self.open.append(job)
                in_flight += pending

    def take(self, item: pytest.Item) -> Job:
        """The item's job, started now if it was not already; forgotten once taken."""
        job = self.jobs.pop(item.nodeid, None)
        if job is None:
            job = self.build(item)
            assert job is not None, f"{item.nodeid} has no model work"
            job.start()
        return job

    def stop(self) -> None:
        """No new work from now on; work not yet sent is cancelled."""
        self.stopped = True
        for job in self.jobs.values():
            job.cancel()
        self.jobs.clear()
        self.open.clear()


class RunOrder:
    """Which items run next in this process: pytest's order, or the xdist worker's queue."""

    def __init__(self, session: pytest.Session) -> None:
        self.items = session.items
        self.position = {id(item): i for i, item in enumerate(self.items)}
        self.on_worker = hasattr(session.config, "workerinput")
        self.queue = _xdist_queue(session.config) if self.on_worker else None

    def upcoming(self, current: pytest.Item, after: pytest.Item | None = None) -> Iterator[pytest.Item]:
        """``current``, then the items that run after it, skipping those up to ``after`` (already
        looked at)."""
        yield current
        if self.queue is not None:
            with self.queue.lock() as indices:
                pending = [i for i in indices if isinstance(i, int)]
            last = self.position.get(id(after), -1)
            start = pending.index(last) + 1 if last in pending else 0
            yield from (self.items[i] for i in pending[start:])
        elif not self.on_worker and id(current) in self.position:
            # (A worker whose queue cannot be read looks no further: pytest's order there holds the
            # items of every worker, and asking for another worker's items would ask twice.)
            start = max(self.position[id(current)], self.position.get(id(after), -1)) + 1
            # By index: islice would step over the first ``start`` items on every call (quadratic).
            items = self.items
            yield from (items[i] for i in range(start, len(items)))


def _xdist_queue(config: pytest.Config) -> Any:
    """The worker's queue of item indices (xdist's ``WorkerInteractor.torun``) under xdist.

    Not a public xdist API: without it, each item's work simply starts when the item runs.
    """
    for plugin in config.pluginmanager.get_plugins():
        queue = getattr(plugin, "torun", None)
        if type(plugin).__name__ == "WorkerInteractor" and hasattr(queue, "lock"):
            return queue
    return None
