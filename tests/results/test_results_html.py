"""The HTML report as text: self-contained, escaped, complete, and tolerant of older reports.

What a browser makes of the page is tested in ``test_results_html_browser.py``; here the generated text is
checked directly, the embedded data read back with Python's own HTML parser (which, like a browser, ends
a script element at the first ``</script``), so an escaping mistake shows up as a payload that no longer
parses or no longer equals the samples.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from conftest import SHIPPED_ROOT, SHIPPED_SET
from pytest_toolcall.results.html import block_of, embed_json, failure_kind_of, render_html, write_html

HOSTILE = "</script><img src=x onerror=alert(1)><!-- <script>alert(2)</script> &amp; \u2028 </SCRIPT >"

ACEBENCH_CATEGORIES = ("normal_atom_bool", "normal_multi_turn_user_adjust", "special_incomplete", "agent_multi_step")
KINDS = ("wrong_value", "no_call", "invalid_json")


def sample_rule(i: int) -> dict[str, Any]:
    """The facts of synthetic item ``i``, by simple arithmetic the tests can repeat.

    Blocks by ``i % 10``: 0–5 ACEBench (even: en, odd: zh), 6–7 general_fc, 8–9 user cases. An item fails
    when ``i % 7 == 3`` and errors when ``i % 97 == 5`` (errors win); a failure's kind is
    ``KINDS[i % 3]``.
    """
    slot = i % 10
    if slot <= 5:
        benchmark, lang, block = "acebench", ("en" if i % 2 == 0 else "zh"), ""
        category = ACEBENCH_CATEGORIES[(i // 10) % 4]
        block = f"acebench/{lang}"
    elif slot <= 7:
        benchmark, lang, category, block = "general_fc", None, "general_fc", "general_fc"
    else:
        category = "weather.toolcall.yaml" if i % 4 else "math.toolcall.yaml"
        benchmark, lang, block = "cases", None, "cases"
    if i % 97 == 5:
        outcome, kind = "error", None
    elif i % 7 == 3:
        outcome, kind = "failed", KINDS[i % 3]
    else:
        outcome, kind = "passed", None
    return {
        "benchmark": benchmark,
        "lang": lang,
        "category": category,
        "block": block,
        "outcome": outcome,
        "kind": kind,
    }


def nodeid_of(i: int) -> str:
    rule = sample_rule(i)
    if rule["benchmark"] == "acebench":
        return f"toolcall::acebench[{rule['lang']}/{rule['category']}_{i}]"
    if rule["benchmark"] == "general_fc":
        return f"toolcall::general_fc[synthetic/{i}]"
    return f"{rule['category']}::case_{i}"


def make_sample(i: int, *, hostile: bool = False) -> dict[str, Any]:
    rule = sample_rule(i)
    output = f"[get_weather(city='City {i}')]"
    if hostile and i % 2 == 0:
        output = f"{HOSTILE} #{i}"
    sample: dict[str, Any] = {
        "nodeid": nodeid_of(i),
        "benchmark": rule["benchmark"],
        "lang": rule["lang"],
        "category": rule["category"],
        "id": str(i),
        "repeat": 1,
        "outcome": rule["outcome"],
        "score": 1.0 if rule["outcome"] == "passed" else 0.0,
        "process": None,
        "output": output,
        "error": "ConnectionError: the endpoint went away" if rule["outcome"] == "error" else None,
        "latency_s": round(0.1 + (i % 13) / 10, 2),
        "usage": {"prompt_tokens": 100 + i % 50, "completion_tokens": 20 + i % 7},
        "from_store": i % 3 == 0,
        "failure_kind": rule["kind"],
        "message": f"expected city 'Paris', got 'City {i}'" if rule["outcome"] == "failed" else "",
        "expected": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    }
    if rule["benchmark"] == "general_fc":
        sample["tool_calls"] = [{"id": f"call_{i}", "name": "get_weather", "arguments": f'{{"city": "City {i}"}}'}]
        sample["messages"] = [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": f"Weather in city {i}?"},
        ]
    if rule["category"] == "normal_multi_turn_user_adjust":
        sample["steps"] = [{"id": f"{i}_0", "valid": True, "output": output}, {"id": f"{i}_1", "valid": False}]
    return sample


def synthetic_report(n: int, *, hostile: bool = False, comparison: bool = True) -> dict[str, Any]:
    """A complete ``pytest-toolcall/report/1`` report with ``n`` items in four blocks."""
    samples = [make_sample(i, hostile=hostile) for i in range(n)]
    categories = {
        c: {
            "n": 50,
            "passed": 40,
            "failed": 10,
            "errors": 0,
            "accuracy": 0.8,
            "ci95": [0.67, 0.89],
            "process_acc": None,
            "ceiling": 0.86,
        }
        for c in ACEBENCH_CATEGORIES
    }
    acebench = {
        "categories": categories,
        "groups": {"atom": 0.8, "normal": 0.8, "special": 0.8, "agent": 0.8},
        "groups_official": {"atom": 0.8, "normal": 0.8, "special": 0.8, "agent": 0.79},
        "overall": 0.8,
        "overall_ci95": [0.75, 0.85],
        "overall_official": 0.798,
        "partial": False,
        "missing_categories": [],
    }
    report: dict[str, Any] = {
        "schema": "pytest-toolcall/report/1",
        "run": {
            "model": "synthetic-model",
            "base_url": "local-endpoint:8000/v1",
            "started_at": "2026-12-01T10:00:00+00:00",
            "finished_at": "2026-12-01T10:20:00+00:00",
            "plugin_version": "9.8.7",
            "shard": "2/3",
            "repeat": 1,
            "datasets": {
                "acebench": {"commit": "56dd66c", "langs": ["en", "zh"]},
                "general_fc": {"files": ["synthetic.jsonl"], "warnings": ["synthetic.jsonl:3: odd"]},
            },
        },
        "samples": samples,
        "metrics": {
            "acebench/en": acebench,
            "acebench/zh": {**acebench, "partial": True, "missing_categories": ["agent_multi_turn"]},
            "general_fc": {
                "n": 2000,
                "TP": 1201,
                "FP": 37,
                "FN": 58,
                "TN": 704,
                "schema_accuracy": 0.97,
                "tool_call_precision": 0.97,
                "tool_call_recall": 0.954,
                "tool_call_f1": 0.962,
                "tool_call_f1_ci95": [0.95, 0.97],
            },
            "cases": {
                "files": {
                    "weather.toolcall.yaml": {"n": 1500, "passed": 1300, "accuracy": 0.867, "ci95": [0.848, 0.883]}
                },
                "tags": {"smoke": {"n": 10, "passed": 9, "accuracy": 0.9}},
                "overall": 0.86,
                "n": 2000,
                "passed": 1720,
            },
        },
        "usage": {
            "requests": n,
            "from_store": n // 3,
            "retries": 4,
            "prompt_tokens": 1234567,
            "completion_tokens": 76543,
            "latency_p50_s": 0.61,
            "latency_p95_s": 1.3,
            "cost_usd": 2.5,
        },
        "comparison": None,
    }
    if comparison:
        report["comparison"] = {
            "baseline": {"path": "main.json", "model": "synthetic-model", "started_at": "2026-11-30T10:00:00+00:00"},
            "metrics": {
                "acebench/en.overall": {
                    "baseline": 0.85,
                    "now": 0.8,
                    "diff": -0.05,
                    "p_value": 0.0004,
                    "regressed": True,
                    "fixed": False,
                    "gated": True,
                },
                "general_fc.tool_call_f1": {
                    "baseline": 0.95,
                    "now": 0.962,
                    "diff": 0.012,
                    "p_value": 0.41,
                    "regressed": False,
                    "fixed": False,
                },
            },
            "regressed": [nodeid_of(3), nodeid_of(10)],
            "fixed": [nodeid_of(0)],
        }
    return report


class ScriptReader(HTMLParser):
    """Collects each script element's type and text the way an HTML parser splits them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._in_script: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script, self._text = dict(attrs), []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._in_script, "".join(self._text)))
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            self._text.append(data)


