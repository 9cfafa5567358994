"""This process's model work: the plan of each item coming next started ahead (the prefetcher), each
item's answer handed over after its fixtures, and the run's sending stopped when an answer says no
retry can help. Lives in every process that runs items (xdist workers too), in the config's stash
under ``keys.WORK``.

Its parts each have a module: the models of each role (``models.py``), the store (``store_setup.py``),
the ``Models`` a unit's plan sees (``unit_models.py``), how each unit is asked and judged under
``--toolcall-stream`` (``streamed.py``), and the hand-over (``handover.py``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.benchmark import Dialogue, Requests, Skip, Unit
from pytest_toolcall.core.protocol.types import Model, Role
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.model.prefetch import DoneJob, Job, Prefetcher, RequestsJob, RunOrder, ThreadJob
from pytest_toolcall.runner.collect import Catalog, unit_of
from pytest_toolcall.runner.handover import Handed, UnitJob, hand
from pytest_toolcall.runner.keys import CATALOG, HAND_OVER
from pytest_toolcall.runner.models import RunModels
from pytest_toolcall.runner.store_setup import ProcessStore
from pytest_toolcall.runner.streamed import Asking, StreamMode
from pytest_toolcall.runner.unit_models import UnitModels


class Work:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.store = ProcessStore(config, settings)
        self.models = RunModels(config, settings, self.store.get)
        self.stream = StreamMode.of(settings.stream)
        # Prefetching is for answers that take time. When none does (the oracle, a replay from the
        # store), each item asks as it runs: its sample is parsed, answered and scored at once,
        # instead of being held for the items in between.
        self.prefetcher = Prefetcher(self.job_for, lookahead=2 * settings.concurrency if settings.sends_requests else 0)
        self.order: RunOrder | None = None
        #: Why the run stopped sending (an answer no retry can fix), or None.
        self.stopped: str | None = None
        #: (unit, what it was handed) of the item being run, from its setup to its test function (one
        #: at a time: an item whose test function never runs, under ``--setup-only``, leaves nothing).
        self._handed: tuple[Unit, Handed] | None = None
        config.stash[HAND_OVER] = self.handed_over
        # Dialogues are sequential by nature: each runs on a thread of its own so that it never
        # blocks the other items while it waits for the model.
        self.dialogues = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="toolcall-dialogue")
        #: The usage entry of every answer to a request that no unit sent (a user's test through the
        #: session fixture ``toolcall_model``): counted in the run's usage, in no record.
        self.other_requests: list[dict[str, Any]] = []

    @property
    def catalog(self) -> Catalog:
        return self.config.stash[CATALOG]  # loaded at collection, before any item runs

    def connect(self) -> None:
        """Reach the model under test now, as the scored asking will (the client process connected)."""
        self.models.client(Role.MODEL, self.stream.scored.streams(Role.MODEL))

    @property
    def session_model(self) -> Model:
        """The model under test for the users' tests (the fixture ``toolcall_model``), asked as units'
        scored answers are (streamed under ``--toolcall-stream on``)."""
        return self.models.session_model(self.other_requests, self.stream.scored.streams(Role.MODEL))

    def unit_models(self, unit: Unit, asking: Asking | None = None) -> UnitModels:
        """The ``Models`` of a unit, for one asking of the stream mode (default: the scored one)."""
        return UnitModels(self.models, self.store, unit, asking or self.stream.scored, self.sampling_of(unit))

    def sampling_of(self, unit: Unit) -> dict[str, Any]:
        """What the requests of a unit are sent with: its benchmark's sampling, the run's replacing it."""
        benchmark = self.catalog.benchmarks.get(unit.benchmark)
        return self.models.settings.sampling_for(benchmark.sampling if benchmark is not None else {})

    # --- jobs ----------------------------------------------------------------------------------

    def job_for(self, item: pytest.Item) -> Job | None:
        unit = unit_of(item)
        if unit is None:
            return None
        if self.stopped is not None:
            return DoneJob(Skip(f"not sent: {self.stopped}"))
        return UnitJob([self._asking_job(unit, self.unit_models(unit, asking)) for asking in self.stream.askings])

    def _asking_job(self, unit: Unit, models: UnitModels) -> tuple[Job, UnitModels]:
        plan = self.catalog.benchmarks[unit.benchmark].plan(unit, models)
        if isinstance(plan, Requests):
            return RequestsJob(models.model, plan.requests), models
        if isinstance(plan, Dialogue):
            return ThreadJob(self.dialogues, plan.run), models
        assert isinstance(plan, Skip), f"{unit.benchmark}.plan returned {plan!r}"
        return DoneJob(plan), models

    # --- the hand-over -------------------------------------------------------------------------

    def hand_over(self, item: pytest.Item, unit: Unit, record: dict[str, Any]) -> None:
        """Take the item's answer, for its test function (``handed_over``)."""
        self._handed = None  # (also when this item gets no answer: the slot never holds a stale one)
        self._handed = (unit, hand(self, self.prefetcher.take(item), record))

    def handed_over(self, unit: Unit) -> Handed:
        """What the unit whose setup just took its answer got."""
        handed, self._handed = self._handed, None
        assert handed is not None and handed[0] is unit, f"{unit.nodeid}: its setup took no answer"
        return handed[1]

    # --- the run's course ----------------------------------------------------------------------

    def stop(self, reason: str) -> None:
        """Send nothing more: what is queued is dropped, the items still to come are skipped."""
        self.stopped = inert(reason)  # a server's message, printed with every item skipped
        self.prefetcher.stop()

    def before(self, item: pytest.Item) -> None:
        if not self.prefetcher.lookahead:
            return
        if self.order is None:
            self.order = RunOrder(item.session)
        self.prefetcher.advance(self.order.upcoming(item, after=self.prefetcher.frontier))

    def after(self, session: pytest.Session) -> None:
        if session.shouldfail or session.shouldstop:
            self.prefetcher.stop()

    def close(self) -> None:
        self.prefetcher.stop()
        self.dialogues.shutdown(wait=False, cancel_futures=True)
        self.models.close()
        self.store.close()
