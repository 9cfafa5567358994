"""N runs of the same data side by side (``pytest-toolcall compare``): each block's headline metric
with its interval per run, the paired test of every later run against the first (the same test a
baseline gets: ``results.baseline.compare_run``), cost and latency per correct answer where usage is
known, each run's timing (latency, time to first event, wait for a slot, output rate; where its report
has them), and the per-item matrix of which run passed which unit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.results.diffing import passed
from pytest_toolcall.results.identity import label
from pytest_toolcall.results.standing import standings

#: The headline of a block, as the HTML report's OVERALL line reads it.
HEADLINES = ("overall", "tool_call_f1", "accuracy")


@dataclass
class Cell:
    value: float | None
    ci95: list[float] | None
    p_value: float | None  # against the first run; None for the first run itself
    #: Against the first run (``results.standing``): regressed, worse, better or same; None for the first.
    standing: str | None = None


@dataclass
class RunColumn:
    name: str
    model: str
    cells: dict[str, Cell]  # by "<block>.<metric>"
    correct: int
    cost_per_correct: float | None
    latency_per_correct_s: float | None
    #: The report's ``usage`` timing p50s: latency, ttft, queue (seconds), output tokens per second.
    timing: dict[str, float | None]


@dataclass
class Comparison:
    runs: list[RunColumn]
    metrics: list[str]
    #: nodeid -> passed per run (None: not in that run), for the units where the runs disagree.
    matrix: dict[str, list[bool | None]]
    agreeing: int
    samples: list[dict[str, dict[str, Any]]]  # per run, by nodeid


def headline(block: dict[str, Any]) -> str | None:
    return next((k for k in HEADLINES if isinstance(block.get(k), (int, float))), None)


def compare_reports(paths: list[Path], documents: list[dict[str, Any]]) -> Comparison:
    from pytest_toolcall.results.baseline import compare_run
    from pytest_toolcall.results.merge import rebuild_benchmarks

    first = documents[0]
    metrics = [f"{name}.{key}" for name, block in first.get("metrics", {}).items() if (key := headline(block))]
    columns = []
    for position, (path, document) in enumerate(zip(paths, documents, strict=True)):
        tests: dict[str, Any] = {}
        decided: dict[str, str] = {}
        if position:
            benchmarks = rebuild_benchmarks(path, document["run"])
            compared = compare_run(first, document["run"], document["samples"], document["metrics"], benchmarks)
            tests = compared["metrics"]
            decided = standings(compared)
        cells = {}
        for metric in metrics:
            block, key = metric.rsplit(".", 1)
            values = document.get("metrics", {}).get(block, {})
            test = tests.get(metric) or {}
            cells[metric] = Cell(
                values.get(key),
                values.get(f"{key}_ci95"),
                test.get("p_value") if position else None,
                decided.get(metric) if position else None,
            )
        columns.append(_column(path, document, cells))
    by_run = [{s["nodeid"]: s for s in d["samples"] if isinstance(s.get("nodeid"), str)} for d in documents]
    nodeids = list(dict.fromkeys(n for run in by_run for n in run))
    matrix, agreeing = {}, 0
    for nodeid in nodeids:
        row = [passed(run[nodeid]) if nodeid in run else None for run in by_run]
        if len(set(row)) > 1:
            matrix[nodeid] = row
        else:
            agreeing += 1
    return Comparison(columns, metrics, matrix, agreeing, by_run)


def _column(path: Path, document: dict[str, Any], cells: dict[str, Cell]) -> RunColumn:
    samples = document.get("samples", [])
    correct = sum(1 for s in samples if passed(s))
    cost = (document.get("usage") or {}).get("cost_usd")
    latencies = [s["latency_s"] for s in samples if isinstance(s.get("latency_s"), (int, float))]
    return RunColumn(
        str(path),
        label(document.get("run") or {}),
        cells,
        correct,
        cost / correct if isinstance(cost, (int, float)) and correct else None,
        sum(latencies) / correct if latencies and correct else None,
        {key: _float((document.get("usage") or {}).get(key)) for key in TIMING},
    )


#: The timing of each run compared, and how a value of it is shown.
TIMING = {
    "latency_p50_s": "latency p50 {:.2f} s",
    "ttft_p50_s": "first event p50 {:.2f} s",
    "queue_p50_s": "slot wait p50 {:.2f} s",
    "output_tokens_per_s_p50": "{:.1f} tokens/s",
}


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def timing_text(column: RunColumn) -> str:
    return ", ".join(TIMING[key].format(value) for key, value in column.timing.items() if value is not None)


def terminal_table(comparison: Comparison) -> list[str]:
    """runs x metrics: value [interval] and the p-value against the first run."""
    width = max([len(m) for m in comparison.metrics] + [len("per correct answer")])
    lines = [" " * width + "".join(f"  {c.name[:28]:<28}" for c in comparison.runs)]
    lines.append(" " * width + "".join(f"  {c.model[:28]:<28}" for c in comparison.runs))
    for metric in comparison.metrics:
        cells = "".join(f"  {cell_text(c.cells[metric]):<28}" for c in comparison.runs)
        lines.append(f"{metric:<{width}}{cells}")
    lines.append(f"{'correct':<{width}}" + "".join(f"  {c.correct:<28}" for c in comparison.runs))
    per = [_per_correct(c) for c in comparison.runs]
    if any(per):
        lines.append(f"{'per correct answer':<{width}}" + "".join(f"  {p:<28}" for p in per))
    timings = [timing_text(c) for c in comparison.runs]
    if any(timings):  # (one line per run: four timings do not fit a column)
        lines += [
            f"{'timing':<{width}}  {c.name[:28]}: {t or '-'}" for c, t in zip(comparison.runs, timings, strict=True)
        ]
    lines.append(f"{len(comparison.matrix)} unit(s) where the runs disagree, {comparison.agreeing} where they agree")
    return [line.rstrip() for line in lines]


def cell_text(cell: Cell) -> str:
    if not isinstance(cell.value, (int, float)):
        return "-"
    text = f"{cell.value:.3f}"
    if isinstance(cell.ci95, list) and len(cell.ci95) == 2:
        text += f" [{cell.ci95[0]:.3f}, {cell.ci95[1]:.3f}]"
    if cell.p_value is not None:
        text += f" p={cell.p_value:.2g}"
    if cell.standing not in (None, "same"):
        text += f" {cell.standing}"
    return text


def _per_correct(column: RunColumn) -> str:
    parts = []
    if column.cost_per_correct is not None:
        parts.append(f"${column.cost_per_correct:.4f}")
    if column.latency_per_correct_s is not None:
        parts.append(f"{column.latency_per_correct_s:.2f} s")
    return ", ".join(parts)


def compare_page(comparison: Comparison) -> str:
    from pytest_toolcall.results.diff_html import STYLE, escape, side_by_side
    from pytest_toolcall.results.html import page

    runs = comparison.runs
    head = "<tr><th>metric</th>" + "".join(f"<th>{escape(c.name)}<br>{escape(c.model)}</th>" for c in runs) + "</tr>"
    rows = [
        f'<tr><td class="name">{escape(m)}</td>'
        + "".join(f'<td class="num">{escape(cell_text(c.cells[m]))}</td>' for c in runs)
        + "</tr>"
        for m in comparison.metrics
    ]
    rows.append(
        '<tr><td class="name">correct</td>' + "".join(f'<td class="num">{c.correct}</td>' for c in runs) + "</tr>"
    )
    rows.append(
        '<tr><td class="name">per correct answer</td>'
        + "".join(f'<td class="num">{escape(_per_correct(c))}</td>' for c in runs)
        + "</tr>"
    )
    rows.append(
        '<tr><td class="name">timing</td>'
        + "".join(f'<td class="num">{escape(timing_text(c))}</td>' for c in runs)
        + "</tr>"
    )
    summary = f'<section id="metrics"><h2>Runs</h2><table class="changes" id="runs">{head}{"".join(rows)}</table>'
    summary += (
        "<p>p: the paired test against the first run (McNemar's exact test, or the sign-flip test).</p></section>"
    )
    matrix_head = "<tr><th>unit</th>" + "".join(f"<th>{escape(c.name)}</th>" for c in runs) + "</tr>"
    matrix_rows = []
    for nodeid, row in comparison.matrix.items():
        cells = "".join(
            '<td class="p">pass</td>' if v else ('<td class="f">fail</td>' if v is False else "<td>-</td>") for v in row
        )
        answers = side_by_side([(c.name, comparison.samples[k].get(nodeid)) for k, c in enumerate(runs)])
        matrix_rows.append(
            f'<tr class="unit" data-nodeid="{escape(nodeid)}"><td><details><summary>{escape(nodeid)}</summary>'
            f"{answers}</details></td>{cells}</tr>"
        )
    matrix = (
        f'<section id="matrix"><h2>Units where the runs disagree: {len(comparison.matrix)}</h2>'
        f"<p>{comparison.agreeing} unit(s) where every run has the same verdict are not listed.</p>"
        f'<table class="matrix kv">{matrix_head}{"".join(matrix_rows)}</table></section>'
    )
    title = "pytest-toolcall compare — " + ", ".join(c.name for c in runs)
    return page(title, STYLE + summary + matrix, 'document.body.dataset.ready = "true";')