def parse(page: str) -> ScriptReader:
    reader = ScriptReader()
    reader.feed(page)
    reader.close()
    return reader


def payload(page: str) -> dict[str, Any]:
    reader = parse(page)
    data = [text for attrs, text in reader.scripts if attrs.get("type") == "application/json"]
    assert len(data) == 1
    return json.loads(data[0])


# --- self-contained -----------------------------------------------------------------------------------


def test_page_references_nothing_outside_itself() -> None:
    page = render_html(synthetic_report(200))
    assert "http://" not in page and "https://" not in page
    tags = parse(page).tags
    # No element that could load something: no external script, stylesheet, image, frame or font.
    assert not [t for t, a in tags if t in ("link", "img", "iframe", "object", "embed", "base")]
    assert not [a for t, a in tags if t == "script" and "src" in a]
    assert "@import" not in page and "url(" not in page
    assert page.startswith("<!DOCTYPE html>")


def test_embedded_data_is_exactly_the_samples() -> None:
    report = synthetic_report(300)
    data = payload(render_html(report))
    assert data["samples"] == report["samples"]
    assert data["regressed"] == report["comparison"]["regressed"]
    assert data["fixed"] == report["comparison"]["fixed"]
    # Per sample: its block and failure kind, as sample_rule says.
    assert data["index"] == [
        [sample_rule(i)["block"], sample_rule(i)["kind"] or ("error" if sample_rule(i)["outcome"] == "error" else None)]
        for i in range(300)
    ]


