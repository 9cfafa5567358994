"""This process's answers: the model client, the response store in front of it, and the prefetcher
that starts the work of upcoming items. Lives in every process that runs items (xdist workers too).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.config.settings import ORACLE, WRITING_MODES, Settings
from pytest_toolcall.core.protocol.benchmark import Dialogue, Requests, Skip, Unit
from pytest_toolcall.core.protocol.types import (
    ChatRequest,
    ChatResponse,
    FatalRequestError,
    Model,
    ModelSettings,
    RequestError,
)
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.model import sdk_process
from pytest_toolcall.model.oracle import OracleModel
from pytest_toolcall.model.prefetch import DoneJob, Job, Prefetcher, RequestsJob, RunOrder, ThreadJob
from pytest_toolcall.model.store import CachedModel, ResponseStore, ReusePolicy, StoreError, exchange_key
from pytest_toolcall.results.usage import Budget
from pytest_toolcall.runner import compat
from pytest_toolcall.runner.collect import CATALOG, Catalog, unit_of
from pytest_toolcall.runner.items import HAND_OVER, Handed

STORE_FILE = "responses.sqlite3"
#: The run of the store this session belongs to (``ResponseStore.begin_run``): set where the store is
#: checked at start-up; xdist workers get it in their ``workerinput`` under ``STORE_RUN_INPUT``.
STORE_RUN = pytest.StashKey["str | None"]()
STORE_RUN_INPUT = "toolcall_store_run"
#: Options that change neither what is collected nor what is sent: a run interrupted and started
#: again with another of these continues (its answers reused).
_NOT_SELECTION = frozenset(
    {
        "cache", "cache-mode", "cache-max-age", "report", "html", "fail-under", "max-errors", "baseline",
        "fail-on-regression", "gate-on", "gate-value", "concurrency", "timeout", "max-retries", "budget", "price",
    }
)  # fmt: skip


class Answers:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self._models: dict[tuple[str, str | None, str, bool], Model] = {}
        self._store: ResponseStore | None = None
        self._own_client = False  # this worker could not reach the controller's client process
        # Prefetching is for answers that take time. When none does (the oracle, a replay from the
        # store), each item asks as it runs: its sample is parsed, answered and scored at once,
        # instead of being held for the items in between.
        self.prefetcher = Prefetcher(self.job_for, lookahead=2 * settings.concurrency if settings.sends_requests else 0)
        self.order: RunOrder | None = None
        #: Why the run stopped sending (an answer no retry can fix), or None.
        self.stopped: str | None = None
        #: (unit, answer, record) of the item being run, from its setup to its test function (one at
        #: a time: an item whose test function never runs, under ``--setup-only``, leaves nothing).
        self._handed: tuple[Unit, Handed, dict[str, Any]] | None = None
        config.stash[HAND_OVER] = self.handed_over
        # Dialogues are sequential by nature: each runs on a thread of its own so that it never
        # blocks the other items while it waits for the model.
        self.dialogues = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="toolcall-dialogue")
        self.budget: Budget | None = None
        self.budget_spent = ""
        #: The usage entry of every answer to a request that no unit sent (a user's test through the
        #: session fixture ``toolcall_model``): counted in the run's usage, in no record.
        self.other_requests: list[dict[str, Any]] = []
        if settings.budget is not None and settings.price is not None:
            # Each xdist worker spends from its own share: together they never pass the limit.
            workers = int(compat.worker_input(config).get("workercount", 1) or 1)
            self.budget = Budget(settings.budget / workers, settings.price)
            # The same reason for every unit not sent (pytest's -rs folds equal ones into one line).
            share = f" (each of the {workers} xdist workers spends from its share)" if workers > 1 else ""
            self.budget_spent = f"not sent: the estimated cost passed --toolcall-budget={settings.budget:g} USD{share}"

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
        return self.named(s.model, s.base_url, s.api_key_env, self.streams(s.model, s.base_url, False))

    @property
    def session_model(self) -> Model:
        """The model under test as the fixture ``toolcall_model`` hands it out: each answer counted in
        ``other_requests`` (the oracle's cost nothing and are counted nowhere, as for units)."""
        return self.model if self.oracle else OtherRequests(self.model, self.other_requests)

    def named(self, name: str, base_url: str | None, api_key_env: str, stream: bool = False) -> Model:
        """A model by name (the one under test, or a user simulator), built once; ``stream``: asked
        with streamed requests."""
        key = (name, base_url, api_key_env, stream)
        if key not in self._models:
            self._models[key] = self._build(name, base_url, api_key_env, stream)
        return self._models[key]

    def streams(self, name: str, base_url: str | None, streamed_view: bool) -> bool:
        """Whether a unit's requests to this model are streamed: only the model under test's, under
        ``--toolcall-stream on`` or in the streamed half of ``both`` (a user simulator is not measured)."""
        s = self.settings
        wanted = s.stream == "on" or (s.stream == "both" and streamed_view)
        return wanted and (name, base_url) == (s.model, s.base_url)

    def _build(self, name: str, base_url: str | None, api_key_env: str, stream: bool = False) -> Model:
        s = self.settings
        if name == ORACLE:
            return OracleModel()  # instant and offline: nothing to store
        network: Model | None = None
        if s.cache_mode != "replay":  # replay never touches the network
            network = self._gateway(
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
                    stream=stream,
                    api=s.api if (name, base_url) == (s.model, s.base_url) else "chat",
                )
            )
            if self.budget is not None:
                network = BudgetedModel(network, self.budget, self.budget_spent)
        store = self.store()
        if store is None:
            assert network is not None
            return network
        sampling: dict[str, Any] = {
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "extra_body": s.extra_body,
        }
        # A streamed answer, or one through the Responses API, is another answer: stored apart (the
        # keys of plain Chat Completions answers stay as they were).
        if stream:
            sampling["stream"] = True
        if s.api != "chat" and (name, base_url) == (s.model, s.base_url):
            sampling["api"] = s.api
        return CachedModel(name, network, store, s.cache_mode, base_url, sampling)

    def client_address(self) -> str:
        """The run's client process: on an xdist worker the controller's (unless this worker could
        not reach it), else this process's."""
        controller = compat.worker_input(self.config).get(sdk_process.WORKER_INPUT)
        return sdk_process.client_address() if controller is None or self._own_client else controller

    def _gateway(self, model_settings: ModelSettings) -> sdk_process.GatewayModel:
        address = self.client_address()
        try:
            return sdk_process.GatewayModel(model_settings, address)
        except OSError:
            if address == sdk_process.own_address():
                raise
        # The controller's client process is out of reach (a worker on another host through
        # ``--tx ssh=...``, a socket this worker cannot open): this worker starts a client of its own.
        self._own_client = True
        return sdk_process.GatewayModel(model_settings, sdk_process.client_address())

    def store(self) -> ResponseStore | None:
        if self._store is None:
            folder = self.store_dir()
            if folder is not None:
                try:
                    self._store = ResponseStore(
                        folder / STORE_FILE, self.settings.cache_mode in WRITING_MODES, self.policy()
                    )
                except StoreError as exc:
                    raise RequestError(f"response store: {exc}") from None
        return self._store

    def store_dir(self) -> Path | None:
        return store_dir(self.config, self.settings)

    def policy(self) -> ReusePolicy:
        """Which stored answers this run takes: its own run's (an interrupted run continued), and
        those of earlier runs only when asked (``reuse``, read-only, replay) or for ``--lf``."""
        s = self.settings
        run_id = compat.worker_input(self.config).get(STORE_RUN_INPUT) or self.config.stash.get(STORE_RUN, None)
        last_failed = bool(getattr(self.config.option, "lf", False))
        other_runs = s.cache_mode in ("reuse", "read-only", "replay") or last_failed
        return ReusePolicy(run_id=run_id, other_runs=other_runs, max_age_s=s.cache_max_age)

    def store_losses(self) -> tuple[int, str]:
        """How many answers this process could not write to the store, and why the first could not."""
        store = self._store
        return (store.not_kept, store.write_problem) if store is not None else (0, "")

    # --- jobs ----------------------------------------------------------------------------------

    def job_for(self, item: pytest.Item) -> Job | None:
        unit = unit_of(item)
        if unit is None:
            return None
        if self.stopped is not None:
            return DoneJob(Skip(f"not sent: {self.stopped}"))
        job = self._unit_job(unit, UnitModels(self, unit))
        if self.settings.stream == "both":
            # The same plan again, through the streamed model: its answer is compared with the plain one.
            job.streamed = self._unit_job(unit, UnitModels(self, unit, streamed=True))
        return job

    def _unit_job(self, unit: Unit, models: UnitModels) -> UnitJob:
        plan = self.catalog.benchmarks[unit.benchmark].plan(unit, models)
        if isinstance(plan, Requests):
            return UnitJob(RequestsJob(models.model, plan.requests), models)
        if isinstance(plan, Dialogue):
            return UnitJob(ThreadJob(self.dialogues, plan.run), models)
        assert isinstance(plan, Skip), f"{unit.benchmark}.plan returned {plan!r}"
        return UnitJob(DoneJob(plan), models)

    def hand_over(self, item: pytest.Item, unit: Unit, record: dict[str, Any]) -> None:
        """Take the item's answer, for its test function (``handed_over``)."""
        self._handed = None  # (also when this item gets no answer: the slot never holds a stale one)
        job = self.prefetcher.take(item)
        streamed = _streamed(job)  # (first: the sample's usage counts the streamed requests too)
        answer = self._answer(job, record)
        self._handed = (unit, Handed(answer, record, self.settings.stream, _responses(job), streamed), record)

    def handed_over(self, unit: Unit) -> Handed:
        """What the unit whose setup just took its answer got: the answer, its record, and under
        ``--toolcall-stream`` what the comparison needs."""
        handed, self._handed = self._handed, None
        assert handed is not None and handed[0] is unit, f"{unit.nodeid}: its setup took no answer"
        return handed[1]

    def _answer(self, job: Job, record: dict[str, Any]) -> Any:
        """What the model answered to the item's plan, usually already fetched by the prefetcher: the
        responses of its requests, or what its dialogue returned. A request that got no answer
        fails the item's setup (an error, not the model's failure); work not sent skips it."""
        try:
            answer = job.result()
        except BudgetExhausted as exc:
            _keep_usage(job, record)
            record["not_run"] = "budget"  # the gate counts it as not run: the run is partial
            pytest.skip(str(exc))
        except FatalRequestError as exc:
            # The first such answer is this item's error; every later item is skipped with its reason.
            if self.stopped is not None:
                record["stopped"] = True
                pytest.skip(f"not sent: {self.stopped}")
            self.stop(str(exc))
            _keep_usage(job, record)
            record.update(error=inert(exc), stopped=True)
            pytest.fail(f"request failed: {inert(exc)}", pytrace=False)
        except RequestError as exc:
            _keep_usage(job, record)
            record["error"] = inert(exc)
            pytest.fail(f"request failed: {inert(exc)}", pytrace=False)
        if isinstance(answer, Skip):
            if self.stopped is not None and answer.reason.startswith("not sent:"):
                record["stopped"] = True
            pytest.skip(inert(answer.reason))
        _keep_usage(job, record)
        if isinstance(answer, list) and answer and all(isinstance(r, ChatResponse) for r in answer):
            record["latency_s"] = round(max(r.latency_s for r in answer), 4)
        elif record["usage"]:  # a dialogue: its requests one after the other
            record["latency_s"] = round(sum(r["latency_s"] for r in record["usage"]["requests"]), 4)
        return answer

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
        for model in self._models.values():
            model.close()
        if self._store is not None:
            self._store.close()


