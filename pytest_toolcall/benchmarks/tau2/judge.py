"""The official NL-assertion judge (tau2 1.0.1 ``NLAssertionsEvaluator``) on a model of the run:
the official prompt, temperature 0, the answer read as the official JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pytest_toolcall.api import ChatRequest, Model, RequestError
from pytest_toolcall.benchmarks.tau2.prompts import JUDGE_SYSTEM_PROMPT, JUDGE_USER_PROMPT


def judge_messages(messages: Sequence[dict[str, Any]], assertions: list[str]) -> list[dict[str, Any]]:
    # Every message as ``role: content`` (a tool call's empty content reads "None"); the assertions
    # as Python prints a list, as officially.
    trajectory = "\n".join(f"{m.get('role')}: {m.get('content')}" for m in messages)
    user = JUDGE_USER_PROMPT.format(trajectory=trajectory, assertions=assertions)
    return [{"role": "system", "content": JUDGE_SYSTEM_PROMPT}, {"role": "user", "content": user}]


def parse_verdicts(content: str | None) -> list[tuple[str, bool, str]]:
    try:
        data = json.loads(content or "")
        return [
            (str(r["expectedOutcome"]), bool(r["metExpectation"]), str(r.get("reasoning", "")))
            for r in data.get("results", [])
        ]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        # The official evaluator raises too: the simulation is not graded.
        raise RequestError(f"the judge's answer is not the official JSON ({exc}): {str(content)[:200]}") from None


def model_judge(model: Model) -> Any:
    def judge(messages: Sequence[dict[str, Any]], assertions: list[str]) -> list[tuple[str, bool, str]]:
        request = ChatRequest(
            judge_messages(messages, assertions),
            sampling={"temperature": 0.0, "max_tokens": None},
        )
        return parse_verdicts(model.submit(request).result().content)

    return judge
