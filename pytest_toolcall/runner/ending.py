"""The plugin object of the end of a run (registered where reports land: not on xdist workers). It
builds the run's one ``RunResult`` (``results/run_result.py``) from the records, marks the session's
run of the response store finished, applies the gate, and hands the result to the output hooks
(``pytest_toolcall/hookspecs.py``): the built-in outputs (``results/outputs.py``: JSON and HTML
reports, GitHub and terminal summaries), JUnit's suite properties and any plugin's hang there, so
that a new output is a plugin, not an edit here."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from pytest_toolcall import __version__
from pytest_toolcall.config.registry import is_benchmark_nodeid
from pytest_toolcall.core.protocol.blocks import BlockError
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.core.safety.urls import redact_url
from pytest_toolcall.results import gate
from pytest_toolcall.results.identity import file_hashes, run_identity
from pytest_toolcall.results.outputs import Outputs
from pytest_toolcall.results.run_result import RunResult
from pytest_toolcall.results.selection import selection_of
from pytest_toolcall.runner import compat
from pytest_toolcall.runner.keys import RESULT
from pytest_toolcall.runner.run import Run, now
from pytest_toolcall.runner.store_setup import finish_store_run

#: Options a report does not keep: where this run wrote its outputs (and the gate it applied).
REPORT_OMITS = frozenset({"report", "html"})


class RunEnd:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.result: RunResult | None = None
        s, manager = run.settings, run.config.pluginmanager
        manager.register(Outputs(s.report, s.html, run.baseline), "toolcall-outputs")
        # The hook modules the run's benchmarks name (their own outputs, export formats).
        for name, benchmark in run.benchmarks.items():
            module = importlib.import_module(benchmark.hooks) if benchmark.hooks else None
            if module is not None and not manager.is_registered(module):
                manager.register(module, f"toolcall-{name}-hooks")

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Any:
        """Before the other implementations: the result, the gate and the outputs (the JUnit writer
        writes after this, so it gets the suite properties)."""
        self.finish(session)
        return (yield)

    def finish(self, session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.USAGE_ERROR:
            return  # stopped at collection (a reference that does not fit...): nothing ran, nothing to write
        run = self.run
        interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
        run.catalog  # the data, for what aggregates need of it (the xdist controller loads it here)  # noqa: B018
        samples = self.samples()
        s = run.settings
        try:
            result = RunResult.of_run(
                self.run_section(interrupted, samples),
                samples,
                run.benchmarks,
                baseline=run.baseline,
                price=s.price,
                budget=s.budget,
                output_failures=run.output_failures,
            )
        except BlockError as exc:  # a benchmark's bug: one line, not a traceback, and no report
            pytest.exit(str(exc), returncode=pytest.ExitCode.INTERNAL_ERROR)
        self.result = run.config.stash[RESULT] = result
        if not (interrupted or session.shouldfail or session.shouldstop or self.stopped(samples)):
            finish_store_run(run.config, s)
        if run.gate.active:
            result.verdict = gate.decide(result, run.gate)
            result.alpha = run.gate.alpha
        try:
            run.config.hook.pytest_toolcall_run_result(result=result, config=run.config)
        except Exception as exc:  # a plugin's bug: the outputs after it are lost, the run fails
            result.output_failures.append(f"an output plugin failed: {type(exc).__name__}: {exc}")
        if result.verdict is not None and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            failed = gate.exit_failed(result.verdict, result)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED if failed else pytest.ExitCode.OK
        elif result.output_failures and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED  # its artefacts are incomplete

    @staticmethod
    def stopped(samples: list[dict[str, Any]]) -> bool:
        """Whether items were left unasked (a fatal answer, the budget): the session did not finish."""
        return any(r.get("stopped") or r.get("not_run") == "budget" for r in samples)

    def samples(self) -> list[dict[str, Any]]:
        """Every record; a record of a crashed worker gets its unit's identity from the data."""
        samples = []
        for record in self.run.collector.records.values():
            if "benchmark" not in record:
                unit = self.run.catalog.unit(record["nodeid"], self.run.config.rootpath)
                record = {**unit.identity(), **record} if unit is not None else {**record, "benchmark": None}
            samples.append(record)
        return samples

    def run_section(self, interrupted: bool, samples: list[dict[str, Any]]) -> dict[str, Any]:
        """The report's ``run``: what ran, and everything the gate judges besides the metrics, so
        that the offline gate judges a report as the run did; and the run's identity."""
        run, s = self.run, self.run.settings
        collector = run.collector
        selected = collector.selected
        chosen = run.selection or selection_of(selected)
        section: dict[str, Any] = {
            "model": s.model,
            "base_url": redact_url(s.base_url),
            "started_at": run.started_at,
            "finished_at": now(),
            "plugin_version": __version__,
            # What each benchmark's requests were sent with (its own sampling, the run's replacing
            # it; a request may set more, as ACEBench's agent dialogues do), and the extra body.
            "settings": {
                "sampling": {name: s.sampling_for(b.sampling) for name, b in run.benchmarks.items()},
                "extra_body": s.extra_body,
            },
            "datasets": {name: benchmark.datasets() for name, benchmark in run.benchmarks.items()},
            "repeat": s.repeat,
            "selected": len(selected),
            "not_run": len(set(selected) - set(collector.records)),
            "not_asked": sum(1 for r in collector.records.values() if r.get("not_run") == "budget"),
            "data_problems": run.data_problems,
            # A Python test that asked the model (``toolcall_chat``) has a record instead: it is
            # counted in its block.
            "ordinary_failed": sorted(run.ordinary_failures - set(collector.records)),
            # What users' tests asked through ``toolcall_model``: in the usage, in no sample.
            "other_requests": run.other_requests,
            "interrupted": interrupted,
            "shard": chosen.shard,
            # What merge needs to check shards and recompute the metrics the same way:
            "selection": chosen.as_dict(),
            # (URL-valued options without their credentials, as everywhere text is written)
            "options": {
                k: redact_url(v) if isinstance(v, str) else v for k, v in s.raw.items() if k not in REPORT_OMITS
            },
            "aggregation": {name: benchmark.aggregate_context() for name, benchmark in run.benchmarks.items()},
            "partial": False,
        }
        section["identity"] = run_identity(section, file_hashes(samples, run.config.rootpath))
        return section

    # A second implementation of the hook (pytest reads only ``pytest_*`` names, hence this one).
    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_terminal_summary")
    def pytest_terminal_summary_failures(self, terminalreporter: Any) -> Any:
        """Before pytest's FAILURES section (the outermost wrapper): under ``--tb=line`` a failed
        item's failure is one line (``failures.present``), under xdist too, without the line naming
        the worker (every output that needs the worker has been written by now)."""
        if self.run.config.option.tbstyle == "line":
            for rep in terminalreporter.stats.get("failed", []):
                if is_benchmark_nodeid(rep.nodeid):
                    compat.forget_worker(rep)
        return (yield)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.result is None or self.run.config.option.collectonly:
            return
        config = self.run.config
        config.hook.pytest_toolcall_terminal_summary(
            result=self.result, terminalreporter=terminalreporter, config=config
        )
        lost, why, ignored, ignore_why = self.run.store_lost
        if ignored:
            terminalreporter.write_line(
                f"toolcall: response store: {ignored} stored row(s) ignored ({inert(ignore_why, 200)}): "
                "each was taken as not stored, and its unit asked again",
                yellow=True,
            )
        if lost:
            terminalreporter.write_line(
                f"toolcall: response store: {lost} answer(s) not kept ({why}): "
                "they were scored, but a later run asks for them again",
                yellow=True,
            )
