"""Summary scores computed by hand from the official definitions (weights, weighted vs unweighted)."""

from __future__ import annotations

import pytest

from pytest_toolcall.benchmarks.bfcl.metrics import CategoryScore, category_scores, metrics_block, summary_scores

FULL = {
    "simple_python": CategoryScore(300, 400),
    "simple_java": CategoryScore(50, 100),
    "simple_javascript": CategoryScore(25, 50),
    "multiple": CategoryScore(150, 200),
    "parallel": CategoryScore(100, 200),
    "parallel_multiple": CategoryScore(200, 200),
    "irrelevance": CategoryScore(240, 240),
    "live_simple": CategoryScore(129, 258),
    "live_multiple": CategoryScore(1053, 1053),
    "live_parallel": CategoryScore(8, 16),
    "live_parallel_multiple": CategoryScore(12, 24),
    "live_irrelevance": CategoryScore(442, 884),
    "live_relevance": CategoryScore(12, 16),
}
MULTI = {
    "multi_turn_base": CategoryScore(100, 200),
    "multi_turn_miss_func": CategoryScore(50, 200),
    "multi_turn_miss_param": CategoryScore(0, 200),
    "multi_turn_long_context": CategoryScore(150, 200),
}


def test_counting_outcomes() -> None:
    scores = category_scores([("a", True), ("a", False), ("b", True), ("a", True)])
    assert scores == {"a": CategoryScore(2, 3), "b": CategoryScore(1, 1)}
    assert scores["a"].accuracy == pytest.approx(2 / 3)
    assert CategoryScore(0, 0).accuracy == 0.0


def test_full_run() -> None:
    got = summary_scores(FULL, MULTI)
    simple = (0.75 + 0.5 + 0.5) / 3
    non_live = (simple + 0.75 + 0.5 + 1.0) / 4  # unweighted over the four groups
    live = (129 + 1053 + 8 + 12) / (258 + 1053 + 16 + 24)  # weighted by sample counts
    irrelevance = (1.0 + 0.5) / 2
    multi = (0.5 + 0.25 + 0.0 + 0.75) / 4
    assert got["simple"].value == pytest.approx(simple)
    assert got["non_live"].value == pytest.approx(non_live) == pytest.approx(got["non_live"].official)
    assert got["live"].value == pytest.approx(live)
    assert got["irrelevance"].value == pytest.approx(irrelevance)
    assert got["relevance"].value == pytest.approx(0.75)
    assert got["multi_turn"].value == pytest.approx(multi)
    assert got["agentic"].value is None and got["agentic"].official == 0.0
    official = (10 * non_live + 10 * live + 10 * irrelevance + 30 * multi + 40 * 0.0) / 100
    assert got["overall"].official == pytest.approx(official)
    assert got["overall"].value == pytest.approx((10 * non_live + 10 * live + 10 * irrelevance + 30 * multi) / 60)
    assert not any(got[name].partial for name in ("non_live", "live", "irrelevance", "multi_turn"))
    assert got["overall"].partial  # the agentic categories are never run here


def test_subset_is_renormalised_and_marked_partial() -> None:
    got = summary_scores({"simple_python": CategoryScore(200, 400), "live_simple": CategoryScore(258, 258)})
    assert got["simple"].value == pytest.approx(0.5)
    assert got["simple"].official == pytest.approx(0.5 / 3)
    assert got["non_live"].value == pytest.approx(0.5)
    assert got["non_live"].official == pytest.approx(0.5 / 3 / 4)
    assert got["live"].value == pytest.approx(1.0)
    assert got["live"].official == pytest.approx(258 / (258 + 1053 + 16 + 24))  # missing ones weigh their size
    assert got["irrelevance"].value is None and got["irrelevance"].official == 0.0
    assert got["overall"].value == pytest.approx((10 * 0.5 + 10 * 1.0) / 20)
    assert got["overall"].official == pytest.approx((10 * 0.5 / 12 + 10 * 258 / 1351) / 100)
    assert all(got[name].partial for name in ("simple", "non_live", "live", "irrelevance", "overall"))


def test_live_sizes_can_be_given() -> None:
    got = summary_scores({"live_simple": CategoryScore(5, 10)}, sizes={"live_multiple": 30})
    assert got["live"].official == pytest.approx(5 / 40)
    assert got["live"].value == pytest.approx(0.5)


def test_metrics_block_is_plain_data() -> None:
    block = metrics_block({"multiple": CategoryScore(1, 2)}, ceilings={"multiple": (3, 4)})
    assert block["categories"] == {"multiple": {"passed": 1, "total": 2, "accuracy": 0.5, "ceiling": 0.75}}
    assert block["scores"]["non_live"] == {"value": 0.5, "official": 0.125, "partial": True}
    assert block["scores"]["overall"]["partial"] is True