ANSWERS = pytest.StashKey[Answers]()


def _keep_usage(job: Any, record: dict[str, Any]) -> None:
    models = getattr(job, "models", None)
    if models is not None:
        streamed = getattr(job, "streamed", None)
        record["usage"], record["from_store"] = models.usage(streamed.models if streamed is not None else None)


class BudgetExhausted(RequestError):
    """Not sent: the estimated cost of the run has passed ``--toolcall-budget``."""


class BudgetedModel:
    """The network model behind ``--toolcall-budget``: the cost of each answer is added as it arrives,
    and once the estimate passes the limit no new request is sent (the store still answers)."""

    def __init__(self, model: Model, budget: Budget, spent: str) -> None:
        self.name = model.name
        self.model = model
        self.budget = budget
        self.spent = spent  # the reason a request is not sent
        self._lock = threading.Lock()

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        with self._lock:
            exhausted = self.budget.exhausted
        if exhausted:
            future: Future[ChatResponse] = Future()
            future.set_exception(BudgetExhausted(self.spent))
            return future
        future = self.model.submit(request)
        future.add_done_callback(self._count)
        return future

    def _count(self, done: Future[ChatResponse]) -> None:
        if done.cancelled() or done.exception() is not None:
            return
        usage = done.result().usage or {}
        with self._lock:
            self.budget.add(usage)

    def close(self) -> None:
        self.model.close()


