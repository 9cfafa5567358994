"""banking_knowledge's grading against the official tau2 1.0.1 evaluator
(``tests/data/tau2/banking/``, ``learn_banking_grading.py``): scripted simulations of every task,
played on the official environment and graded officially (the reference, a write left out, a
wrong argument, an extra read of a discovered tool, whole numbers spelled without ``.0``, nothing
done): 453 simulations, 274 with reward 0. Re-grading each here gives the official reward,
breakdown and DB match; so does the plugin re-grading the file with ``--toolcall-tau2-results``."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.api import DataError
from pytest_toolcall.benchmarks.tau2.banking_env import BankingEnvironment
from pytest_toolcall.benchmarks.tau2.evaluation import Reward, evaluate, failures
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from tests.tau2.official import stand_in_judge, unpack

BANKING = Path(__file__).parents[1] / "data" / "tau2" / "banking"


@functools.cache
def expected() -> dict[str, Any]:
    return json.loads(gzip.decompress((BANKING / "expected_banking.json.gz").read_bytes()))


def test_the_learned_simulations_cover_every_task_and_kind() -> None:
    rows = expected().values()
    assert len({row["task_id"] for row in rows}) == 97
    kinds = {row["kind"] for row in rows}
    assert kinds == {"gold", "no_last_write", "wrong_arg", "extra_read", "int_args", "no_actions"}
    assert {row["reward"] for row in rows} == {0.0, 1.0}
    assert all(row["reward"] == 1.0 for row in rows if row["kind"] in ("gold", "extra_read", "int_args"))


def test_regrading_gives_the_official_reward_and_breakdown(tmp_path: Path) -> None:
    wrong = []
    for sim in load_results(unpack(BANKING / "results_banking.json.gz", tmp_path)):
        official = expected()[sim.simulation_id]
        reward = evaluate(sim.domain, sim.task, sim.messages, sim.termination_reason, stand_in_judge)
        got = (reward.reward, reward.breakdown, reward.checks.get("db_match"))
        if got != (official["reward"], official["breakdown"], official["db_match"]):
            wrong.append((sim.simulation_id, got, official))
    assert not wrong, wrong[:3]


def test_every_component_at_zero_says_what_differed(tmp_path: Path) -> None:
    """A failed banking_knowledge simulation is explained as the other domains' are: each component
    at 0 has its lines (``failed_checks``), a DB line names the table and the entry."""
    seen: set[str] = set()
    for sim in load_results(unpack(BANKING / "results_banking.json.gz", tmp_path)):
        reward = evaluate(sim.domain, sim.task, sim.messages, sim.termination_reason, stand_in_judge)
        lines = failures(reward)
        for component in (name for name, value in reward.breakdown.items() if value == 0.0):
            named = [line for line in lines if line.startswith(f"{component}: ")]
            assert named, (sim.simulation_id, component, lines)
            if component == "DB":
                assert all(line.startswith("DB: ") and "/" in line for line in named), named
            seen.add(component)
    assert seen == {"DB", "ACTION"}


def test_a_database_difference_names_its_table_entry_and_field() -> None:
    """A changed field (a flag included) says both values; an entry only one side has says which."""
    ours, gold = BankingEnvironment(), BankingEnvironment()
    applications = ours.db["credit_card_applications"]["data"]
    key = next(k for k, entry in applications.items() if isinstance(entry.get("rho_bank_subscription"), bool))
    flag = applications[key]["rho_bank_subscription"]
    applications[key]["rho_bank_subscription"] = not flag
    gold.db["referrals"]["data"]["new"] = {"referral_id": "new"}
    reward = Reward(0.0, {"DB": 0.0}, checks={"db_differences": ours.state_differences(gold)})
    assert failures(reward) == [
        f"DB: credit_card_applications/data.{key}/rho_bank_subscription: ours {str(not flag).lower()}, "
        f"gold {str(flag).lower()}",
        "DB: referrals/data.new only in the gold replay",
    ]


def with_retrieval(tmp_path: Path, name: str, value: Any, tasks: tuple[str, ...] = ("task_001",)) -> Path:
    """The learned file, its simulations of ``tasks`` (the reference's), run with ``value``."""
    raw = json.loads(unpack(BANKING / "results_banking.json.gz", tmp_path).read_text(encoding="utf-8"))
    raw["info"]["retrieval_config"] = value
    raw["simulations"] = [s for s in raw["simulations"] if s["task_id"] in tasks and s["id"].endswith("-gold")]
    path = tmp_path / name
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_results_file_states_its_retrieval_configuration(tmp_path: Path) -> None:
    """Read from ``info.retrieval_config`` (any of tau2 1.0.1's, offline or not: grading does not
    retrieve); a value that is none of them is refused naming the file."""
    assert {s.retrieval for s in load_results(unpack(BANKING / "results_banking.json.gz", tmp_path))} == {
        "no_knowledge"
    }
    assert [s.retrieval for s in load_results(with_retrieval(tmp_path, "a.json", "alltools"))] == ["alltools"]
    assert [s.retrieval for s in load_results(with_retrieval(tmp_path, "b.json", None))] == [None]
    for value in ("nearest", 3):
        path = with_retrieval(tmp_path, "c.json", value)
        with pytest.raises(DataError, match=r"c\.json: info\.retrieval_config .* is not a retrieval configuration"):
            load_results(path)


@pytest.mark.slow
def test_regraded_runs_of_two_configurations_are_refused(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Each re-graded simulation carries its file's configuration, printed beside the domain; files
    of two configurations would make one score of both: the second is refused, in one line."""
    bm25 = with_retrieval(tmp_path, "bm25.json", "bm25", ("task_001", "task_004"))
    result = pytester.runpytest(
        "--toolcall-model=oracle", f"--toolcall-tau2-results={bm25}", "--toolcall-report=r.json"
    )
    result.assert_outcomes(passed=2)
    assert "banking_knowledge (bm25)" in result.stdout.str()
    samples = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["samples"]
    assert [s["retrieval"] for s in samples] == ["bm25", "bm25"]
    grep = with_retrieval(tmp_path, "grep.json", "grep_only", ("task_002",))
    result = pytester.runpytest("--toolcall-model=oracle", f"--toolcall-tau2-results={bm25},{grep}")
    result.assert_outcomes(passed=2, errors=1)
    assert f"{grep}: a banking_knowledge run with retrieval grep_only, {bm25} one with bm25" in result.stdout.str()


@pytest.mark.slow
def test_the_plugin_regrades_the_official_file(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """One kind per task (one trial each); without a judge task_102's NL assertion is not measured."""
    raw = json.loads(unpack(BANKING / "results_banking.json.gz", tmp_path).read_text(encoding="utf-8"))
    kinds = ("gold", "no_last_write", "wrong_arg", "extra_read", "int_args", "no_actions")
    chosen = {}
    for index, task in enumerate(sorted({s["task_id"] for s in raw["simulations"]})):
        offered = {expected()[s["id"]]["kind"]: s for s in raw["simulations"] if s["task_id"] == task}
        kind = [k for k in kinds if k in offered][index % len([k for k in kinds if k in offered])]
        chosen[task] = offered[kind]
    raw["simulations"] = list(chosen.values())
    path = tmp_path / "run.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    pytester.runpytest("--toolcall-model=oracle", f"--toolcall-tau2-results={path}", "--toolcall-report=report.json")
    samples = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))["samples"]
    assert len(samples) == 97
    for sample in samples:
        official = expected()[chosen[sample["task_id"]]["id"]]
        if sample["task_id"] == "task_102":  # its NL assertion: not measured without a judge
            breakdown = dict(sample["reward_breakdown"])
            assert breakdown.pop("NL_ASSERTION") is None
            assert breakdown == {"DB": official["breakdown"]["DB"]}
            assert sample["reward"] == (None if official["reward"] == 1.0 else 0.0)
            continue
        assert (sample["reward"], sample["reward_breakdown"]) == (official["reward"], official["breakdown"])
    assert {expected()[s["id"]]["reward"] for s in chosen.values()} == {0.0, 1.0}
