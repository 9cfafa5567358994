"""The terminal summary: one table per benchmark and language, then the official groups."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from pytest_toolcall.datasets.acebench import OVERALL_WEIGHTS


def table(name: str, block: dict[str, Any]) -> list[str]:
    return general_fc_table(block) if name == "general_fc" else acebench_table(block)


def acebench_table(block: dict[str, Any]) -> list[str]:
    rows = [
        [cat, m["n"], m["passed"], m["failed"], m["errors"], _f(m["accuracy"]), _f(m["process_acc"]), _f(m["ceiling"])]
        for cat, m in block["categories"].items()
    ]
    table = tabulate(
        rows,
        headers=["category", "n", "passed", "failed", "errors", "accuracy", "process", "ceiling"],
        colalign=("left", "right", "right", "right", "right", "right", "right", "right"),
        disable_numparse=True,
    )
    lines = [*table.splitlines(), ""]
    digits = 4 if block["partial"] else 3
    group_rows = [[group.upper(), _f(value, digits)] for group, value in block["groups"].items()]
    group_rows.append(["OVERALL", _f(block["overall"], digits)])
    lines += tabulate(
        group_rows, headers=["group", "score"], colalign=("left", "right"), disable_numparse=True
    ).splitlines()
    if block["partial"]:
        lines.append(_partial_note(block))
    return lines


def _partial_note(block: dict[str, Any]) -> str:
    evaluated = [g for g in OVERALL_WEIGHTS if block["groups"].get(g) is not None]
    notes = [f"partial: OVERALL renormalised over {', '.join(evaluated) or 'nothing'}"]
    notes.append(f"official value (missing = 0) {block['overall_official']:.3f}")
    if block["missing_categories"]:
        notes.append(f"not run: {', '.join(block['missing_categories'])}")
    if block["short_categories"]:
        notes.append(f"not all items: {', '.join(block['short_categories'])}")
    if block["errors"]:
        notes.append(f"{block['errors']} item(s) errored")
    return "; ".join(notes)


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def general_fc_table(block: dict[str, Any]) -> list[str]:
    rows = [
        ["items", block["n"]],
        ["scored", block["scored"]],
        ["errors (not scored)", block["errors"]],
        ["TP / FP / FN / TN", f"{block['TP']} / {block['FP']} / {block['FN']} / {block['TN']}"],
        ["count_finish_reason_tool_call", block["count_finish_reason_tool_call"]],
        ["count_successful_tool_call", block["count_successful_tool_call"]],
        ["schema_accuracy", _f(block["schema_accuracy"], 4)],
        ["tool_call_precision", _f(block["tool_call_precision"], 4)],
        ["tool_call_recall", _f(block["tool_call_recall"], 4)],
        ["tool_call_f1", _f(block["tool_call_f1"], 4)],
    ]
    agreement = block.get("reference_agreement")
    if agreement:
        rows += [
            ["vs reference: paired", agreement["paired"]],
            ["vs reference: agreement", _f(agreement["agreement"], 4)],
            [
                "vs reference: precision / recall / F1",
                " / ".join(_f(agreement[k], 4) for k in ("tool_call_precision", "tool_call_recall", "tool_call_f1")),
            ],
        ]
    lines = tabulate(rows, headers=["metric", "value"], colalign=("left", "right"), disable_numparse=True).splitlines()
    if block["validation_failures"]:
        lines.append("invalid calls: " + ", ".join(f"{k} {v}" for k, v in block["validation_failures"].items()))
    if block["errors"]:
        lines.append(f"incomplete: {block['errors']} of {block['n']} item(s) errored and are left out of the metrics")
    return lines