class OtherRequests:
    """A model whose answers are counted in a list (the usage of requests that belong to no unit)."""

    def __init__(self, model: Model, counted: list[dict[str, Any]]) -> None:
        self.name = model.name
        self._model = model
        self._counted = counted

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        future = self._model.submit(request)
        future.add_done_callback(self._count)
        return future

    def _count(self, done: Future[ChatResponse]) -> None:
        if not done.cancelled() and done.exception() is None:
            self._counted.append(request_usage(done.result()))  # (list.append: safe from any thread)

    def close(self) -> None:
        pass  # the run's model: closed by the run


class UnitModel:
    """A model as one unit sees it: each request carries who asks (unit, attempt, step) into the store
    key, and every answer is kept so that the unit's record can say what it used."""

    def __init__(self, model: Model, asker: str, answers: list[Future[ChatResponse]]) -> None:
        self.name = model.name
        self._model = model
        self._asker = asker
        self._steps = itertools.count()
        self._answers = answers

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        identity = f"{self._asker}\x00{next(self._steps)}"
        future = self._model.submit(dataclasses.replace(request, identity=identity))
        self._answers.append(future)
        return future

    def close(self) -> None:
        pass  # the run's model: closed by the run


class UnitModels:
    """The ``Models`` a unit's plan gets: the run's models, seen through ``UnitModel``."""

    def __init__(self, answers: Answers, unit: Unit, streamed: bool = False) -> None:
        self._run = answers
        self._unit = unit
        #: The streamed half of ``--toolcall-stream both``.
        self.streamed = streamed
        self._views: dict[tuple[str, str | None, str], UnitModel] = {}
        #: Every request the unit sent (or got from the store), in order.
        self.answers: list[Future[ChatResponse]] = []
        self._occurrences: dict[str, int] = {}

    @property
    def oracle(self) -> bool:
        return self._run.oracle

    @property
    def model(self) -> Model:
        s = self._run.settings
        return self.named(s.model, s.base_url, s.api_key_env)

    def named(self, name: str, base_url: str | None, api_key_env: str) -> Model:
        if name == ORACLE:
            # Its answers cost nothing, take no time and are never stored: no usage, no identity.
            return self._run.named(name, base_url, api_key_env)
        key = (name, base_url, api_key_env)
        if key not in self._views:
            stream = self._run.streams(name, base_url, self.streamed)
            model = self._run.named(name, base_url, api_key_env, stream)
            self._views[key] = UnitModel(model, self._unit.asker, self.answers)
        return self._views[key]

    def exchange(self, kind: str, request: Any, perform: Callable[[], Any]) -> Any:
        """An environment's answer, through the run's store (``Models.exchange``); the oracle's runs
        keep nothing, like its answers."""
        if self._run.oracle:
            return perform()
        same = json.dumps([kind, request], sort_keys=True, default=repr)
        occurrence = self._occurrences[same] = self._occurrences.get(same, 0) + 1
        store = self._run.store()
        key = exchange_key(self._unit.asker, kind, request, occurrence)
        if store is not None:
            found, value = store.get_exchange(key)
            if found:
                return value
        if self._run.settings.cache_mode == "replay":
            raise RequestError(f"replay mode: no stored {kind} answer for {json.dumps(request, default=repr)[:200]}")
        value = perform()
        if store is not None and self._run.settings.cache_mode in WRITING_MODES:
            store.put_exchange(key, kind, value)
        return value

    def responses(self) -> list[ChatResponse]:
        """The answers the unit got, in the order it asked."""
        return [f.result() for f in list(self.answers) if f.done() and not f.cancelled() and not f.exception()]

    def usage(self, streamed: UnitModels | None = None) -> tuple[dict[str, Any] | None, bool]:
        """(the sample's ``usage``, ``from_store``): token sums and one entry per answered request,
        with those of the ``streamed`` half of ``--toolcall-stream both`` (marked ``streamed``)."""
        also = streamed.responses() if streamed is not None else []
        responses = self.responses() + also
        if not responses:
            return None, False
        requests = [request_usage(r) for r in responses]
        for entry in requests[len(responses) - len(also) :]:
            entry["streamed"] = True
        usage: dict[str, Any] = {
            key: sum(r.get(key) or 0 for r in requests)
            for key in ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
            if key in ("prompt_tokens", "completion_tokens") or any(key in r for r in requests)
        }
        usage["requests"] = requests
        return usage, all(r.from_store for r in responses)


