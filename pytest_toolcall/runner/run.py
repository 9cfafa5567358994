"""The state one run's plugin objects share (``Run``, in the config's stash under ``RUN``), and the
checks made when a run starts, before any request: outputs writable, API keys set, baseline readable,
the benchmarks' own inputs read (``Benchmark.read_inputs``)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.config import registry
from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.benchmark import Benchmark, Unit
from pytest_toolcall.core.protocol.options import usage_error
from pytest_toolcall.core.protocol.types import Role
from pytest_toolcall.core.safety.urls import redact_url
from pytest_toolcall.results import gate, report
from pytest_toolcall.results.baseline import BaselineError, load_baseline
from pytest_toolcall.results.records import RecordCollector
from pytest_toolcall.runner import collect, compat, selection, shards
from pytest_toolcall.runner.keys import CATALOG, WORK
from pytest_toolcall.runner.models import role_endpoints
from pytest_toolcall.runner.store_setup import check_store
from pytest_toolcall.runner.work import Work


class Run:
    """What the plugin objects of one run share: its settings and benchmarks, the records gathered,
    and what collection and the session found (data problems, other tests that failed...)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        classes = registry.benchmark_classes()
        self.is_worker = compat.is_xdist_worker(config)
        try:
            self.gate = gate.GateOptions.parse(
                settings.fail_under,
                settings.max_errors,
                settings.gate_on,
                settings.gate_value,
                settings.fail_on_regression,
            )
        except ValueError as exc:
            raise pytest.UsageError(f"--toolcall-fail-under: {exc}") from None
        if not self.is_worker:
            check_outputs(config, settings)
        # (Workers open the store the controller checked; xdist has not started them yet.)
        self.store_repaired = "" if self.is_worker else check_store(config, settings)
        if settings.fail_on_regression is not None and settings.baseline is None:
            raise pytest.UsageError("--toolcall-fail-on-regression: needs --toolcall-baseline=REPORT.json")
        #: The baseline report, read now: a wrong path is found before any request.
        self.baseline: dict[str, Any] | None = None
        if settings.baseline is not None:
            try:
                self.baseline = load_baseline(settings.baseline)
            except BaselineError as exc:
                raise pytest.UsageError(f"--toolcall-baseline: {exc}") from None
        # The selected benchmarks, and those of the users' own files (case files): these are active
        # in every run, since their items come from whatever paths pytest is given.
        own_files = [n for n, cls in classes.items() if cls.file_suffixes and n not in settings.benches]
        names = [*settings.benches, *own_files]
        benchmarks = {name: classes[name](settings) for name in names}
        problem = gate.threshold_problem(self.gate.thresholds, benchmarks)
        if problem is not None:
            raise pytest.UsageError(f"--toolcall-fail-under: {problem}")
        for benchmark in benchmarks.values():  # (in every process: workers score with what is read)
            benchmark.read_inputs()
        if not self.is_worker and not config.option.collectonly:  # collecting sends nothing
            check_api_keys(settings, benchmarks.values())
        self.requested = selection.take_nodeid_arguments(config)
        config.stash[CATALOG] = collect.Catalog(settings, benchmarks)
        self.config = config
        self.settings = settings
        self.benchmarks: dict[str, Benchmark] = benchmarks
        #: ``--setup-plan`` shows what would run: no item asks the model or gets a record.
        self.plan_only = bool(getattr(config.option, "setupplan", False))
        self.collector = RecordCollector()
        self.started_at = now()
        self.data_problems: list[str] = []  # node ids of the data that could not be loaded
        self.output_failures: list[str] = []  # outputs that could not be written at the end
        #: Answers the store could not keep (summed over every process of the run) and why the first
        #: could not.
        self.store_lost: list[Any] = [0, ""]
        #: The usage entries of requests that belong to no unit (``Answers.other_requests``), of every
        #: process of the run.
        self.other_requests: list[dict[str, Any]] = []
        #: What was selected before sharding (known where items are collected; xdist workers send it).
        self.selection: shards.Selection | None = None
        #: Node ids of the session's other tests (and collectors) that failed: a gate never passes them.
        self.ordinary_failures: set[str] = set()

    def check_selected(self, units: Callable[[], Iterable[Unit]]) -> None:
        """Hand each benchmark the selected units that are its own (``Benchmark.check_selected``); a
        usage error stops the run before any item is asked. ``units`` makes them on demand: the xdist
        controller looks them up in the data, which only a benchmark that checks them pays for."""
        for name, benchmark in self.benchmarks.items():
            benchmark.check_selected(unit for unit in units() if unit.benchmark == name)

    def add_store_losses(self, count: int, problem: str) -> None:
        self.store_lost = [self.store_lost[0] + count, self.store_lost[1] or problem]

    @property
    def catalog(self) -> collect.Catalog:
        """The selected benchmarks with their data, loaded on first use (the xdist controller, which
        collects nothing, loads it only to aggregate)."""
        return self.config.stash[CATALOG].load()

    @property
    def work(self) -> Work:
        """The model work of the items (made on first use: the xdist controller asks no model)."""
        if WORK not in self.config.stash:
            self.config.stash[WORK] = Work(self.config, self.settings)
        return self.config.stash[WORK]

    def output_lost(self, session: pytest.Session, what: str, path: Any, exc: BaseException) -> None:
        """One output could not be written: say so in one line, keep writing the others, and make
        the run fail (its artefacts are incomplete)."""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        self.output_failures.append(f"{what} not written to {path}: {reason}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def check_api_keys(settings: Settings, benchmarks: Iterable[Benchmark]) -> None:
    """Every model a run will reach over the network (the one under test, and the user simulator or
    the judge when a selected benchmark asks for them: ``Benchmark.roles``) names a variable that
    holds its key, or chose none (an empty ``--toolcall-...api-key-env``, for endpoints that need no
    key): never a made-up key, and never found out hours into a run."""
    if not settings.sends_requests:
        return
    asked = {Role.MODEL, *(role for benchmark in benchmarks for role in benchmark.roles())}
    for role, model in role_endpoints(settings).items():
        if role not in asked or model.oracle or not model.api_key_env or os.environ.get(model.api_key_env):
            continue
        endpoint = redact_url(model.base_url) or "the default endpoint"
        raise usage_error(
            model.key_option,
            f"${model.api_key_env} is not set: set it to the API key of {endpoint}, "
            f"or pass --toolcall-{model.key_option}= (empty) for an endpoint that needs no key",
        )


def check_outputs(config: pytest.Config, settings: Settings) -> None:
    """Every output path, checked before any request: a path that cannot be written is a usage
    error now rather than a lost result after hours of requests."""
    outputs = [("report", settings.report), ("html", settings.html)]
    xmlpath = getattr(config.option, "xmlpath", None)
    for name, path in [*outputs, ("junitxml", xmlpath)]:
        if not path:
            continue
        problem = report.output_problem(Path(path).expanduser().absolute())
        if problem is not None:
            option = "--junitxml" if name == "junitxml" else f"--toolcall-{name}"
            if name == "junitxml":
                raise pytest.UsageError(f"{option}: cannot write {path}: {problem}")
            raise usage_error(name, f"cannot write {path}: {problem}")
    given = [Path(p).expanduser().absolute() for _, p in outputs if p] + ([Path(xmlpath).absolute()] if xmlpath else [])
    if len(set(given)) != len(given):
        raise pytest.UsageError("--toolcall-report, --toolcall-html and --junitxml must name different files")


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
