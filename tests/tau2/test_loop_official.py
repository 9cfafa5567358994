"""Airline and retail against the official loop (``tests/data/tau2/loop/``, ``learn_loop.py``): the
official ``Orchestrator`` of tau2 1.0.1 ran a sample of tasks with a scripted agent and user (the
reference, a wrong argument, a hallucinated tool, an argument of the wrong type, a transfer, the
user stopping early, ``max_steps`` reached) and saved them as ``tau2 run`` does. Re-grading each
saved simulation gives the official reward, breakdown and termination; this loop, given the same
replies, makes the same trajectory (every tool answer) and earns the same reward. The re-grading
without strict replay is ``test_official_rewards.py``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks
from pytest_toolcall.benchmarks.tau2.evaluation import evaluate
from pytest_toolcall.benchmarks.tau2.loop import run_simulation
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from tests.tau2.official import DATA, Replies, read_json, shape, stand_in_judge, unpack

LOOP = DATA / "loop"
DOMAINS = ("airline", "retail")
KINDS = ("gold", "wrong_args", "wrong_type", "hallucinated_tool", "transfer", "user_stop_early", "max_steps")


def learned(domain: str) -> dict[str, Any]:
    return read_json(LOOP / f"expected_loop-{domain}.json.gz")


def saved(domain: str, folder: Path) -> list[Any]:
    return load_results(unpack(LOOP / f"results_loop-{domain}.json.gz", folder))


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_learned_runs_are_of_the_shipped_tasks_and_cover_each_kind(tmp_path: Path, domain: str) -> None:
    expected = learned(domain)
    sims = saved(domain, tmp_path)
    shipped = {str(t["id"]): t for t in domain_tasks(domain, "base")}
    assert {s.simulation_id for s in sims} == set(expected)
    for sim in sims:
        assert sim.domain == domain and str(sim.task["id"]) in shipped, sim.simulation_id
        criteria = sim.task["evaluation_criteria"], shipped[str(sim.task["id"])]["evaluation_criteria"]
        actions = [[(a["name"], a["arguments"]) for a in c["actions"] or []] for c in criteria]
        assert actions[0] == actions[1] and criteria[0]["reward_basis"] == criteria[1]["reward_basis"]
    tasks = {row["task_id"] for row in expected.values()}
    assert len(tasks) >= 15
    by_kind: dict[str, Counter[float]] = {}
    for row in expected.values():
        by_kind.setdefault(row["kind"], Counter())[row["reward"]] += 1
    assert set(by_kind) == set(KINDS)
    assert by_kind["gold"] == Counter({1.0: len(tasks)})  # every reference passes officially
    assert by_kind["wrong_args"][0.0] > 0 and by_kind["transfer"][0.0] > 0 and by_kind["user_stop_early"][0.0] > 0
    reasons = Counter(row["termination_reason"] for row in expected.values())
    assert set(reasons) == {"user_stop", "max_steps"}
    # the tasks with fewer actions than max_steps allows end by the user's stop
    cut = [row for row in expected.values() if row["termination_reason"] == "max_steps"]
    assert {row["kind"] for row in cut} == {"max_steps"} and {row["reward"] for row in cut} == {0.0}


@pytest.mark.parametrize("domain", DOMAINS)
def test_regrading_each_run_is_the_official_verdict(tmp_path: Path, domain: str) -> None:
    """As ``tau2 run`` grades: strict replay, the judge the learning stand-in."""
    expected = learned(domain)
    wrong = []
    for sim in saved(domain, tmp_path):
        official = expected[sim.simulation_id]
        reward = evaluate(domain, sim.task, sim.messages, sim.termination_reason, stand_in_judge, strict_replay=True)
        got = (reward.reward, reward.breakdown, reward.checks.get("db_match"), sim.termination_reason)
        want = (official["reward"], official["breakdown"], official["db_match"], official["termination_reason"])
        if got != want:
            wrong.append((sim.simulation_id, got, want))
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_loop_is_the_official_one(tmp_path: Path, domain: str) -> None:
    """Given the replies of each official run, this loop sends the same calls, gets the same answers
    from the agent's tools, ends the same way after as many messages and earns the same reward."""
    expected = learned(domain)
    for sim in saved(domain, tmp_path):
        official = expected[sim.simulation_id]
        agent, user = Replies(sim.messages, "assistant"), Replies(sim.messages, "user")
        ours = run_simulation(domain, sim.task, agent, user, max_steps=official["max_steps"])
        assert shape(ours.messages) == shape(sim.messages), sim.simulation_id
        assert (ours.termination_reason, len(ours.messages)) == (official["termination_reason"], official["steps"])
        reward = evaluate(domain, sim.task, ours.messages, ours.termination_reason, stand_in_judge, strict_replay=True)
        got = (reward.reward, reward.breakdown, reward.checks.get("db_match"))
        assert got == (official["reward"], official["breakdown"], official["db_match"]), sim.simulation_id
        assert all(tools for tools in agent.tools) and all(tools is None for tools in user.tools)


def report(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_plugin_regrades_the_official_results_file(pytester: pytest.Pytester, tmp_path: Path, domain: str) -> None:
    """``--toolcall-tau2-results`` on the file as ``tau2 run`` wrote it (each run of a task made a
    trial of its own, the plugin taking one simulation per task and trial): every sample has the
    official termination, and the official reward and breakdown; with no judge model here, the NL
    assertions are not measured and the rest is the official (a sample needing them skipped)."""
    raw = json.loads(unpack(LOOP / f"results_loop-{domain}.json.gz", tmp_path).read_text(encoding="utf-8"))
    trials: Counter[str] = Counter()
    want = {}
    for sim in raw["simulations"]:
        sim["trial"] = trials[sim["task_id"]]
        trials[sim["task_id"]] += 1
        want[f"{sim['task_id']}@{sim['trial'] + 1}"] = learned(domain)[sim["id"]]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    pytester.runpytest("--toolcall-model=oracle", f"--toolcall-tau2-results={path}", "--toolcall-report=report.json")
    samples = {s["nodeid"].split("/", 1)[1].rstrip("]"): s for s in report(pytester)["samples"]}
    assert set(samples) == set(want)
    judged = 0
    for key, sample in samples.items():
        official, breakdown = want[key], dict(sample["reward_breakdown"] or {})
        assert sample["termination_reason"] == official["termination_reason"], key
        if breakdown.get("NL_ASSERTION", 0.0) is None:  # no judge model: the rest is the official
            judged += 1
            free = {k: v for k, v in official["breakdown"].items() if k != "NL_ASSERTION"}
            assert {k: v for k, v in breakdown.items() if k != "NL_ASSERTION"} == free, key
            assert sample["reward"] == (0.0 if 0.0 in free.values() else None), key
        else:
            assert (sample["reward"], breakdown) == (official["reward"], official["breakdown"]), key
        outcome = {None: "skipped", 0.0: "failed"}.get(sample["reward"], "passed")
        assert sample["outcome"] == outcome, key
    assert judged < len(samples)
