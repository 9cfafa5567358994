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
from pytest_toolcall.core.safety import door
from pytest_toolcall.core.safety.files import clash
from pytest_toolcall.core.safety.urls import redact_url
from pytest_toolcall.model.store import STORE_FILE
from pytest_toolcall.results import gate, report
from pytest_toolcall.results.baseline import BaselineError, load_baseline
from pytest_toolcall.results.records import RecordCollector
from pytest_toolcall.results.selection import Selection
from pytest_toolcall.runner import collect, compat, selection
from pytest_toolcall.runner.keys import CATALOG, WORK
from pytest_toolcall.runner.models import role_endpoints
from pytest_toolcall.runner.store_setup import check_store, store_dir
from pytest_toolcall.runner.work import Work


class Run:
    """What the plugin objects of one run share: its settings and benchmarks, the records gathered,
    and what collection and the session found (data problems, other tests that failed...)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        # The selected benchmarks, and those of the users' own files (case files): these are active
        # in every run, since their items come from whatever paths pytest is given. Only these are
        # imported.
        own_files = [n for n, d in registry.declared().items() if d.file_suffixes and n not in settings.benches]
        classes = registry.benchmark_classes([*settings.benches, *own_files])
        self.is_worker = compat.is_xdist_worker(config)
        try:
            # Gate names are those these benchmarks can produce: any other is an error now, not after the run.
            self.gate = gate.GateOptions.parse(
                settings.fail_under,
                settings.max_errors,
                settings.gate_on,
                settings.gate_value,
                settings.fail_on_regression,
                classes.values(),
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
        benchmarks = {name: cls(settings.for_benchmark(name)) for name, cls in classes.items()}
        problem = gate.threshold_problem(self.gate.thresholds, benchmarks)
        if problem is not None:
            raise pytest.UsageError(f"--toolcall-fail-under: {problem}")
        register_secrets(settings)  # (in every process, before any input is read)
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
        self.store_lost: list[Any] = [0, "", 0, ""]
        #: The usage entries of requests that belong to no unit (``Answers.other_requests``), of every
        #: process of the run.
        self.other_requests: list[dict[str, Any]] = []
        #: What was selected before sharding (known where items are collected; xdist workers send it).
        self.selection: Selection | None = None
        #: Node ids of the session's other tests (and collectors) that failed: a gate never passes them.
        self.ordinary_failures: set[str] = set()

    def check_selected(self, units: Callable[[], Iterable[Unit]]) -> None:
        """Hand each benchmark the selected units that are its own (``Benchmark.check_selected``); a
        usage error stops the run before any item is asked. ``units`` makes them on demand: the xdist
        controller looks them up in the data, which only a benchmark that checks them pays for."""
        for name, benchmark in self.benchmarks.items():
            benchmark.check_selected(unit for unit in units() if unit.benchmark == name)

    def add_store_losses(self, count: int, problem: str, ignored: int = 0, ignore_problem: str = "") -> None:
        """Add a process's answers not kept and stored rows ignored (``Answers.store_losses``)."""
        lost, why, skipped, skip_why = self.store_lost
        self.store_lost = [lost + count, why or problem, skipped + ignored, skip_why or ignore_problem]

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


def register_secrets(settings: Settings) -> None:
    """Hand the door the run's secrets: the key and URL credentials of every model the run may reach
    (the one under test, a user simulator, a judge). From now on no input carries them further. A
    run's secrets are its own: those of an earlier run in this process (a test's) are forgotten."""
    door.forget_secrets()
    door.add_secret(settings.api_key)
    door.add_url(settings.base_url)
    for model in role_endpoints(settings).values():
        door.add_secret(os.environ.get(model.api_key_env) if model.api_key_env else None)
        door.add_url(model.base_url)


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
    named = [(f"--toolcall-{name}", Path(path).expanduser()) for name, path in outputs if path]
    named += [("--junitxml", Path(xmlpath).expanduser())] if xmlpath else []
    problem = clash(named, run_inputs(config, settings))
    if problem is not None:
        raise pytest.UsageError(problem)


def run_inputs(config: pytest.Config, settings: Settings) -> list[tuple[str, Path]]:
    """What a run reads that an output must never be written over: the baseline, every file an
    option names (a reference report, a results file, a data file), the paths given as arguments,
    the response store, and the users' files (case files) an output's own name would make one of."""
    inputs: list[tuple[str, Path]] = []
    if settings.baseline is not None:
        inputs.append(("--toolcall-baseline", settings.baseline))
    for name, value in settings.raw.items():
        if name in ("report", "html") or not isinstance(value, str):
            continue
        for part in value.split(","):
            candidate = Path(part.strip()).expanduser()
            if part.strip() and candidate.is_file():
                inputs.append((f"--toolcall-{name}", candidate))
    for argument in config.args:
        candidate = Path(str(argument).partition("::")[0])
        if candidate.is_file():
            inputs.append(("a path given to pytest", candidate))
    suffixes = registry.collected_file_suffixes()  # (declared: no benchmark is imported for them)
    for path in (settings.report, settings.html, getattr(config.option, "xmlpath", None)):
        if path and suffixes and str(path).endswith(suffixes) and Path(path).is_file():
            inputs.append(("a case file of the run", Path(path)))
    folder = store_dir(config, settings) if settings.cache is not None else None
    if folder is not None:
        inputs.append(("the response store", folder / STORE_FILE))
    return inputs


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