# --- hostile text -------------------------------------------------------------------------------------


def test_hostile_model_output_cannot_leave_the_data_tag() -> None:
    report = synthetic_report(40, hostile=True)
    page = render_html(report)
    reader = parse(page)
    # Two scripts only: the data and the report's own code; the hostile text opened none.
    assert [a.get("type") for a, _ in reader.scripts] == ["application/json", None]
    assert not [t for t, _ in reader.tags if t == "img"]
    assert "<img" not in page and "<!--" not in page
    assert page.lower().count("</script") == 2
    # And the text survives intact for the browser to show as text.
    assert payload(page)["samples"] == report["samples"]
    assert sum(HOSTILE in s["output"] for s in payload(page)["samples"]) == 20


def test_hostile_text_in_the_summary_is_escaped() -> None:
    report = synthetic_report(20, hostile=True)
    report["run"]["model"] = HOSTILE
    report["run"]["datasets"][HOSTILE] = {"commit": HOSTILE}
    report["metrics"]["acebench/en"]["categories"][HOSTILE] = {"n": 1, "passed": 1, "accuracy": "1; width:900%"}
    report["metrics"][HOSTILE] = {"overall": 0.5, HOSTILE: HOSTILE}
    report["comparison"]["regressed"].append(HOSTILE)
    report["samples"][1]["failure_kind"] = HOSTILE
    report["samples"][1]["outcome"] = "failed"
    page = render_html(report)
    reader = parse(page)
    assert not [t for t, _ in reader.tags if t == "img"]
    assert [a.get("type") for a, _ in reader.scripts] == ["application/json", None]
    assert "<img" not in page and "<!--" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    # A string where a number belongs never reaches a style attribute.
    assert "900%" not in page


def test_embed_json_escapes_markup_and_survives_nan_and_surrogates() -> None:
    text = embed_json({"a": "</script><!--&", "b": float("nan"), "c": [float("inf")], "d": "x\ud800y"})
    assert "<" not in text and ">" not in text and "&" not in text
    text.encode("utf-8")  # lone surrogates travel as JSON escapes
    assert json.loads(text) == {"a": "</script><!--&", "b": None, "c": [None], "d": "x\ud800y"}


# --- content ------------------------------------------------------------------------------------------


def test_header_names_the_run() -> None:
    page = render_html(synthetic_report(10))
    for text in (
        "synthetic-model",
        "local-endpoint:8000/v1",
        "2026-12-01T10:00:00+00:00",
        "2026-12-01T10:20:00+00:00",
        "9.8.7",
        "2/3",
        "synthetic.jsonl:3: odd",
        "56dd66c",
    ):
        assert text in page, text
    assert re.search(r"<th>repeat</th><td>1</td>", page)
    assert re.search(r"<th>shard</th><td>2/3</td>", page)


