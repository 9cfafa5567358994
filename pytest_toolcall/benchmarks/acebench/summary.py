"""The ACEBench summary of one language: a row per category, then the official groups and OVERALL."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import Part, Table, coverage_notes, failure_kind_line, interval, pass_hat
from pytest_toolcall.api.text import measured, number
from pytest_toolcall.benchmarks.acebench.dataset import OVERALL_WEIGHTS


def acebench_table(block: dict[str, Any]) -> list[Part]:
    repeats = "pass_hat_k" in block
    rows = []
    for cat, m in block["categories"].items():
        row = [cat, m["n"], m["passed"], m["failed"], m["errors"], measured(m["accuracy"]), interval(m.get("ci95"))]
        if repeats:
            row += [pass_hat(m.get("pass_hat_k")), m.get("flaky", 0)]
        rows.append([*row, number(m["process_acc"]), number(m["ceiling"])])
    headers = ["category", "n", "passed", "failed", "errors", "accuracy", "95% CI"]
    headers += ["pass^k (k=1..)", "flaky"] if repeats else []
    headers += ["process", "ceiling"]
    lines: list[Part] = [Table(headers, rows, colalign=("left", *(["right"] * (len(headers) - 1)))), ""]
    intervals = block.get("groups_ci95") or {}
    group_rows = [
        [group.upper(), measured(value), interval(intervals.get(group))] for group, value in block["groups"].items()
    ]
    group_rows.append(["OVERALL", measured(block["overall"]), interval(block.get("overall_ci95"))])
    lines.append(Table(["group", "score", "95% CI"], group_rows, colalign=("left", "right", "right")))
    if repeats:
        flaky = block.get("flaky") or []
        lines.append(f"repeats: pass^k {pass_hat(block['pass_hat_k'])} (k=1..); {len(flaky)} flaky unit(s)")
    if block["partial"]:
        lines.append(_partial_note(block))
    if kinds := failure_kind_line(block.get("failure_kinds", {})):
        lines.append(kinds)
    return lines


def _partial_note(block: dict[str, Any]) -> str:
    evaluated = [g for g in OVERALL_WEIGHTS if block["groups"].get(g) is not None]
    notes = [f"partial: OVERALL renormalised over {', '.join(evaluated) or 'nothing'}"]
    notes.append(f"official value (missing = 0) {measured(block['overall_official'])}")
    notes += coverage_notes(block)
    return "; ".join(notes)
