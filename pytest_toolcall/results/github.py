"""CI output on GitHub Actions: a markdown summary appended to ``$GITHUB_STEP_SUMMARY``, and the gate's
failures as ``::error::`` workflow commands under ``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.core.protocol.tables import Part, Table
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.results.gate import GateVerdict
from pytest_toolcall.results.run_result import RunResult
from pytest_toolcall.results.summary import comparison_parts, usage_parts

#: A cell of a markdown table is cut to this many characters (a reply quoted in a cell stays short).
CELL_LIMIT = 200


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
    """The step summary: each block's tables, usage, the comparison (as markdown tables, the lines
    between them preformatted), the gate's verdict (``verdict`` None: no gate)."""
    parts = [f"## pytest-toolcall: {result.model}\n"]
    for block_name, block_parts in result.summary_parts():
        parts.append(f"### {block_name}\n")
        parts += _markdown_parts(block_parts)
    if result.usage and result.usage["requests"]:
        parts.append("### Usage\n")
        parts += _markdown_parts(usage_parts(result.usage, result.price))
    if result.comparison is not None:
        parts.append(f"### Against the baseline `{result.comparison['baseline']['path']}`\n")
        parts += _markdown_parts(comparison_parts(result.comparison, alpha))
    if verdict is not None:
        if verdict.shortfalls:
            parts.append("### Gate: FAILED\n")
            parts.append("".join(f"- {shortfall}\n" for shortfall in verdict.shortfalls) + "\n")
        else:
            parts.append("### Gate: passed\n")
        if verdict.store_note:  # what the gate judged was not all measured now
            parts.append(f"Not measured now: {verdict.store_note}.\n")
    return "\n".join(parts) + "\n"


def _markdown_parts(parts: list[Part]) -> list[str]:
    """Tables as markdown tables; the text lines between them (notes, model names) preformatted."""
    out: list[str] = []
    text: list[str] = []
    for part in [*parts, None]:
        if isinstance(part, str):
            text.append(part)
            continue
        if any(line.strip() for line in text):
            out.append(_code(text))
        text = []
        if part is not None:
            out.append(markdown_table(part))
    return out


def markdown_table(table: Table) -> str:
    """A GitHub markdown table: the header row, the separator row (aligned as the terminal aligns
    the columns), a row per row; every cell inert, on one line, ``|`` escaped."""
    width = len(table.headers)
    align = table.colalign or ("left",) * width
    separator = [{"right": "---:", "center": ":---:"}.get(a, "---") for a in align]
    rows = [table.headers, separator, *([*row, *[""] * (width - len(row))][:width] for row in table.rows)]
    cells = [[c if i == 1 else _cell(c) for c in row] for i, row in enumerate(rows)]
    return "".join("| " + " | ".join(row) + " |\n" for row in cells)


def _cell(value: Any) -> str:
    text = inert(value, CELL_LIMIT).replace("\n", " ").replace("\t", " ")
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").strip() or " "


def _code(lines: list[str]) -> str:
    return "```\n" + "\n".join(line.replace("```", "'''") for line in lines) + "\n```\n"


def _escape(text: str) -> str:
    """Workflow-command data: %, CR and LF escaped as GitHub documents."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
