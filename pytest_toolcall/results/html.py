"""The single-file HTML report: a JSON report (schema ``pytest-toolcall/report/1``) rendered for people.

The summary (run header, metrics blocks, usage, comparison) is rendered here as static HTML, so it reads
without JavaScript and every value is escaped in one place. The item browser is the only dynamic part:
the samples travel inside the page as JSON in a ``<script type="application/json">`` tag and a small
vanilla script (``html_assets/report.js``) pages through them, filters them and builds a detail pane only
when an item is clicked. That keeps a 10,000-item page fast: the browser parses one JSON string and lays
out one page of rows, never 10,000 detail panes.

Everything the report says may come from a model or from a hand-edited file, so nothing from it is ever
trusted as markup: text is escaped here, numbers are checked to be numbers before they reach a style
attribute, and the script only ever assigns ``textContent``. The page loads nothing from anywhere.
"""

from __future__ import annotations

import html
import json
import math
import os
import tempfile
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_toolcall.results.standing import BETTER, REGRESSED, WORSE, standings

__all__ = ["block_of", "embed_json", "failure_kind_of", "page", "render_html", "write_html", "write_page"]

# The stylesheet and the script live beside this module as package files and are inlined into every page.
_ASSETS = "html_assets"


def render_html(report: dict[str, Any]) -> str:
    """The whole report as one self-contained HTML document."""
    run = _dict(report.get("run"))
    metrics = _dict(report.get("metrics"))
    samples = [s for s in _list(report.get("samples")) if isinstance(s, dict)]
    comparison = report.get("comparison") if isinstance(report.get("comparison"), dict) else None
    usage = report.get("usage") if isinstance(report.get("usage"), dict) else None

    blocks = [block_of(s, metrics) for s in samples]
    kinds = [failure_kind_of(s) for s in samples]
    data = {
        "samples": samples,
        # Per sample: its metrics block and failure kind, worked out once here so the script and the
        # summary's failure-kind table agree on them.
        "index": [[b, k] for b, k in zip(blocks, kinds, strict=True)],
        "regressed": _list(comparison.get("regressed")) if comparison else [],
        "fixed": _list(comparison.get("fixed")) if comparison else [],
    }

    model = _text(run.get("model")) or "unknown model"
    nav = [("run", "Run")]
    body = [_run_section(run, report.get("schema"))]
    kind_counts = _kind_counts(blocks, kinds)
    names = list(metrics) + [b for b in dict.fromkeys(blocks) if b not in metrics]
    # A block with no unit (a benchmark selected whose data had none, the cases of a run without case
    # files) says nothing: not shown.
    names = [n for n in names if n in kind_counts or n in blocks or not _empty_block(_dict(metrics.get(n)))]
    for index, name in enumerate(names):
        anchor = f"block-{index}"
        nav.append((anchor, name))
        body.append(_block_section(anchor, name, _dict(metrics.get(name)), kind_counts.get(name, Counter())))
    if usage is not None:
        nav.append(("usage", "Usage"))
        body.append(_usage_section(usage))
    if isinstance(report.get("stream"), dict):
        nav.append(("stream", "Streaming"))
        body.append(_stream_section(report["stream"]))
    if comparison is not None:
        nav.append(("comparison", "Comparison"))
        body.append(_comparison_section(comparison))
    nav.append(("items", f"Items ({len(samples)})"))
    body.append(_items_section(comparison is not None))

    links = "".join(f'<a href="#{_e(anchor)}">{_e(label)}</a>' for anchor, label in nav)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # No network, ever: the page holds everything it needs, and the policy says so to the browser too.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>pytest-toolcall — {_e(model)}</title>\n"
        f"<style>\n{_asset('report.css')}</style>\n</head>\n<body>\n"
        f'<header class="top"><h1>pytest-toolcall <span class="model">{_e(model)}</span></h1>'
        f"<nav>{links}</nav></header>\n<main>\n" + "\n".join(body) + "\n</main>\n"
        f'<script type="application/json" id="toolcall-data">{embed_json(data)}</script>\n'
        f"<script>\n{_asset('report.js')}</script>\n</body>\n</html>\n"
    )


