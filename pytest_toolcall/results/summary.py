"""The terminal summary of a run's result: each block's table (rendered by its benchmark, by default
with ``core.protocol.tables``), usage, the comparison with a baseline, what is missing, the gate's verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_toolcall.core.protocol.tables import Part, Table, render
from pytest_toolcall.core.safety.text import number
from pytest_toolcall.results.standing import standings
from pytest_toolcall.results.stream_parity import summary_lines as stream_summary_lines

if TYPE_CHECKING:
    from pytest_toolcall.results.gate import GateVerdict
    from pytest_toolcall.results.run_result import RunResult

#: Units listed by name in the terminal (the JSON report lists them all).
FIRST_FEW = 10


def usage_lines(usage: dict[str, Any], price: tuple[float, float] | None) -> list[str]:
    return render(usage_parts(usage, price))


def usage_parts(usage: dict[str, Any], price: tuple[float, float] | None) -> list[Part]:
    tokens = f"{usage['prompt_tokens']:,} prompt + {usage['completion_tokens']:,} completion"
    extra = [f"{usage[k]:,} {k.removesuffix('_tokens')}" for k in ("cached_tokens", "reasoning_tokens") if usage.get(k)]
    if extra:
        tokens += f" (of which {', '.join(extra)})"
    rows = [
        ["requests", f"{usage['requests']:,} ({usage['fresh']:,} sent, {store_text(usage)})"],
        ["tokens", tokens],
        [
            "latency of sent requests",
            f"p50 {number(usage['latency_p50_s'], 2)} s, p95 {number(usage['latency_p95_s'], 2)} s"
            if usage["latency_p50_s"] is not None
            else "none sent",
        ],
        ["retries", f"{usage['retries']:,}"],
    ]
    rows[3:3] = timing_rows(usage)
    if price is not None:
        rows.append(
            ["estimated cost", f"{usage['cost_usd']:.4f} USD (sent requests at {price[0]:g}/{price[1]:g} USD/M)"]
        )
    return [Table(["usage", "value"], rows, tablefmt="plain", terminal_headers=False)]


def timing_rows(usage: dict[str, Any]) -> list[list[str]]:
    """Time to first event (streamed requests), the wait for a slot and the output rate, where
    measured (reports written before they were have none of these keys)."""

    def pair(key: str) -> str:
        return f"p50 {number(usage[f'{key}_p50_s'], 2)} s, p95 {number(usage[f'{key}_p95_s'], 2)} s"

    rows = []
    if usage.get("ttft_p50_s") is not None:
        rows.append(["time to first event", pair("ttft")])
    if usage.get("queue_p50_s") is not None:
        rows.append(["waiting for a slot", pair("queue") + " (not in the latency)"])
    if usage.get("output_tokens_per_s_p50") is not None:
        rows.append(["output tokens per second", f"p50 {number(usage['output_tokens_per_s_p50'], 1)}"])
    return rows


def store_text(usage: dict[str, Any]) -> str:
    """``N from the store`` and, when any, when the oldest of them was kept."""
    text = f"{usage['from_store']:,} from the store"
    if usage.get("oldest_stored_at"):
        text += f", the oldest stored {usage['oldest_stored_at']}"
    return text


def comparison_lines(comparison: dict[str, Any], alpha: float | None) -> list[str]:
    return render(comparison_parts(comparison, alpha))


def comparison_parts(comparison: dict[str, Any], alpha: float | None) -> list[Part]:
    """The comparison's lines; each metric's standing (``results.standing``) as the gate decides it at
    ``alpha`` (None: as the report decided it)."""
    base = comparison["baseline"]
    lines: list[Part] = [f"baseline: model {base.get('model')}, started {base.get('started_at')}"]
    lines += [f"not alike: {note}" for note in comparison.get("notes", [])]
    rows = []
    decided = standings(comparison, alpha)
    for name, change in comparison["metrics"].items():
        moved = change.get("diff") or change.get("regressed") or change.get("fixed")
        if not (change.get("gated") or moved):
            continue  # unchanged metrics stay in the JSON report
        p_value = change.get("p_value")
        rows.append(
            [
                name,
                number(change.get("baseline"), 4),
                number(change.get("now"), 4),
                "-" if change.get("diff") is None else f"{change['diff']:+.4f}",
                "-" if p_value is None else f"{p_value:.3g}",
                change.get("regressed", 0),
                change.get("fixed", 0),
                decided[name],
            ]
        )
    if rows:
        lines.append(
            Table(
                ["metric", "baseline", "now", "diff", "p", "pass->fail", "fail->pass", "standing"],
                rows,
                colalign=("left", "right", "right", "right", "right", "right", "right", "left"),
            )
        )
    else:
        lines.append("no metric changed")
    for key, label in (("regressed", "regressed (pass->fail)"), ("fixed", "fixed (fail->pass)")):
        units = comparison.get(key) or []
        if units:
            more = f" ... and {len(units) - FIRST_FEW} more (all in the JSON report)" if len(units) > FIRST_FEW else ""
            lines.append(f"{label}: {len(units)}: {', '.join(units[:FIRST_FEW])}{more}")
    return lines


class Line(NamedTuple):
    text: str
    heading: bool = False  # a separator line with ``text`` in it
    markup: dict[str, bool] = {}  # noqa: RUF012 - never changed (the terminal's colours)


YELLOW = {"yellow": True}
RED = {"red": True, "bold": True}
GREEN = {"green": True, "bold": True}


def terminal_lines(result: RunResult, verdict: GateVerdict | None, alpha: float | None) -> list[Line]:
    """The run's summary, the gate's line last (``verdict`` None: no gate)."""
    lines = []
    for block_name, table in result.tables():
        lines.append(Line(f"toolcall: {block_name} ({result.model})", heading=True))
        lines += [Line(line) for line in table]
    if expected := result.expected_failures:
        lines.append(
            Line(
                f"{expected} expected failure(s) (xfailed): units whose own reference answer the official scorer "
                "rejects (the ceiling column); they count as failed in the metrics, a pass there (XPASS) as "
                "passed; -rx lists them with the reason"
            )
        )
    if result.data_problems:
        lines.append(
            Line(
                f"incomplete: {len(result.data_problems)} part(s) of the data could not be loaded "
                "(see the collection errors above)",
                markup=YELLOW,
            )
        )
    if stopped := result.stopped:
        reason = next((r["error"] for r in stopped if r.get("error")), "an answer no retry can fix")
        skipped = sum(1 for r in stopped if r.get("outcome") == "skipped")
        lines.append(Line(f"toolcall: {reason} ({skipped} item(s) not sent, skipped)", markup=RED))
    if (stream := result.stream) is not None:
        lines.append(Line(f"toolcall: streaming ({stream['mode']})", heading=True))
        lines += [Line(line) for line in stream_summary_lines(stream)]
    if result.usage and result.usage["requests"]:
        lines.append(Line("toolcall: usage", heading=True))
        lines += [Line(line) for line in usage_lines(result.usage, result.price)]
    if result.comparison is not None:
        lines.append(Line(f"toolcall: against the baseline {result.comparison['baseline']['path']}", heading=True))
        lines += [Line(line) for line in comparison_lines(result.comparison, alpha)]
    if result.not_asked:
        budget = "" if result.budget is None else f"={result.budget:g} USD"
        lines.append(
            Line(
                f"partial: {result.not_asked} of {result.selected} selected item(s) were not asked: "
                f"--toolcall-budget{budget} was spent",
                markup=YELLOW,
            )
        )
    if result.not_run:
        lines.append(
            Line(f"incomplete: {result.not_run} of {result.selected} selected item(s) did not run", markup=YELLOW)
        )
    if verdict is not None:
        lines.append(Line(verdict.line, markup=GREEN if verdict.passed else RED))
    return lines
