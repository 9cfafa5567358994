"""The output hooks (``pytest_toolcall/hookspecs.py``): a third party's plugin receives the run's result
in a real run, as the built-in outputs do, and says what it could not write; ``pytest-toolcall export``
writes a report in the formats the plugins offer, a benchmark's own among them, found through the
benchmark and never named by the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall import cli
from pytest_toolcall.config import registry
from pytest_toolcall.results import exporting, github
from pytest_toolcall.results.merge import rebuild_benchmarks
from pytest_toolcall.results.run_result import RunResult

pytestmark = pytest.mark.slow  # runs pytest

ORACLE = (
    "--toolcall-model=oracle",
    "--toolcall-bench=general_fc",
    "--toolcall-limit=4",
    "-p",
    "no:randomly",
    "--toolcall-report=report.json",
)

EXPORTER = """
import json

import pytest


def pytest_toolcall_run_result(result, config):
    seen = {
        "blocks": result.blocks,
        "samples": [r["nodeid"] for r in result.samples],
        "verdict": result.verdict.line if result.verdict else None,
        "document": sorted(result.document()),
        "model": result.model,
    }
    with open("seen.json", "w") as handle:
        json.dump(seen, handle)


@pytest.hookimpl(trylast=True)
def pytest_toolcall_terminal_summary(result, terminalreporter):
    terminalreporter.write_line(f"dashboard: {len(result.samples)} sample(s) sent")
"""


def test_a_third_party_exporter_receives_the_run_result(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(EXPORTER)
    result = pytester.runpytest(*ORACLE, "--toolcall-fail-under=general_fc.tool_call_f1=0.5")
    assert result.ret == 0, result.stdout.str()[-2000:]
    seen = json.loads((pytester.path / "seen.json").read_text(encoding="utf-8"))
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    # The very result the built-in JSON report was written from.
    assert seen["blocks"] == report["metrics"] and set(report["metrics"]) == {"general_fc"}
    assert seen["samples"] == [r["nodeid"] for r in report["samples"]] and len(seen["samples"]) == 4
    assert seen["document"] == sorted(report) and seen["model"] == report["run"]["model"] == "oracle"
    gate_line = next(line for line in result.outlines if line.startswith("toolcall gate "))
    assert seen["verdict"] == gate_line  # decided before the outputs
    # Its summary line comes after the built-in summary (the gate's line, the outputs written).
    lines = result.outlines
    assert lines.index("dashboard: 4 sample(s) sent") > lines.index("toolcall report: report.json")


def test_an_output_a_plugin_cannot_write_fails_the_run_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "def pytest_toolcall_run_result(result):\n"
        "    result.output_lost('dashboard', 'https://dash.example', OSError(111, 'Connection refused'))\n"
    )
    result = pytester.runpytest(*ORACLE)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["toolcall: dashboard not written to https://dash.example: Connection refused"])
    assert (pytester.path / "report.json").exists()  # the other outputs are written
    assert "toolcall report: report.json" in result.outlines


def test_a_plugin_that_raises_fails_the_run_after_the_built_in_outputs(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("def pytest_toolcall_run_result(result):\n    raise RuntimeError('dashboard down')\n")
    result = pytester.runpytest(*ORACLE, "--junitxml=junit.xml")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["toolcall: an output plugin failed: RuntimeError: dashboard down"])
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    assert json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))["samples"]
    assert 'name="general_fc.n" value="4"' in (pytester.path / "junit.xml").read_text(encoding="utf-8")


def test_without_a_model_a_plugin_of_the_hooks_loads_quietly(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(EXPORTER)
    pytester.makepyfile("def test_plain():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "seen.json").exists()


# --- pytest-toolcall export ---------------------------------------------------------------------

HOOKS = """
import csv
from pathlib import Path


def pytest_toolcall_export_formats():
    return {"gfc-verdicts": "one CSV line per sample: its node id and outcome"}


def pytest_toolcall_export(format, document, path):
    if format != "gfc-verdicts":
        return None
    if not document["samples"]:
        raise ValueError("the report has no sample to export")
    path.mkdir(parents=True, exist_ok=True)
    out = path / "verdicts.csv"
    with open(out, "w", newline="") as handle:
        csv.writer(handle).writerows((r["nodeid"], r["outcome"]) for r in document["samples"])
    return [out]
