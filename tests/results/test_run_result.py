"""One run result: what a run printed, wrote and decided is what ``RunResult.of_report`` rebuilds from
its JSON report, through the same functions (the terminal summary, the GitHub step summary, the gate).
The offline side here is built by hand from the report alone, never from the run's objects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.results import gate, github, summary
from pytest_toolcall.results.merge import rebuild_benchmarks
from pytest_toolcall.results.run_result import RunResult

pytestmark = pytest.mark.slow  # runs pytest

ORACLE = ["--toolcall-model=oracle", "-p", "no:randomly", "-m", "not agent", "--toolcall-report=report.json"]


def offline(pytester: pytest.Pytester) -> tuple[dict[str, Any], RunResult]:
    path = pytester.path / "report.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    return document, RunResult.of_report(document, benchmarks=rebuild_benchmarks(path, document["run"]))


def toolcall_section(lines: list[str]) -> list[str]:
    """The run's summary lines from its first ``toolcall:`` heading to the gate's line."""
    start = next(i for i, line in enumerate(lines) if line.startswith("=") and " toolcall: " in line)
    end = next(i for i, line in enumerate(lines) if line.startswith("toolcall gate "))
    return lines[start : end + 1]


def test_the_run_and_its_report_make_the_same_summaries_and_verdict(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step_summary = pytester.path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    # The oracle fails one unit of user_adjust (its reference is rejected), so the threshold fails.
    result = pytester.runpytest(
        *ORACLE, "-k", "user_adjust or special_incomplete", "--toolcall-fail-under=en.overall=0.99"
    )
    assert result.ret == 1
    document, rebuilt = offline(pytester)
    assert rebuilt.document() == document  # nothing lost or added between the run and its report

    options = gate.GateOptions.parse("en.overall=0.99", 0, "point", "strict", None)
    verdict = gate.decide(rebuilt, options)
    assert not verdict.passed and verdict.shortfalls[0].startswith("acebench/en overall = ")
    assert github.markdown(rebuilt, verdict, None) == step_summary.read_text(encoding="utf-8")

    printed = toolcall_section(result.outlines)
    offline_lines = summary.terminal_lines(rebuilt, verdict, None)
    assert [line.text for line in offline_lines if not line.heading] == [
        line for line in printed if not line.startswith("=")
    ]
    assert [line.text for line in offline_lines if line.heading] == [
        line.strip("= ") for line in printed if line.startswith("=")
    ]


def test_a_report_without_its_benchmarks_is_gated_alike(pytester: pytest.Pytester) -> None:
    """The offline gate needs no benchmark objects: only the blocks and the run section."""
    result = pytester.runpytest(
        *ORACLE, "-k", "special_incomplete", "--toolcall-fail-under=en.overall=0.5", "--toolcall-gate-value=measured"
    )
    assert result.ret == 0
    document, with_benchmarks = offline(pytester)
    bare = RunResult.of_report(document)
    assert bare.metrics == {} and list(bare.tables()) == []
    options = gate.GateOptions.parse("en.overall=0.5", 0, "point", "measured", None)
    lines = {gate.decide(r, options).line for r in (bare, with_benchmarks)}
    assert lines == {line for line in result.outlines if line.startswith("toolcall gate ")}
    assert len(lines) == 1 and lines.pop().startswith("toolcall gate passed (0 item(s) failed, every threshold holds)")


def test_what_the_gate_judges_besides_the_metrics_comes_from_the_run_section(tmp_path: Path) -> None:
    """Items not run, budget, other tests, an interruption and errors: each is read from the report's
    run section and samples, whatever made them."""
    document = {
        "schema": "pytest-toolcall/report/1",
        "run": {
            "selected": 10,
            "not_run": 2,
            "not_asked": 1,
            "ordinary_failed": ["test_x.py::test_y"],
            "interrupted": True,
            "data_problems": ["toolcall::acebench[en/normal_atom_bool]"],
        },
        "samples": [{"outcome": "error"}, {"outcome": "failed"}, {"outcome": "xfailed"}, {"outcome": "passed"}],
        "metrics": {},
    }
    verdict = gate.decide(RunResult.of_report(document), gate.GateOptions(max_errors=1))
    assert verdict.failed == 2
    assert verdict.shortfalls == (
        "2 request error(s), more than --toolcall-max-errors=1: the run is incomplete",
        "the run was interrupted",
        "2 of 10 selected item(s) did not run (stopped early: -x, --maxfail, Ctrl-C...): the run is incomplete",
        "1 of 10 selected item(s) were not asked: --toolcall-budget was spent; the run is partial",
        "1 test(s) besides the benchmark items failed or errored",
    )
    assert gate.decide(RunResult.of_report({**document, "run": {}, "samples": []}), gate.GateOptions()).passed
