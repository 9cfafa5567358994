"""The offline gate recomputes the comparison (issue 31, finding 10): ``gate --fail-on-regression``
on a report that carries its own comparison recomputes it from the report's samples and those of the
baseline it names, and refuses (one line, exit status 2) a comparison that differs, is invented, or
cannot be recomputed because its baseline is not there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.reliability.test_offline_recompute import cli, one_line_refusal, write_edited
from tests.support.failing_runs import WEATHER_CASES

pytestmark = pytest.mark.slow  # the runs are pytest inside pytest

GATE = ("--fail-on-regression=0.05",)


@pytest.fixture
def compared(pytester: pytest.Pytester) -> Path:
    """An oracle run compared with an earlier oracle run (its baseline, beside it)."""
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    common = ("--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider", ".")
    pytester.runpytest(*common, "--toolcall-report=baseline.json").assert_outcomes(passed=4)
    pytester.runpytest(*common, "--toolcall-report=report.json", "--toolcall-baseline=baseline.json")
    report = pytester.path / "report.json"
    assert json.loads(report.read_text())["comparison"] is not None
    return report


def test_a_true_comparison_is_gated(compared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = cli(capsys, "gate", str(compared), *GATE)
    assert status == 0, err
    assert "toolcall gate passed" in out


@pytest.mark.parametrize(
    "forge",
    [
        lambda c: {"forged": True},
        lambda c: {**c, "regressed": [], "notes": ["nothing to see"]},
        lambda c: {**c, "metrics": {}},
        lambda c: {**c, "metrics": {k: {**v, "p": 1.0} for k, v in c["metrics"].items()}} if c["metrics"] else None,
        lambda c: {**c, "baseline": {**c["baseline"], "path": None}},
    ],
    ids=["invented", "notes", "no-metrics", "p-values", "no-baseline"],
)
def test_a_forged_comparison_is_refused(
    compared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], forge: object
) -> None:
    document = json.loads(compared.read_text())
    forged = forge(document["comparison"])  # type: ignore[operator]
    if forged is None:
        pytest.skip("no metric compared")
    edited = write_edited(compared, compared.with_name("forged.json"), lambda d: d.update(comparison=forged))
    status, out, err = cli(capsys, "gate", str(edited), *GATE)
    one_line_refusal(status, err, str(edited))
    assert "toolcall gate passed" not in out


def test_a_comparison_whose_baseline_is_gone_is_refused(
    compared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(compared, moved / "report.json")  # its baseline left behind
    monkeypatch.chdir(moved)
    status, _out, err = cli(capsys, "gate", str(moved / "report.json"), *GATE)
    one_line_refusal(status, err, "baseline.json", "--baseline")
    # Given the baseline, the comparison is made anew and the gate decides.
    status, _out, err = cli(
        capsys, "gate", str(moved / "report.json"), *GATE, f"--baseline={compared.parent / 'baseline.json'}"
    )
    assert status == 0, err
