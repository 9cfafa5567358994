"""Terminal lines shared by every run: usage, the comparison with a baseline, the gate's verdict.

(The tables of metrics blocks are the benchmarks' own: ``core.tables``.)"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from pytest_toolcall.core.comparison import ALPHA
from pytest_toolcall.core.text import number

#: Units listed by name in the terminal (the JSON report lists them all).
FIRST_FEW = 10


def usage_lines(usage: dict[str, Any], price: tuple[float, float] | None) -> list[str]:
    tokens = f"{usage['prompt_tokens']:,} prompt + {usage['completion_tokens']:,} completion"
    extra = [f"{usage[k]:,} {k.removesuffix('_tokens')}" for k in ("cached_tokens", "reasoning_tokens") if usage.get(k)]
    if extra:
        tokens += f" (of which {', '.join(extra)})"
    rows = [
        ["requests", f"{usage['requests']:,} ({usage['fresh']:,} sent, {usage['from_store']:,} from the store)"],
        ["tokens", tokens],
        [
            "latency of sent requests",
            f"p50 {number(usage['latency_p50_s'], 2)} s, p95 {number(usage['latency_p95_s'], 2)} s",
        ],
        ["retries", f"{usage['retries']:,}"],
    ]
    if price is not None:
        rows.append(
            ["estimated cost", f"{usage['cost_usd']:.4f} USD (sent requests at {price[0]:g}/{price[1]:g} USD/M)"]
        )
    return tabulate(rows, tablefmt="plain", disable_numparse=True).splitlines()


def comparison_lines(comparison: dict[str, Any], alpha: float | None) -> list[str]:
    alpha = ALPHA if alpha is None else alpha
    base = comparison["baseline"]
    lines = [f"baseline: model {base.get('model')}, started {base.get('started_at')}"]
    lines += [f"not alike: {note}" for note in comparison.get("notes", [])]
    rows = []
    for name, change in comparison["metrics"].items():
        moved = change.get("diff") or change.get("regressed") or change.get("fixed")
        if not (change.get("gated") or moved):
            continue  # unchanged metrics stay in the JSON report
        p_value = change.get("p_value")
        flag = ""
        if p_value is not None and change.get("diff") is not None and p_value < alpha:
            flag = "worse" if change["diff"] < 0 else "better"
        rows.append(
            [
                name,
                number(change.get("baseline"), 4),
                number(change.get("now"), 4),
                "-" if change.get("diff") is None else f"{change['diff']:+.4f}",
                "-" if p_value is None else f"{p_value:.3g}",
                change.get("regressed", 0),
                change.get("fixed", 0),
                flag,
            ]
        )
    if rows:
        lines += tabulate(
            rows,
            headers=["metric", "baseline", "now", "diff", "p", "pass->fail", "fail->pass", f"p<{alpha:g}"],
            colalign=("left", "right", "right", "right", "right", "right", "right", "left"),
            disable_numparse=True,
        ).splitlines()
    else:
        lines.append("no metric changed")
    for key, label in (("regressed", "regressed (pass->fail)"), ("fixed", "fixed (fail->pass)")):
        units = comparison.get(key) or []
        if units:
            more = f" ... and {len(units) - FIRST_FEW} more (all in the JSON report)" if len(units) > FIRST_FEW else ""
            lines.append(f"{label}: {len(units)}: {', '.join(units[:FIRST_FEW])}{more}")
    return lines


def gate_passed_note(run: Any) -> str:
    parts = []
    if run.thresholds:
        parts.append("every threshold holds")
    if run.settings.fail_on_regression is not None:
        parts.append(f"no significant regression at alpha={run.settings.fail_on_regression:g}")
    return ", ".join(parts)
