"""BFCL through the plugin with the built-in oracle (no network): the official ceilings in both modes,
node ids, markers and selection, the metrics block, gate names and option errors."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.benchmark import BFCL
from pytest_toolcall.benchmarks.bfcl.data import LIVE, NON_LIVE, SINGLE_TURN_CATEGORIES
from pytest_toolcall.benchmarks.bfcl.metrics import MULTI_TURN, bfcl_metrics
from pytest_toolcall.benchmarks.bfcl.summary import bfcl_table
from pytest_toolcall.core.protocol.tables import render
from pytest_toolcall.results import gate

VERDICTS = Path(__file__).resolve().parents[2] / "data" / "verdicts"
ORACLE = ["--toolcall-model=oracle", "--toolcall-bench=bfcl", "--toolcall-cache=off", "-p", "no:randomly"]


def committed_ceilings(mode: str) -> dict[str, dict[str, Any]]:
    """The official checker's verdicts on the first possible answers, per category."""
    with open(VERDICTS / "bfcl_ceilings.jsonl", encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    return {line["category"]: line for line in lines if line["mode"] == mode}


def report(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fc", "prompting"])
def test_oracle_run_reaches_the_official_ceilings(pytester: pytest.Pytester, mode: str) -> None:
    args = [*ORACLE, f"--toolcall-bfcl-mode={mode}", "--toolcall-bfcl-categories=v3", "--toolcall-report=report.json"]
    result = pytester.runpytest(*args)
    official = committed_ceilings(mode)
    assert set(official) == set(SINGLE_TURN_CATEGORIES)
    failing = {
        f"toolcall::bfcl[{line['category']}/{sample_id}]"
        for line in official.values()
        for sample_id in line["failing_ids"]
    }
    # The possible answers the official checker rejects are expected failures; the others pass.
    multi_turn = 4 * 200  # every multi-turn ground truth passes
    result.assert_outcomes(passed=sum(line["passed"] for line in official.values()) + multi_turn, xfailed=len(failing))
    samples = report(pytester)["samples"]
    assert {s["nodeid"] for s in samples if s["outcome"] == "xfailed"} == failing
    assert all(s["ceiling"] == (0.0 if s["nodeid"] in failing else 1.0) for s in samples)

    block = report(pytester)["metrics"]["bfcl"]
    assert block["mode"] == mode
    assert list(block["categories"]) == [*SINGLE_TURN_CATEGORIES, *MULTI_TURN]
    # Every multi-turn ground truth passes the official checker (test_bfcl_multi_turn_fidelity.py).
    for category in MULTI_TURN:
        assert block["categories"][category] | {"ci95": None} == {
            "n": 200,
            "passed": 200,
            "failed": 0,
            "errors": 0,
            "accuracy": 1.0,
            "ci95": None,
            "ceiling": 1.0,
        }
    for category, line in official.items():
        got = block["categories"][category]
        ceiling = line["passed"] / line["total"]
        assert (got["n"], got["passed"], got["errors"]) == (line["total"], line["passed"], 0), category
        assert got["accuracy"] == pytest.approx(ceiling) and got["ceiling"] == pytest.approx(ceiling), category
    # The summary scores, by hand from the committed counts (the official leaderboard's definitions).
    acc = {c: line["passed"] / line["total"] for c, line in official.items()}
    simple = (acc["simple_python"] + acc["simple_java"] + acc["simple_javascript"]) / 3
    non_live = (simple + acc["multiple"] + acc["parallel"] + acc["parallel_multiple"]) / 4
    live_ast = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
    live = sum(official[c]["passed"] for c in live_ast) / sum(official[c]["total"] for c in live_ast)
    irrelevance = (acc["irrelevance"] + acc["live_irrelevance"]) / 2
    scores = block["scores"]
    assert scores["non_live"]["value"] == pytest.approx(non_live) == pytest.approx(scores["non_live"]["official"])
    assert scores["non_live"]["partial"] is False
    assert scores["live"]["value"] == pytest.approx(live) and scores["live"]["partial"] is False
    assert scores["irrelevance"]["value"] == pytest.approx(irrelevance)
    assert scores["relevance"]["value"] == pytest.approx(acc["live_relevance"])
    assert scores["multi_turn"] == {"value": 1.0, "official": 1.0, "partial": False}
    # The agentic categories are not part of the plugin: 0 (weight 40) in the official overall, left
    # out of the renormalised one, which is therefore always partial.
    weighted = 10 * non_live + 10 * live + 10 * irrelevance + 30 * 1.0
    assert scores["overall"]["value"] == pytest.approx(weighted / 60)
    assert scores["overall"]["official"] == pytest.approx(weighted / 100)
    assert block["overall"] == scores["overall"]["value"] and block["partial"] is True
    assert block["missing_categories"] == [
        "memory_kv",
        "memory_rec_sum",
        *(["format_sensitivity"] if mode == "prompting" else []),
    ]
    assert block["short_categories"] == []
    # The Wilson interval of one category, from its formula.
    passed, n, z = official["simple_java"]["passed"], official["simple_java"]["total"], 1.96
    centre = (passed / n + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(passed / n * (1 - passed / n) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert block["categories"]["simple_java"]["ci95"] == [pytest.approx(centre - half), pytest.approx(centre + half)]


@pytest.mark.slow
def test_oracle_run_of_the_v4_parts(pytester: pytest.Pytester) -> None:
    """Memory (both backends) and format sensitivity, prompting mode: the oracle passes every memory
    question and every format but the JSON ones of simple_python_96 (the official JSON reader cannot
    read its nested list), and the V4 overall is labelled with what it misses."""
    args = [*ORACLE, "--toolcall-bfcl-mode=prompting", "--toolcall-bfcl-categories=memory,format_sensitivity"]
    result = pytester.runpytest(*args, "--toolcall-report=report.json", "-rx")
    result.assert_outcomes(passed=2 * 155 + 26 * 200 - 6, xfailed=6)
    block = report(pytester)["metrics"]["bfcl"]
    assert list(block["categories"]) == ["memory_kv", "memory_rec_sum", "format_sensitivity"]
    assert block["categories"]["memory_kv"]["accuracy"] == block["categories"]["memory_rec_sum"]["accuracy"] == 1.0
    # Memory counts vector as 0 officially (not measured), agentic counts web search as 0.
    assert block["scores"]["memory"] == {"value": 1.0, "official": pytest.approx(2 / 3), "partial": True}
    assert block["scores"]["overall_v4"] == {
        "value": 1.0,
        "official": pytest.approx(0.40 * (2 / 3) / 2),
        "partial": True,
    }
    assert block["overall"] is None  # BFCL V3's parts did not run
    spread = block["format_sensitivity"]
    json_formats = [name for name in spread["by_format"] if name.startswith("ret_fmt=json")]
    assert len(spread["by_format"]) == 26 and len(json_formats) == 6
    assert all(spread["by_format"][name]["accuracy"] == 199 / 200 for name in json_formats)
    assert spread["accuracy_max_delta"] == 0.5 and block["format_robustness"] == pytest.approx(0.995)
    out = result.stdout.str()
    assert "OVERALL_V4" in out and "web_search_base (needs a live web-search API)" in out
    assert "memory_vector (needs the weights of the embedding model all-MiniLM-L6-v2)" in out
    assert "max-min 0.50 points" in out and "simple_python_96" in out


@pytest.mark.slow
def test_items_records_and_failure_message(pytester: pytest.Pytester) -> None:
    args = [*ORACLE, "--toolcall-bfcl-categories=simple_java", "--toolcall-report=report.json", "-k", "simple_java_36"]
    result = pytester.runpytest(*args, "-rx")
    result.assert_outcomes(xfailed=1)  # its possible answer fails the official checker
    assert "XFAIL toolcall::bfcl[simple_java/simple_java_36] - the first possible answer fails" in result.stdout.str()
    result = pytester.runpytest(*args, "--runxfail")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    # The official error type and the parameter it is about, the reply and the possible answer.
    assert "value_error:list/tuple: 'parts': ['userID', '42'," in out
    # fc tools carry dotted names with underscores.
    assert 'reply (fc, tool calls): ObjectMapEntryReplayDecoder_decode({"parts": "new ArrayList<>(' in out
    assert "possible answer: " in out
    (sample,) = report(pytester)["samples"]
    assert sample["nodeid"] == "toolcall::bfcl[simple_java/simple_java_36]"
    assert (sample["benchmark"], sample["category"], sample["id"]) == ("bfcl", "simple_java", "simple_java_36")
    assert sample["mode"] == "fc" and sample["error_type"] == "value_error:list/tuple"
    assert sample["reason"].startswith("value_error:list/tuple: 'parts': ['userID', '42',")
    assert sample["failure_kind"] == "value_error:list/tuple"
    assert sample["ceiling"] == 0.0 and sample["score"] == 0.0
    datasets = report(pytester)["run"]["datasets"]["bfcl"]
    assert datasets["commit"] == "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"
    assert datasets["generation"] == {"temperature": 0.001, "max_tokens": None}


@pytest.mark.slow
def test_node_ids_markers_and_selection(pytester: pytest.Pytester) -> None:
    args = [*ORACLE, "--toolcall-bfcl-categories=live_parallel,simple_javascript,irrelevance", "--co", "-q"]

    def collected(*extra: str) -> list[str]:
        result = pytester.runpytest(*args, *extra)
        return [line for line in result.stdout.lines if line.startswith("toolcall::")]

    everything = collected()
    assert len(everything) == 16 + 50 + 240
    # Official order of the categories, file order within one.
    assert everything[0] == "toolcall::bfcl[simple_javascript/simple_javascript_0]"
    assert everything[50] == "toolcall::bfcl[irrelevance/irrelevance_0]"
    assert everything[-1] == "toolcall::bfcl[live_parallel/live_parallel_15-11-0]"
    assert len(collected("-m", "live")) == 16
    assert len(collected("-m", "non_live and not irrelevance")) == 50
    assert len(collected("-m", "bfcl and irrelevance")) == 240
    assert collected("-k", "live_parallel/live_parallel_3-") == ["toolcall::bfcl[live_parallel/live_parallel_3-0-3]"]
    assert len(collected("--toolcall-limit=3")) == 9
    multi = [*ORACLE, "--co", "-q", "--toolcall-bfcl-categories=multi_turn", "-m", "multi_turn_long_context"]
    lines = [line for line in pytester.runpytest(*multi).stdout.lines if line.startswith("toolcall::")]
    assert len(lines) == 200 and lines[0] == "toolcall::bfcl[multi_turn_long_context/multi_turn_long_context_0]"
    groups = [*ORACLE, "--co", "-q", "--toolcall-bfcl-categories"]
    assert pytester.runpytest(*groups, "live").stdout.lines[-1].startswith(f"{_size(LIVE)} tests collected")
    assert pytester.runpytest(*groups, "non_live").stdout.lines[-1].startswith(f"{_size(NON_LIVE)} tests collected")


def _size(categories: tuple[str, ...]) -> int:
    from pytest_toolcall.benchmarks.bfcl.data import load_category

    return sum(len(load_category(category)[0]) for category in categories)


@pytest.mark.slow
def test_a_selection_is_partial_with_the_official_value_beside(pytester: pytest.Pytester) -> None:
    args = [*ORACLE, "--toolcall-bfcl-categories=simple_java,live_relevance", "--toolcall-report=report.json"]
    result = pytester.runpytest(*args, "--toolcall-limit=10", "--junitxml=junit.xml")
    block = report(pytester)["metrics"]["bfcl"]
    junit = ET.parse(pytester.path / "junit.xml").getroot()
    suite = {p.get("name"): p.get("value") for p in junit.iter("property") if p.get("name", "").startswith("bfcl.")}
    assert suite["bfcl.mode"] == "fc" and suite["bfcl.partial"] == "true"
    assert float(suite["bfcl.simple_java.accuracy"]) == block["categories"]["simple_java"]["accuracy"]
    assert float(suite["bfcl.overall"]) == pytest.approx(block["overall"], abs=1e-5)
    assert "bfcl.multi_turn" not in suite  # not measured
    assert block["short_categories"] == ["simple_java", "live_relevance"]  # 10 of 100 and of 16
    assert block["categories"]["live_relevance"]["n"] == 10
    assert block["scores"]["relevance"]["partial"] is True and block["scores"]["live"]["value"] is None
    assert block["scores"]["non_live"]["value"] == pytest.approx(block["categories"]["simple_java"]["accuracy"])
    out = result.stdout.str()
    assert "toolcall: bfcl (oracle)" in out and "not all items: simple_java, live_relevance" in out
    assert "OVERALL (BFCL V3's parts) renormalised over non_live (official weights 10 of 100)" in out  # not relevance
    assert "not run: simple_python" in out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("thresholds", "exit_code", "message"),
    [
        ("bfcl.simple_java=0.97,bfcl.live_relevance=1", 0, "toolcall gate passed"),
        # Strict gating (the default) checks the official value too, where what did not run counts 0.
        ("bfcl.non_live=0.9", 1, "bfcl.non_live = 0.0808 < 0.9 (official value"),
        ("bfcl.overall=0.9", 1, "bfcl.overall = 0.0081 < 0.9 (official value"),
        ("bfcl.simple_java=0.98", 1, "bfcl.simple_java = 0.9700 < 0.98"),
        ("bfcl.multi_turn=0.1", 1, "bfcl.multi_turn was not measured"),  # not selected here
        ("bfcl.live=0.5", 1, "bfcl.live was not measured"),
    ],
)
def test_gate_names(pytester: pytest.Pytester, thresholds: str, exit_code: int, message: str) -> None:
    args = [*ORACLE, "--toolcall-bfcl-categories=simple_java,live_relevance", f"--toolcall-fail-under={thresholds}"]
    result = pytester.runpytest(*args)
    assert result.ret == exit_code
    assert message in result.stdout.str()


def test_gate_name_ownership() -> None:
    assert BFCL.claims_metric("bfcl.overall") and BFCL.claims_metric("bfcl.live_multiple")
    for name in ("bfcl.overall_v4", "bfcl.memory", "bfcl.memory_kv", "bfcl.format_robustness"):
        assert BFCL.claims_metric(name)
    assert not BFCL.claims_metric("overall") and not BFCL.claims_metric("general_fc.tool_call_f1")
    with pytest.raises(ValueError, match=r"unknown metric 'bfcl\.simple'"):
        BFCL.claims_metric("bfcl.simple")
    # Every benchmark agrees on who owns what (ACEBench owns the unprefixed names).
    (threshold,) = gate.parse_thresholds("bfcl.irrelevance=0.5")
    assert threshold.benchmark is BFCL
    (threshold,) = gate.parse_thresholds("multi_turn=0.5")
    assert threshold.benchmark is not BFCL
    # bfcl.irrelevance is the category (the summary score of that name also counts live_irrelevance).
    records = [
        {"category": "irrelevance", "score": 1.0, "outcome": "passed"},
        {"category": "live_irrelevance", "score": 0.0, "outcome": "failed"},
    ]
    metrics = {"bfcl": bfcl_metrics(records, {}, "fc")}
    assert BFCL.gate_values("bfcl.irrelevance", metrics) == [("bfcl.irrelevance", 1.0)]
    assert metrics["bfcl"]["scores"]["irrelevance"]["value"] == 0.5
    # ... and the summary score is bfcl.group.irrelevance, in the gate as in the comparison.
    assert BFCL.gate_values("bfcl.group.irrelevance", metrics) == [("bfcl.group.irrelevance", 0.5)]
    assert BFCL.gate_values("bfcl.overall", {}) == [("bfcl.overall", None)]


def test_errors_are_counted_apart_and_make_the_scores_partial() -> None:
    records = [
        {"category": "multiple", "score": 1.0, "outcome": "passed", "ceiling": 1.0},
        {"category": "multiple", "score": 0.0, "outcome": "failed", "ceiling": 1.0},
        {"category": "multiple", "score": None, "outcome": "error"},
        {"category": "multiple", "score": None, "outcome": "skipped"},
    ]
    block = bfcl_metrics(records, {"multiple": 3}, "prompting")
    assert block["categories"]["multiple"] | {"ci95": None} == {
        "n": 3,
        "passed": 1,
        "failed": 1,
        "errors": 1,
        "accuracy": pytest.approx(1 / 3),
        "ci95": None,
        "ceiling": 1.0,
    }
    assert block["errors"] == 1 and block["short_categories"] == []
    assert block["scores"]["non_live"]["partial"] is True  # an errored member
    lines = render(bfcl_table(block))
    assert "1 item(s) errored" in lines[-1]
    # Every column of the score table is labelled; the last one says which scores are partial.
    (header,) = [line for line in lines if line.startswith("score ")]
    assert header.split() == ["score", "value", "official", "coverage"]
    (non_live,) = [line for line in lines if line.startswith("NON_LIVE ")]
    assert non_live.split()[-1] == "partial"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--toolcall-bfcl-mode=xml", "--toolcall-bfcl-mode: unknown value xml"),
        ("--toolcall-bfcl-mode=fc,prompting", "--toolcall-bfcl-mode: one mode"),
        ("--toolcall-bfcl-categories=simple", "--toolcall-bfcl-categories: unknown value simple"),
        ("--toolcall-bfcl-categories=web_search", "--toolcall-bfcl-categories: unknown value web_search"),
        ("--toolcall-fail-under=bfcl.web_search=0.5", "unknown metric 'bfcl.web_search'"),
        ("--toolcall-bfcl-categories=format_sensitivity", "format_sensitivity runs in prompting mode only"),
        ("--toolcall-bfcl-empty-tool-calls=maybe", "--toolcall-bfcl-empty-tool-calls: unknown value maybe"),
        ("--toolcall-bfcl-categories=memory_vector", "memory_vector is not measured: it needs the weights"),
        ("--toolcall-bfcl-categories=web_search_base", "web_search_base is not measured: it needs a live web-search"),
    ],
)
@pytest.mark.slow
def test_usage_errors(pytester: pytest.Pytester, option: str, message: str) -> None:
    result = pytester.runpytest(*ORACLE, option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
