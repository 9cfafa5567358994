"""Outputs never overwrite an input of the same run or command (issue 31, finding 16): a clash is
one usage line, and the input is left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_toolcall.cli import main
from tests.reliability.test_offline_recompute import cli
from tests.support.failing_runs import WEATHER_CASES


@pytest.fixture
def report(pytester: pytest.Pytester) -> Path:
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    pytester.runpytest(
        "--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider", "--toolcall-report=report.json", "."
    ).assert_outcomes(passed=4)
    return pytester.path / "report.json"


def _refused(status: int, err: str, *parts: str) -> None:
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for part in parts:
        assert part in err, err


@pytest.mark.slow
def test_the_commands_never_write_over_their_inputs(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = report.read_bytes()
    link = tmp_path / "link.json"
    os.symlink(report, link)
    xml = tmp_path / "a.xml"
    xml.write_text("<testsuites/>")
    (tmp_path / "s").mkdir()
    for argv, parts in [
        (["html", str(report), "-o", str(report)], ["(REPORT)"]),
        (["html", str(link), "-o", str(report)], ["(REPORT)"]),  # one file under two names
        (["html", str(report), "-o", str(report.parent / "." / report.name)], ["(REPORT)"]),
        (["merge", str(report), "-o", str(report)], ["(REPORT)"]),
        (["merge", str(report), "-o", str(tmp_path / "m.json"), "--html", str(tmp_path / "m.json")], ["output"]),
        (["diff", str(report), str(report), "-o", str(report)], ["(REPORT)"]),
        (["compare", str(report), "-o", str(report)], ["(REPORT)"]),
        (["gate", str(report), "--fail-on-regression", "--baseline", str(report)], None),
        (["merge-junit", str(xml), "-o", str(xml)], ["(XML)"]),
        (["merge-junit", str(xml), "--report", str(report), "-o", str(report)], ["(REPORT)"]),
        (["merge-store", str(tmp_path / "s"), "-o", str(tmp_path / "s")], ["STORE"]),
    ]:
        status, _out, err = cli(capsys, *argv)
        if parts is not None:
            _refused(status, err, *parts)
        assert report.read_bytes() == before, argv
    assert xml.read_text() == "<testsuites/>"


@pytest.mark.slow
def test_a_run_never_writes_over_its_inputs(pytester: pytest.Pytester, report: Path) -> None:
    case_file = pytester.path / "weather.toolcall.yaml"
    cases = case_file.read_bytes()
    before = report.read_bytes()
    common = ("--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider")
    for args, part in [
        (["--toolcall-report=weather.toolcall.yaml", "weather.toolcall.yaml"], "a path given to pytest"),
        (["--toolcall-html=weather.toolcall.yaml", "."], "a case file of the run"),
        (["--junitxml=weather.toolcall.yaml", "."], "a case file of the run"),
        (["--toolcall-report=report.json", "--toolcall-baseline=report.json", "."], "--toolcall-baseline"),
        (["--toolcall-html=report.json", "--toolcall-baseline=report.json", "."], "--toolcall-baseline"),
    ]:
        result = pytester.runpytest(*common, *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        err = result.stderr.str()
        assert "is also an input" in err and part in err and "Traceback" not in err, err
        assert case_file.read_bytes() == cases and report.read_bytes() == before


def test_main_refuses_before_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The clash is found from the arguments alone: even an input that is not a report is kept."""
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    status = main(["html", str(target), "-o", str(target)])
    assert status == 2 and target.read_text() == "mine"
    assert "is also an input" in capsys.readouterr().err
