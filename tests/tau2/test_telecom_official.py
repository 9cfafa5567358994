"""Telecom (dual control) against what the official tau2 1.0.1 says of it (``tests/data/tau2/telecom/``):
the prompts; the learned simulations are of the shipped ``base`` tasks; the official loop
(``learn_telecom_loop.py``: the official ``Orchestrator`` with scripted agent and user) and this
loop, given the same replies, make the same trajectory (every tool answer of both sides, the
termination) and the same reward; the oracle passes every task. The re-grading of every learned
simulation is ``test_official_rewards.py``."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks
from pytest_toolcall.benchmarks.tau2.dual_control import new_environment
from pytest_toolcall.benchmarks.tau2.evaluation import evaluate
from pytest_toolcall.benchmarks.tau2.loop import run_simulation
from pytest_toolcall.benchmarks.tau2.oracle import oracle_agent_reply, oracle_user_reply
from pytest_toolcall.benchmarks.tau2.prompts import agent_system_prompt, user_system_prompt
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from tests.tau2.official import Replies, shape, unpack

pytestmark = pytest.mark.slow  # every telecom simulation or task: a whole data set

TELECOM = Path(__file__).parents[1] / "data" / "tau2" / "telecom"
BASE = domain_tasks("telecom", "base")


def learned(name: str = "telecom") -> dict[str, Any]:
    return json.loads(gzip.decompress((TELECOM / f"expected_{name}.json.gz").read_bytes()))


def without_nulls(value: Any) -> Any:
    """A task as data, without the fields the official model dump adds as null."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def test_the_telecom_prompts_are_the_official_ones() -> None:
    official = json.loads((TELECOM / "prompts_telecom.json").read_text(encoding="utf-8"))
    assert agent_system_prompt("telecom") == official["telecom/agent"]
    task = BASE[0]
    assert user_system_prompt(task) == official[f"telecom/user/{task['id']}"]


@pytest.mark.parametrize("name", ["telecom", "telecom-loop"])
def test_the_learned_simulations_are_of_the_shipped_base_tasks(tmp_path: Path, name: str) -> None:
    sims = load_results(unpack(TELECOM / f"results_{name}.json.gz", tmp_path))
    shipped = {str(t["id"]): t for t in BASE}
    assert {str(s.task["id"]) for s in sims} <= set(shipped)
    for sim in sims:
        assert without_nulls(sim.task) == without_nulls(shipped[str(sim.task["id"])]), sim.simulation_id
    assert {s.simulation_id for s in sims} == {k for k in learned(name) if "/" not in k}


def test_the_learned_rewards_cover_each_kind() -> None:
    rows = [row for key, row in learned().items() if "/" not in key]
    assert len({row["task_id"] for row in rows}) == 114
    by_kind: dict[str, Counter[float]] = {}
    for row in rows:
        by_kind.setdefault(row["kind"], Counter())[row["reward"]] += 1
    assert by_kind["gold"] == Counter({1.0: 114})  # every reference passes officially
    for kind in ("missing_user_action", "no_user_actions", "no_actions", "max_steps", "too_many_errors"):
        assert set(by_kind[kind]) == {0.0}, kind
    assert by_kind["wrong_args"][0.0] > 0 and by_kind["missing_agent_action"][0.0] > 0
    # the base tasks grade ENV_ASSERTION (and some ACTION), never DB; the DB check of a reference
    # matches only when the reference's last calls leave the phone as a sync would
    assert {c for row in rows for c in row["breakdown"]} == {"ENV_ASSERTION", "ACTION"}
    gold_match = Counter(row["db_match"] for row in rows if row["kind"] == "gold")
    assert gold_match[True] > 0 and gold_match[False] > 0


def test_the_loop_is_the_official_one(tmp_path: Path) -> None:
    """Given the replies of each official run, this loop sends the same calls to the same sides,
    gets the same answers from both (the user's phone and the agent's tools), ends the same way
    and earns the same reward and breakdown."""
    expected = learned("telecom-loop")
    sims = load_results(unpack(TELECOM / "results_telecom-loop.json.gz", tmp_path))
    assert len(sims) == 90 and {k["kind"] for k in expected.values()} >= {"gold", "bad_user_call", "two_calls"}
    user_tools = {name for name in new_environment("telecom").user_specs}
    for sim in sims:
        agent, user = Replies(sim.messages, "assistant"), Replies(sim.messages, "user")
        ours = run_simulation("telecom", sim.task, agent, user)
        official = expected[sim.simulation_id]
        assert shape(ours.messages) == shape(sim.messages), sim.simulation_id
        assert (ours.termination_reason, len(ours.messages)) == (official["termination_reason"], official["steps"])
        reward = evaluate("telecom", sim.task, ours.messages, ours.termination_reason, strict_replay=True)
        got = (reward.reward, reward.breakdown, reward.checks["db_match"])
        assert got == (official["reward"], official["breakdown"], official["db_match"]), sim.simulation_id
        assert all(agent_tools is not None for agent_tools in agent.tools)
        assert all({t["function"]["name"] for t in offered} == user_tools for offered in user.tools)


def oracle_speaker(task: dict[str, Any], side: str) -> Any:
    def speak(messages: list[dict[str, Any]], tools: Any) -> tuple[str | None, list[dict[str, Any]]]:
        reply = oracle_agent_reply(task, messages) if side == "agent" else oracle_user_reply(task, messages)
        if isinstance(reply, str):
            return reply, []
        calls = [{**c, "arguments": json.loads(c["arguments"])} for c in reply.get("tool_calls") or []]
        return reply.get("content"), calls

    return speak


def test_the_oracle_passes_every_base_task() -> None:
    """Both oracle sides play the reference actions in their order (the user's on its phone)."""
    for task in BASE:
        sim = run_simulation("telecom", task, oracle_speaker(task, "agent"), oracle_speaker(task, "user"))
        assert sim.termination_reason == "user_stop", task["id"]
        reward = evaluate("telecom", task, sim.messages, sim.termination_reason, strict_replay=True)
        assert reward.reward == 1.0, (task["id"], reward.breakdown)
        calls = [c for m in sim.messages for c in m.get("tool_calls") or ()]
        actions = task["evaluation_criteria"].get("actions") or []
        assert [(c["name"], c["requestor"]) for c in calls] == [(a["name"], a["requestor"]) for a in actions]


def test_a_results_file_of_a_domain_not_shipped_is_refused(tmp_path: Path) -> None:
    from pytest_toolcall.core.protocol.benchmark import DataError

    path = tmp_path / "banking.json"
    path.write_text(json.dumps({"info": {"environment_info": {"domain_name": "banking"}}, "simulations": []}))
    with pytest.raises(DataError, match="domain 'banking' is not one of airline, retail, telecom"):
        load_results(path)
