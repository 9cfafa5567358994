"""BFCL's block gets every guarantee of the protocol: a regression against a baseline is found, named
and gated (in a run and offline), and strict gating checks BFCL's official value (a threshold that the
renormalised value meets fails on the official one, where what did not run counts as 0).

The baseline is the built-in oracle; the regressed run asks the tests' chat server, which answers
every request in words (no call): every unit that passed fails."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall import cli
from pytest_toolcall.benchmarks.bfcl.metrics import ALL_CATEGORIES, CategoryScore, score_weights, summary_scores
from pytest_toolcall.testing.server import ChatServer, Reply

SELECTION = ["--toolcall-bench=bfcl", "--toolcall-bfcl-categories=simple_python,multiple", "--toolcall-limit=10"]
COMMON = ["--toolcall-cache=off", "-p", "no:randomly", "-p", "no:cacheprovider", *SELECTION]


@pytest.fixture
def refusing(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    monkeypatch.setenv("TOOLCALL_TEST_KEY", "sk-test-key")
    server = ChatServer(lambda body: Reply(content="I cannot help with that.")).start()
    yield server
    server.stop()


def mcnemar_by_hand(b: int, c: int) -> float:
    m = b + c
    return min(1.0, 2 * sum(math.comb(m, i) for i in range(min(b, c) + 1)) / 2**m)


def report(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


@pytest.mark.slow
def test_a_bfcl_regression_is_found_named_and_gated(
    pytester: pytest.Pytester, refusing: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.runpytest("--toolcall-model=oracle", *COMMON, "--toolcall-report=base.json")
    passed = {s["nodeid"] for s in report(pytester, "base.json")["samples"] if s["outcome"] in ("passed", "xpassed")}
    result = pytester.runpytest(
        "--toolcall-model=refuser",
        f"--toolcall-base-url={refusing.base_url}",
        "--toolcall-api-key-env=TOOLCALL_TEST_KEY",
        "--toolcall-max-retries=0",
        *COMMON,
        "--toolcall-baseline=base.json",
        "--toolcall-fail-on-regression",
        "--toolcall-fail-under=bfcl.multiple=0",  # named: its regression is gated too
        "--toolcall-report=now.json",
    )
    now = report(pytester, "now.json")
    assert all(s["outcome"] == "failed" for s in now["samples"])
    comparison = now["comparison"]
    overall = comparison["metrics"]["bfcl.overall"]
    assert overall["gated"] and (overall["regressed"], overall["fixed"]) == (len(passed), 0)
    assert overall["now"] == 0.0
    assert set(comparison["regressed"]) == passed
    simple = comparison["metrics"]["bfcl.simple_python"]
    regressed_simple = sum(1 for nodeid in passed if "[simple_python/" in nodeid)
    assert simple["p_value"] == pytest.approx(mcnemar_by_hand(regressed_simple, 0))
    assert not simple["gated"]
    # The summary scores are compared weighted as the official ones: over the units both runs share
    # (all of them here) their baseline values are the baseline block's own.
    base_block = report(pytester, "base.json")["metrics"]["bfcl"]
    assert comparison["metrics"]["bfcl.non_live"]["baseline"] == pytest.approx(base_block["groups"]["non_live"])
    assert overall["baseline"] == pytest.approx(base_block["overall"])
    out = result.stdout.str()
    assert result.ret == 1
    assert "bfcl.overall regressed:" in out and f"{len(passed)} unit(s) pass->fail, 0 fail->pass" in out
    assert "bfcl.multiple regressed:" in out and "bfcl.simple_python regressed" not in out

    capsys.readouterr()
    offline = ["gate", str(pytester.path / "now.json"), "--baseline", str(pytester.path / "base.json")]
    assert cli.main([*offline, "--fail-on-regression"]) == 1
    assert "bfcl.overall regressed:" in capsys.readouterr().out


@pytest.mark.slow
def test_strict_gating_checks_the_official_value(pytester: pytest.Pytester) -> None:
    oracle = ["--toolcall-model=oracle", *COMMON, "--toolcall-report=r.json"]
    measured = pytester.runpytest(*oracle, "--toolcall-fail-under=bfcl.overall=0.1", "--toolcall-gate-value=measured")
    assert measured.ret == 0, measured.stdout.str()
    strict = pytester.runpytest(*oracle, "--toolcall-fail-under=bfcl.overall=0.1")
    block = report(pytester, "r.json")["metrics"]["bfcl"]
    simple, multiple = (block["categories"][c]["accuracy"] for c in ("simple_python", "multiple"))
    # Officially: non-live = mean(simple group, multiple, parallel, parallel_multiple) with the simple
    # group the mean of its three languages, what did not run 0; overall = 10 % of non-live.
    official = 0.10 * ((simple / 3) + multiple) / 4
    assert block["overall"] > 0.1 > official
    assert block["overall_official"] == pytest.approx(official)
    assert strict.ret == 1
    assert f"bfcl.overall = {official:.4f} < 0.1 (official value" in strict.stdout.str()


@pytest.mark.parametrize("seed", range(20))
def test_score_weights_give_the_summary_scores(seed: int) -> None:
    """The comparison's weights reproduce ``summary_scores`` (the official formulas) on any subset of
    categories with any counts."""
    rng = random.Random(seed)
    chosen = rng.sample(ALL_CATEGORIES, rng.randint(1, len(ALL_CATEGORIES)))
    scores = {c: CategoryScore(rng.randint(0, 9), 9 + rng.randint(0, 20)) for c in chosen}
    expected = summary_scores(scores, sizes={})
    weights = score_weights({c: s.total for c, s in scores.items()})
    for name, categories in weights.items():
        assert sum(w * scores[c].accuracy for c, w in categories.items()) == pytest.approx(expected[name].value)
    assert {n for n, s in expected.items() if s.value is not None} - {"simple"} == set(weights)
