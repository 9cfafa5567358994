"""The built-in ``oracle`` model: the dataset's own reference, in the official output form.

Its score is the dataset's ceiling: the accuracy the reference answers reach under the official
scorer (some ground truth cannot pass it).
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.acebench.dataset import Step, api_name

IRRELEVANT_ANSWER = "Due to the limitations of the function, I cannot solve this problem."


def acebench_answer(lang: str, category: str, step: Step) -> str:
    """The reference answer of one ACEBench step as the model is asked to write it."""
    truth = step.ground_truth
    separator = "，" if lang == "zh" else ", "  # the zh prompt's own example separator
    if category == "special_incomplete":
        return "\n".join(
            f"Missing necessary parameters ({separator.join(params)}) for the api ({api})"
            for api, params in truth.items()
        )
    if category == "special_error_param":
        values = [value for values in truth.values() for value in values]
        return (
            f"There is incorrect value ({separator.join(values)}) "
            f"for the parameters ({separator.join(truth)}) in the conversation history."
        )
    if category == "special_irrelevant":
        return IRRELEVANT_ANSWER
    return render_calls(truth[0] if isinstance(truth, list) else truth)


def render_calls(truth: dict[str, dict[str, Any]]) -> str:
    """``[name(key=repr(value), ...), ...]``; ``f_1``/``f_2`` keys become plain ``f``."""
    calls = []
    for key, params in truth.items():
        args = ", ".join(f"{name}={value!r}" for name, value in params.items())
        calls.append(f"{api_name(key)}({args})")
    return "[" + ", ".join(calls) + "]"
