"""Issue 14 end to end: repeats, intervals, the baseline, the gate's truth, usage and CI output, on runs
through the real ``openai`` client against the tests' local chat server with answers scripted per unit.

Every expected number is computed here from first principles (the scripted answers, the formulas of
Wilson, McNemar and τ-bench), never by the code under test.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import WEATHER

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

GOOD = Reply(tool_calls=[{"name": "get_weather", "arguments": '{"city": "Paris"}'}])
BAD = Reply(content="no")


class Script:
    """Answers per unit: the n-th request with a unit's text gets ``plan[text][n]`` (True: a valid call,
    which passes; False: no call, which fails). Attempts of a unit send the same request, so the n-th
    request is one of its attempts; which one does not matter to any statistic of the run."""

    def __init__(self, plan: dict[str, list[bool]]) -> None:
        self.plan = plan
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = body["messages"][-1]["content"]
        with self.lock:
            n = self.seen.get(text, 0)
            self.seen[text] = n + 1
        answers = self.plan[text]
        if answers[n % len(answers)] is None:
            return Reply(status=500, content="scripted failure")
        return GOOD if answers[n % len(answers)] else BAD


def write_lines(path: Path, texts: list[str], label: bool = True) -> Path:
    rows = [
        {"messages": [{"role": "user", "content": t}], "tools": [WEATHER], "should_call_tool": label} for t in texts
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("TOOLCALL_TEST_KEY", "sk-test-key")
    servers: list[ChatServer] = []

    def start(plan: dict[str, list[bool]]) -> ChatServer:
        server = ChatServer(Script(plan)).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def base_args(server: ChatServer, path: Path, *extra: str) -> list[str]:
    return [
        "--toolcall-model=scripted",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-api-key-env=TOOLCALL_TEST_KEY",
        "--toolcall-bench=general_fc",
        f"--toolcall-general-fc={path}",
        "--toolcall-max-retries=0",
        "--toolcall-cache=off",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        *extra,
    ]


def report_of(pytester: pytest.Pytester, name: str = "report.json") -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


# --- independent formulas -------------------------------------------------------------------------


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_by_hand(b: int, c: int) -> float:
    """Two-sided exact: twice the smaller binomial tail of Binomial(b + c, 1/2), at most 1."""
    m = b + c
    tail = sum(math.comb(m, i) * 0.5**m for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail)


# --- repeats --------------------------------------------------------------------------------------

#: Passes per unit out of 3 attempts.
PASSES = [3, 3, 2, 1, 0, 0, 3, 2]
TEXTS = [f"weather question {i}" for i in range(len(PASSES))]


def repeat_plan() -> dict[str, list[bool]]:
    return {t: [n < c for n in range(3)] for t, c in zip(TEXTS, PASSES, strict=True)}


@pytest.mark.parametrize("dist", [[], ["-n", "0"], ["-n", "2"]], ids=["no-xdist", "n0", "n2"])
def test_repeats_pass_hat_k_and_flaky_units(pytester: pytest.Pytester, serve: Any, dist: list[str]) -> None:
    server = serve(repeat_plan())
    path = write_lines(pytester.path / "lines.jsonl", TEXTS)
    result = pytester.runpytest(*base_args(server, path, "--toolcall-repeat=3", "--toolcall-report=report.json"), *dist)
    passed = sum(PASSES)
    result.assert_outcomes(passed=passed, failed=3 * len(PASSES) - passed)
    report = report_of(pytester)
    nodeids = sorted(s["nodeid"] for s in report["samples"])
    assert nodeids == sorted(f"toolcall::general_fc[lines/{i}@{k}]" for i in range(len(PASSES)) for k in (1, 2, 3))
    assert sorted(s["repeat"] for s in report["samples"]) == sorted([1, 2, 3] * len(PASSES))
    assert report["run"]["repeat"] == 3
    block = report["metrics"]["general_fc"]
    assert block["accuracy"] == pytest.approx(14 / 24)
    # pass^k: mean over units of C(c, k) / C(3, k), written out for c = 3, 3, 2, 1, 0, 0, 3, 2.
    expected = {
        "1": (1 + 1 + 2 / 3 + 1 / 3 + 0 + 0 + 1 + 2 / 3) / 8,
        "2": (1 + 1 + 1 / 3 + 0 + 0 + 0 + 1 + 1 / 3) / 8,
        "3": (1 + 1 + 0 + 0 + 0 + 0 + 1 + 0) / 8,
    }
    assert block["pass_hat_k"] == pytest.approx(expected)
    assert sorted(block["flaky"]) == sorted(f"toolcall::general_fc[lines/{i}]" for i in (2, 3, 7))
    assert (block["TP"], block["FN"], block["FP"]) == (14, 10, 0)
    assert block["tool_call_f1"] == pytest.approx(2 * 14 / (2 * 14 + 10))
    assert "repeats: flaky lines" in result.stdout.str()
    # Identical whatever the distribution: the first parametrization fixes the numbers.
    EXPECTED_BLOCKS.setdefault("repeat", block)
    assert block == EXPECTED_BLOCKS["repeat"]


EXPECTED_BLOCKS: dict[str, Any] = {}


def test_wilson_interval_of_a_single_run(pytester: pytest.Pytester, serve: Any) -> None:
    outcomes = [True, True, False, True, False, True, True, False, True, True]
    texts = [f"q{i}" for i in range(len(outcomes))]
    server = serve({t: [o] for t, o in zip(texts, outcomes, strict=True)})
    path = write_lines(pytester.path / "lines.jsonl", texts)
    pytester.runpytest(*base_args(server, path, "--toolcall-report=report.json"))
    block = report_of(pytester)["metrics"]["general_fc"]
    assert block["accuracy_ci95"] == pytest.approx(list(wilson_by_hand(7, 10)))
    # Schema accuracy: 7 valid calls out of 7 attempts.
    assert block["schema_accuracy_ci95"] == pytest.approx(list(wilson_by_hand(7, 7)))
    lo, hi = block["tool_call_f1_ci95"]
    assert lo <= block["tool_call_f1"] <= hi


# --- the store key (issue 11, 4a) -----------------------------------------------------------------


def test_identical_requests_of_two_units_get_answers_of_their_own(pytester: pytest.Pytester, serve: Any) -> None:
    server = serve({"same question": [True, False]})
    path = write_lines(pytester.path / "lines.jsonl", ["same question", "same question"])
    args = [a for a in base_args(server, path, "--toolcall-report=report.json") if a != "--toolcall-cache=off"]
    args.append(f"--toolcall-cache={pytester.path / 'store'}")
    first = pytester.runpytest(*args, "--toolcall-concurrency=1")
    first.assert_outcomes(passed=1, failed=1)
    sent = server.count
    again = pytester.runpytest(*args, "--toolcall-cache-mode=reuse")
    again.assert_outcomes(passed=1, failed=1)  # one stored answer per unit: not one shared answer
    assert server.count == sent == 2
    samples = report_of(pytester)["samples"]
    assert all(s["from_store"] for s in samples)
    assert report_of(pytester)["usage"]["from_store"] == 2


# --- usage and cost -------------------------------------------------------------------------------


def test_usage_tokens_and_cost_equal_what_the_server_reported(pytester: pytest.Pytester, serve: Any) -> None:
    texts = ["a fairly long weather question about Paris", "short", "what is the weather like in Oslo today?"]
    plan = {texts[0]: [True], texts[1]: [False], texts[2]: [True]}
    server = serve(plan)
    path = write_lines(pytester.path / "lines.jsonl", texts)
    result = pytester.runpytest(*base_args(server, path, "--toolcall-report=report.json", "--toolcall-price=2.5,10"))
    # The server's own rule: prompt = len(message text) // 4, completion = len(content or name + arguments) // 4,
    # each at least 1.
    prompt = sum(max(1, len(t) // 4) for t in texts)
    completion = sum(
        max(1, len("get_weather" + '{"city": "Paris"}') // 4) if plan[t][0] else max(1, len("no") // 4) for t in texts
    )
    usage = report_of(pytester)["usage"]
    assert (usage["requests"], usage["fresh"], usage["from_store"]) == (3, 3, 0)
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (prompt, completion)
    assert usage["cost_usd"] == pytest.approx((prompt * 2.5 + completion * 10) / 1e6)
    assert usage["latency_p50_s"] is not None and usage["retries"] == 0
    samples = {s["id"]: s for s in report_of(pytester)["samples"]}
    assert samples["1"]["usage"]["prompt_tokens"] == max(1, len("short") // 4)
    assert samples["1"]["from_store"] is False and samples["1"]["latency_s"] is not None
    out = result.stdout.str()
    assert "toolcall: usage" in out and f"{prompt:,} prompt + {completion:,} completion" in out
    assert "estimated cost" in out


def test_budget_stops_sending_and_the_gate_says_the_run_is_partial(pytester: pytest.Pytester, serve: Any) -> None:
    texts = [f"budget question {i}" for i in range(12)]
    server = serve({t: [True] for t in texts})
    path = write_lines(pytester.path / "lines.jsonl", texts)
    # Each answer costs (4 prompt + 7 completion tokens) at 1,000,000 USD per million: 11 USD; the budget
    # passes after the first.
    result = pytester.runpytest(
        *base_args(
            server,
            path,
            "--toolcall-price=1000000,1000000",
            "--toolcall-budget=5",
            "--toolcall-concurrency=1",
            "--toolcall-fail-under=general_fc.tool_call_f1=0.5",
            "--toolcall-report=report.json",
            "-rs",
        )
    )
    samples = report_of(pytester)["samples"]
    skipped = [s for s in samples if s["outcome"] == "skipped"]
    assert skipped and all(s["not_run"] == "budget" for s in skipped)
    assert server.count == len(samples) - len(skipped) < len(texts)
    assert "--toolcall-budget=5" in result.stdout.str()
    assert result.ret == 1
    assert f"{len(skipped)} of 12 selected item(s) were not asked: --toolcall-budget was spent" in result.stdout.str()
    assert report_of(pytester)["run"]["not_asked"] == len(skipped)


# --- the gate tells the truth ---------------------------------------------------------------------


@pytest.mark.parametrize("stop", ["-x", "--maxfail=1"])
def test_stopping_early_fails_the_gate(pytester: pytest.Pytester, serve: Any, stop: str) -> None:
    texts = [f"q{i}" for i in range(6)]
    server = serve({t: [i != 1] for i, t in enumerate(texts)})
    path = write_lines(pytester.path / "lines.jsonl", texts)
    result = pytester.runpytest(
        *base_args(server, path, stop, "--toolcall-fail-under=general_fc.tool_call_f1=0.1", "--toolcall-concurrency=1")
    )
    assert result.ret == 1
    assert "4 of 6 selected item(s) did not run" in result.stdout.str()
    assert "toolcall gate passed" not in result.stdout.str()


def test_a_failing_ordinary_test_fails_a_passing_gate(pytester: pytest.Pytester, serve: Any) -> None:
    server = serve({"q": [True]})
    path = write_lines(pytester.path / "lines.jsonl", ["q"])
    pytester.makepyfile(test_mine="def test_mine():\n    assert 1 == 2\n")
    result = pytester.runpytest(
        "test_mine.py", *base_args(server, path, "--toolcall-fail-under=general_fc.tool_call_f1=0.5")
    )
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1
    assert "1 test(s) besides the benchmark items failed or errored" in result.stdout.str()


def test_failed_requests_count_against_the_model_unless_told_otherwise(pytester: pytest.Pytester, serve: Any) -> None:
    texts = [f"q{i}" for i in range(4)]
    plan: dict[str, list[Any]] = {t: [True] for t in texts}
    plan[texts[3]] = [None]  # HTTP 500: a request error
    server = serve(plan)
    path = write_lines(pytester.path / "lines.jsonl", texts)
    gate = ["--toolcall-fail-under=general_fc.tool_call_f1=0.9", "--toolcall-max-errors=1", "--toolcall-report=r.json"]
    strict = pytester.runpytest(*base_args(server, path, *gate))
    # Answered: TP 3, F1 1.0. K2-Vendor-Verifier: the failed request is no call, FN 1: F1 = 6 / 7.
    block = report_of(pytester, "r.json")["metrics"]["general_fc"]
    assert block["tool_call_f1"] == 1.0
    assert block["tool_call_f1_official"] == pytest.approx(6 / 7)
    assert strict.ret == 1
    assert "general_fc.tool_call_f1 = 0.8571 < 0.9 (official value" in strict.stdout.str()
    measured = pytester.runpytest(*base_args(server, path, *gate, "--toolcall-gate-value=measured"))
    assert measured.ret == 0, measured.stdout.str()


def test_gate_on_the_lower_bound(pytester: pytest.Pytester, serve: Any) -> None:
    texts = [f"q{i}" for i in range(10)]
    server = serve({t: [i < 8] for i, t in enumerate(texts)})
    path = write_lines(pytester.path / "lines.jsonl", texts)
    point = pytester.runpytest(*base_args(server, path, "--toolcall-fail-under=general_fc.tool_call_f1=0.85"))
    assert point.ret == 0  # F1 = 16 / 18 = 0.889
    lower = pytester.runpytest(
        *base_args(server, path, "--toolcall-fail-under=general_fc.tool_call_f1=0.85", "--toolcall-gate-on=lower")
    )
    assert lower.ret == 1
    assert "(lower 95% bound)" in lower.stdout.str()


# --- baseline -------------------------------------------------------------------------------------


def test_baseline_mcnemar_and_changed_units(pytester: pytest.Pytester, serve: Any) -> None:
    before = [True] * 16 + [False] * 3 + [True, False]
    after = [True] * 4 + [False] * 12 + [False] * 3 + [False, True]  # 13 pass->fail, 1 fail->pass
    texts = [f"q{i:02d}" for i in range(len(before))]
    path = write_lines(pytester.path / "lines.jsonl", texts)
    first = serve({t: [b] for t, b in zip(texts, before, strict=True)})
    pytester.runpytest(*base_args(first, path, "--toolcall-report=base.json"))
    second = serve({t: [a] for t, a in zip(texts, after, strict=True)})
    result = pytester.runpytest(
        *base_args(
            second, path, "--toolcall-baseline=base.json", "--toolcall-fail-on-regression", "--toolcall-report=now.json"
        )
    )
    comparison = report_of(pytester, "now.json")["comparison"]
    accuracy = comparison["metrics"]["general_fc.accuracy"]
    b = sum(1 for x, y in zip(before, after, strict=True) if x and not y)
    c = sum(1 for x, y in zip(before, after, strict=True) if y and not x)
    assert (b, c) == (13, 1)
    assert (accuracy["regressed"], accuracy["fixed"]) == (b, c)
    assert accuracy["p_value"] == pytest.approx(mcnemar_by_hand(b, c))
    assert accuracy["diff"] == pytest.approx((sum(after) - sum(before)) / len(texts))
    regressed = [
        f"toolcall::general_fc[lines/{i}]" for i, (x, y) in enumerate(zip(before, after, strict=True)) if x and not y
    ]
    assert sorted(comparison["regressed"]) == sorted(regressed)
    assert comparison["fixed"] == ["toolcall::general_fc[lines/20]"]
    assert comparison["baseline"]["path"].endswith("base.json")
    f1 = comparison["metrics"]["general_fc.tool_call_f1"]
    assert f1["gated"] and f1["diff"] < 0 and f1["p_value"] < 0.05
    assert result.ret == 1
    out = result.stdout.str()
    assert "general_fc.tool_call_f1 regressed" in out
    assert "regressed (pass->fail): 13:" in out and "... and 3 more" in out


def test_a_baseline_of_other_data_is_said_to_be_so(pytester: pytest.Pytester, serve: Any) -> None:
    server = serve({"q": [True], "r": [True]})
    pytester.runpytest(*base_args(server, write_lines(pytester.path / "a.jsonl", ["q"]), "--toolcall-report=base.json"))
    result = pytester.runpytest(
        *base_args(server, write_lines(pytester.path / "b.jsonl", ["r"]), "--toolcall-baseline=base.json")
    )
    assert "general_fc: the baseline ran other data" in result.stdout.str()


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read it"), ("{", "not valid JSON"), ('{"schema": "x"}', "not a pytest-toolcall report")],
)
def test_a_bad_baseline_is_refused_at_start_up(
    pytester: pytest.Pytester, serve: Any, content: str | None, message: str
) -> None:
    server = serve({"q": [True]})
    if content is not None:
        (pytester.path / "base.json").write_text(content, encoding="utf-8")
    result = pytester.runpytest(
        *base_args(server, write_lines(pytester.path / "a.jsonl", ["q"]), "--toolcall-baseline=base.json")
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--toolcall-baseline:" in result.stderr.str() and "base.json" in result.stderr.str()
    assert message in result.stderr.str()
    assert server.count == 0


# --- CI output ------------------------------------------------------------------------------------


def test_github_step_summary_and_error_lines(
    pytester: pytest.Pytester, serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    server = serve({"q": [False]})
    path = write_lines(pytester.path / "lines.jsonl", ["q"])
    result = pytester.runpytest(*base_args(server, path, "--toolcall-fail-under=general_fc.tool_call_f1=0.5"))
    assert result.ret == 1
    text = summary.read_text(encoding="utf-8")
    assert "## pytest-toolcall: scripted" in text and "### general_fc" in text and "### Gate: FAILED" in text
    assert "general_fc.tool_call_f1 = 0.0000 < 0.5" in text
    assert "::error title=toolcall gate::general_fc.tool_call_f1 = 0.0000 < 0.5" in result.stdout.str()


# --- --lf per model -------------------------------------------------------------------------------


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])  # (xdist's workers collect)
def test_last_failed_is_kept_per_model(pytester: pytest.Pytester, serve: Any, dist: list[str]) -> None:
    texts = [f"q{i}" for i in range(5)]
    server = serve({t: [i < 3] for i, t in enumerate(texts)})
    path = write_lines(pytester.path / "lines.jsonl", texts)
    args = base_args(server, path)
    del args[-2:]  # pytest's cache on: --lf needs it
    assert args[-2:] == ["-p", "no:randomly"]
    args += dist
    scripted = pytester.runpytest(*args)
    scripted.assert_outcomes(passed=3, failed=2)
    oracle = [a.replace("--toolcall-model=scripted", "--toolcall-model=oracle") for a in args]
    pytester.runpytest(*oracle).assert_outcomes(passed=5)
    # The scripted model's two failures, not the oracle's none.
    pytester.runpytest(*args, "--lf").assert_outcomes(failed=2)
    # The oracle has no failure of its own: --lf runs everything.
    pytester.runpytest(*oracle, "--lf").assert_outcomes(passed=5)


# --- ACEBench: intervals, repeats and the official value of a partial block --------------------------


def test_acebench_intervals_and_repeats_with_the_oracle(pytester: pytest.Pytester, acebench_root: Path) -> None:
    args = ["--toolcall-model=oracle", "-p", "no:randomly", "--toolcall-report=report.json", "-m", "not agent"]
    result = pytester.runpytest(*args, "-k", "user_switch or special_incomplete", "--toolcall-repeat=2")
    block = report_of(pytester)["metrics"]["acebench/en"]
    switch = block["categories"]["normal_multi_turn_user_switch"]
    # The oracle's ceiling on user_switch is 37 of 50 dialogues, each attempt alike.
    assert (switch["n"], switch["passed"], switch["units"]) == (100, 74, 50)
    assert switch["pass_hat_k"] == pytest.approx({"1": 0.74, "2": 0.74})
    assert switch["flaky"] == 0 and block["flaky"] == []
    assert block["pass_hat_k"]["2"] == pytest.approx((37 + 50) / 100)
    lo, hi = switch["ci95"]
    assert lo < 0.74 < hi
    assert "95% CI" in result.stdout.str() and "0 flaky unit(s)" in result.stdout.str()
    assert "toolcall::acebench[en/special_incomplete_1@2]" in {s["nodeid"] for s in report_of(pytester)["samples"]}

    pytester.runpytest(*args, "-k", "user_switch")
    once = report_of(pytester)["metrics"]["acebench/en"]
    assert once["categories"]["normal_multi_turn_user_switch"]["ci95"] == pytest.approx(list(wilson_by_hand(37, 50)))
    assert "pass_hat_k" not in once
    lo, hi = once["overall_ci95"]
    assert lo <= once["overall"] <= hi


def test_a_partial_block_is_gated_on_its_official_value(pytester: pytest.Pytester) -> None:
    args = ["--toolcall-model=oracle", "-p", "no:randomly", "-m", "not agent", "--toolcall-limit=2"]
    strict = pytester.runpytest(*args, "--toolcall-fail-under=overall=0.8")
    assert strict.ret == 1
    assert "(official value: missing units and failed requests count against the model)" in strict.stdout.str()
    measured = pytester.runpytest(*args, "--toolcall-fail-under=overall=0.8", "--toolcall-gate-value=measured")
    assert measured.ret == 0


# --- usage details and retries through the SDK child process -----------------------------------------


def test_cached_and_reasoning_tokens_and_retries_reach_the_report(pytester: pytest.Pytester, monkeypatch: Any) -> None:
    monkeypatch.setenv("TOOLCALL_TEST_KEY", "sk-test-key")
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 30,
        "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 100},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    reply = Reply(tool_calls=GOOD.tool_calls, usage=usage)
    texts = [f"q{i}" for i in range(20)]
    path = write_lines(pytester.path / "lines.jsonl", texts)
    from pytest_toolcall.testing.server import FaultPlan

    with ChatServer(lambda body: reply, faults=FaultPlan(0.3, ("500",), seed=4, retry_after=0.0)) as server:
        args = base_args(server, path, "--toolcall-report=report.json", "--toolcall-max-retries=12")
        result = pytester.runpytest(*args)
        faults = server.faults_injected.get("500", 0)
    result.assert_outcomes(passed=20)
    report = report_of(pytester)
    assert report["usage"]["prompt_tokens"] == 20 * 120 and report["usage"]["completion_tokens"] == 20 * 30
    assert report["usage"]["cached_tokens"] == 20 * 100 and report["usage"]["reasoning_tokens"] == 20 * 12
    # Every injected 500 was retried once, and counted on the answer that finally came.
    assert faults > 0 and report["usage"]["retries"] == faults
    sample = report["samples"][0]
    assert sample["usage"]["cached_tokens"] == 100 and sample["usage"]["requests"][0]["reasoning_tokens"] == 12
    assert "(of which 2,000 cached, 240 reasoning)" in result.stdout.str()


def test_a_benchmark_that_ran_nothing_either_time_is_no_difference(pytester: pytest.Pytester, serve: Any) -> None:
    # The users' cases benchmark is active in every run; with no case file it has no samples.
    server = serve({"q": [True]})
    path = write_lines(pytester.path / "a.jsonl", ["q"])
    pytester.runpytest(*base_args(server, path, "--toolcall-report=base.json"))
    result = pytester.runpytest(*base_args(server, path, "--toolcall-baseline=base.json", "--toolcall-report=now.json"))
    report = json.loads((pytester.path / "now.json").read_text(encoding="utf-8"))
    assert "cases" in report["run"]["datasets"]
    assert not any(s["benchmark"] == "cases" for s in report["samples"])
    assert report["comparison"]["notes"] == []
    assert "not alike" not in result.stdout.str()


def test_every_report_has_an_identity_and_a_baseline_at_another_temperature_names_it(
    pytester: pytest.Pytester, serve: Any
) -> None:
    server = serve({"q": [True], "r": [False]})
    path = write_lines(pytester.path / "a.jsonl", ["q", "r"])
    pytester.runpytest(*base_args(server, path, "--toolcall-report=base.json"))
    base = report_of(pytester, "base.json")
    identity = base["run"]["identity"]
    assert len(identity["hash"]) == 12 and int(identity["hash"], 16) >= 0
    # Every benchmark of the run (general_fc, and the cases of the users' files) sent the same: one set.
    sent = base["run"]["settings"]["sampling"]
    assert set(sent) == {"general_fc", "cases"} and sent["general_fc"] == sent["cases"]
    assert identity["sampling"] == {**sent["general_fc"], "extra_body": base["run"]["settings"]["extra_body"]}
    assert identity["datasets"] == base["run"]["datasets"]
    # The same settings again: the same identity, nothing said to differ.
    pytester.runpytest(*base_args(server, path, "--toolcall-report=same.json"))
    assert report_of(pytester, "same.json")["run"]["identity"] == identity
    result = pytester.runpytest(
        *base_args(
            server, path, "--toolcall-temperature=0", "--toolcall-baseline=base.json", "--toolcall-report=now.json"
        )
    )
    now = report_of(pytester, "now.json")
    assert now["run"]["identity"]["hash"] != identity["hash"]
    differing = now["comparison"]["identity"]["differing"]
    assert [d["field"] for d in differing] == ["sampling.temperature"]
    assert differing[0]["now"] == 0.0 and differing[0]["baseline"] != 0.0
    out = result.stdout.str()
    assert (
        f"not alike: run identity {identity['hash']} -> {now['run']['identity']['hash']}: sampling.temperature" in out
    )
    # Still compared (the change is shown, not refused).
    assert "general_fc.tool_call_f1" in now["comparison"]["metrics"]