#: The ``UnitModels`` of a user's test counted in a benchmark (``toolcall_chat``): what it asks goes
#: through them, so its record's ``usage`` and ``from_store`` say what it used, as an item's do.
TEST_MODELS = pytest.StashKey[UnitModels]()


def request_usage(response: ChatResponse) -> dict[str, Any]:
    """One request's entry in a sample's ``usage.requests`` (what ``results.usage`` sums)."""
    entry: dict[str, Any] = dict(response.usage or {})
    entry.update(latency_s=round(response.latency_s, 4), from_store=response.from_store, retries=response.retries)
    if response.from_store and response.stored_at is not None:
        entry["stored_at"] = round(response.stored_at, 3)
    return entry


@dataclasses.dataclass
class UnitJob:
    """A unit's work with the models it used (for its usage); under ``--toolcall-stream both`` with
    the same work asked through the streamed model beside it."""

    job: Job
    models: UnitModels
    streamed: UnitJob | None = None

    def start(self) -> None:
        self.job.start()
        if self.streamed is not None:
            self.streamed.start()

    def pending(self) -> int:
        return self.job.pending() + (self.streamed.pending() if self.streamed is not None else 0)

    def result(self) -> Any:
        return self.job.result()

    def cancel(self) -> None:
        self.job.cancel()
        if self.streamed is not None:
            self.streamed.cancel()