def test_category_bar_draws_accuracy_interval_and_ceiling() -> None:
    page = render_html(synthetic_report(10))
    # accuracy 0.8 → 80 % filled; interval 0.67–0.89 → a whisker from 67 % spanning 22 %; ceiling at 86 %.
    bar = (
        '<div class="fill" style="width:80.0%"></div><div class="whisker" style="left:67.0%;width:22.00%">'
        '</div><div class="ceiling" title="ceiling 0.860" style="left:86.0%"></div>'
    )
    assert page.count(bar) == 8  # four categories in each ACEBench block
    assert "[0.670, 0.890]" in page
    assert "<th>errors</th>" not in page  # no category had an error


def test_category_errors_are_counted_apart() -> None:
    report = synthetic_report(10)
    report["metrics"]["acebench/en"] = json.loads(json.dumps(report["metrics"]["acebench/en"]))
    report["metrics"]["acebench/en"]["categories"]["special_incomplete"].update(passed=38, errors=2)
    page = render_html(report)
    assert page.count("<th>errors</th>") == 1
    assert (
        '<td class="name">special_incomplete</td><td class="num">50</td><td class="num">38</td><td class="num">2</td>'
    ) in page


def test_repeats_pass_hat_k_flaky_and_group_intervals() -> None:
    report = synthetic_report(10)
    block = json.loads(json.dumps(report["metrics"]["acebench/en"]))
    block["categories"]["normal_atom_bool"]["pass_hat_k"] = {"1": 0.8, "2": 0.65}
    block["groups_ci95"] = {"atom": [0.5, 0.75]}
    block["flaky"] = ["toolcall::acebench[en/normal_atom_bool_7]"]
    report["metrics"]["acebench/en"] = block
    page = render_html(report)
    assert "<th>pass^k</th>" in page and "k=1: 0.800, k=2: 0.650" in page
    assert '<div class="whisker" style="left:50.0%;width:25.00%"></div>' in page
    assert "<h3>flaky</h3>" in page and "toolcall::acebench[en/normal_atom_bool_7]" in page


def test_groups_overall_partial_and_official_values() -> None:
    page = render_html(synthetic_report(10))
    assert page.count('<span class="label">OVERALL</span>') == 3  # two ACEBench blocks and cases
    assert "95 % CI [0.750, 0.850]" in page
    assert page.count("official 0.798") == 2
    assert page.count('class="badge partial">partial</span>') == 1
    assert "missing: agent_multi_turn" in page
    # agent's official group value differs and is shown beside the computed one.
    assert '<td class="num official">0.790</td>' in page


def test_general_fc_confusion_counts_and_metrics() -> None:
    page = render_html(synthetic_report(10))
    for cell in ("<b>TP</b> 1201", "<b>FP</b> 37", "<b>FN</b> 58", "<b>TN</b> 704"):
        assert cell in page
    assert '<span class="label">tool_call_f1</span> <span class="big">0.962</span>' in page
    assert "95 % CI [0.950, 0.970]" in page
    assert "<th>schema_accuracy</th><td>0.970</td>" in page


def test_cases_files_and_tags() -> None:
    page = render_html(synthetic_report(10))
    assert '<td class="name">weather.toolcall.yaml</td><td class="num">1500</td><td class="num">1300</td>' in page
    assert '<td class="name">smoke</td><td class="num">10</td><td class="num">9</td>' in page


def test_failure_kind_counts_per_block() -> None:
    n = 1000
    page = render_html(synthetic_report(n))
    for block in ("acebench/en", "acebench/zh", "general_fc", "cases"):
        expected: dict[str, int] = {}
        for i in range(n):
            rule = sample_rule(i)
            if rule["block"] == block and rule["outcome"] != "passed":
                kind = rule["kind"] or "error"
                expected[kind] = expected.get(kind, 0) + 1
        for kind, count in expected.items():
            link = f'<a href="#items" class="kind-link" data-block="{block}" data-kind="{kind}">{kind}</a>'
            assert f'{link}</td><td class="num">{count}</td>' in page, (block, kind)


