"""The built-in outputs of a run, implementations of the output hooks (``pytest_toolcall/hookspecs.py``)
like any other plugin's: the JSON report (``--toolcall-report``), the HTML report and its diff
against the baseline (``--toolcall-html``), the GitHub step summary and the terminal summary. The run
registers one ``Outputs`` with where they go; JUnit's suite properties hang on the same hook
(``runner/junit.py``, which holds pytest's JUnit writer)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.results import github, report, summary
from pytest_toolcall.results.run_result import RunResult


@dataclass
class Outputs:
    """Where the run writes its built-in outputs (each None: not asked for)."""

    report: Path | None = None
    html: Path | None = None
    #: The baseline report (``--toolcall-baseline``): with ``html``, the diff page is written too.
    baseline: dict[str, Any] | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_toolcall_run_result(self, result: RunResult, config: pytest.Config) -> None:
        if self.report or self.html:
            document = result.document()
            if self.report:
                try:
                    report.write_json_atomic(self.report, document)
                except (OSError, ValueError) as exc:
                    result.output_lost("JSON report", self.report, exc)
            if self.html:
                self.write_html(result, document, self.html)
        if not config.option.collectonly:
            github.write_summary(result, result.verdict, result.alpha, os.environ)

    def write_html(self, result: RunResult, document: dict[str, Any], html: Path) -> None:
        from pytest_toolcall.results.html import write_html

        try:
            write_html(document, html)
        except (OSError, ValueError) as exc:
            result.output_lost("HTML report", html, exc)
        if self.baseline is not None:
            try:
                write_diff(self.baseline, document, html)
            except (OSError, ValueError) as exc:
                result.output_lost("HTML diff", diff_path(html), exc)

    @pytest.hookimpl(tryfirst=True)
    def pytest_toolcall_terminal_summary(self, result: RunResult, terminalreporter: Any) -> None:
        tr = terminalreporter
        verdict = result.verdict
        for line in summary.terminal_lines(result, verdict, result.alpha):
            if line.heading:
                tr.write_sep("=", line.text)
            else:
                tr.write_line(line.text, **line.markup)
        if verdict is not None:
            for text in github.error_lines(list(verdict.shortfalls), os.environ):
                tr.write_line(text)
        lost = " ".join(result.output_failures)
        if self.report and "JSON report" not in lost:
            tr.write_line(f"toolcall report: {self.report}")
        if self.html and "HTML report" not in lost:
            tr.write_line(f"toolcall HTML report: {self.html}")
        if self.html and self.baseline is not None and "HTML diff" not in lost:
            tr.write_line(f"toolcall HTML diff against the baseline: {diff_path(self.html)}")
        for failure in result.output_failures:
            tr.write_line(f"toolcall: {failure}", red=True, bold=True)


def diff_path(html: Path) -> Path:
    """Where a run with a baseline writes its side-by-side diff: beside the HTML report."""
    return html.with_name(f"{html.stem}.diff.html")


def write_diff(baseline: dict[str, Any], document: dict[str, Any], html: Path) -> None:
    """The page of ``pytest-toolcall diff BASELINE NOW``, written by the run itself."""
    from pytest_toolcall.results.diff_html import diff_page
    from pytest_toolcall.results.diffing import diff_runs
    from pytest_toolcall.results.html import write_page

    diff = diff_runs(baseline["samples"], document["samples"])
    page = diff_page(diff, str(baseline.get("path", "baseline")), str(html), baseline["run"], document["run"])
    write_page(page, diff_path(html))