def _responses(job: Any) -> list[ChatResponse]:
    models = getattr(job, "models", None)
    return models.responses() if models is not None else []


def _streamed(job: Any) -> tuple[Any, list[ChatResponse]] | RequestError | None:
    streamed = getattr(job, "streamed", None)
    if streamed is None:
        return None
    try:
        answer = streamed.result()
    except RequestError as exc:
        return exc
    return answer, streamed.models.responses()


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
    if settings.cache_mode == "replay" and not (folder / STORE_FILE).exists():
        raise pytest.UsageError(f"--toolcall-cache-mode=replay: no response store at {folder / STORE_FILE}")
    writes = settings.cache_mode in WRITING_MODES
    try:
        store = ResponseStore(folder / STORE_FILE, writes)
    except StoreError as exc:
        raise pytest.UsageError(f"--toolcall-cache: {exc}") from None
    try:
        if writes and not config.option.collectonly:
            config.stash[STORE_RUN], _ = store.begin_run(selection_digest(config, settings))
    finally:
        store.close()
    return f"{store.path}: {store.repaired}" if store.repaired else ""


def selection_digest(config: pytest.Config, settings: Settings) -> str:
    """What a session runs and sends: its arguments, -k, -m and the options that change the items or
    the requests (a run started again with the same ones continues the store's unfinished run)."""
    payload = {
        "args": sorted(str(arg) for arg in config.args),
        "keyword": getattr(config.option, "keyword", "") or "",
        "markexpr": getattr(config.option, "markexpr", "") or "",
        "options": {k: v for k, v in sorted(settings.raw.items()) if k not in _NOT_SELECTION},
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def finish_store_run(config: pytest.Config, settings: Settings) -> None:
    """Mark this session's run of the store finished (an uninterrupted session): the next session
    of the same selection asks the model anew."""
    run = config.stash.get(STORE_RUN, None)
    folder = store_dir(config, settings) if run is not None else None
    if run is None or folder is None:
        return
    try:
        store = ResponseStore(folder / STORE_FILE, True)
    except StoreError:
        return  # the next session continues this run: nothing is lost
    try:
        store.finish_run(run)
    finally:
        store.close()
