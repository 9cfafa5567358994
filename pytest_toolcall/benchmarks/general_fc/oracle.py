"""The built-in ``oracle`` answer for general_fc: a call whose arguments validate, or plain text.

general_fc rows carry only a label, no reference call, so the oracle makes one up: for
``should_call_tool: true`` it calls the first tool for which it can build arguments that pass our own
validation; the arguments are generated from the tool's JSON Schema (minimal: required properties
only, first enum value, bounds respected...) and then checked with the scorer itself, so the oracle
never claims a pass the scorer would not give.

When no tool can be called validly (parameters missing or ``{}``, an invalid or unsatisfiable schema),
the oracle still calls the first tool, with arguments ``{}``: the line fails as any model must, and
the oracle's score stays the dataset's ceiling.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from pytest_toolcall.api.native import UNSEEN, Generator, Unsatisfiable, compile_schema, remember, validate_tool_calls
from pytest_toolcall.benchmarks.general_fc.dataset import GeneralFCSample

NO_TOOL_ANSWER = "No tool is needed for this request."
CALL_ID = "call_0"


def general_fc_answer(sample: GeneralFCSample) -> dict[str, Any]:
    """The reference the oracle model answers with (``ChatRequest.reference``)."""
    if not sample.should_call_tool:
        return {"content": NO_TOOL_ANSWER}
    for tool in sample.tools:
        call = _valid_call(sample.tools, tool["function"])
        if call is not None:
            return {"content": None, "tool_calls": [call]}
    # Deterministic fallback: nothing can validate, so the line fails (the dataset's ceiling).
    name = sample.tools[0]["function"]["name"]
    return {"content": None, "tool_calls": [{"id": CALL_ID, "name": name, "arguments": "{}"}]}


def _valid_call(tools: list[dict[str, Any]], function: dict[str, Any]) -> dict[str, Any] | None:
    parameters = function.get("parameters")
    if not parameters:  # never valid
        return None
    compiled = compile_schema(parameters)
    if compiled.validator is None:
        return None
    arguments = _GENERATED.get(compiled, UNSEEN)
    if arguments is UNSEEN:  # the arguments depend on the schema alone: built once per schema
        arguments = remember(_GENERATED, compiled, _arguments(parameters, compiled.validator))
    if arguments is None:
        return None
    call = {"id": CALL_ID, "name": function["name"], "arguments": arguments}
    # The same check as the scorer's, including the first-tool-of-that-name lookup.
    return call if validate_tool_calls(tools, [call]) is None else None


def _arguments(parameters: Any, validator: Any) -> str | None:
    try:
        return json.dumps(Generator(parameters, validator).value(parameters), ensure_ascii=False)
    except (Unsatisfiable, RecursionError):
        return None


# Compiled schemas are shared by equal schemas (``compile_schema``), so this keys on content too.
_GENERATED: OrderedDict[Any, str | None] = OrderedDict()
