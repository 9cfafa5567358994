"""The plugin object of JUnit XML (registered only with ``--junitxml``): each benchmark item's
classname (``toolcall.<benchmark>.<lang>.<category>``) and properties, the run's aggregates as
suite properties (an output of the run's result, on its hook), and the file written beside its place
and renamed, so an interruption never leaves half a file where CI looks for one. pytest's own writer
does the writing."""

from __future__ import annotations

import functools
import os
from typing import Any

import pytest

from pytest_toolcall.core.protocol.benchmark import Unit
from pytest_toolcall.results import report
from pytest_toolcall.results.run_result import RunResult
from pytest_toolcall.runner import collect, compat
from pytest_toolcall.runner.keys import RECORD, TEST_UNIT
from pytest_toolcall.runner.run import Run


class JUnit:
    def __init__(self, run: Run) -> None:
        self.run = run

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        record = item.stash.get(RECORD, None)
        if record is not None and call.when == "teardown":
            item.user_properties.extend(report.testcase_properties(record))
        rep = yield
        unit = collect.unit_of(item) if record is not None and TEST_UNIT not in item.stash else None
        if unit is not None:  # on every phase's report: JUnit opens the testcase with the first
            rep.toolcall_class = junit_classname(unit)
        return rep

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        classname = getattr(report, "toolcall_class", None)
        writer = compat.junit_writer(self.run.config) if classname and not self.run.is_worker else None
        if writer is not None:
            compat.set_junit_classname(writer, report, classname)  # type: ignore[arg-type]

    # A second implementation of the hook (pytest reads only ``pytest_*`` names, hence this one).
    @pytest.hookimpl(wrapper=True, specname="pytest_runtest_logreport")
    def pytest_runtest_logreport_unanswered(self, report: pytest.TestReport) -> Any:
        """After the writer: a counted test whose request got no answer is an ``<error>``, as the
        terminal says (``recording.ItemProtocol.pytest_report_teststatus``), not a ``<failure>``."""
        result = yield
        if getattr(report, "toolcall_unanswered", False) and report.failed:
            writer = compat.junit_writer(self.run.config)
            if writer is not None:
                compat.junit_failure_as_error(writer, report)
        return result

    # The output hook (``hookspecs.py``) is called by the end of the run, before pytest's writer writes.
    def pytest_toolcall_run_result(self, result: RunResult) -> None:
        """The run's aggregates as suite properties."""
        writer = compat.junit_writer(self.run.config)
        if writer is None:
            return
        for prop, value in result.suite_properties():
            compat.add_junit_suite_property(writer, prop, report.junit_value(value))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Any:
        """pytest writes the JUnit file in place: point its writer beside, and rename once written."""
        writer = None if self.run.is_worker else compat.junit_writer(self.run.config)
        if writer is None:
            return (yield)
        final = compat.junit_file(writer)
        temporary = f"{final}.{os.getpid()}.tmp"
        compat.set_junit_file(writer, temporary)
        try:  # checked at start-up; if the folder went away since, lose this output alone
            os.makedirs(os.path.dirname(os.path.abspath(temporary)), exist_ok=True)
            open(temporary, "w").close()
        except OSError as exc:
            self.run.output_lost(session, "JUnit XML", final, exc)
            temporary = os.devnull
            compat.set_junit_file(writer, temporary)
        try:
            result = yield
        except BaseException:
            if temporary != os.devnull and os.path.exists(temporary):
                os.remove(temporary)  # perhaps half written: never move it into place
            raise
        finally:
            compat.set_junit_file(writer, final)
        if temporary != os.devnull and os.path.exists(temporary):
            os.replace(temporary, final)
        return result


def junit_classname(unit: Unit) -> str:
    """``toolcall.<benchmark>.<lang>.<category>``: CI test views group by benchmark and category."""
    return _classname(unit.benchmark, unit.lang, unit.category)


@functools.cache  # one string per category, not one per report of every item
def _classname(benchmark: str, lang: str | None, category: str) -> str:
    parts = ["toolcall", benchmark, lang, None if category == benchmark else category]
    return ".".join(part for part in parts if part)
