"""Per-item result records: made plain on the worker, gathered from reports where they all land.

A record is filled in the order the data flows: the unit's identity when the item starts
(``new_record``), what the model answered (latency, or the error of a request that got no answer),
then the verdict's fields. It rides on the item's teardown report (``report.toolcall``), which
xdist serializes with execnet: only exact builtins cross, so records are sanitized first. The
collector runs in-process without xdist and on the controller with it, so both see the same
reports and the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypedDict

import pytest

from pytest_toolcall.config.registry import is_benchmark_nodeid
from pytest_toolcall.core.protocol.benchmark import Unit
from pytest_toolcall.core.protocol.failure_kinds import STREAM_MISMATCH


class Record(TypedDict, total=False):
    """The fields every benchmark's records have. A benchmark's verdict adds its own, so a record itself
    is a plain ``dict[str, Any]`` with these keys."""

    nodeid: str
    benchmark: str | None
    lang: str | None
    category: str
    id: str
    outcome: str  # passed, failed, error, skipped, xfailed, xpassed (set where reports are gathered)
    score: float | None  # 1.0 passed, 0.0 failed, None: no verdict
    process: float | None
    output: Any
    error: str | None  # why the request got no answer
    latency_s: float | None
    failure_kind: str | None
    reason: str  # the verdict's brief, when it failed
    stopped: bool  # not sent (or the answer that stopped the run): an answer no retry can fix came
    repeat: int  # the attempt, 1-based (1 without --toolcall-repeat)
    usage: dict[str, Any] | None  # tokens summed over the unit's requests, and one entry per request
    from_store: bool  # every answer came from the response store
    not_run: str  # "budget": skipped because --toolcall-budget was spent
    not_measured: str  # scored, but the verdict is unknown (why: a judge was needed): skipped, score None
    stream: dict[str, Any]  # --toolcall-stream on|both: the streamed answer's outcome, failure_kind, tool_calls


def new_record(unit: Unit) -> dict[str, Any]:
    """A record with the unit's identity and every result field still empty."""
    record: dict[str, Any] = {"score": None, "process": None, "output": None, "error": None}
    record.update(unit.identity())
    record.update(latency_s=None, usage=None, from_store=False, failure_kind=None)
    return record


_PLAIN = (str, int, float, bool, type(None))
#: Longer texts (a hostile 10 MB answer) are cut in records: the reports stay readable, and the
#: response store still has every answer whole.
MAX_TEXT = 65_536


def sanitize(value: Any) -> Any:
    """Plain builtins only: str-keyed dicts, lists, exact scalars; anything else becomes its repr."""
    if type(value) is str and len(value) > MAX_TEXT:
        return f"{value[:MAX_TEXT]}... [{len(value)} characters, cut]"
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dict):
        return {k if type(k) is str else repr(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [sanitize(v) for v in value]
    for base in (bool, int, float, str):  # subclasses (IntEnum, str enums...) become their base type
        if isinstance(value, base):
            return base(value)
    return repr(value)


class RecordCollector:
    """Builds one record per benchmark item (and per ordinary test counted in a benchmark: a Python
    test using ``toolcall_chat``) from its reports, with the pytest outcome."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.selected: list[str] = []
        self._phases: dict[str, dict[str, pytest.TestReport]] = {}

    def select(self, nodeids: list[str], counted: Iterable[str] = ()) -> None:
        """The benchmark items this run selected (after -k, -m, --lf...), and among its other tests
        those a benchmark counts (``counted``: a Python test using ``toolcall_chat``, a unit too);
        xdist workers report overlapping lists."""
        known = set(self.selected)
        wanted = [*(n for n in nodeids if is_benchmark_nodeid(n)), *counted]
        self.selected.extend(n for n in dict.fromkeys(wanted) if n not in known)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Every test's phases are kept until its teardown: only the teardown report says whether an
        # ordinary test carries a record.
        phases = self._phases.setdefault(report.nodeid, {})
        phases[report.when] = report
        record = getattr(report, "toolcall", None)
        if record is not None:
            # The record rides on the last report of the item: the item is over. Keep the record
            # itself (not a copy) and let go of the reports, or a large run holds everything twice.
            result = outcome(phases)
            if result == "failed" and record.get("error"):
                result = "error"  # its request got no answer: not the model's failure
            elif result == "failed" and record.get("failure_kind") == STREAM_MISMATCH and record.get("score") == 1.0:
                # --toolcall-stream both: the item failed for its streamed answer; the sample's
                # outcome is the plain answer's, which the official numbers count.
                result = "passed"
            record["outcome"] = result
            self.records[report.nodeid] = record
            del self._phases[report.nodeid]
        elif report.when not in ("setup", "call", "teardown") and report.failed and is_benchmark_nodeid(report.nodeid):
            # A crashed xdist worker: no teardown, no record; keep what is known.
            self.records.setdefault(report.nodeid, _crash_record(report))
        if report.when == "teardown" and not is_benchmark_nodeid(report.nodeid):
            self._phases.pop(report.nodeid, None)


def outcome(phases: dict[str, pytest.TestReport]) -> str:
    setup, call, teardown = (phases.get(w) for w in ("setup", "call", "teardown"))
    if (setup and setup.failed) or (teardown and teardown.failed):
        return "error"
    reports = [r for r in (setup, call) if r is not None]
    if any(hasattr(r, "wasxfail") for r in reports):
        return "xpassed" if call is not None and call.passed else "xfailed"
    if any(r.skipped for r in reports):
        return "skipped"
    if call is not None and call.failed:
        return "failed"
    return "passed" if call is not None else "error"


def _crash_record(report: pytest.TestReport) -> dict[str, Any]:
    """What is known of an item whose worker died: its identity is looked up in the data later."""
    return {"nodeid": report.nodeid, "outcome": "error", "error": str(report.longrepr)[:2000]}
