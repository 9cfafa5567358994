"""The τ² NL-assertion judge's answer read as the official evaluator reads it: every answer of
``tests/data/tau2/judge_verdicts.json`` has the outcome the official ``NLAssertionsEvaluator``
gave it (learned by ``learn_judge.py``): a reward, or an error (the simulation not graded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_toolcall.api import RequestError
from pytest_toolcall.benchmarks.tau2.judge import parse_verdicts
from pytest_toolcall.core.safety import door

LEARNED = json.loads((Path(__file__).parents[1] / "data" / "tau2" / "judge_verdicts.json").read_text("utf-8"))


def _ours(content: str) -> float | str:
    try:
        verdicts = parse_verdicts(content)
    except RequestError as exc:
        assert "\n" not in str(exc) and "Traceback" not in str(exc)
        return "error"
    return 1.0 if all(met for _, met, _ in verdicts) else 0.0


@pytest.mark.parametrize("case", LEARNED, ids=[f"{i}" for i in range(len(LEARNED))])
def test_the_official_outcome_of_each_judge_answer(case: dict) -> None:
    official = "error" if isinstance(case["official"], str) else case["official"]
    assert _ours(case["content"]) == official


def test_a_string_false_is_false_and_an_unreadable_value_is_no_pass() -> None:
    answer = {"results": [{"expectedOutcome": "a", "reasoning": "r", "metExpectation": "false"}]}
    assert parse_verdicts(json.dumps(answer)) == [("a", False, "r")]
    answer["results"][0]["metExpectation"] = "probably"
    with pytest.raises(RequestError, match="metExpectation"):
        parse_verdicts(json.dumps(answer))


def test_a_hostile_judge_answer_is_one_inert_masked_line() -> None:
    door.add_secret("sk-judge-secret-123456")
    try:
        content = "::error title=X::forged\n\x1b[2J sk-judge-secret-123456 " + "[" * 50_000
        with pytest.raises(RequestError) as caught:
            parse_verdicts(content)
        message = str(caught.value)
        assert "\n" not in message and "\x1b" not in message and "sk-judge-secret" not in message
        assert not message.startswith("::")
        deep = "[" * 100_000 + "]" * 100_000  # deeper than the parser goes: refused, not a RecursionError
        with pytest.raises(RequestError, match="not the official JSON"):
            parse_verdicts(deep)
        nested = json.dumps({"results": [{"expectedOutcome": "a", "reasoning": [[[[[]]]]] * 2, "metExpectation": 1}]})
        with pytest.raises(RequestError, match="reasoning"):
            parse_verdicts(nested)
    finally:
        door.forget_secrets()
