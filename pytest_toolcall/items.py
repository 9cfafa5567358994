"""The test functions every benchmark item runs. Fixtures fetch, these assert.

Setup (the fixtures) asks the model: a request that never gets an answer makes the item an
*error*. The call phase scores: a wrong answer makes it a *failure*, with the official scorer's
reason in the message.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.agents import Rollout, format_transcript, score_rollout
from pytest_toolcall.agents.oracle import oracle_rollout
from pytest_toolcall.client import ChatResponse
from pytest_toolcall.datasets.acebench import Sample
from pytest_toolcall.datasets.general_fc import GeneralFCSample
from pytest_toolcall.oracle import acebench_answer as acebench_answer_of
from pytest_toolcall.prompts import Prompts
from pytest_toolcall.scoring.acebench import explain, score_sample
from pytest_toolcall.scoring.general_fc import score_response


def acebench(
    acebench_sample: Sample,
    acebench_answer: list[str | None] | Rollout,
    acebench_prompts: Prompts,
    toolcall_record: dict[str, Any],
) -> None:
    """One ACEBench unit (a sample, a whole normal multi-turn dialogue, or an agent dialogue) under
    the official scorer."""
    if isinstance(acebench_answer, Rollout):
        _agent(acebench_sample, acebench_answer, acebench_prompts, toolcall_record)
        return
    sample = acebench_sample
    result = score_sample(sample, acebench_answer)
    reference = score_sample(sample, [acebench_answer_of(sample.lang, sample.category, s) for s in sample.steps])
    toolcall_record.update(
        score=1.0 if result.passed else 0.0,
        process=result.process,
        ceiling=1.0 if reference.passed else 0.0,
        error_type=next((s.verdict.error_type for s in result.steps if not s.verdict.valid), ""),
    )
    if len(sample.steps) > 1:
        toolcall_record["steps"] = [{"id": s.id, "valid": s.verdict.valid, "output": s.output} for s in result.steps]
    if not result.passed:
        pytest.fail(explain(sample, result), pytrace=False)


def _agent(sample: Sample, rollout: Rollout, prompts: Prompts, record: dict[str, Any]) -> None:
    """End state against the ground truth; process score against the milestones."""
    result = score_rollout(sample, rollout)
    reference = score_rollout(sample, oracle_rollout(sample, prompts))
    record.update(
        score=1.0 if result.passed else 0.0,
        process=result.process,
        ceiling=1.0 if reference.passed else 0.0,
        error_type=result.error_type,
        process_calls=rollout.process,
        end_state=rollout.end_state,
    )
    if not result.passed:
        pytest.fail(f"{result.message}\n\ntranscript:\n{format_transcript(rollout)}", pytrace=False)


def general_fc(
    general_fc_sample: GeneralFCSample, general_fc_response: ChatResponse, toolcall_record: dict[str, Any]
) -> None:
    """One general_fc line: the decision to call must match ``should_call_tool``, and every call must
    validate against its tool's schema."""
    result = score_response(general_fc_sample, general_fc_response)
    toolcall_record.update(result.record())
    toolcall_record["score"] = 1.0 if result.passed else 0.0
    if not result.passed:
        pytest.fail(result.reason, pytrace=False)
