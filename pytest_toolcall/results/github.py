"""CI output on GitHub Actions: a markdown summary appended to ``$GITHUB_STEP_SUMMARY``, and the gate's
failures as ``::error::`` workflow commands under ``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from pytest_toolcall.results.gate import GateVerdict
from pytest_toolcall.results.run_result import RunResult
from pytest_toolcall.results.summary import comparison_lines, usage_lines


def error_lines(shortfalls: list[str], environ: Mapping[str, str]) -> list[str]:
    """The gate's failures as ``::error::`` workflow commands, under GitHub Actions only."""
    if environ.get("GITHUB_ACTIONS") != "true":
        return []
    return [f"::error title=toolcall gate::{_escape(shortfall)}" for shortfall in shortfalls]


def write_summary(
    result: RunResult, verdict: GateVerdict | None, alpha: float | None, environ: Mapping[str, str]
) -> None:
    """Append the markdown summary when ``GITHUB_STEP_SUMMARY`` is set; a file that cannot be written
    is said, not raised."""
    path = environ.get("GITHUB_STEP_SUMMARY")
    if path:
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(markdown(result, verdict, alpha))
        except OSError as exc:
            sys.stderr.write(f"toolcall: cannot append to GITHUB_STEP_SUMMARY {path}: {exc}\n")


def markdown(result: RunResult, verdict: GateVerdict | None, alpha: float | None) -> str:
    """The step summary: each block's table, usage, the comparison, the gate's verdict (``verdict``
    None: no gate)."""
    parts = [f"## pytest-toolcall: {result.model}\n"]
    for block_name, table in result.tables():
        parts.append(f"### {block_name}\n")
        parts.append(_code(table))
    if result.usage and result.usage["requests"]:
        parts.append("### Usage\n")
        parts.append(_code(usage_lines(result.usage, result.price)))
    if result.comparison is not None:
        parts.append(f"### Against the baseline `{result.comparison['baseline']['path']}`\n")
        parts.append(_code(comparison_lines(result.comparison, alpha)))
    if verdict is not None:
        if verdict.shortfalls:
            parts.append("### Gate: FAILED\n")
            parts.append("".join(f"- {shortfall}\n" for shortfall in verdict.shortfalls) + "\n")
        else:
            parts.append("### Gate: passed\n")
        if verdict.store_note:  # what the gate judged was not all measured now
            parts.append(f"Not measured now: {verdict.store_note}.\n")
    return "\n".join(parts) + "\n"


def _code(lines: list[str]) -> str:
    return "```\n" + "\n".join(line.replace("```", "'''") for line in lines) + "\n```\n"


def _escape(text: str) -> str:
    """Workflow-command data: %, CR and LF escaped as GitHub documents."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
