"""Every agent transcript in ``data/verdicts/agent_transcripts.jsonl`` replayed through our loops,
environments and scorer must give what the official code (56dd66c) gave the same replies: the
verdict, the process score, the end state, the milestone list and every message of the dialogue.

The file was generated outside the repository by running the official loops unchanged with a fake
model client (``agent_replies`` for the agent, ``user_replies`` for the user simulator) and the
official ``agent_eval``. Cases: ``oracle`` (the first milestone path verbatim, then "finish
conversation"), ``correct`` (a corrected sequence), ``alt_path_*`` and scripted behaviours.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SHIPPED_ROOT
from pytest_toolcall.benchmarks.acebench.agents import (
    AGENT_SAMPLING,
    oracle_agent,
    oracle_user,
    run_multi_step,
    run_multi_turn,
    score_rollout,
)
from pytest_toolcall.benchmarks.acebench.agents.prompts import OFFICIAL_API_STEP_PROMPT_LANG
from pytest_toolcall.benchmarks.acebench.agents.rollout import Rollout
from pytest_toolcall.benchmarks.acebench.dataset import Sample, load_category
from pytest_toolcall.benchmarks.acebench.prompts import Prompts

VERDICTS = REPO / "data" / "verdicts" / "agent_transcripts.jsonl"


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VERDICTS.read_text(encoding="utf-8").splitlines() if line.strip()]


ROWS = _rows()


@pytest.fixture(scope="module")
def prompts(acebench_root: Path) -> Prompts:
    return Prompts.load(acebench_root)


_SAMPLES: dict[tuple[str, str], dict[str, Sample]] = {}


def sample_for(row: dict[str, Any]) -> Sample:
    key = (row["lang"], row["category"])
    if key not in _SAMPLES:
        _SAMPLES[key] = {s.id: s for s in load_category(SHIPPED_ROOT, *key)}
    return _SAMPLES[key][row["id"]]


class Script:
    """Answers with the recorded replies, in order, and records every request."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[list[dict[str, str]]] = []

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.requests.append(messages)
        if len(self.requests) > len(self.replies):
            raise AssertionError(f"asked {len(self.requests)} times, the official loop asked {len(self.replies)} times")
        return self.replies[len(self.requests) - 1]


def replay(row: dict[str, Any], prompts: Prompts) -> tuple[Rollout, Script, Script | None]:
    sample = sample_for(row)
    agent = Script(row["agent_replies"])
    turns = row.get("max_turns", 40)
    if row["category"] == "agent_multi_step":
        # The official API runner sends the zh multi_step prompts whatever the language.
        rollout = run_multi_step(sample, prompts, agent, max_turns=turns, prompt_lang=OFFICIAL_API_STEP_PROMPT_LANG)
        return rollout, agent, None
    user = Script(row["user_replies"])
    return run_multi_turn(sample, prompts, agent, user, max_turns=turns), agent, user


def _label(row: dict[str, Any]) -> str:
    return f"{row['lang']}/{row['id']}/{row['case']}"


@pytest.mark.parametrize("row", ROWS, ids=_label)
def test_same_as_official(row: dict[str, Any], prompts: Prompts) -> None:
    rollout, agent, user = replay(row, prompts)
    assert len(agent.requests) == len(row["agent_replies"])
    if user is not None:
        assert len(user.requests) == len(row["user_replies"])
    assert [m.as_dict() for m in rollout.transcript] == row["history"]
    result = score_rollout(sample_for(row), rollout)
    if "official_crash" in row:
        assert rollout.end_state is None and not result.passed
        return
    assert rollout.process == row["process_list"]
    assert rollout.end_state == row["end_state"]
    assert result.passed == row["end_state_valid"], result.message
    assert round(result.process, 3) == row["process"]


REQUEST_ROWS = [row for row in ROWS if "agent_requests" in row]


@pytest.mark.parametrize("row", REQUEST_ROWS, ids=_label)
def test_same_requests_as_official(row: dict[str, Any], prompts: Prompts) -> None:
    """The messages sent to the agent and to the user simulator, and the agent sampling."""
    _, agent, user = replay(row, prompts)
    assert agent.requests == row["agent_requests"]
    if user is not None:
        assert user.requests == row["user_requests"]
    assert row["sampling"] == AGENT_SAMPLING


def test_corpus_covers_every_sample_and_both_outcomes() -> None:
    oracle = Counter((r["lang"], r["category"]) for r in ROWS if r["case"] == "oracle")
    assert oracle == {("en", "agent_multi_step"): 20, ("zh", "agent_multi_step"): 20,
                      ("en", "agent_multi_turn"): 30, ("zh", "agent_multi_turn"): 30}  # fmt: skip
    assert all(r["end_state_valid"] for r in ROWS if r["case"] == "correct")
    outcomes = Counter(r.get("end_state_valid") for r in ROWS if r["case"] not in ("oracle", "correct"))
    assert outcomes[True] > 50 and outcomes[False] > 50


# Official oracle ceilings (end-to-end accuracy, process accuracy), from the same corpus.
CEILINGS = {
    ("en", "agent_multi_step"): (0.2, 1.0),
    ("en", "agent_multi_turn"): (0.7, 0.857),
    ("zh", "agent_multi_step"): (0.4, 1.0),
    ("zh", "agent_multi_turn"): (0.967, 0.967),
}


@pytest.mark.parametrize(("lang", "category"), sorted(CEILINGS))
def test_oracle_ceilings(lang: str, category: str) -> None:
    rows = [r for r in ROWS if r["case"] == "oracle" and (r["lang"], r["category"]) == (lang, category)]
    n = len(rows)
    official = (round(sum(r["end_state_valid"] for r in rows) / n, 3), round(sum(r["process"] for r in rows) / n, 3))
    assert official == CEILINGS[(lang, category)]


ORACLE_ROWS = [row for row in ROWS if row["case"] == "oracle"]


@pytest.mark.parametrize("row", ORACLE_ROWS, ids=_label)
def test_oracle_module_replays_the_official_oracle(row: dict[str, Any], prompts: Prompts) -> None:
    """``oracle_agent``/``oracle_user`` produce exactly the oracle transcripts scored above."""
    sample = sample_for(row)
    if row["category"] == "agent_multi_step":
        rollout = run_multi_step(sample, prompts, oracle_agent(sample))
    else:
        rollout = run_multi_turn(sample, prompts, oracle_agent(sample), oracle_user(sample))
    assert rollout.agent_replies == row["agent_replies"]
    assert rollout.user_replies == row.get("user_replies", [])
    result = score_rollout(sample, rollout)
    assert (result.passed, round(result.process, 3)) == (row["end_state_valid"], row["process"])
