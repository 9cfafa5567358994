"""One active run: collection of the benchmark items, records on reports, the summary, the JSON
report, JUnit properties and the gate."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from pytest_toolcall import __version__, collect, fixtures, gate, items, report, summary
from pytest_toolcall.metrics import acebench_metrics
from pytest_toolcall.options import Settings
from pytest_toolcall.records import RECORD, RecordCollector, sanitize
from pytest_toolcall.work import ModelWork


class ToolcallRun:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        if settings.fail_under:
            try:
                gate.parse_thresholds(settings.fail_under)
            except ValueError as exc:
                raise pytest.UsageError(f"--toolcall-fail-under: {exc}") from None
        config.stash[fixtures.SETTINGS] = settings
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.collector = RecordCollector()
        self.started_at = _now()
        self.root = collect.data_root(settings) if "acebench" in settings.benches else None
        self.metrics: dict[str, Any] = {}
        self.shortfalls: list[str] = []

    @property
    def catalog(self) -> collect.Catalog:
        if collect.CATALOG not in self.config.stash:
            self.config.stash[collect.CATALOG] = collect.load_catalog(self.settings, self.root)
        return self.config.stash[collect.CATALOG]

    def pytest_report_header(self) -> list[str]:
        s = self.settings
        commit = acebench_commit() if s.data_dir is None else f"{s.data_dir}"
        return [
            f"toolcall: model={s.model} endpoint={s.base_url or 'default'} bench={','.join(s.benches)} "
            f"lang={','.join(s.langs)} acebench={commit}",
            f"toolcall: temperature={s.temperature} max_tokens={s.max_tokens} concurrency={s.concurrency} "
            f"timeout={s.timeout}s max_retries={s.max_retries}",
        ]

    # --- collection ----------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Any:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            self.catalog  # load before the module collects  # noqa: B018
            report.result.append(collect.benchmark_module(collector))
        return report

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if metafunc.function is items.acebench:
            metafunc.parametrize("acebench_sample", collect.acebench_params(self.catalog))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collector.select([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.collector.select(ids)

    # --- per item ------------------------------------------------------------------------------

    @property
    def work(self) -> ModelWork:
        if fixtures.WORK not in self.config.stash:
            self.config.stash[fixtures.WORK] = ModelWork(self.config, self.settings, self.catalog)
        return self.config.stash[fixtures.WORK]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self.work.before(item)  # start the model work of the items coming next
        try:
            return (yield)
        finally:
            self.work.after(item.session)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        record = item.stash.get(RECORD, None)
        if record is not None and call.when == "teardown":
            item.user_properties.extend(report.testcase_properties(record))
        rep = yield
        if record is not None and call.when == "teardown":
            rep.toolcall = sanitize(record)
        return rep

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not self.is_worker:
            self.collector.pytest_runtest_logreport(report)

    # --- end of session: aggregate, report, gate ----------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if fixtures.WORK in self.config.stash:
            self.config.stash[fixtures.WORK].close()  # nothing keeps running after the session
        if self.is_worker:
            return
        samples = list(self.collector.records.values())
        self.metrics = acebench_metrics(samples, self.catalog.sizes)
        xml = self.config.stash.get(_junit_key(), None) if _junit_key() else None
        if xml is not None:
            for name, value in report.suite_properties(self.metrics):
                xml.add_global_property(name, value)
        if self.settings.report:
            report.write_json_atomic(self.settings.report, self.json_report(samples))
        if self.settings.fail_under:
            errors = sum(1 for r in samples if r.get("outcome") == "error")
            thresholds = gate.parse_thresholds(self.settings.fail_under)
            self.shortfalls = gate.evaluate(thresholds, self.metrics, errors, self.settings.max_errors)
            if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                session.exitstatus = pytest.ExitCode.TESTS_FAILED if self.shortfalls else pytest.ExitCode.OK

    def json_report(self, samples: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        return {
            "schema": report.SCHEMA,
            "run": {
                "model": s.model,
                "base_url": s.base_url,
                "started_at": self.started_at,
                "finished_at": _now(),
                "plugin_version": __version__,
                "settings": {"temperature": s.temperature, "max_tokens": s.max_tokens, "extra_body": s.extra_body},
                "datasets": {"acebench": {"commit": acebench_commit(), "root": str(self.root), "langs": list(s.langs)}}
                if self.root
                else {},
                "selected": len(self.collector.selected),
                "not_run": len(set(self.collector.selected) - set(self.collector.records)),
            },
            "samples": samples,
            "metrics": self.metrics,
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or self.config.option.collectonly:
            return
        tr = terminalreporter
        for name, block in self.metrics.items():
            tr.write_sep("=", f"toolcall: {name} ({self.settings.model})")
            for line in summary.acebench_table(name, block)[1:]:
                tr.write_line(line)
        not_run = len(set(self.collector.selected) - set(self.collector.records))
        if not_run:
            tr.write_line(
                f"incomplete: {not_run} of {len(self.collector.selected)} selected item(s) did not run", yellow=True
            )
        if self.settings.fail_under:
            failed = sum(1 for r in self.collector.records.values() if r.get("outcome") == "failed")
            if self.shortfalls:
                tr.write_line("toolcall gate FAILED: " + "; ".join(self.shortfalls), red=True, bold=True)
            else:
                tr.write_line(
                    f"toolcall gate passed ({failed} item(s) failed, every threshold holds)", green=True, bold=True
                )
        if self.settings.report:
            tr.write_line(f"toolcall report: {self.settings.report}")


def acebench_commit() -> str:
    from pytest_toolcall.datasets.download import load_manifest

    return load_manifest()["commit"][:7]


def _junit_key() -> Any:
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # private API: without it, suite properties are simply not written
        return None
    return xml_key


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
