"""The reference agent and user: replaying the dataset's milestones through the official loops.

The agent answers its k-th request with the k-th milestone of the first milestone path, verbatim
(stray whitespace, unparseable quoting and all: such a milestone does what the same text from a
real model would do), then ``finish conversation``. The user opens with the task itself and then
only agrees, so it never ends the dialogue and never steers the agent: every milestone is played.
The official scores of these rollouts are the agent categories' ceilings.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.acebench.agents.prompts import Messages
from pytest_toolcall.benchmarks.acebench.agents.rollout import (
    FINISH,
    MAX_TURNS,
    Agent,
    Rollout,
    User,
    run_multi_step,
    run_multi_turn,
)
from pytest_toolcall.benchmarks.acebench.dataset import Sample
from pytest_toolcall.benchmarks.acebench.prompts import Prompts

AGREE = {"en": "Okay, please continue.", "zh": "好的，请继续。"}


def first_path(milestones: Any) -> list[str]:
    """The first path of a milestone list (a list of strings, or a list of alternative paths)."""
    if milestones and isinstance(milestones[0], list):
        return list(milestones[0])
    return list(milestones)


def oracle_agent(sample: Sample) -> Agent:
    replies = iter(first_path(sample.first.answer.get("mile_stone", [])))

    def agent(messages: Messages) -> str:
        return next(replies, FINISH)

    return agent


def oracle_user(sample: Sample) -> User:
    question = sample.first.row["question"]
    agree = AGREE[sample.lang]
    calls = 0

    def user(messages: Messages) -> str:
        nonlocal calls
        calls += 1
        return question if calls == 1 else agree

    return user


def oracle_rollout(sample: Sample, prompts: Prompts, max_turns: int = MAX_TURNS) -> Rollout:
    """The reference dialogue of an agent sample: its score is the sample's ceiling."""
    if sample.category == "agent_multi_step":
        return run_multi_step(sample, prompts, oracle_agent(sample), max_turns=max_turns)
    return run_multi_turn(sample, prompts, oracle_agent(sample), oracle_user(sample), max_turns=max_turns)
