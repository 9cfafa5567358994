"""One active run: collection of the benchmark items, records on reports, the summary, the JSON
report, JUnit properties and the gate. Benchmarks are reached only through their protocol."""

from __future__ import annotations

import datetime
import functools
import gc
import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall import __version__
from pytest_toolcall.core import registry
from pytest_toolcall.core.benchmark import MODULE_NODEID, Benchmark, OtherModel, Unit
from pytest_toolcall.core.blocks import BlockError
from pytest_toolcall.core.registry import is_benchmark_nodeid
from pytest_toolcall.core.settings import ORACLE, Settings, redact_url, usage_error
from pytest_toolcall.model import sdk_process
from pytest_toolcall.results import gate, github, report, summary
from pytest_toolcall.results.aggregate import aggregate, all_blocks, report_document, run_usage
from pytest_toolcall.results.baseline import BaselineError, compare_run, load_baseline
from pytest_toolcall.results.records import RECORD, RecordCollector, new_record, sanitize
from pytest_toolcall.results.stream_parity import stream_section
from pytest_toolcall.results.stream_parity import summary_lines as stream_summary_lines
from pytest_toolcall.runner import collect, failures, selection, shards
from pytest_toolcall.runner.answers import ANSWERS, Answers, check_store


class ToolcallRun:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        classes = registry.benchmark_classes()
        self.thresholds: list[gate.Threshold] = []
        if settings.fail_under:
            try:
                self.thresholds = gate.parse_thresholds(settings.fail_under)
            except ValueError as exc:
                raise pytest.UsageError(f"--toolcall-fail-under: {exc}") from None
        if not hasattr(config, "workerinput"):
            check_outputs(config, settings)
        # (Workers open the store the controller checked; xdist has not started them yet.)
        self.store_repaired = "" if hasattr(config, "workerinput") else check_store(config, settings)
        if settings.fail_on_regression is not None and settings.baseline is None:
            raise pytest.UsageError("--toolcall-fail-on-regression: needs --toolcall-baseline=REPORT.json")
        #: The baseline report, read now: a wrong path is found before any request.
        self.baseline: dict[str, Any] | None = None
        if settings.baseline is not None:
            try:
                self.baseline = load_baseline(settings.baseline)
            except BaselineError as exc:
                raise pytest.UsageError(f"--toolcall-baseline: {exc}") from None
        #: Whether a gate decides the exit status.
        self.gated = bool(self.thresholds) or settings.fail_on_regression is not None
        # The selected benchmarks, and those of the users' own files (case files): these are active
        # in every run, since their items come from whatever paths pytest is given.
        own_files = [n for n, cls in classes.items() if cls.file_suffixes and n not in settings.benches]
        names = [*settings.benches, *own_files]
        benchmarks = {name: classes[name](settings) for name in names}
        if not hasattr(config, "workerinput") and not config.option.collectonly:  # collecting sends nothing
            check_api_keys(settings, benchmarks.values())
        self.requested = selection.take_nodeid_arguments(config)
        config.stash[collect.CATALOG] = collect.Catalog(settings, benchmarks)
        self.config = config
        self.settings = settings
        self.benchmarks: dict[str, Benchmark] = benchmarks
        self.is_worker = hasattr(config, "workerinput")
        self.junit = bool(config.option.xmlpath)  # (also on xdist workers: their reports carry classnames)
        #: ``--setup-plan`` shows what would run: no item asks the model or gets a record.
        self.plan_only = bool(getattr(config.option, "setupplan", False))
        self.collector = RecordCollector()
        self.started_at = _now()
        #: Metrics blocks of each benchmark (name -> block name -> block).
        self.metrics: dict[str, dict[str, Any]] = {}
        self.shortfalls: list[str] = []
        self.deselected = 0  # benchmark items deselected by -m, -k or requested node ids
        self.data_problems: list[str] = []  # node ids of the data that could not be loaded
        self.output_failures: list[str] = []  # outputs that could not be written at the end
        self.interrupted = False  # (Ctrl-C: known at the end)
        #: What was selected before sharding (known where items are collected; xdist workers send it).
        self.selection: shards.Selection | None = None
        #: Node ids of the session's other tests (and collectors) that failed: a gate never passes them.
        self.ordinary_failures: set[str] = set()
        self.usage: dict[str, Any] | None = None
        self.comparison: dict[str, Any] | None = None
        self.last_failed_key = _last_failed_by_model(config, settings)
        # Connect now where items will run (the client process was started by the earliest hook,
        # or is the xdist controller's), so that neither waits for the other after collection.
        xdist_controller = not self.is_worker and getattr(config.option, "dist", "no") != "no"
        if not xdist_controller and not config.option.collectonly:
            self.work.model  # noqa: B018

    @property
    def catalog(self) -> collect.Catalog:
        """The selected benchmarks with their data, loaded on first use (the xdist controller, which
        collects nothing, loads it only to aggregate)."""
        return self.config.stash[collect.CATALOG].load()

    def pytest_report_header(self) -> list[str]:
        s = self.settings
        endpoint = redact_url(s.base_url) or f"{OPENAI_DEFAULT_URL} (the SDK's default)"
        if not s.sends_requests:
            endpoint = "none (oracle)"
        parts = [f"toolcall: model={s.model} endpoint={endpoint} bench={','.join(s.benches) or 'none'}"]
        parts += filter(None, (benchmark.header() for benchmark in self.benchmarks.values()))
        repaired = [f"toolcall: response store {self.store_repaired}"] if self.store_repaired else []
        if s.shard is not None:
            parts.append(f"shard={s.shard[0]}/{s.shard[1]}")
        return [
            *repaired,
            " ".join(parts),
            f"toolcall: temperature={s.temperature} max_tokens={s.max_tokens} concurrency={s.concurrency} "
            f"timeout={s.timeout}s max_retries={s.max_retries} cache={s.cache_mode}",
        ]

    # --- collection ----------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed and self.catalog.module_benchmarks:
            report.result.append(collect.benchmark_module(collector))  # (the catalog loads first)
        return report

    def pytest_collect_file(self, file_path: Any, parent: pytest.Collector) -> pytest.Collector | None:
        name = self.config.stash[collect.CATALOG].file_benchmark(file_path)
        if name is None:
            return None
        return collect.BenchmarkFile.from_parent(parent, path=file_path, benchmark=name)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if metafunc.definition.nodeid.startswith(f"{MODULE_NODEID}::"):
            loaded = self.catalog.loaded[metafunc.function.__name__]
            metafunc.parametrize("toolcall_unit", collect.unit_params(loaded.units))

    # A second implementation of the hook (pytest reads only ``pytest_*`` names, hence this one).
    @pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
    def pytest_collection_modifyitems_shard(self, items: list[pytest.Item]) -> None:
        """After -k, -m, --lf... (trylast): a shard is a part of what they left."""
        chosen = shards.selection_of(item.nodeid for item in items)
        shard = self.settings.shard
        if shard is not None:
            store = self.work.store()
            recorded = store.unit_costs() if store is not None else {}
            kept, dropped, plan = shards.cut(items, shard, self.catalog.benchmarks, recorded)
            if dropped:
                self.config.hook.pytest_deselected(items=dropped)
                items[:] = kept
            chosen = shards.Selection(chosen.count, chosen.digest, f"{shard[0]}/{shard[1]}", plan)
        self.selection = chosen
        worker_output = getattr(self.config, "workeroutput", None)
        if worker_output is not None:
            worker_output[shards.WORKER_OUTPUT] = chosen.as_dict()

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        selection = getattr(node, "workeroutput", {}).get(shards.WORKER_OUTPUT)
        if selection is not None and self.selection is None:
            shard = self.settings.shard
            self.selection = shards.Selection.from_dict(selection, f"{shard[0]}/{shard[1]}" if shard else None)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and is_benchmark_nodeid(report.nodeid):
            self.data_problems.append(report.nodeid)
        elif report.failed and not self.is_worker:
            self.ordinary_failures.add(report.nodeid or "<collection>")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[Any]) -> None:
        # Before -m deselects: an ordinary test asking the model through a benchmark's fixture
        # carries that benchmark's marker (``-m cases`` selects the Python tests of cases too).
        counted = [(b.name, set(b.counted_fixtures)) for b in self.benchmarks.values() if b.counted_fixtures]
        for item in items:
            for name, fixtures in counted:
                if not fixtures.isdisjoint(getattr(item, "fixturenames", ())) and collect.UNIT not in item.stash:
                    item.add_marker(name)
        if self.requested:
            selection.keep_requested(items, self.requested, config)

    @pytest.hookimpl(trylast=True)
    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += sum(1 for item in items if collect.unit_of(item) is not None)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.deselected and not any(collect.unit_of(item) for item in session.items):
            hint = selection.empty_selection_hint(self.config, self.benchmarks, registry.benchmark_classes().values())
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if hint and reporter is not None:
                reporter.write_line(hint, yellow=True)
        # The data and the items live until the end: keep the collector from walking them again
        # and again (each full collection costs tenths of a second with this many objects).
        gc.freeze()
        self.collector.select([item.nodeid for item in session.items])
        if session.testsfailed and session.testsfailed == len(self.data_problems):
            # The only collection errors are bad lines or files of the data: run the rest, as xdist
            # does anyway; the problems stay errors of the run (exit status, gate).
            self.config.option.continue_on_collection_errors = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.collector.select(ids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Workers send their requests through this process's client process (one SDK import)."""
        if self.settings.sends_requests:
            node.workerinput[sdk_process.WORKER_INPUT] = sdk_process.client_address()
        node.workerinput[selection.WORKER_INPUT] = self.requested

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "load":
            return None  # the user chose another distribution: theirs
        from pytest_toolcall.runner.scheduling import PrefetchLoadScheduling

        return PrefetchLoadScheduling(config, log, depth=2 * self.settings.concurrency)

    # --- per item ------------------------------------------------------------------------------

    @property
    def work(self) -> Answers:
        if ANSWERS not in self.config.stash:
            self.config.stash[ANSWERS] = Answers(self.config, self.settings)
        return self.config.stash[ANSWERS]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        if self.plan_only:
            return (yield)
        self.work.before(item)  # start the model work of the items coming next
        unit = collect.unit_of(item)
        if unit is not None:
            item.stash[RECORD] = new_record(unit)  # before any fixture: an item that errors has one too
            # Known here rather than at collection: only the items that run pay for the check.
            reason = self.benchmarks[unit.benchmark].known_failure(unit)
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False, raises=failures.VerdictFailure))
        try:
            return (yield)
        finally:
            self.work.after(item.session)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """After the item's fixtures: take its answer (an error or a skip of the setup if none came)."""
        unit = collect.unit_of(item)
        if unit is not None and not self.plan_only:
            self.work.hand_over(item, unit, item.stash[RECORD])

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        record = item.stash.get(RECORD, None)
        if record is None:  # an ordinary test
            return (yield)
        when = call.when
        test_unit = item.stash.get(collect.TEST_UNIT, None)
        if test_unit is not None and when == "call":
            # An ordinary test counted in a benchmark: its verdict is what its call raised.
            error = call.excinfo.value if call.excinfo is not None else None
            verdict = self.catalog.benchmarks[test_unit.benchmark].score(test_unit, error)
            record.update(verdict.fields, score=1.0 if verdict.passed else 0.0)
        if when == "teardown" and self.junit:
            item.user_properties.extend(report.testcase_properties(record))
        rep = yield
        unit = collect.unit_of(item) if test_unit is None else None
        if unit is not None:
            if self.junit:  # on every phase's report: JUnit opens the testcase with the first
                rep.toolcall_class = junit_classname(unit)
            if when == "call" and rep.failed and "reason" in record:
                failures.present(rep, unit, record["reason"], self.config.option.tbstyle)
        if when == "teardown":
            rep.toolcall = sanitize(record)
            del item.stash[RECORD]  # the item lives until the end: keep the record once, on its report
        return rep

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker:
            return
        classname = getattr(report, "toolcall_class", None)
        xml = self.config.stash.get(JUNIT_KEY, None) if classname and JUNIT_KEY else None
        if xml is not None:
            # Set before pytest's JUnit writer sees the report: it keeps attributes already set.
            xml.node_reporter(report).add_attribute("classname", classname)
        self.collector.pytest_runtest_logreport(report)
        if report.failed and not is_benchmark_nodeid(report.nodeid) and not hasattr(report, "wasxfail"):
            self.ordinary_failures.add(report.nodeid)

    # --- end of session: aggregate, report, gate ----------------------------------------------

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> Any:
        """Before the other implementations: aggregate, report, gate (JUnit writes after this, so
        it gets the suite properties). After them: move the JUnit file into place."""
        if ANSWERS in self.config.stash:
            self.config.stash[ANSWERS].close()  # nothing keeps running after the session
        sdk_process.stop_client()  # (under xdist, once every worker has finished)
        xml = None if self.is_worker else self.config.stash.get(JUNIT_KEY, None) if JUNIT_KEY else None
        final_xml = None
        if not self.is_worker:
            self.finish(session, xml)
        if xml is not None:
            # pytest writes the JUnit file in place; write it beside and rename, so an interruption
            # never leaves half a file where CI looks for one.
            final_xml = xml.logfile
            xml.logfile = f"{final_xml}.{os.getpid()}.tmp"
            try:  # checked at start-up; if the folder went away since, lose this output alone
                os.makedirs(os.path.dirname(os.path.abspath(xml.logfile)), exist_ok=True)
                open(xml.logfile, "w").close()
            except OSError as exc:
                self.output_lost(session, "JUnit XML", final_xml, exc)
                xml.logfile = os.devnull
        try:
            result = yield
        except BaseException:
            if final_xml is not None and os.path.exists(xml.logfile):
                os.remove(xml.logfile)  # perhaps half written: never move it into place
            raise
        finally:
            if final_xml is not None:
                temporary, xml.logfile = xml.logfile, final_xml
        if final_xml is not None and temporary != os.devnull and os.path.exists(temporary):
            os.replace(temporary, final_xml)
        lf = self.config.pluginmanager.get_plugin("lfplugin")
        if self.last_failed_key and lf is not None and not self.is_worker:
            # As pytest just wrote its own list.
            self.config.cache.set(self.last_failed_key, {str(k): v for k, v in lf.lastfailed.items()})
        return result

    def output_lost(self, session: pytest.Session, what: str, path: Any, exc: BaseException) -> None:
        """One output could not be written: say so in one line, keep writing the others, and make
        the run fail (its artefacts are incomplete)."""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        self.output_failures.append(f"{what} not written to {path}: {reason}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def finish(self, session: pytest.Session, xml: Any) -> None:
        self.interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
        self.catalog  # the data, for what aggregates need of it (the xdist controller loads it here)  # noqa: B018
        samples = self.samples()
        try:
            self.metrics = aggregate(self.benchmarks, samples)
        except BlockError as exc:  # a benchmark's bug: one line, not a traceback, and no report
            pytest.exit(str(exc), returncode=pytest.ExitCode.INTERNAL_ERROR)
        self.keep_unit_costs(samples)
        if xml is not None:
            for name, benchmark in self.benchmarks.items():
                for block_name, block in self.metrics[name].items():
                    for prop, value in benchmark.suite_properties(block_name, block):
                        xml.add_global_property(prop, report.junit_value(value))
        self.usage = run_usage(samples, self.settings.price)
        if self.baseline is not None:
            self.comparison = compare_run(self.baseline, self.run_section(), samples, self.metrics, self.benchmarks)
        if self.settings.report or self.settings.html:
            document = self.json_report(samples)
            if self.settings.report:
                try:
                    report.write_json_atomic(self.settings.report, document)
                except (OSError, ValueError) as exc:
                    self.output_lost(session, "JSON report", self.settings.report, exc)
            if self.settings.html:
                from pytest_toolcall.results.html import write_html

                try:
                    write_html(document, self.settings.html)
                except (OSError, ValueError) as exc:
                    self.output_lost(session, "HTML report", self.settings.html, exc)
        if self.gated:
            self.shortfalls = self.gate(session, samples)
            if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                failed = self.shortfalls or self.output_failures
                session.exitstatus = pytest.ExitCode.TESTS_FAILED if failed else pytest.ExitCode.OK

    def gate(self, session: pytest.Session, samples: list[dict[str, Any]]) -> list[str]:
        """Every reason the gate fails; empty when it passes."""
        s = self.settings
        errors = gate.report_errors(samples, self.data_problems)
        blocks = {**self.all_blocks(), "stream": stream_section(s.stream, samples)}
        shortfalls = gate.evaluate(
            self.thresholds, blocks, errors, s.max_errors, gate_on=s.gate_on, gate_value=s.gate_value
        )
        if s.fail_on_regression is not None:
            shortfalls += gate.regressions(self.comparison, s.fail_on_regression, [t.metric for t in self.thresholds])
        shortfalls += gate.completeness(
            selected=len(self.collector.selected),
            not_run=self.not_run(),
            budget_skipped=self.not_asked(),
            ordinary_failed=len(self.ordinary_failed()),
            interrupted=self.interrupted,
        )
        return shortfalls

    def ordinary_failed(self) -> list[str]:
        """The other tests (and collectors) of the session that failed or errored. A Python test that
        asked the model (``toolcall_chat``) has a record instead: it is counted in its block."""
        return sorted(self.ordinary_failures - set(self.collector.records))

    def not_run(self) -> int:
        return len(set(self.collector.selected) - set(self.collector.records))

    def not_asked(self) -> int:
        """Items skipped because --toolcall-budget was spent."""
        return sum(1 for r in self.collector.records.values() if r.get("not_run") == "budget")

    def samples(self) -> list[dict[str, Any]]:
        """Every record; a record of a crashed worker gets its unit's identity from the data."""
        samples = []
        for record in self.collector.records.values():
            if "benchmark" not in record:
                unit = self.catalog.unit(record["nodeid"], self.config.rootpath)
                record = {**unit.identity(), **record} if unit is not None else {**record, "benchmark": None}
            samples.append(record)
        return samples

    def keep_unit_costs(self, samples: list[dict[str, Any]]) -> None:
        """Each unit's latency, for cutting the next run's shards by cost (written here, at the
        end, so that xdist workers collecting meanwhile all read the same costs)."""
        costs = {r["nodeid"]: float(r["latency_s"]) for r in samples if (r.get("latency_s") or 0) > 0}
        if not costs or self.settings.cache_mode not in ("read-write",):
            return
        folder = self.work.store_dir()
        if folder is not None:
            from pytest_toolcall.model.store import ResponseStore
            from pytest_toolcall.runner.answers import STORE_FILE

            store = ResponseStore(folder / STORE_FILE)  # the run's own is closed by now
            try:
                store.put_unit_costs(costs)
            finally:
                store.close()

    def all_blocks(self) -> dict[str, Any]:
        return all_blocks(self.metrics)

    def run_section(self) -> dict[str, Any]:
        s = self.settings
        selection = self.selection or shards.selection_of(self.collector.selected)
        return {
            "model": s.model,
            "base_url": redact_url(s.base_url),
            "started_at": self.started_at,
            "finished_at": _now(),
            "plugin_version": __version__,
            "settings": {"temperature": s.temperature, "max_tokens": s.max_tokens, "extra_body": s.extra_body},
            "datasets": {name: benchmark.datasets() for name, benchmark in self.benchmarks.items()},
            "repeat": s.repeat,
            "selected": len(self.collector.selected),
            "not_run": self.not_run(),
            "not_asked": self.not_asked(),
            "data_problems": self.data_problems,
            # What else the gate judges, so that the offline gate judges a report as the run did:
            "ordinary_failed": self.ordinary_failed(),
            "interrupted": self.interrupted,
            "shard": selection.shard,
            # What merge needs to check shards and recompute the metrics the same way:
            "selection": selection.as_dict(),
            # (URL-valued options without their credentials, as everywhere text is written)
            "options": {
                k: redact_url(v) if isinstance(v, str) else v for k, v in s.raw.items() if k not in REPORT_OMITS
            },
            "aggregation": {name: benchmark.aggregate_context() for name, benchmark in self.benchmarks.items()},
            "partial": False,
        }

    def json_report(self, samples: list[dict[str, Any]]) -> dict[str, Any]:
        document = report_document(self.run_section(), self.metrics, samples)
        return {**document, "usage": self.usage, "comparison": self.comparison}

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or self.config.option.collectonly:
            return
        github.write_summary(self, os.environ)
        tr = terminalreporter
        for name, blocks in self.metrics.items():
            for block_name, block in blocks.items():
                tr.write_sep("=", f"toolcall: {block_name} ({self.settings.model})")
                for line in self.benchmarks[name].summary(block_name, block):
                    tr.write_line(line)
        expected = sum(1 for r in self.collector.records.values() if r.get("outcome") == "xfailed")
        if expected:
            tr.write_line(
                f"{expected} expected failure(s) (xfailed): units whose own reference answer the official scorer "
                "rejects (the ceiling column); they count as failed in the metrics, a pass there (XPASS) as "
                "passed; -rx lists them with the reason"
            )
        if self.data_problems:
            tr.write_line(
                f"incomplete: {len(self.data_problems)} part(s) of the data could not be loaded "
                "(see the collection errors above)",
                yellow=True,
            )
        stopped = [r for r in self.collector.records.values() if r.get("stopped")]
        if stopped:
            reason = next((r["error"] for r in stopped if r.get("error")), "an answer no retry can fix")
            skipped = sum(1 for r in stopped if r.get("outcome") == "skipped")
            tr.write_line(f"toolcall: {reason} ({skipped} item(s) not sent, skipped)", red=True, bold=True)
        stream = stream_section(self.settings.stream, list(self.collector.records.values()))
        if stream is not None:
            tr.write_sep("=", f"toolcall: streaming ({stream['mode']})")
            for line in stream_summary_lines(stream):
                tr.write_line(line)
        if self.usage and self.usage["requests"]:
            tr.write_sep("=", "toolcall: usage")
            for line in summary.usage_lines(self.usage, self.settings.price):
                tr.write_line(line)
        if self.comparison is not None:
            tr.write_sep("=", f"toolcall: against the baseline {self.comparison['baseline']['path']}")
            for line in summary.comparison_lines(self.comparison, self.settings.fail_on_regression):
                tr.write_line(line)
        if not_asked := self.not_asked():
            tr.write_line(
                f"partial: {not_asked} of {len(self.collector.selected)} selected item(s) were not asked: "
                f"--toolcall-budget={self.settings.budget:g} USD was spent",
                yellow=True,
            )
        not_run = self.not_run()
        if not_run:
            tr.write_line(
                f"incomplete: {not_run} of {len(self.collector.selected)} selected item(s) did not run", yellow=True
            )
        if self.gated:
            failed = gate.failed_items(self.collector.records.values())
            if self.shortfalls:
                tr.write_line("toolcall gate FAILED: " + "; ".join(self.shortfalls), red=True, bold=True)
                for line in github.error_lines(self.shortfalls, os.environ):
                    tr.write_line(line)
            else:
                tr.write_line(
                    f"toolcall gate passed ({failed} item(s) failed, {summary.gate_passed_note(self)})",
                    green=True,
                    bold=True,
                )
        lost = " ".join(self.output_failures)
        if self.settings.report and "JSON report" not in lost:
            tr.write_line(f"toolcall report: {self.settings.report}")
        if self.settings.html and "HTML report" not in lost:
            tr.write_line(f"toolcall HTML report: {self.settings.html}")
        for failure in self.output_failures:
            tr.write_line(f"toolcall: {failure}", red=True, bold=True)

    def pytest_unconfigure(self) -> None:
        # pytest runs five full garbage collections after this (to report unraisable exceptions);
        # with every report of a large run alive (the xdist controller holds them all) that is a
        # third of a second. What is alive now stays alive until the process exits: freeze it.
        gc.freeze()


#: Options a report does not keep: where this run wrote its outputs (and the gate it applied).
REPORT_OMITS = frozenset({"report", "html"})


def _last_failed_by_model(config: pytest.Config, settings: Settings) -> str | None:
    """``--lf``/``--ff`` per model: pytest's last-failed plugin reads one list of failures for the whole
    project, which would re-run another model's failures. Give it this model's list instead (kept in
    pytest's cache under a key of the model and endpoint), and keep its updated list there at the end
    (``pytest_sessionfinish``). A model seen for the first time starts from the project's failures
    without any benchmark item."""
    lf = config.pluginmanager.get_plugin("lfplugin")
    cache = getattr(config, "cache", None)
    if lf is None or cache is None or not hasattr(lf, "lastfailed"):
        return None
    who = f"{settings.model}@{redact_url(settings.base_url) or 'default'}"
    key = "toolcall/lastfailed/" + re.sub(r"[^A-Za-z0-9._-]+", "_", who)[:80] + "-" + _digest(who)
    stored = cache.get(key, None)
    if not isinstance(stored, dict):
        stored = {str(nodeid): True for nodeid in lf.lastfailed if not is_benchmark_nodeid(str(nodeid))}
    try:  # pytest >= 9 keys the list by structured node ids (private API; plain strings before)
        from _pytest.nodeid import NodeId

        lf.lastfailed = {NodeId.parse(nodeid): value for nodeid, value in stored.items()}
    except ImportError:
        lf.lastfailed = stored
    if hasattr(lf, "_last_failed_paths") and hasattr(lf, "get_last_failed_paths"):
        lf._last_failed_paths = lf.get_last_failed_paths()  # computed from the project's list: again
    return key


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


#: Where the openai SDK sends requests when neither --toolcall-base-url nor $OPENAI_BASE_URL is set.
OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


def junit_classname(unit: Unit) -> str:
    """``toolcall.<benchmark>.<lang>.<category>``: CI test views group by benchmark and category."""
    return _classname(unit.benchmark, unit.lang, unit.category)


@functools.cache  # one string per category, not one per report of every item
def _classname(benchmark: str, lang: str | None, category: str) -> str:
    parts = ["toolcall", benchmark, lang, None if category == benchmark else category]
    return ".".join(part for part in parts if part)


def check_api_keys(settings: Settings, benchmarks: Iterable[Benchmark]) -> None:
    """Every model a run will reach over the network (the one under test, a user simulator) names
    a variable that holds its key, or chose none (an empty ``--toolcall-...api-key-env``, for
    endpoints that need no key): never a made-up key, and never found out hours into a run."""
    if not settings.sends_requests:
        return
    models = [OtherModel(settings.model, settings.base_url, settings.api_key_env, "api-key-env")]
    models += [m for benchmark in benchmarks for m in benchmark.other_models()]
    for model in models:
        if model.name == ORACLE or not model.api_key_env or os.environ.get(model.api_key_env):
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


try:  # where pytest keeps its JUnit writer (private API: without it, no suite properties or classnames)
    from _pytest.junitxml import xml_key as JUNIT_KEY
except ImportError:
    JUNIT_KEY = None


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
