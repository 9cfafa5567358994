"""The pages of ``pytest-toolcall diff`` and ``compare``: static markup (every value escaped here), with a
few lines of script only to filter. The side-by-side answer view is shared: two (or more) answers of
one unit, each with its verdict, its reason and its calls, the calls aligned by matching (identical
calls, then calls of the same name) and each differing argument marked."""

from __future__ import annotations

import html
import json
from typing import Any

from pytest_toolcall.results.diffing import CHANGED, FIXED, REGRESSED, CallPair, RunDiff, align_calls, calls_of
from pytest_toolcall.results.identity import label

STYLE = """<style>
.side { display: grid; grid-template-columns: repeat(var(--cols), minmax(0, 1fr)); gap: 12px; }
.side > div { border: 1px solid var(--line); padding: 6px 8px; min-width: 0; }
.side pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; }
.change { border-bottom: 1px solid var(--line); padding: 8px 0; }
.differs { background: #fde2e1; }
.st-regressed { color: #b3261e; font-weight: 600; }
.st-fixed { color: #1e7b34; font-weight: 600; }
table.matrix td.p { background: #d9f2df; text-align: center; }
table.matrix td.f { background: #fde2e1; text-align: center; }
</style>"""

_FILTER = """(function () {
  var select = document.getElementById("f-status");
  function apply() {
    var v = select.value;
    document.querySelectorAll(".change").forEach(function (c) {
      c.hidden = v !== "" && c.dataset.status !== v;
    });
  }
  select.addEventListener("change", apply);
  apply();
  document.body.dataset.ready = "true";
})();"""


def diff_page(diff: RunDiff, base_name: str, now_name: str, base_run: dict[str, Any], now_run: dict[str, Any]) -> str:
    from pytest_toolcall.results.html import page

    counts = diff.counts()
    head = (
        f"<p>base: <b>{escape(base_name)}</b> ({escape(label(base_run))}) — now: <b>{escape(now_name)}</b> "
        f"({escape(label(now_run))})</p>"
        f'<p id="counts">{counts[REGRESSED]} regressed, {counts[FIXED]} fixed, {counts[CHANGED]} changed '
        f"with the same verdict ({diff.reordered()} of the changes only reordered their calls); "
        f"{len(diff.only_base)} only in base, {len(diff.only_now)} only now</p>"
        '<label>show <select id="f-status"><option value="">every change</option>'
        f'<option value="{REGRESSED}">regressed</option><option value="{FIXED}">fixed</option>'
        f'<option value="{CHANGED}">changed, same verdict</option></select></label>'
    )
    sections = [
        f'<section class="change" data-status="{change.status}" data-nodeid="{escape(change.nodeid)}">'
        f'<h3><span class="st-{change.status}">{change.status}</span> {escape(change.nodeid)}</h3>'
        + ('<p class="reordered">the same calls in another order</p>' if change.reordered else "")
        + side_by_side([(base_name, change.base), (now_name, change.now)])
        + "</section>"
        for change in diff.changes
    ]
    body = (
        STYLE
        + head
        + "".join(sections)
        + _only_in_one(diff.only_base, base_name)
        + _only_in_one(diff.only_now, now_name)
    )
    return page(f"pytest-toolcall diff — {now_name} against {base_name}", body, _FILTER)


#: Node ids listed per run in "only in": enough to see what a selection left out, a page that stays small.
ONLY_LISTED = 200


def _only_in_one(nodeids: list[str], name: str) -> str:
    """The units of one run that the other has not (another -k, limit, shard or data): named, so a
    count that differs can be explained."""
    if not nodeids:
        return ""
    items = "".join(f"<li>{escape(nodeid)}</li>" for nodeid in nodeids[:ONLY_LISTED])
    more = f"<p>and {len(nodeids) - ONLY_LISTED} more</p>" if len(nodeids) > ONLY_LISTED else ""
    return (
        f'<section class="only" data-run="{escape(name)}"><h3>only in {escape(name)}: {len(nodeids)}</h3>'
        f"<ul>{items}</ul>{more}</section>"
    )


def side_by_side(answers: list[tuple[str, dict[str, Any] | None]]) -> str:
    """The answers of one unit in columns: each its outcome, reason, raw output and calls; the calls
    of every answer are aligned with the first answer's and differing arguments are marked."""
    first = calls_of(answers[0][1] or {})
    columns = []
    for name, sample in answers:
        if sample is None:
            columns.append(f"<div><h4>{escape(name)}</h4><p>not in this run</p></div>")
            continue
        outcome = escape(str(sample.get("outcome")))
        parts = [f"<h4>{escape(name)}</h4>", f'<p class="outcome o-{outcome}">{outcome}</p>']
        reason = sample.get("explanation") or sample.get("reason") or sample.get("error")
        if reason:
            parts.append(f'<pre class="reason">{escape(str(reason))}</pre>')
        output = sample.get("output")
        if output not in (None, "", []):
            parts.append(f'<pre class="output">{escape(_pretty(output))}</pre>')
        pairs = align_calls(first, calls_of(sample))
        if pairs:
            parts.append(_calls_table(pairs))
        columns.append("<div>" + "".join(parts) + "</div>")
    return f'<div class="side" style="--cols:{len(columns)}">' + "".join(columns) + "</div>"


def _calls_table(pairs: list[CallPair]) -> str:
    rows = []
    for position, pair in enumerate(pairs, 1):
        call = pair.now
        if call is None:
            rows.append(f'<tr><td class="num">{position}</td><td class="differs" colspan="2">no call</td></tr>')
            continue
        name_class = _MARK if "(name)" in pair.differing else ""
        arguments = call.get("arguments")
        if isinstance(arguments, dict):
            cells = "".join(
                f"<div{_MARK if key in pair.differing else ''}><b>{escape(str(key))}</b> = "
                f"{escape(_pretty(value))}</div>"
                for key, value in arguments.items()
            )
            missing = [k for k in pair.differing if k not in arguments and not k.startswith("(")]
            cells += "".join(f'<div class="differs"><b>{escape(k)}</b> (not given)</div>' for k in missing)
        else:
            cells = f"<div{_MARK if '(arguments)' in pair.differing else ''}>{escape(_pretty(arguments))}</div>"
        rows.append(
            f'<tr class="call"><td class="num">{position}</td><td{name_class}>{escape(str(call.get("name")))}</td>'
            f"<td>{cells}</td></tr>"
        )
    return '<table class="calls kv"><tr><th>#</th><th>call</th><th>arguments</th></tr>' + "".join(rows) + "</table>"


_MARK = ' class="differs"'


def _pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)


def escape(text: str) -> str:
    return html.escape(text, quote=True)
