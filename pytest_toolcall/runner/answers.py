"""This process's answers: the model client, the response store in front of it, and the prefetcher
that starts the work of upcoming items. Lives in every process that runs items (xdist workers too).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_toolcall.core.benchmark import Dialogue, Requests, Skip
from pytest_toolcall.core.settings import ORACLE, Settings
from pytest_toolcall.model import sdk_process
from pytest_toolcall.model.oracle import OracleModel
from pytest_toolcall.model.prefetch import DoneJob, Job, Prefetcher, RequestsJob, RunOrder, ThreadJob
from pytest_toolcall.model.store import CachedModel, ResponseStore, StoreError
from pytest_toolcall.model.types import Model, ModelSettings, RequestError
from pytest_toolcall.runner.collect import CATALOG, Catalog, unit_of

STORE_FILE = "responses.sqlite3"


class Answers:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self._models: dict[tuple[str, str | None, str], Model] = {}
        self._store: ResponseStore | None = None
        self.prefetcher = Prefetcher(self.job_for, lookahead=2 * settings.concurrency)
        self.order: RunOrder | None = None
        #: Why the run stopped sending (an answer no retry can fix), or None.
        self.stopped: str | None = None
        # Dialogues are sequential by nature: each runs on a thread of its own so that it never
        # blocks the other items while it waits for the model.
        self.dialogues = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="toolcall-dialogue")

    @property
    def catalog(self) -> Catalog:
        return self.config.stash[CATALOG]  # loaded at collection, before any item runs

    # --- the Models a plan sees ------------------------------------------------------------------

    @property
    def oracle(self) -> bool:
        return self.settings.is_oracle

    @property
    def model(self) -> Model:
        s = self.settings
        return self.named(s.model, s.base_url, s.api_key_env)

    def named(self, name: str, base_url: str | None, api_key_env: str) -> Model:
        """A model by name (the one under test, or a user simulator), built once."""
        key = (name, base_url, api_key_env)
        if key not in self._models:
            self._models[key] = self._build(name, base_url, api_key_env)
        return self._models[key]

    def _build(self, name: str, base_url: str | None, api_key_env: str) -> Model:
        s = self.settings
        if name == ORACLE:
            return OracleModel()  # instant and offline: nothing to store
        network = None
        if s.cache_mode != "replay":  # replay never touches the network
            network = sdk_process.GatewayModel(
                ModelSettings(
                    model=name,
                    base_url=base_url,
                    api_key=os.environ.get(api_key_env),
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    extra_body=s.extra_body,
                    timeout=s.timeout,
                    max_retries=s.max_retries,
                    concurrency=s.concurrency,
                    api_key_env=api_key_env,
                ),
                self.client_address(),
            )
        store = self.store()
        if store is None:
            assert network is not None
            return network
        sampling = {"temperature": s.temperature, "max_tokens": s.max_tokens, "extra_body": s.extra_body}
        return CachedModel(name, network, store, s.cache_mode, base_url, sampling)

    def client_address(self) -> str:
        """The run's client process: on an xdist worker the controller's, else this process's."""
        worker_input = getattr(self.config, "workerinput", {})
        return worker_input.get(sdk_process.WORKER_INPUT) or sdk_process.client_address()

    def store(self) -> ResponseStore | None:
        if self._store is None:
            folder = self.store_dir()
            if folder is not None:
                try:
                    self._store = ResponseStore(folder / STORE_FILE, self.settings.cache_mode == "read-write")
                except StoreError as exc:
                    raise RequestError(f"response store: {exc}") from None
        return self._store

    def store_dir(self) -> Path | None:
        return store_dir(self.config, self.settings)

    # --- jobs ----------------------------------------------------------------------------------

    def job_for(self, item: pytest.Item) -> Job | None:
        unit = unit_of(item)
        if unit is None:
            return None
        if self.stopped is not None:
            return DoneJob(Skip(f"not sent: {self.stopped}"))
        plan = self.catalog.benchmarks[unit.benchmark].plan(unit, self)
        if isinstance(plan, Requests):
            return RequestsJob(self.model, plan.requests)
        if isinstance(plan, Dialogue):
            return ThreadJob(self.dialogues, plan.run)
        assert isinstance(plan, Skip), f"{unit.benchmark}.plan returned {plan!r}"
        return DoneJob(plan)

    def stop(self, reason: str) -> None:
        """Send nothing more: what is queued is dropped, the items still to come are skipped."""
        self.stopped = reason
        self.prefetcher.stop()

    def before(self, item: pytest.Item) -> None:
        if self.order is None:
            self.order = RunOrder(item.session)
        self.prefetcher.advance(self.order.upcoming(item, after=self.prefetcher.frontier))

    def after(self, session: pytest.Session) -> None:
        if session.shouldfail or session.shouldstop:
            self.prefetcher.stop()

    def close(self) -> None:
        self.prefetcher.stop()
        self.dialogues.shutdown(wait=False, cancel_futures=True)
        for model in self._models.values():
            model.close()
        if self._store is not None:
            self._store.close()


ANSWERS = pytest.StashKey[Answers]()


def store_dir(config: pytest.Config, settings: Settings) -> Path | None:
    """The folder of the run's response store, or None when there is none."""
    if settings.cache_mode == "off":
        return None
    if settings.cache is not None:
        return settings.cache
    cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
    if cache is None:
        if settings.cache_mode == "replay":
            raise pytest.UsageError("--toolcall-cache-mode=replay needs --toolcall-cache=DIR or pytest's cache")
        return None
    return Path(cache.mkdir("toolcall"))


def check_store(config: pytest.Config, settings: Settings) -> str:
    """Open the store once at start-up, before any worker or request: a damaged one is moved aside
    and replaced when the mode writes (the returned line says so), else a usage error names it."""
    if all(model == ORACLE for model in (settings.model, *settings.other_models)):
        return ""  # the oracle answers at once: it never uses the store
    folder = store_dir(config, settings)
    if folder is None:
        return ""
    try:
        store = ResponseStore(folder / STORE_FILE, settings.cache_mode == "read-write")
    except StoreError as exc:
        raise pytest.UsageError(f"--toolcall-cache: {exc}") from None
    store.close()
    return f"{store.path}: {store.repaired}" if store.repaired else ""
