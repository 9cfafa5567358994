"""The ACEBench summary of one language: a row per category, then the official groups and OVERALL."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from pytest_toolcall.benchmarks.acebench.dataset import OVERALL_WEIGHTS
from pytest_toolcall.core.failure_kinds import failure_kind_line
from pytest_toolcall.text import measured, number


def acebench_table(block: dict[str, Any]) -> list[str]:
    rows = [
        [
            cat,
            m["n"],
            m["passed"],
            m["failed"],
            m["errors"],
            measured(m["accuracy"]),
            number(m["process_acc"]),
            number(m["ceiling"]),
        ]
        for cat, m in block["categories"].items()
    ]
    table = tabulate(
        rows,
        headers=["category", "n", "passed", "failed", "errors", "accuracy", "process", "ceiling"],
        colalign=("left", "right", "right", "right", "right", "right", "right", "right"),
        disable_numparse=True,
    )
    lines = [*table.splitlines(), ""]
    group_rows = [[group.upper(), measured(value)] for group, value in block["groups"].items()]
    group_rows.append(["OVERALL", measured(block["overall"])])
    lines += tabulate(
        group_rows, headers=["group", "score"], colalign=("left", "right"), disable_numparse=True
    ).splitlines()
    if block["partial"]:
        lines.append(_partial_note(block))
    if kinds := failure_kind_line(block.get("failure_kinds", {})):
        lines.append(kinds)
    return lines


def _partial_note(block: dict[str, Any]) -> str:
    evaluated = [g for g in OVERALL_WEIGHTS if block["groups"].get(g) is not None]
    notes = [f"partial: OVERALL renormalised over {', '.join(evaluated) or 'nothing'}"]
    notes.append(f"official value (missing = 0) {measured(block['overall_official'])}")
    if block["missing_categories"]:
        notes.append(f"not run: {', '.join(block['missing_categories'])}")
    if block["short_categories"]:
        notes.append(f"not all items: {', '.join(block['short_categories'])}")
    if block["errors"]:
        notes.append(f"{block['errors']} item(s) errored")
    return "; ".join(notes)
