"""Our BFCL multi-turn executor and checker agree with the official code on every committed line.

`data/verdicts/bfcl_multi_turn_<category>.jsonl` was produced by running the official gorilla code
(@6ea5797) outside this repository on the ground-truth call sequence of every sample, on eight
randomly edited sequences per sample (changed, dropped, added, duplicated, swapped or moved calls,
wrong argument values and types, unknown or class-qualified names, refused names, malformed
strings, calls split over several steps, calls in turns that expect none, emptied turns) and on
four "probe" sequences per sample (the ground truth plus 3-6 calls of random tools of the sample's
classes with arguments synthesised from the function docs), so every tool is called.
"""

from __future__ import annotations

import collections

import pytest

from tests.bfcl.multi_turn_fidelity import CATEGORIES, replay_problems, verdict_lines

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_line_agrees_with_the_official_checker(category: str) -> None:
    lines = verdict_lines(category)
    assert len(lines) == 200 * 13
    problems = []
    for number, line in enumerate(lines):
        where = f"line {number + 1} ({line['id']}, {line['kind']})"
        problems += [f"{where}: {text}" for text in replay_problems(line, category)]
    assert problems == [], "\n".join(problems[:20])


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_ground_truth_ceiling_is_every_sample(category: str) -> None:
    # The official checker accepts the ground-truth calls of all 200 samples of each category.
    truths = [line for line in verdict_lines(category) if line["kind"] == "ground_truth"]
    assert len(truths) == 200
    assert all(line["verdict"] == {"valid": True} for line in truths)


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_edits_exercise_every_official_outcome(category: str) -> None:
    outcomes = collections.Counter(
        line["verdict"].get("error_type", "valid") for line in verdict_lines(category) if line["kind"] != "ground_truth"
    )
    for outcome in ("valid", "multi_turn:empty_turn_model_response", "multi_turn:instance_state_mismatch",
                    "multi_turn:execution_response_mismatch"):  # fmt: skip
        assert outcomes[outcome] >= 100, outcomes
