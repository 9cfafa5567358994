"""The summary of the ``cases`` block: a row per file, per tag, and overall."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import Part, Table
from pytest_toolcall.api.text import number


def cases_table(block: dict[str, Any]) -> list[Part]:
    rows = [["file", path, *_cells(row)] for path, row in block["files"].items()]
    rows += [["tag", tag, *_cells(row)] for tag, row in block["tags"].items()]
    overall = {"n": block["n"], "passed": block["passed"], "accuracy": block["overall"]}
    rows.append(["OVERALL", "", *_cells({**overall, "ci95": block.get("overall_ci95")})])
    lines: list[Part] = [
        Table(
            ["", "name", "n", "passed", "accuracy", "95% CI"],
            rows,
            colalign=("left", "left", "right", "right", "right", "left"),
        )
    ]
    apart = [f"{block[k]} {k}" for k in ("errors", "skipped") if block.get(k)]
    if apart:
        lines.append(f"not scored: {', '.join(apart)} (counted in no accuracy)")
    return lines


def _cells(row: dict[str, Any]) -> list[Any]:
    interval = row.get("ci95")
    ci = f"[{number(interval[0])}, {number(interval[1])}]" if interval else "-"
    return [row["n"], row["passed"], number(row["accuracy"]), ci]
