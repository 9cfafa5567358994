"""The general_fc summary: the confusion counts and K2-Vendor-Verifier's metrics."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import Part, Table, failure_kind_line, interval, pass_hat
from pytest_toolcall.api.text import measured, number


def general_fc_table(block: dict[str, Any]) -> list[Part]:
    rows = [
        ["items", block["n"]],
        ["scored", block["scored"]],
        ["errors (not scored)", block["errors"]],
        ["TP / FP / FN / TN", f"{block['TP']} / {block['FP']} / {block['FN']} / {block['TN']}"],
        ["count_finish_reason_tool_call", block["count_finish_reason_tool_call"]],
        ["count_successful_tool_call", block["count_successful_tool_call"]],
        ["schema_accuracy", measured(block["schema_accuracy"], 4), interval(block.get("schema_accuracy_ci95"), 4)],
        ["tool_call_precision", measured(block["tool_call_precision"], 4)],
        ["tool_call_recall", measured(block["tool_call_recall"], 4)],
        ["tool_call_f1", measured(block["tool_call_f1"], 4), interval(block.get("tool_call_f1_ci95"), 4)],
    ]
    official = block.get("official")
    if block["errors"] and official:
        rows += [
            [
                "failed requests as no call: TP / FP / FN / TN",
                f"{official['TP']} / {official['FP']} / {official['FN']} / {official['TN']}",
            ],
            [
                "failed requests as no call: precision / recall / F1",
                " / ".join(
                    number(block.get(f"{k}_official"), 4)
                    for k in ("tool_call_precision", "tool_call_recall", "tool_call_f1")
                ),
            ],
        ]
    if block.get("pass_hat_k"):
        rows.append(["repeats: pass^k (k=1..)", pass_hat(block["pass_hat_k"])])
        rows.append(["repeats: flaky lines", len(block.get("flaky") or [])])
    agreement = block.get("reference_agreement")
    if agreement:
        unpaired = f" ({agreement['unpaired']} unpaired: no reference answer)" if agreement["unpaired"] else ""
        rows += [
            ["vs reference: paired", f"{agreement['paired']}{unpaired}"],
            ["vs reference: agreement", measured(block["agreement"], 4), interval(block.get("agreement_ci95"), 4)],
            [
                "vs reference: precision / recall / F1",
                " / ".join(
                    number(agreement[k], 4) for k in ("tool_call_precision", "tool_call_recall", "tool_call_f1")
                ),
            ],
        ]
    rows = [[*row, ""] if len(row) == 2 else row for row in rows]
    lines: list[Part] = [Table(["metric", "value", "95% CI"], rows, colalign=("left", "right", "right"))]
    if block["validation_failures"]:
        lines.append("invalid calls: " + ", ".join(f"{k} {v}" for k, v in block["validation_failures"].items()))
    if kinds := failure_kind_line(block.get("failure_kinds", {})):
        lines.append(kinds)
    if block["errors"]:
        lines.append(
            f"incomplete: {block['errors']} of {block['n']} item(s) errored and are left out of the metrics above; "
            "K2-Vendor-Verifier counts a failed request as no call (the 'failed requests as no call' rows)"
        )
    return lines