"""


@pytest.fixture
def report(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A report of a real run whose GitHub step summary went to ``step.md`` (no gate)."""
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "step.md"))
    result = pytester.runpytest(*ORACLE)
    assert result.ret == 0, result.stdout.str()[-2000:]
    return pytester.path / "report.json"


@pytest.fixture
def benchmark_with_hooks(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """general_fc as if its class named a hook module of its own (a benchmark declares it so)."""
    pytester.makepyfile(gfc_hooks=HOOKS)
    monkeypatch.syspath_prepend(str(pytester.path))
    classes = dict(registry.benchmark_classes())
    classes["general_fc"] = type("GeneralFCWithHooks", (classes["general_fc"],), {"hooks": "gfc_hooks"})
    monkeypatch.setattr(registry, "benchmark_classes", lambda: classes)


def test_markdown_is_the_step_summary_and_html_the_report_page(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["export", "--format", "markdown", str(report), "-o", str(tmp_path / "s.md")]) == 0
    assert (tmp_path / "s.md").read_text(encoding="utf-8") == (report.parent / "step.md").read_text(encoding="utf-8")
    assert cli.main(["export", "--format", "html", str(report), "-o", str(tmp_path / "r.html")]) == 0
    assert cli.main(["html", str(report), "-o", str(tmp_path / "same.html")]) == 0
    assert (tmp_path / "r.html").read_bytes() == (tmp_path / "same.html").read_bytes()
    assert f"markdown: {tmp_path / 's.md'}" in capsys.readouterr().out


def test_a_benchmark_brings_its_formats(
    report: Path, benchmark_with_hooks: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["export", "--format", "gfc-verdicts", str(report), "-o", str(tmp_path / "out")]) == 0
    document = json.loads(report.read_text(encoding="utf-8"))
    lines = (tmp_path / "out" / "verdicts.csv").read_text(encoding="utf-8").splitlines()
    assert lines == [f"{r['nodeid']},{r['outcome']}" for r in document["samples"]] and len(lines) == 4
    assert capsys.readouterr().out.strip() == f"gfc-verdicts: {tmp_path / 'out' / 'verdicts.csv'}"
    # An unknown format lists every format offered for this report, the benchmark's among them.
    assert cli.main(["export", "--format", "csv", str(report), "-o", str(tmp_path / "x")]) == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("pytest-toolcall export: --format csv: unknown format 'csv': the formats for this report")
    assert "gfc-verdicts: one CSV line per sample" in err and "html: " in err and "markdown: " in err


def test_a_report_the_exporter_refuses_is_one_line(
    report: Path, benchmark_with_hooks: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json.loads(report.read_text(encoding="utf-8"))
    empty = tmp_path / "empty.json"
    # A report of nothing (its metrics are those of no sample, so it passes the offline checks).
    benchmarks = rebuild_benchmarks(report, document["run"])
    nothing = RunResult.of_run(document["run"], [], benchmarks).document()
    empty.write_text(json.dumps(nothing), encoding="utf-8")
    assert cli.main(["export", "--format", "gfc-verdicts", str(empty), "-o", str(tmp_path / "out")]) == cli.BAD_INPUT
    assert capsys.readouterr().err == f"pytest-toolcall export: {empty}: the report has no sample to export\n"


def test_two_plugins_offering_one_format_are_refused(
    report: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(clash="def pytest_toolcall_export_formats():\n    return {'html': 'mine'}\n")
    monkeypatch.syspath_prepend(str(pytester.path))
    classes = dict(registry.benchmark_classes())
    classes["general_fc"] = type("GeneralFCWithHooks", (classes["general_fc"],), {"hooks": "clash"})
    monkeypatch.setattr(registry, "benchmark_classes", lambda: classes)
    manager = exporting.manager(["general_fc"])
    with pytest.raises(exporting.ExportError, match="format 'html' is offered by both toolcall-exports and"):
        exporting.formats(manager)


def test_markdown_export_is_the_github_summary_of_the_result(report: Path) -> None:
    document = json.loads(report.read_text(encoding="utf-8"))
    result = RunResult.of_report(document, benchmarks=rebuild_benchmarks(report, document["run"]))
    manager = exporting.manager(result.benchmarks)
    out = report.parent / "again.md"
    written: Any = exporting.export(manager, "markdown", document, out, result)
    assert written == [out] and out.read_text(encoding="utf-8") == github.markdown(result, None, None)
