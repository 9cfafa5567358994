"""What the official tau2 1.0.1 says of telecom (``tests/data/tau2/telecom/``, learned by
``learn_official.py``): the agent's and the user simulator's prompts, and the rewards of scripted
dual-control simulations of every ``base`` task (the reference, a user action missing, no user
actions, the agent's first action with a wrong argument or missing, no actions, a stop by the
agent, premature stops). Telecom's environment is not implemented yet: these tests hold that the
prompts already are the official ones, that the learned data is of the shipped tasks, and that
grading a telecom simulation is refused rather than given a reward that is not the official."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks
from pytest_toolcall.benchmarks.tau2.evaluation import evaluate
from pytest_toolcall.benchmarks.tau2.prompts import agent_system_prompt, user_system_prompt
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from tests.tau2.official import unpack

TELECOM = Path(__file__).parents[1] / "data" / "tau2" / "telecom"


def learned() -> dict[str, Any]:
    return json.loads(gzip.decompress((TELECOM / "expected_telecom.json.gz").read_bytes()))


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
    task = domain_tasks("telecom", "base")[0]
    assert user_system_prompt(task) == official[f"telecom/user/{task['id']}"]


def test_the_learned_simulations_are_of_the_shipped_base_tasks(tmp_path: Path) -> None:
    sims = load_results(unpack(TELECOM / "results_telecom.json.gz", tmp_path))
    shipped = {str(t["id"]): t for t in domain_tasks("telecom", "base")}
    assert {str(s.task["id"]) for s in sims} == set(shipped)
    for sim in sims:
        assert without_nulls(sim.task) == without_nulls(shipped[str(sim.task["id"])]), sim.simulation_id
    expected = learned()
    assert {s.simulation_id for s in sims} == {k for k in expected if "/" not in k}


def test_the_learned_rewards_cover_each_kind() -> None:
    rows = [row for key, row in learned().items() if "/" not in key]
    by_kind: dict[str, Counter[float]] = {}
    for row in rows:
        by_kind.setdefault(row["kind"], Counter())[row["reward"]] += 1
    assert by_kind["gold"] == Counter({1.0: 114})  # every reference passes officially
    for kind in ("missing_user_action", "no_user_actions", "no_actions", "max_steps", "too_many_errors"):
        assert set(by_kind[kind]) == {0.0}, kind
    assert by_kind["wrong_args"][0.0] > 0 and by_kind["missing_agent_action"][0.0] > 0
    # the base tasks grade ENV_ASSERTION (and some ACTION), never DB
    assert {c for row in rows for c in row["breakdown"]} == {"ENV_ASSERTION", "ACTION"}


def test_grading_telecom_is_refused_until_its_environment_exists(tmp_path: Path) -> None:
    sims = load_results(unpack(TELECOM / "results_telecom.json.gz", tmp_path))
    sim = next(s for s in sims if s.simulation_id.endswith("gold"))
    with pytest.raises(ValueError, match="not supported in telecom"):
        evaluate(sim.domain, sim.task, sim.messages, sim.termination_reason)
