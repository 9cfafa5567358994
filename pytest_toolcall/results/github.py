"""CI output on GitHub Actions: a markdown summary appended to ``$GITHUB_STEP_SUMMARY``, and the gate's
failures as ``::error::`` workflow commands under ``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.results.summary import comparison_lines, usage_lines


def error_lines(shortfalls: list[str], environ: Mapping[str, str]) -> list[str]:
    """The gate's failures as ``::error::`` workflow commands, under GitHub Actions only."""
    if environ.get("GITHUB_ACTIONS") != "true":
        return []
    return [f"::error title=toolcall gate::{_escape(shortfall)}" for shortfall in shortfalls]


def write_summary(run: Any, environ: Mapping[str, str]) -> None:
    """Append the markdown summary when ``GITHUB_STEP_SUMMARY`` is set; a file that cannot be written
    is said, not raised."""
    path = environ.get("GITHUB_STEP_SUMMARY")
    if path:
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(markdown(run))
        except OSError as exc:
            sys.stderr.write(f"toolcall: cannot append to GITHUB_STEP_SUMMARY {path}: {exc}\n")


def markdown(run: Any) -> str:
    """The step summary: each block's table, usage, the comparison, the gate's verdict."""
    s = run.settings
    parts = [f"## pytest-toolcall: {s.model}\n"]
    for name, blocks in run.metrics.items():
        for block_name, block in blocks.items():
            parts.append(f"### {block_name}\n")
            parts.append(_code(run.benchmarks[name].summary(block_name, block)))
    if run.usage and run.usage["requests"]:
        parts.append("### Usage\n")
        parts.append(_code(usage_lines(run.usage, s.price)))
    if run.comparison is not None:
        parts.append(f"### Against the baseline `{run.comparison['baseline']['path']}`\n")
        parts.append(_code(comparison_lines(run.comparison, s.fail_on_regression)))
    if run.gated:
        if run.shortfalls:
            parts.append("### Gate: FAILED\n")
            parts.append("".join(f"- {shortfall}\n" for shortfall in run.shortfalls) + "\n")
        else:
            parts.append("### Gate: passed\n")
    return "\n".join(parts) + "\n"


def _code(lines: list[str]) -> str:
    return "```\n" + "\n".join(line.replace("```", "'''") for line in lines) + "\n```\n"


def _escape(text: str) -> str:
    """Workflow-command data: %, CR and LF escaped as GitHub documents."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
