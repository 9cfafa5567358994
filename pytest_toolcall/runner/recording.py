"""The plugin object of the item protocol: where items run, it starts the model work of the items
coming next, hands each item its answer after its fixtures, and puts its record on its teardown
report; where reports land (the only process without xdist, the controller with it), it gathers
the records. Registered in every process of a run."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.config.registry import is_benchmark_nodeid
from pytest_toolcall.core.protocol.types import FatalRequestError, RequestError
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.model import sdk_process
from pytest_toolcall.results.records import new_record, sanitize
from pytest_toolcall.runner import collect, failures
from pytest_toolcall.runner.keys import CATALOG, OTHER_REQUESTS, RECORD, STORE_LOST, TEST_MODELS, TEST_UNIT, WORK
from pytest_toolcall.runner.models import BudgetExhausted
from pytest_toolcall.runner.run import Run
from pytest_toolcall.runner.unit_models import usage_of


class ItemProtocol:
    def __init__(self, run: Run) -> None:
        self.run = run

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        run = self.run
        if run.plan_only:
            return (yield)
        run.work.before(item)  # start the model work of the items coming next
        unit = collect.unit_of(item)
        if unit is not None:
            item.stash[RECORD] = new_record(unit)  # before any fixture: an item that errors has one too
            # Known here rather than at collection: only the items that run pay for the check.
            reason = run.benchmarks[unit.benchmark].known_failure(unit)
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False, raises=failures.VerdictFailure))
        else:
            counted = collect.counted_by(item, run.benchmarks)
            if counted is not None:  # a user's test that a benchmark counts: a unit, asking through its models
                test_unit = item.stash[TEST_UNIT] = run.benchmarks[counted].test_unit(item)
                item.stash[RECORD] = new_record(test_unit)
                item.stash[TEST_MODELS] = run.work.unit_models(test_unit)
        try:
            return (yield)
        finally:
            run.work.after(item.session)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """After the item's fixtures: take its answer (an error or a skip of the setup if none came)."""
        unit = collect.unit_of(item)
        if unit is not None and not self.run.plan_only:
            record: Any = item.stash[RECORD]  # (a Record: filled in as a plain dict from here on)
            self.run.work.hand_over(item, unit, record)
        elif TEST_UNIT in item.stash and self.run.work.stopped is not None:
            item.stash[RECORD]["stopped"] = True  # like the items after an answer no retry can fix
            pytest.skip(f"not sent: {self.run.work.stopped}")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        """A user's counted test whose request was not sent because ``--toolcall-budget`` was spent is
        skipped with the reason, as an item is (an item's budget skip happens in its setup)."""
        try:
            return (yield)
        except BudgetExhausted as exc:
            if TEST_UNIT not in item.stash:
                raise
            item.stash[RECORD]["not_run"] = "budget"
            pytest.skip(str(exc))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        record = item.stash.get(RECORD, None)
        if record is None:  # an ordinary test
            return (yield)
        when = call.when
        test_unit = item.stash.get(TEST_UNIT, None)
        unanswered = False
        error = call.excinfo.value if call.excinfo is not None else None
        if test_unit is not None and when == "call" and not isinstance(error, pytest.skip.Exception):
            # An ordinary test counted in a benchmark: its verdict is what its call raised (a skip
            # leaves none, like an item's).
            verdict = self.run.benchmarks[test_unit.benchmark].score(test_unit, error)
            record.update(verdict.fields)
            record["score"] = 1.0 if verdict.passed else 0.0
            if isinstance(error, RequestError):  # no answer, no verdict: as for an item, an error
                record.update(score=None, error=inert(error))
                unanswered = True
            if isinstance(error, FatalRequestError):  # and the run sends nothing more
                record["stopped"] = True
                if self.run.work.stopped is None:
                    self.run.work.stop(str(error))
        rep = yield
        unit = collect.unit_of(item) if test_unit is None else None
        if unit is not None and when == "call" and rep.failed and "reason" in record:
            failures.present(rep, unit, record["reason"], self.run.config.option.tbstyle)
        if unanswered and rep.failed:
            rep.toolcall_unanswered = True  # (a plain attribute: xdist carries it; see pytest_report_teststatus)
        if when == "teardown":
            models = item.stash.get(TEST_MODELS, None)
            if models is not None:  # a counted test's requests, as an item's
                record["usage"], record["from_store"] = usage_of([models])
                del item.stash[TEST_MODELS]
            rep.toolcall = sanitize(record)
            del item.stash[RECORD]  # the item lives until the end: keep the record once, on its report
        return rep

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        """A counted test whose request got no answer is an error, like an item whose setup got none:
        pytest would call any failure of the call phase a failure."""
        if getattr(report, "toolcall_unanswered", False) and report.failed:
            return "error", "E", "ERROR"
        return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.run.is_worker:
            return
        self.run.collector.pytest_runtest_logreport(report)
        if report.failed and not is_benchmark_nodeid(report.nodeid) and not hasattr(report, "wasxfail"):
            self.run.ordinary_failures.add(report.nodeid)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self) -> Any:
        """First of all: nothing keeps asking the model after the session."""
        if WORK in self.run.config.stash:
            work = self.run.config.stash[WORK]
            work.close()
            self.run.add_store_losses(*work.store.losses())
            self.run.other_requests += sanitize(work.other_requests)
            worker_output = getattr(self.run.config, "workeroutput", None)
            if worker_output is not None:  # (summed on the controller: ``distributing.py``)
                worker_output[STORE_LOST] = self.run.store_lost
                worker_output[OTHER_REQUESTS] = self.run.other_requests
        if CATALOG in self.run.config.stash:  # what benchmarks started (MCP servers) stops too
            for benchmark in self.run.config.stash[CATALOG].benchmarks.values():
                benchmark.close()
        sdk_process.stop_client()  # (under xdist, once every worker has finished)
        return (yield)