def test_usage_and_comparison() -> None:
    page = render_html(synthetic_report(10))
    assert "<th>prompt tokens</th><td>1234567</td>" in page
    assert "<th>latency p95 (s)</th><td>1.300</td>" in page
    assert "<th>cost (USD)</th><td>2.500</td>" in page
    assert '<td class="name">acebench/en.overall</td>' in page
    assert '<td class="num">4.0e-04</td>' in page  # small p-values in scientific notation
    assert '<td class="num">0.410</td>' in page
    assert '<td class="num">-0.050</td>' in page and '<td class="num">+0.012</td>' in page
    assert page.count('class="badge bad">regressed</span>') == 1
    assert f'data-nodeid="{nodeid_of(3)}"' in page
    assert "Regressed (pass → fail): 2" in page and "Fixed (fail → pass): 1" in page


# --- older and smaller reports ------------------------------------------------------------------------


def test_minimal_and_older_reports_render() -> None:
    assert "Items (0)" in render_html({})
    assert "Items (0)" in render_html({"schema": "pytest-toolcall/report/1", "run": {}, "samples": [], "metrics": {}})
    old = synthetic_report(50, comparison=False)
    del old["usage"]
    del old["comparison"]
    for sample in old["samples"]:
        del sample["failure_kind"], sample["usage"]
    for block in ("acebench/en", "acebench/zh"):
        old["metrics"][block] = json.loads(json.dumps(old["metrics"][block]))
        for category in old["metrics"][block]["categories"].values():
            del category["ci95"], category["ceiling"]
        del old["metrics"][block]["overall_ci95"]
    page = render_html(old)
    assert 'id="usage"' not in page and 'id="comparison"' not in page
    assert 'class="whisker"' not in page.split('id="block-2"')[0]
    assert 'class="ceiling"' not in page
    # Without failure_kind every failure still has a kind to filter on.
    assert all(
        kind is not None
        for (_, kind), s in zip(payload(page)["index"], old["samples"], strict=True)
        if s["outcome"] != "passed"
    )


def test_failure_kind_falls_back_to_the_benchmarks_own_reason() -> None:
    assert failure_kind_of({"outcome": "passed"}) is None
    assert failure_kind_of({"outcome": "failed", "failure_kind": "wrong_order", "error_type": "x"}) == "wrong_order"
    assert failure_kind_of({"outcome": "failed", "error_type": "value_error"}) == "value_error"
    assert failure_kind_of({"outcome": "failed", "error_type": "", "reason_kind": "schema"}) == "schema"
    assert failure_kind_of({"outcome": "error", "failure_kind": None}) == "error"
    assert failure_kind_of({"outcome": "failed"}) == "unclassified"


