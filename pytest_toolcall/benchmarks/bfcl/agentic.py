"""The official verdict of a BFCL V4 agentic entry (memory; web search is scored the same way).

The model answers in one turn, calling tools step after step; only its last message that is not a
call counts: the entry passes when one of the possible answers appears in it as a whole word, after
both are lower-cased and stripped of whitespace-free punctuation (``,./-_*^()``), single quotes read
as double quotes. Error types are the official ones:

* ``agentic:inference_error``: the result is not one turn (the official result then is not a list
  of one element);
* ``agentic:no_last_message``: no step was left undecoded, or the last one that was is empty (under
  6ea5797's reading of ``tool_calls: []`` that step's recorded response is an empty list, which
  counts as "none" here);
* ``agentic:answer_not_found``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.multi_turn_check import is_empty_execute_response

_PUNCTUATION = re.compile(r"[\,\.\/\-\_\*\^\(\)]")


def standardize(text: str) -> str:
    """The official answer normalisation: punctuation ``,./-_*^()`` dropped, lower case, ' -> "."""
    return _PUNCTUATION.sub("", text).lower().replace("'", '"')


def answer_check(response: Any, possible_answers: list[str]) -> dict[str, Any]:
    """The official ``agentic_checker``: whether a possible answer occurs as a whole word."""
    if type(response) is list:
        response = response[0]  # "sometimes the response is a list of one string"
    if type(response) is not str:
        response = str(response)
    standardized = standardize(response)
    for answer in possible_answers:
        if re.search(rf"\b{re.escape(standardize(answer))}\b", standardized):
            return {"valid": True}
    return {
        "valid": False,
        "error_type": "agentic:answer_not_found",
        "error_message": "None of the expected answers were found in the model response.",
        "details": {"model_response": response, "standardized_model_response": standardized},
    }


def evaluate_agentic(result: Any, possible_answers: list[str], decode: Callable[[Any], list[str]]) -> dict[str, Any]:
    """The official agentic evaluation of one entry's result (``result[turn][step]``, raw steps)."""
    if type(result) is not list or len(result) != 1:
        return {
            "valid": False,
            "error_type": "agentic:inference_error",
            "error_message": "Error during inference phase. Model did not output a list of model responses.",
        }
    last_message: Any = None
    for step in result[0]:
        try:
            if is_empty_execute_response(decode(step)):
                last_message = step
        except Exception:  # any decoding failure: the step is a message, not calls
            last_message = step
    if not last_message:
        return {
            "valid": False,
            "error_type": "agentic:no_last_message",
            "error_message": "Cannot find the last chat message that is not a function call.",
        }
    return answer_check(last_message, possible_answers)
