"""Re-grading equals the official evaluator, simulation for simulation: every reward, breakdown and
DB match learned from tau2 1.0.1 on trajectories of many kinds (the reference, wrong arguments,
missing, repeated and reordered writes, floats for integers, a hallucinated tool, nothing
communicated, every termination reason), airline and retail; telecom's dual-control simulations
(the user's tool calls on its phone among the agent's) of every ``base`` task."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pytest_toolcall.benchmarks.tau2.evaluation import evaluate
from pytest_toolcall.benchmarks.tau2.judge import judge_messages
from pytest_toolcall.benchmarks.tau2.prompts import agent_system_prompt, user_system_prompt
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from tests.tau2.official import (
    expected,
    expected_files,
    official_prompts,
    read_json,
    results_files,
    stand_in_judge,
    unpack,
)

# Telecom's hundreds of dual-control simulations are a whole data set: the slow set's.
SETS = [pytest.param(p, marks=pytest.mark.slow) if p.parent.name == "telecom" else p for p in results_files()]


@pytest.fixture(scope="module", params=SETS, ids=lambda p: p.name.split(".")[0])
def simulations(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list:
    return load_results(unpack(request.param, tmp_path_factory.mktemp("tau2")))


def test_every_simulation_has_the_official_reward(simulations: list) -> None:
    wrong = []
    for sim in simulations:
        official = expected()[sim.simulation_id]
        reward = evaluate(sim.domain, sim.task, sim.messages, sim.termination_reason, stand_in_judge)
        got = (reward.reward, reward.breakdown, reward.checks.get("db_match"))
        want = (official["reward"], official["breakdown"], official["db_match"])
        if got != want:
            wrong.append((sim.simulation_id, got, want))
    assert not wrong, wrong[:5]


def test_without_a_judge_the_judge_free_parts_are_the_official_ones(simulations: list) -> None:
    for sim in simulations:
        official = expected()[sim.simulation_id]
        reward = evaluate(sim.domain, sim.task, sim.messages, sim.termination_reason)
        criteria = sim.task["evaluation_criteria"] or {}
        judged = "NL_ASSERTION" in criteria.get("reward_basis", []) and bool(criteria.get("nl_assertions"))
        if not judged or sim.termination_reason not in ("user_stop", "agent_stop"):
            assert (reward.reward, reward.breakdown) == (official["reward"], official["breakdown"]), sim.simulation_id
            continue
        free = {k: v for k, v in official["breakdown"].items() if k != "NL_ASSERTION"}
        assert {k: v for k, v in reward.breakdown.items() if k != "NL_ASSERTION"} == free, sim.simulation_id
        assert reward.breakdown["NL_ASSERTION"] is None
        if 0.0 in free.values():
            assert reward.reward == official["reward"] == 0.0, sim.simulation_id
        else:
            assert reward.reward is None and "not measured" in reward.note, sim.simulation_id


def test_the_data_covers_every_kind() -> None:
    kinds = Counter(row["kind"] for key, row in expected().items() if "kind" in row)
    for kind in (
        "gold",
        "writes_only",
        "wrong_args",
        "missing_write",
        "repeated_write",
        "reordered",
        "hallucinated_tool",
        "no_communicate",
        "float_args",
        "transfer",
        "max_steps",
        "too_many_errors",
        "agent_error",
        "user_error",
        "agent_stop",
        "infrastructure_error",
    ):
        assert kinds[kind] > 0, kind
    rewards = Counter(row["reward"] for row in expected().values() if "reward" in row)
    assert rewards[1.0] > 100 and rewards[0.0] > 100


def test_prompts_are_the_official_ones() -> None:
    prompts = official_prompts()
    from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks

    for domain in ("airline", "retail", "telecom"):
        if f"{domain}/agent" not in prompts:
            continue
        assert agent_system_prompt(domain) == prompts[f"{domain}/agent"]
        task = domain_tasks(domain, "base")[0]
        assert user_system_prompt(task) == prompts[f"{domain}/user/{task['id']}"]


def test_the_judge_prompt_is_the_official_one(tmp_path: Path) -> None:
    captured = official_prompts().get("judge_prompt")
    if captured is None:
        pytest.skip("no NL-assertion task among the learned files")
    sims = (s for path in results_files() for s in load_results(unpack(path, tmp_path)))
    sim = next(s for s in sims if s.simulation_id == captured["simulation"])
    assertions = sim.task["evaluation_criteria"]["nl_assertions"]
    assert judge_messages(sim.messages, assertions) == captured["messages"]


def test_pass_hat_k_is_the_official_one(tmp_path: Path) -> None:
    """Each learned file also holds the official ``compute_metrics`` of a two-trial run over its
    tasks (the reference with only its writes, and the one missing its last write)."""
    from pytest_toolcall.benchmarks.tau2.metrics import tau2_metrics

    checked = 0
    for path in expected_files():
        learned = read_json(path)
        for key, official in learned.items():
            if not key.endswith("/pass_hat_k") or not official["simulations"]:
                continue
            domain = key.split("/")[0]
            wanted = set(official["simulations"])
            names = path.name.removeprefix("expected_").split(".")[0]
            results = path.parent / f"results_{names}.json.gz"
            base = {s.simulation_id: s for s in load_results(unpack(results, tmp_path))}
            records = []
            for sim_id in sorted(wanted):
                sim = base[sim_id.removesuffix("-t1")]
                reward = evaluate(domain, sim.task, sim.messages, sim.termination_reason, stand_in_judge)
                records.append({"domain": domain, "task_id": sim.task["id"], "reward": reward.reward, "outcome": "x"})
            row = tau2_metrics(records)["categories"][domain]
            assert row["pass_hat_k"] == pytest.approx({str(k): v for k, v in official["pass_hat_ks"].items()})
            assert sum(r["reward"] for r in records) / len(records) == pytest.approx(official["avg_reward"])
            checked += 1
    assert checked > 0


def test_every_reference_passes_officially() -> None:
    """The official reward of every task's reference trajectory is 1: so the oracle must pass every
    task (``test_tau2_plugin.py``): 50 airline, 114 retail, 114 telecom ``base`` tasks."""
    gold = {(row["domain"], row["task_id"]): row["reward"] for row in expected().values() if row.get("kind") == "gold"}
    assert Counter(domain for domain, _ in gold) == {"airline": 50, "retail": 114, "telecom": 114}
    assert set(gold.values()) == {1.0}


def test_every_component_at_zero_says_what_differed(simulations: list) -> None:
    from pytest_toolcall.benchmarks.tau2.evaluation import failures

    seen: Counter[str] = Counter()
    for sim in simulations:
        reward = evaluate(sim.domain, sim.task, sim.messages, sim.termination_reason, stand_in_judge)
        zero = sorted(name for name, value in reward.breakdown.items() if value == 0.0)
        lines = failures(reward)
        for component in zero:
            named = [line for line in lines if line.startswith(f"{component}: ")]
            assert named, (sim.simulation_id, component, lines)
            seen[component] += 1
        if "DB" in zero:
            # A concrete entry (table/key) or the user's device, never only "it differs".
            assert any("/" in line or "user device" in line for line in lines if line.startswith("DB: ")), lines
        for line in lines:
            if line.startswith("ACTION: "):
                action = next(a for a in sim.task["evaluation_criteria"]["actions"] if f"expected {a['name']}(" in line)
                assert action["name"] in line
    assert seen, "no simulation failed a component: the reading is wrong"


def test_a_wrong_argument_names_the_entry_the_action_and_the_closest_call() -> None:
    from pytest_toolcall.benchmarks.tau2.evaluation import failures

    task = {
        "id": "t",
        "evaluation_criteria": {
            "reward_basis": ["DB", "ACTION"],
            "actions": [
                {"action_id": "a", "name": "cancel_reservation", "arguments": {"reservation_id": "4WQ150"}},
            ],
        },
    }
    call = {"id": "c1", "name": "cancel_reservation", "arguments": {"reservation_id": "VAAOXJ"}}
    messages = [
        {"role": "user", "content": "cancel 4WQ150"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "id": "c1", "content": "{}"},
        {"role": "user", "content": "###STOP###"},
    ]
    reward = evaluate("airline", task, messages, "user_stop")
    assert reward.breakdown == {"DB": 0.0, "ACTION": 0.0}
    lines = failures(reward)
    assert 'DB: reservations/4WQ150/status: ours null, gold "cancelled"' in lines  # (an active one has no status)
    assert 'DB: reservations/VAAOXJ/status: ours "cancelled", gold null' in lines
    assert (
        'ACTION: expected cancel_reservation(reservation_id="4WQ150") not matched; closest '
        'cancel_reservation(reservation_id="VAAOXJ") differs in reservation_id'
    ) in lines
