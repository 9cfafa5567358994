"""The BFCL summary: a row per category, then the official summary scores."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import Part, Table, coverage_notes, failure_kind_line
from pytest_toolcall.api.text import number
from pytest_toolcall.benchmarks.bfcl.metrics import OVERALL_WEIGHTS

_SCORE_ROWS = ("non_live", "live", "irrelevance", "relevance", "multi_turn", "overall")


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
    score_rows = []
    for name in _SCORE_ROWS:
        score = block["scores"][name]
        score_rows.append(
            [
                name.upper(),
                number(score["value"], 4),
                number(score["official"], 4),
                "partial" if score["partial"] else "",
            ]
        )
    # "partial": the score covers only part of its official members (some did not run or errored).
    lines.append(
        Table(["score", "value", "official", "coverage"], score_rows, colalign=("left", "right", "right", "left"))
    )
    lines.append(_notes(block))
    if kinds := failure_kind_line(block.get("failure_kinds", {})):
        lines.append(kinds)
    return lines


def _notes(block: dict[str, Any]) -> str:
    """What the values are, in one line: the mode, what OVERALL covers, what did not run."""
    ran = [group for group in OVERALL_WEIGHTS if block["scores"][group]["value"] is not None]
    weights = "/".join(str(OVERALL_WEIGHTS[group]) for group in ran)
    notes = [
        f"mode {block['mode']}",
        f"OVERALL renormalised over {', '.join(ran) or 'nothing'} (official weights {weights or '-'} of 100)",
        f"official OVERALL counts what did not run as 0, agentic ({', '.join(block['out_of_scope'])}: "
        "not part of this plugin) included",
    ]
    notes += coverage_notes(block)
    return "; ".join(notes)
