"""The plugin object of what runs: the header, collection of the benchmark items, selection
(-k, -m, benchmark node ids given as arguments) and shards. Registered in every process of a run
(xdist workers collect; the controller sees the header and the collection reports)."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from pytest_toolcall.config import registry
from pytest_toolcall.config.registry import is_benchmark_nodeid
from pytest_toolcall.core.protocol.benchmark import MODULE_NODEID, Benchmark
from pytest_toolcall.core.protocol.types import Role
from pytest_toolcall.core.safety.urls import redact_url
from pytest_toolcall.results.selection import Selection, selection_of
from pytest_toolcall.runner import collect, compat, selection, shards
from pytest_toolcall.runner.keys import CATALOG, COUNTED, SELECTION_OUTPUT
from pytest_toolcall.runner.models import role_endpoints
from pytest_toolcall.runner.run import Run

#: Where the openai SDK sends requests when neither --toolcall-base-url nor $OPENAI_BASE_URL is set.
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


class Collection:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.deselected = 0  # benchmark items deselected by -m, -k or requested node ids

    def pytest_report_header(self) -> list[str]:
        s = self.run.settings
        endpoint = redact_url(s.base_url) or f"{OPENAI_DEFAULT_URL} (the SDK's default)"
        if s.cache_mode == "replay":
            endpoint = "none (replay from the response store)"
        elif not s.sends_requests:
            endpoint = "none (oracle)"
        parts = [f"toolcall: model={s.model} endpoint={endpoint} bench={','.join(s.benches) or 'none'}"]
        parts += filter(None, (benchmark.header() for benchmark in self.run.benchmarks.values()))
        repaired = [f"toolcall: response store {self.run.store_repaired}"] if self.run.store_repaired else []
        if s.shard is not None:
            parts.append(f"shard={s.shard[0]}/{s.shard[1]}")
        return [
            *repaired,
            " ".join(parts),
            f"toolcall: sampling {self.sampling_text()} concurrency={s.concurrency} "
            f"timeout={s.timeout}s max_retries={s.max_retries} cache={s.cache_mode}",
        ]

    def sampling_text(self) -> str:
        """What the selected benchmarks' requests are sent with: ``acebench(temperature=0.7 max_tokens=1200)``."""
        s, shown = self.run.settings, []
        for name in s.benches or tuple(self.run.benchmarks):  # (a run of case files alone: theirs)
            sent = s.sampling_for(self.run.benchmarks[name].sampling)
            fields = " ".join(f"{key}={value}" for key, value in sent.items() if value is not None)
            shown.append(f"{name}({fields or 'none'})")
        return " ".join(shown) or "none"

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed and self.run.catalog.module_benchmarks:
            report.result.append(collect.benchmark_module(collector))  # (the catalog loads first)
        return report

    def pytest_collect_file(self, file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
        name = self.run.config.stash[CATALOG].file_benchmark(file_path)
        if name is None:
            return None
        return collect.BenchmarkFile.from_parent(parent, path=file_path, benchmark=name)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if metafunc.definition.nodeid.startswith(f"{MODULE_NODEID}::"):
            loaded = self.run.catalog.loaded[metafunc.function.__name__]
            metafunc.parametrize("toolcall_unit", collect.unit_params(loaded.units))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[Any]) -> None:
        # Before -m deselects: an ordinary test asking the model through a benchmark's fixture
        # carries that benchmark's marker (``-m cases`` selects the Python tests of cases too).
        for item in items:
            name = collect.counted_by(item, self.run.benchmarks)
            if name is not None:
                item.add_marker(name)
        if self.run.requested:
            selection.keep_requested(items, self.run.requested, config)

    # A second implementation of the hook (pytest reads only ``pytest_*`` names, hence this one).
    @pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
    def pytest_collection_modifyitems_shard(self, items: list[pytest.Item]) -> None:
        """After -k, -m, --lf... (trylast): a shard is a part of what they left."""
        run = self.run
        chosen = selection_of(units_of(items, run.benchmarks))
        shard = run.settings.shard
        if shard is not None:
            roles = role_endpoints(run.settings)  # (the plans read for the units' costs see the run's roles)
            models = shards.UnaskedModels(roles, oracle=roles[Role.MODEL].oracle)
            kept, dropped, plan = shards.cut(items, shard, run.catalog.benchmarks, models)
            if dropped:
                run.config.hook.pytest_deselected(items=dropped)
                items[:] = kept
            chosen = Selection(chosen.count, chosen.digest, f"{shard[0]}/{shard[1]}", plan)
        run.selection = chosen
        if not run.is_worker:  # (the xdist controller checks what its workers collected)
            run.check_selected(lambda: (unit for item in items if (unit := collect.unit_of(item)) is not None))
        worker_output = compat.worker_output(run.config)
        if worker_output is not None:
            worker_output[SELECTION_OUTPUT] = chosen.as_dict()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and is_benchmark_nodeid(report.nodeid):
            self.run.data_problems.append(report.nodeid)
        elif report.failed and not self.run.is_worker:
            self.run.ordinary_failures.add(report.nodeid or "<collection>")

    @pytest.hookimpl(trylast=True)
    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += sum(1 for item in items if collect.unit_of(item) is not None)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        run = self.run
        if self.deselected and not any(collect.unit_of(item) for item in session.items):
            hint = selection.empty_selection_hint(run.config, run.benchmarks, registry.benchmark_classes().values())
            reporter = run.config.pluginmanager.get_plugin("terminalreporter")
            if hint and reporter is not None:
                reporter.write_line(hint, yellow=True)
        # The data and the items live until the end: keep the collector from walking them again
        # and again (each full collection costs tenths of a second with this many objects).
        gc.freeze()
        # The users' tests a benchmark counts are selected units too (xdist workers tell the
        # controller, which sees node ids only).
        counted = [n for n in units_of(session.items, run.benchmarks) if not is_benchmark_nodeid(n)]
        run.collector.select([item.nodeid for item in session.items], counted)
        worker_output = compat.worker_output(run.config)
        if worker_output is not None:
            worker_output[COUNTED] = counted
        if session.testsfailed and session.testsfailed == len(run.data_problems):
            # The only collection errors are bad lines or files of the data: run the rest, as xdist
            # does anyway; the problems stay errors of the run (exit status, gate).
            compat.continue_on_collection_errors(run.config)

    def pytest_unconfigure(self) -> None:
        # pytest runs five full garbage collections after this (to report unraisable exceptions);
        # with every report of a large run alive (the xdist controller holds them all) that is a
        # third of a second. What is alive now stays alive until the process exits: freeze it.
        gc.freeze()


def units_of(items: list[pytest.Item], benchmarks: Mapping[str, Benchmark]) -> Iterator[str]:
    """The node ids of the units among these items: benchmark items, the users' tests a benchmark
    counts (``toolcall_chat``)."""
    for item in items:
        if is_benchmark_nodeid(item.nodeid) or collect.counted_by(item, benchmarks) is not None:
            yield item.nodeid
