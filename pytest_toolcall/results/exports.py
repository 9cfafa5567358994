"""The built-in export formats (``pytest-toolcall export --format html|markdown``), implementations of
the export hooks like a benchmark's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_toolcall.results.run_result import RunResult


def pytest_toolcall_export_formats() -> dict[str, str]:
    return {
        "html": "the single-file HTML report (as pytest-toolcall html)",
        "markdown": "the run's summary in Markdown: each block's tables, usage, the comparison "
        "(the GitHub step summary)",
    }


def pytest_toolcall_export(format: str, document: dict[str, Any], path: Path, result: RunResult) -> list[Path] | None:
    if format == "html":
        from pytest_toolcall.results.html import write_html

        write_html(document, path)
        return [path]
    if format == "markdown":
        from pytest_toolcall.results.github import markdown

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(markdown(result, None, None), encoding="utf-8")
        return [path]
    return None