def test_write_html_is_atomic_and_readable(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "report.html"
    write_html(synthetic_report(5), target)
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


# --- a real report --------------------------------------------------------------------------------------


def run_oracle_report(directory: Path) -> dict[str, Any]:
    """A real JSON report from the plugin's oracle run: a few items of every ACEBench category and general_fc."""
    report = directory / "oracle.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--toolcall-model",
        "oracle",
        "--toolcall-lang=all",
        "--toolcall-bench=acebench,general_fc",
        f"--toolcall-data-dir={SHIPPED_ROOT}",
        f"--toolcall-general-fc={SHIPPED_SET}",
        "--toolcall-limit=3",
        f"--toolcall-report={report}",
        "-p",
        "no:cacheprovider",
        "-q",
        "-n",
        "0",
    ]
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=300)
    if not report.exists():
        pytest.fail(f"the oracle run wrote no report:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def oracle_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_oracle_report(tmp_path_factory.mktemp("oracle"))


@pytest.mark.slow
def test_a_real_report_renders_every_block(oracle_report: dict[str, Any]) -> None:
    page = render_html(oracle_report)
    assert set(oracle_report["metrics"]) == {"acebench/en", "acebench/zh", "general_fc"}
    for block in oracle_report["metrics"]:
        assert f"<h2>{block}</h2>" in page
    for category in oracle_report["metrics"]["acebench/en"]["categories"]:
        assert f'<td class="name">{category}</td>' in page
    assert payload(page)["samples"] == oracle_report["samples"]
    # Real outputs mention URLs as data (ACEBench has arguments like 'https://example.com/…'); none of
    # them may become something the page loads or links to.
    assert_no_external_references(page)


def assert_no_external_references(page: str) -> None:
    for tag, attrs in parse(page).tags:
        for name, value in attrs.items():
            assert "//" not in (value or ""), (tag, name, value)
            assert name != "src", (tag, name, value)
    assert "url(" not in page.split('<script type="application/json"')[0]


def test_a_base_url_is_shown_as_text_not_as_a_link() -> None:
    report = synthetic_report(5)
    report["run"]["base_url"] = "http://127.0.0.1:8000/v1"
    report["samples"][0]["output"] = "see https://example.com/a.png"
    page = render_html(report)
    assert "<th>base URL</th><td>http://127.0.0.1:8000/v1</td>" in page
    assert_no_external_references(page)


@pytest.mark.parametrize(
    ("sample", "blocks", "block"),
    [
        ({"benchmark": "acebench", "lang": "en"}, ["acebench/en", "acebench/zh"], "acebench/en"),
        ({"benchmark": "acebench", "lang": "zh"}, ["acebench/en"], "acebench/zh"),  # its block left out
        ({"benchmark": "general_fc", "lang": None}, ["general_fc"], "general_fc"),
        ({"benchmark": "calc", "lang": "fr"}, ["calc"], "calc"),  # a language that does not split blocks
        ({"benchmark": None}, [], "unknown"),
    ],
)
def test_each_sample_belongs_to_its_block(sample: dict[str, Any], blocks: list[str], block: str) -> None:
    assert block_of(sample, {name: {} for name in blocks}) == block


def test_empty_blocks_are_hidden_and_headings_are_words() -> None:
    report = synthetic_report(10)
    report["metrics"]["cases"] = {"files": {}, "tags": {}, "n": 0, "passed": 0, "errors": 0, "skipped": 0}
    report["samples"] = [s for s in report["samples"] if s["benchmark"] != "cases"]
    report["metrics"]["general_fc"]["short_categories"] = {"general_fc": {"n": 3, "of": 7}}
    report["metrics"]["general_fc"]["reference_agreement"] = {"kappa": 0.6534558816954336}
    page = render_html(report)
    assert "<h2>cases</h2>" not in page and "<h2>general_fc</h2>" in page
    assert "<h3>Categories with fewer items than the data has</h3>" in page and "<h3>short_categories</h3>" not in page
    assert "<h3>Reference agreement</h3>" in page
    assert "<th>kappa</th><td>0.653</td>" in page and "0.6534558816954336" not in page.split('id="toolcall-data"')[0]


def test_every_block_value_is_a_table_of_rounded_numbers_never_raw_json() -> None:
    report = synthetic_report(10)
    report["metrics"]["general_fc"] |= {
        "contracts": {"tool_choice": {"n": 4, "passed": 3, "rate": 0.7500001234}, "strict": {"n": 2, "passed": 2}},
        "agreement_ci95": [0.23071234, 0.88241234],
        "scores": [{"name": "simple", "weight": 0.333333333, "score": 0.9876543}],
        "latency_p95_s": 1.23456789,
    }
    report["usage"]["latency_p50_s"] = 0.123456789
    page = render_html(report)
    view = page.split('id="toolcall-data"')[0]  # the page as shown, not the embedded data
    assert '<th>tool_choice</th><td><table class="kv"><tr><th>n</th><td>4</td>' in view
    assert "<th>rate</th><td>0.750</td>" in view
    assert '<h3>Agreement ci95</h3><div class="list">[0.231, 0.882]</div>' in view
    assert "<tr><th>name</th><th>weight</th><th>score</th></tr><tr><td>simple</td><td>0.333</td><td>0.988</td>" in view
    assert "<th>latency_p95_s</th><td>1.235</td>" in view and "<th>latency p50 (s)</th><td>0.123</td>" in view
    for raw in ("0.7500001234", "0.23071234", "0.987654", "1.23456789", "0.123456789", '{"n"', "&quot;n&quot;"):
        assert raw not in view, raw
