"""The BFCL summary: a row per category, then the official summary scores."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import Part, Table, coverage_notes, failure_kind_line
from pytest_toolcall.api.text import number
from pytest_toolcall.benchmarks.bfcl.metrics import OVERALL_WEIGHTS

_SCORE_ROWS = ("non_live", "live", "irrelevance", "relevance", "multi_turn", "overall", "memory", "overall_v4")


def bfcl_table(block: dict[str, Any]) -> list[Part]:
    rows = []
    for name, m in block["categories"].items():
        interval = m.get("ci95")
        rows.append(
            [
                name,
                m["n"],
                m["passed"],
                m["failed"],
                m["errors"],
                number(m["accuracy"]),
                f"[{number(interval[0])}, {number(interval[1])}]" if interval else "-",
                number(m["ceiling"]),
            ]
        )
    table = Table(
        ["category", "n", "passed", "failed", "errors", "accuracy", "95 % CI", "ceiling"],
        rows,
        colalign=("left", "right", "right", "right", "right", "right", "right", "right"),
    )
    lines: list[Part] = [table, ""]
    # The second number: the same scores without the known-defective items this run ran.
    clean = block.get("without_defective") or {}
    second = bool(clean.get("excluded"))
    score_rows = []
    for name in _SCORE_ROWS:
        score = block["scores"].get(name)
        if score is None:  # a block written before the V4 rows existed
            continue
        row = [name.upper(), number(score["value"], 4), number(score["official"], 4)]
        if second:
            row.append(number(clean["scores"][name]["value"], 4))
        row.append("partial" if score["partial"] else "")
        score_rows.append(row)
    # "partial": the score covers only part of its official members (some did not run or errored).
    headers = ["score", "value", "official", *(["w/o defective"] if second else []), "coverage"]
    align = ("left", "right", "right", *(("right",) if second else ()), "left")
    lines.append(Table(headers, score_rows, colalign=align))
    lines.append(_notes(block))
    if spread := block.get("format_sensitivity"):
        lines.append(
            f"format sensitivity: accuracy spread across {len(spread['by_format'])} prompt formats "
            f"max-min {spread['accuracy_max_delta']:.2f} points, std {spread['accuracy_std']:.2f} points "
            f"(format_robustness {number(block['format_robustness'], 4)})"
        )
    if kinds := failure_kind_line(block.get("failure_kinds", {})):
        lines.append(kinds)
    return lines


def _notes(block: dict[str, Any]) -> str:
    """What the values are, in one line: the mode, what OVERALL and OVERALL_V4 cover, what did not run."""
    ran = [group for group in OVERALL_WEIGHTS if group != "agentic" and block["scores"][group]["value"] is not None]
    weights = "/".join(str(OVERALL_WEIGHTS[group]) for group in ran)
    notes = [
        f"mode {block['mode']}",
        f"OVERALL (BFCL V3's parts) renormalised over {', '.join(ran) or 'nothing'} (official weights "
        f"{weights or '-'} of 100), its official value counting agentic as 0",
    ]
    if "overall_v4" in block["scores"]:
        # What the V4 overall misses by design, named with the reason (what was not run: below).
        reasons = block.get("not_measured", {})
        missed = ", ".join(f"{name} ({why})" for name, why in reasons.items())
        notes.append(
            "OVERALL_V4 = the official V4 weights over what ran (agentic = memory and web search), always partial; "
            f"not measured here: {missed or 'nothing'}"
        )
    clean = block.get("without_defective") or {}
    if clean.get("excluded"):
        notes.append(f"w/o defective: without the known-defective items {', '.join(clean['excluded'])}")
    notes += coverage_notes(block)
    return "; ".join(notes)