def page(title: str, body: str, script: str = "") -> str:
    """A self-contained page in the report's style (``diff``, ``compare``): ``body`` is markup already
    escaped; ``script`` runs inline, under the same policy (nothing loaded from anywhere)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{_e(title)}</title>\n<style>\n{_asset('report.css')}</style>\n</head>\n<body>\n"
        f'<header class="top"><h1>{_e(title)}</h1></header>\n<main>\n{body}\n</main>\n'
        + (f"<script>\n{script}\n</script>\n" if script else "")
        + "</body>\n</html>\n"
    )


def write_html(report: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Render ``report`` to ``path`` atomically, so a reader never sees half a page."""
    write_page(render_html(report), path)


def write_page(text: str, path: str | os.PathLike[str]) -> None:
    """Write a rendered page to ``path`` atomically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        # The embedded data is surrogate-free (see embed_json); "replace" covers a stray one elsewhere.
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
            handle.write(text)
        # mkstemp makes the file private; a report is meant to be shared, so give it the usual mode.
        from pytest_toolcall.results.report import process_umask

        os.chmod(tmp, 0o666 & ~process_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe between ``<script>`` tags.

    Inside a script element the HTML parser looks only for ``</script`` and ``<!--``; escaping every
    ``<``, ``>`` and ``&`` as ``\\u003c``-style JSON escapes makes both impossible while ``JSON.parse``
    reads the same string back. NaN and infinities are not JSON, so they become null.
    """
    try:
        text = _dumps(data, ascii_only=False)
    except ValueError:
        data = _finite(data)
        text = _dumps(data, ascii_only=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Model text may hold lone surrogates (the JSON report keeps them as \ud800 escapes); UTF-8 cannot
        # carry them, JSON escapes can, so only such reports pay for an all-ASCII payload.
        text = _dumps(data, ascii_only=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _dumps(data: Any, *, ascii_only: bool) -> str:
    return json.dumps(data, ensure_ascii=ascii_only, separators=(",", ":"), allow_nan=False, default=str)


def block_of(sample: dict[str, Any], metrics: dict[str, Any]) -> str:
    """The metrics block a sample counts in: ``<benchmark>/<lang>`` for a sample with a language
    (ACEBench's blocks are split by language), else its benchmark's."""
    benchmark = _text(sample.get("benchmark")) or "unknown"
    lang = sample.get("lang")
    if lang and f"{benchmark}/{lang}" not in metrics and benchmark in metrics:
        return benchmark  # a language that does not split the benchmark's block
    # (A language's block missing from the metrics, in a partial or hand-made report, is still its.)
    return f"{benchmark}/{lang}" if lang else benchmark


def failure_kind_of(sample: dict[str, Any]) -> str | None:
    """Why a sample did not pass, as one short label; ``None`` when it passed.

    Reports written before ``failure_kind`` existed still carry the benchmark's own reason (ACEBench's
    ``error_type``, general_fc's ``reason_kind``), so those stand in for it; an error without any reason
    is ``error``, and a failure without any is ``unclassified`` so it can still be filtered on.
    """
    outcome = sample.get("outcome")
    kind = sample.get("failure_kind")
    if isinstance(kind, str) and kind:
        return kind
    if outcome == "passed":
        return None
    for key in ("error_type", "reason_kind"):
        value = sample.get(key)
        if isinstance(value, str) and value:
            return value
    if outcome == "error":
        return "error"
    if outcome in ("skipped", "not_run"):
        return None
    return "unclassified"


# --- sections --------------------------------------------------------------------------------------


def _run_section(run: dict[str, Any], schema: Any) -> str:
    rows = [
        ("model", run.get("model")),
        ("base URL", run.get("base_url")),
        ("started", run.get("started_at")),
        ("finished", run.get("finished_at")),
        ("plugin version", run.get("plugin_version")),
        ("shard", run.get("shard")),
        ("repeat", run.get("repeat")),
        ("selected", run.get("selected")),
        ("not run", run.get("not_run")),
        ("schema", schema),
    ]
    table = "".join(f"<tr><th>{_e(k)}</th><td>{_e(_text(v))}</td></tr>" for k, v in rows if v is not None)
    parts = [f'<section id="run"><h2>Run</h2><table class="kv">{table}</table>']
    settings = run.get("settings")
    if isinstance(settings, dict) and settings:
        parts.append(f"<h3>Settings</h3>{_kv_table(settings)}")
    datasets = run.get("datasets")
    if isinstance(datasets, dict) and datasets:
        parts.append("<h3>Datasets</h3>")
        for name, info in datasets.items():
            if isinstance(info, dict):
                fields = {k: v for k, v in info.items() if k != "warnings"}
                parts.append(f"<h4>{_e(name)}</h4>{_kv_table(fields)}")
                warnings = _list(info.get("warnings"))
                if warnings:
                    items = "".join(f"<li>{_e(_text(w))}</li>" for w in warnings)
                    parts.append(f"<details><summary>{len(warnings)} warning(s)</summary><ul>{items}</ul></details>")
            else:
                parts.append(f"<h4>{_e(name)}</h4><p>{_e(_text(info))}</p>")
    problems = _list(run.get("data_problems"))
    if problems:
        items = "".join(f"<li>{_e(_text(p))}</li>" for p in problems)
        parts.append(f'<h3 class="bad">Data problems ({len(problems)})</h3><ul>{items}</ul>')
    parts.append("</section>")
    return "".join(parts)


def _block_section(anchor: str, name: str, block: dict[str, Any], kinds: Counter[str]) -> str:
    shown: set[str] = set()
    parts = [f'<section id="{_e(anchor)}" class="block"><h2>{_e(name)}</h2>']
    parts.append(_overall_line(block, shown))
    if isinstance(block.get("categories"), dict):
        shown.add("categories")
        parts.append("<h3>Categories</h3>" + _bars_table("category", block["categories"]))
    if isinstance(block.get("groups"), dict):
        shown.update(("groups", "groups_official", "groups_ci95"))
        parts.append("<h3>Groups</h3>" + _groups_table(block))
    if all(key in block for key in ("TP", "FP", "FN", "TN")):
        shown.update(("TP", "FP", "FN", "TN"))
        parts.append("<h3>Tool-call decisions</h3>" + _confusion_table(block))
    for key, title, label in (("files", "Files", "file"), ("tags", "Tags", "tag")):
        if isinstance(block.get(key), dict):
            shown.add(key)
            parts.append(f"<h3>{title}</h3>" + _bars_table(label, block[key]))
    if kinds:
        shown.add("failure_kinds")  # the block's own counts say the same as the table from the items
        parts.append("<h3>Failure kinds</h3>" + _kinds_table(name, kinds))
    rest = {k: v for k, v in block.items() if k not in shown}
    # Metric names stay as the gate and the JSON report spell them; headings read as words.
    scalars = {k: v for k, v in rest.items() if not isinstance(v, (dict, list))}
    if scalars:
        parts.append("<h3>Metrics</h3>" + _kv_table(scalars))
    for key, value in rest.items():
        if isinstance(value, dict) and value:
            parts.append(f"<h3>{_e(_label(key))}</h3>" + _kv_table(value))
        elif isinstance(value, list) and value:
            parts.append(f'<h3>{_e(_label(key))}</h3><div class="list">{_cell(value)}</div>')
    parts.append("</section>")
    return "".join(parts)


def _overall_line(block: dict[str, Any], shown: set[str]) -> str:
    """OVERALL (or the block's headline F1/accuracy) with its interval, official value and partial mark."""
    for key in ("overall", "tool_call_f1", "accuracy"):
        value = _num(block.get(key))
        if value is None:
            continue
        shown.update((key, f"{key}_ci95", f"{key}_official"))
        label = "OVERALL" if key == "overall" else key
        ci = _ci(block.get(f"{key}_ci95"))
        text = f'<span class="big">{_fmt(value)}</span>'
        if ci:
            text += f' <span class="ci">95 % CI [{_fmt(ci[0])}, {_fmt(ci[1])}]</span>'
        official = _num(block.get(f"{key}_official"))
        if official is not None:
            text += f' <span class="official">official {_fmt(official)}</span>'
        if block.get("partial"):
            shown.update(("partial", "missing_categories"))
            missing = ", ".join(_text(m) for m in _list(block.get("missing_categories")))
            text += ' <span class="badge partial">partial</span>'
            if missing:
                text += f' <span class="missing">missing: {_e(missing)}</span>'
        # A div, not a p: the bar is a div, and a div inside a p would end the paragraph early.
        return f'<div class="overall"><span class="label">{_e(label)}</span> {text} {_bar(value, ci, None)}</div>'
    return ""


def _bars_table(label: str, rows: dict[str, Any]) -> str:
    has_process = any(_num(_dict(r).get("process_acc")) is not None for r in rows.values())
    has_ceiling = any(_num(_dict(r).get("ceiling")) is not None for r in rows.values())
    has_pass_hat = any(_dict(_dict(r).get("pass_hat_k")) for r in rows.values())
    # Errors are counted apart from failures (a request that failed is not a wrong answer); shown when any.
    has_errors = any(_num(_dict(r).get("errors")) for r in rows.values())
    head = f"<tr><th>{_e(label)}</th><th>n</th><th>passed</th>" + ("<th>errors</th>" if has_errors else "")
    head += "<th>accuracy</th><th>95 % CI</th>"
    head += '<th class="barcol">accuracy (▮ 95 % CI, ┃ ceiling)</th>'
    head += ("<th>process</th>" if has_process else "") + ("<th>ceiling</th>" if has_ceiling else "")
    head += ("<th>pass^k</th>" if has_pass_hat else "") + "</tr>"
    body = []
    for name, raw in rows.items():
        row = _dict(raw)
        accuracy = _num(row.get("accuracy"))
        ci = _ci(row.get("ci95"))
        ceiling = _num(row.get("ceiling"))
        cells = [
            f'<td class="name">{_e(name)}</td>',
            f'<td class="num">{_e(_text(row.get("n")))}</td>',
            f'<td class="num">{_e(_text(row.get("passed")))}</td>',
            f'<td class="num">{_e(_text(row.get("errors")))}</td>' if has_errors else "",
            f'<td class="num">{_fmt(accuracy)}</td>',
            f'<td class="num ci">{f"[{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else ""}</td>',
            f'<td class="barcol">{_bar(accuracy, ci, ceiling)}</td>',
        ]
        if has_process:
            cells.append(f'<td class="num">{_fmt(_num(row.get("process_acc")))}</td>')
        if has_ceiling:
            cells.append(f'<td class="num">{_fmt(ceiling)}</td>')
        if has_pass_hat:
            pass_hat = _dict(row.get("pass_hat_k"))
            text = ", ".join(f"k={k}: {_fmt(_num(v))}" for k, v in pass_hat.items())
            cells.append(f'<td class="num">{_e(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="bars">{head}{"".join(body)}</table>'


def _groups_table(block: dict[str, Any]) -> str:
    groups = _dict(block.get("groups"))
    official = _dict(block.get("groups_official"))
    intervals = _dict(block.get("groups_ci95"))  # not written yet by every version; drawn when present
    head = '<tr><th>group</th><th>score</th><th class="barcol"></th>'
    head += ("<th>official</th>" if official else "") + "</tr>"
    rows = []
    for name, raw in groups.items():
        value = _num(raw)
        row = f'<td class="name">{_e(name)}</td><td class="num">{_fmt(value)}</td>'
        row += f'<td class="barcol">{_bar(value, _ci(intervals.get(name)), None)}</td>'
        if official:
            row += f'<td class="num official">{_fmt(_num(official.get(name)))}</td>'
        rows.append(f"<tr>{row}</tr>")
    return f'<table class="bars">{head}{"".join(rows)}</table>'


def _confusion_table(block: dict[str, Any]) -> str:
    """general_fc's decision counts as a 2×2 table: rows what the label says, columns what the model did."""

    def cell(key: str, meaning: str) -> str:
        return f'<td class="num" title="{_e(meaning)}"><b>{_e(key)}</b> {_e(_text(block.get(key)))}</td>'

    return (
        '<table class="confusion"><tr><th></th><th>model called a tool</th><th>model did not call</th></tr>'
        f"<tr><th>should call</th>{cell('TP', 'true positive')}{cell('FN', 'false negative')}</tr>"
        f"<tr><th>should not call</th>{cell('FP', 'false positive')}{cell('TN', 'true negative')}</tr></table>"
    )


def _kinds_table(block: str, kinds: Counter[str]) -> str:
    rows = "".join(
        f'<tr><td><a href="#items" class="kind-link" data-block="{_e(block)}" data-kind="{_e(kind)}">{_e(kind)}</a>'
        f'</td><td class="num">{count}</td></tr>'
        for kind, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f'<table class="kinds"><tr><th>failure kind</th><th>items</th></tr>{rows}</table>'


def _usage_section(usage: dict[str, Any]) -> str:
    labels = {
        "requests": "requests",
        "from_store": "from the store",
        "retries": "retries",
        "prompt_tokens": "prompt tokens",
        "completion_tokens": "completion tokens",
        "latency_p50_s": "latency p50 (s)",
        "latency_p95_s": "latency p95 (s)",
        "ttft_p50_s": "time to first event p50 (s)",
        "ttft_p95_s": "time to first event p95 (s)",
        "queue_p50_s": "waiting for a slot p50 (s)",
        "queue_p95_s": "waiting for a slot p95 (s)",
        "output_tokens_per_s_p50": "output tokens per second p50",
        "cost_usd": "cost (USD)",
    }
    values = {labels.get(k, k): v for k, v in usage.items()}
    return f'<section id="usage"><h2>Usage</h2>{_kv_table(values)}</section>'


def _stream_section(stream: dict[str, Any]) -> str:
    """``--toolcall-stream``: the parity of streamed and plain answers, and the units that differ."""
    parity, interval = stream.get("parity"), _list(stream.get("parity_ci95"))
    values = {"mode": stream.get("mode"), "units compared": stream.get("compared")}
    if isinstance(parity, (int, float)):
        shown = f"{parity:.4f}"
        if len(interval) == 2 and all(isinstance(v, (int, float)) for v in interval):
            shown += f" [{interval[0]:.4f}, {interval[1]:.4f}]"
        values["parity (95% CI)"] = shown
    rows = "".join(
        f"<tr><td>{_e(_text(m.get('nodeid')))}</td><td>{_e(_text(m.get('kind')))}</td>"
        f"<td>{_e(_text(m.get('detail')))}</td></tr>"
        for m in (_dict(entry) for entry in _list(stream.get("mismatched")))
    )
    table = f"<table><tr><th>item</th><th>kind</th><th>what differed</th></tr>{rows}</table>" if rows else ""
    return f'<section id="stream"><h2>Streaming</h2>{_kv_table(values)}{table}</section>'


def _comparison_section(comparison: dict[str, Any]) -> str:
    parts = ['<section id="comparison"><h2>Comparison with the baseline</h2>']
    baseline = comparison.get("baseline")
    if isinstance(baseline, dict):
        parts.append(_kv_table(baseline))
    identity = _dict(comparison.get("identity"))
    differing = [_dict(d) for d in _list(identity.get("differing"))]
    if differing:
        fields = "".join(
            f'<tr><td class="name">{_e(_text(d.get("field")))}</td><td>{_cell(d.get("baseline"))}</td>'
            f"<td>{_cell(d.get('now'))}</td></tr>"
            for d in differing
        )
        parts.append(
            f"<h3>Not alike: run identity {_e(_text(identity.get('baseline')))} → {_e(_text(identity.get('now')))}</h3>"
            f'<table class="identity"><tr><th>setting</th><th>baseline</th><th>now</th></tr>{fields}</table>'
        )
    changes = _dict(comparison.get("metrics"))
    if changes:
        alpha = comparison.get("alpha")
        at = f" (at α = {alpha:g})" if isinstance(alpha, (int, float)) else ""
        head = (
            f"<tr><th>metric</th><th>baseline</th><th>now</th><th>diff</th><th>p-value</th><th>standing{at}</th></tr>"
        )
        rows = []
        decided = standings(comparison)
        for name, raw in changes.items():
            row = _dict(raw)
            diff = _num(row.get("diff"))
            # The badge is the gate's decision; a plain difference is only named, not badged.
            flag = {
                REGRESSED: '<span class="badge bad">regressed</span>',
                WORSE: '<span class="plain">worse</span>',
                BETTER: '<span class="plain">better</span>',
            }.get(decided.get(name, ""), "")
            sign = "+" if diff is not None and diff > 0 else ""
            rows.append(
                f'<tr><td class="name">{_e(name)}</td><td class="num">{_fmt(_num(row.get("baseline")))}</td>'
                f'<td class="num">{_fmt(_num(row.get("now")))}</td><td class="num">{sign}{_fmt(diff)}</td>'
                f'<td class="num">{_pvalue(_num(row.get("p_value")))}</td><td>{flag}</td></tr>'
            )
        parts.append(f'<h3>Metrics</h3><table class="changes">{head}{"".join(rows)}</table>')
    for key, title in (("regressed", "Regressed (pass → fail)"), ("fixed", "Fixed (fail → pass)")):
        ids = [_text(n) for n in _list(comparison.get(key))]
        parts.append(f"<h3>{title}: {len(ids)}</h3>")
        if ids:
            links = "".join(
                f'<li><a href="#items" class="item-link" data-nodeid="{_e(n)}">{_e(n)}</a></li>' for n in ids
            )
            parts.append(f'<ul class="nodeids {key}">{links}</ul>')
    parts.append("</section>")
    return "".join(parts)


def _items_section(compared: bool) -> str:
    """The browser's frame; the script fills it from the embedded data."""
    hidden = "" if compared else " hidden"  # the regressed/fixed filter means nothing without a baseline
    return (
        '<section id="items"><h2>Items</h2>'
        "<noscript><p>The item browser needs JavaScript; the numbers above do not.</p></noscript>"
        '<div class="filters">'
        '<label>benchmark <select id="f-block"><option value="">all</option></select></label>'
        '<label>category <select id="f-category"><option value="">all</option></select></label>'
        '<label>outcome <select id="f-outcome"><option value="">all</option></select></label>'
        '<label>failure kind <select id="f-kind"><option value="">all</option></select></label>'
        f'<label{hidden}>compared <select id="f-compare"><option value="">all</option>'
        '<option value="regressed">regressed</option><option value="fixed">fixed</option></select></label>'
        '<label>id <input id="f-search" type="search" placeholder="search node id" autocomplete="off"></label>'
        '<button id="f-reset" type="button">reset</button>'
        "</div>"
        '<div class="browser"><div class="list">'
        '<p id="count" class="count"></p>'
        '<table id="item-table"><thead><tr><th>outcome</th><th>item</th><th>category</th><th>failure kind</th>'
        '<th>score</th></tr></thead><tbody id="item-rows"></tbody></table>'
        '<div class="pager"><button id="p-first" type="button">«</button><button id="p-prev" type="button">‹</button>'
        '<span id="p-info"></span><button id="p-next" type="button">›</button>'
        '<button id="p-last" type="button">»</button></div>'
        '</div><div id="detail" class="detail"><p class="hint">Click an item to see its request, output and verdict.'
        "</p></div></div></section>"
    )


# --- small helpers ---------------------------------------------------------------------------------


def _kind_counts(blocks: list[str], kinds: list[str | None]) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {}
    for block, kind in zip(blocks, kinds, strict=True):
        if kind is not None:
            counts.setdefault(block, Counter())[kind] += 1
    return counts


def _bar(value: float | None, ci: tuple[float, float] | None, ceiling: float | None) -> str:
    """A horizontal bar; positions are percentages of numbers checked by ``_num``, never report text."""
    if value is None:
        return '<div class="bar empty"></div>'
    parts = [f'<div class="bar" title="{_fmt(value)}"><div class="fill" style="width:{_pct(value)}%"></div>']
    if ci:
        left, right = _pct(ci[0]), _pct(ci[1])
        parts.append(f'<div class="whisker" style="left:{left}%;width:{max(right - left, 0.0):.2f}%"></div>')
    if ceiling is not None:
        parts.append(f'<div class="ceiling" title="ceiling {_fmt(ceiling)}" style="left:{_pct(ceiling)}%"></div>')
    parts.append("</div>")
    return "".join(parts)


def _kv_table(values: dict[str, Any]) -> str:
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_cell(v)}</td></tr>" for k, v in values.items())
    return f'<table class="kv">{rows}</table>'


#: Headings for a block's keys that are not plain words.
_LABELS = {
    "failure_kinds": "Failure kinds",
    "short_categories": "Categories with fewer items than the data has",
    "missing_categories": "Categories missing",
    "pass_hat_k": "pass^k",
    "n": "items",
}


def _label(key: str) -> str:
    """A block's key as words: ``short_categories`` -> "Short categories"; keeps ``TP``, ``_ci95``..."""
    if key in _LABELS:
        return _LABELS[key]
    if key.isupper() or "_" not in key:
        return key
    return key.replace("_", " ").capitalize()


def _empty_block(block: dict[str, Any]) -> bool:
    counts = [block.get(k) for k in ("n", "selected") if isinstance(block.get(k), int)]
    return not block or (bool(counts) and not any(counts) and not any(_dict(block.get("categories")).values()))


#: Nesting shown as tables; deeper values (none of the plugin's own blocks nest this far) as text.
MAX_TABLE_DEPTH = 4


def _cell(value: Any, depth: int = 0) -> str:
    """A value of a block or of the run as HTML (escaped): objects as nested tables, lists of objects
    as a table with a column per key, lists of numbers in brackets, every number rounded; never raw
    JSON."""
    if isinstance(value, dict) and value and depth < MAX_TABLE_DEPTH:
        rows = "".join(f"<tr><th>{_e(str(k))}</th><td>{_cell(v, depth + 1)}</td></tr>" for k, v in value.items())
        return f'<table class="kv">{rows}</table>'
    if isinstance(value, list) and value and depth < MAX_TABLE_DEPTH:
        if all(isinstance(v, dict) for v in value):
            keys = list(dict.fromkeys(k for v in value for k in v))
            head = "".join(f"<th>{_e(str(k))}</th>" for k in keys)
            body = "".join(
                "<tr>" + "".join(f"<td>{_cell(v.get(k), depth + 1)}</td>" for k in keys) + "</tr>" for v in value
            )
            return f'<table class="kv"><tr>{head}</tr>{body}</table>'
        if all(_num(v) is not None for v in value):
            return _e("[" + ", ".join(_fmt(_num(v)) for v in value) + "]")
        return _e(", ".join(_text(v) if not isinstance(v, (dict, list)) else _flat(v) for v in value))
    if isinstance(value, (dict, list)):
        return _e(_flat(value))
    if isinstance(value, float):
        return _fmt(_num(value))
    return _e(_text(value))


def _flat(value: Any) -> str:
    """A value too deep (or empty) for a table, as one line with its numbers rounded."""
    return json.dumps(_rounded(value), ensure_ascii=False, default=str)


def _rounded(value: Any) -> Any:
    """Floats at 4 significant digits inside a nested value, for reading."""
    if isinstance(value, float):
        return float(f"{value:.4g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _num(value: Any) -> float | None:
    """A finite number, or None: anything else in a numeric field is ignored rather than trusted."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _ci(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        low, high = _num(value[0]), _num(value[1])
        if low is not None and high is not None:
            return low, high
    return None


def _pct(value: float) -> float:
    return round(min(max(value, 0.0), 1.0) * 100, 2)


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.3f}" if value != int(value) or abs(value) <= 1 else str(int(value))


def _pvalue(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.1e}" if value < 0.001 else f"{value:.3f}"


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _asset(name: str) -> str:
    try:
        return resources.files(__package__).joinpath(_ASSETS, name).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        # Only a broken install gets here: the assets are package data and must ship with the wheel.
        raise RuntimeError(
            f"pytest_toolcall/results/{_ASSETS}/{name} is missing from the installed package; "
            "reinstall pytest-toolcall (its package data includes results/html_assets/*)"
        ) from exc
