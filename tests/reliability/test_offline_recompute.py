"""The offline tools recompute (issue 21, item "the offline gate recomputes").

``gate``, ``html`` and ``merge`` recompute every metric from a report's samples and refuse, in one
line naming the file and the metric (exit status 2), a report whose stated metrics are not those of
its samples: an edited report cannot pass a gate its samples fail. ``--fail-on-regression`` with no
baseline anywhere is a usage error, as in a run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cli import main
from tests.support.failing_runs import WEATHER_CASES, failing_report

pytestmark = pytest.mark.slow  # runs pytest inside itself


@pytest.fixture
def oracle_report(pytester: pytest.Pytester) -> Path:
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    pytester.runpytest(
        "--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider", "--toolcall-report=report.json", "."
    ).assert_outcomes(passed=4)
    return pytester.path / "report.json"


@pytest.fixture(scope="module")
def failed_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run against the local chat server whose every answer is wrong."""
    directory = tmp_path_factory.mktemp("failed")
    failing_report(directory)
    return directory / "report.json"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line_refusal(status: int, err: str, *parts: str) -> None:
    assert status == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for part in parts:
        assert part in err, err


def write_edited(source: Path, target: Path, edit: Any) -> Path:
    document = json.loads(source.read_text(encoding="utf-8"))
    edit(document)
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


def all_passed(document: dict[str, Any]) -> None:
    """What an editor would change: every benchmark's overall (and its interval) to 1."""
    for block in document["metrics"].values():
        if isinstance(block, dict) and "overall" in block:
            block["overall"] = 1.0


def test_the_failed_run_fails_its_gate_and_is_not_refused(
    failed_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(failed_report.read_text(encoding="utf-8"))
    assert document["samples"] and all(s["outcome"] != "passed" for s in document["samples"])
    assert document["metrics"]["cases"]["overall"] == 0.0
    status, out, err = cli(capsys, "gate", str(failed_report), "--fail-under", "cases.overall=0.5")
    assert status == 1, out + err


def test_edited_metrics_of_a_failed_run_cannot_pass_the_gate(
    failed_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = write_edited(failed_report, tmp_path / "edited.json", all_passed)
    assert json.loads(edited.read_text())["metrics"]["cases"]["overall"] == 1.0
    for argv in (
        ["gate", str(edited), "--fail-under", "cases.overall=0.5"],
        ["html", str(edited), "-o", str(tmp_path / "r.html")],
        ["merge", str(edited), "-o", str(tmp_path / "m.json"), "--allow-partial"],
    ):
        status, _, err = cli(capsys, *argv)
        one_line_refusal(status, err, str(edited), "overall is 1.0, recomputed 0.0", "not those of its samples")
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "m.json").exists()


def test_the_gate_names_the_first_metric_that_differs(
    oracle_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    passing = cli(capsys, "gate", str(oracle_report), "--fail-under", "cases.overall=0.5")
    assert passing[0] == 0, passing
    edited = write_edited(oracle_report, tmp_path / "e.json", lambda d: d["metrics"]["cases"].update(n=5))
    status, _, err = cli(capsys, "gate", str(edited), "--fail-under", "cases.overall=0.5")
    one_line_refusal(status, err, "metrics.cases.n is 5, recomputed 4")
    gone = write_edited(oracle_report, tmp_path / "g.json", lambda d: d["metrics"].pop("cases"))
    status, _, err = cli(capsys, "gate", str(gone), "--fail-under", "cases.overall=0.5")
    one_line_refusal(status, err, str(gone), "metrics.cases is missing")


def test_a_nan_overall_is_refused(oracle_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = oracle_report.read_text(encoding="utf-8")
    document = json.loads(text)
    document["metrics"]["cases"]["overall"] = 0.123457
    nan = tmp_path / "nan.json"
    nan.write_text(json.dumps(document).replace("0.123457", "NaN"), encoding="utf-8")
    for argv in (
        ["gate", str(nan), "--fail-under", "cases.overall=0.5"],
        ["html", str(nan), "-o", str(tmp_path / "h")],
    ):
        status, _, err = cli(capsys, *argv)
        one_line_refusal(status, err, str(nan), "metrics.cases.overall", "NaN")


def test_fail_on_regression_without_a_baseline_is_a_usage_error(
    oracle_report: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert json.loads(oracle_report.read_text())["comparison"] is None
    status, _, err = cli(capsys, "gate", str(oracle_report), "--fail-on-regression")
    one_line_refusal(status, err, "--fail-on-regression", str(oracle_report), "--baseline")
    # With a baseline (the report itself: nothing regressed) the gate runs.
    status, out, err = cli(capsys, "gate", str(oracle_report), "--fail-on-regression", "--baseline", str(oracle_report))
    assert status == 0, out + err
