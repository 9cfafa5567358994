"""Validation of native tool calls against the tools' JSON Schemas: the first failure of a reply
(``validate_tool_calls``), its kind in the validation vocabulary (``REASON_KINDS``) and in the shared
failure-kind vocabulary (``FAILURE_KIND``), and why a reply that should have called made no call.

The rules are K2-Vendor-Verifier's (``validate_tool_call``): the raw arguments string goes through
``json.loads``, the tool is the first of that name, the schema is checked first, no format checker,
and an empty ``tool_calls`` list under ``finish_reason == "tool_calls"`` is invalid. Shared by every
benchmark that asks through native tool calling (general_fc, user cases).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import best_match

from pytest_toolcall.core.protocol.failure_kinds import (
    INVALID_JSON,
    NO_CALL,
    SCHEMA_VIOLATION,
    TOOL_MARKUP_IN_TEXT,
    TRUNCATED,
    UNKNOWN_TOOL_KIND,
    has_tool_markup,
)
from pytest_toolcall.core.safety.text import clip
from pytest_toolcall.core.safety.text import name as shown_name
from pytest_toolcall.native.schemas import UNSEEN, CompiledSchema, compile_schema, describe_error, remember

TOOL_CALLS = "tool_calls"

# Validation failure kinds, for the histogram.
UNKNOWN_TOOL = "unknown_tool"
JSON_DECODE = "json_decode"
SCHEMA_ERROR = "schema_error"
EMPTY_TOOL_CALLS = "empty_tool_calls"
INVALID_SCHEMA = "invalid_schema"
MISSING_PARAMETERS = "missing_parameters"
OTHER = "other"
REASON_KINDS = (UNKNOWN_TOOL, JSON_DECODE, SCHEMA_ERROR, EMPTY_TOOL_CALLS, INVALID_SCHEMA, MISSING_PARAMETERS, OTHER)


_REASON_LIMIT = 300  # schema messages repeat the instance: keep failure texts readable


@dataclass(frozen=True)
class Failure:
    kind: str  # one of REASON_KINDS
    message: str


#: Validation failures in the shared failure-kind vocabulary.
FAILURE_KIND = {
    UNKNOWN_TOOL: UNKNOWN_TOOL_KIND,
    JSON_DECODE: INVALID_JSON,
    SCHEMA_ERROR: SCHEMA_VIOLATION,
    EMPTY_TOOL_CALLS: NO_CALL,
    INVALID_SCHEMA: SCHEMA_VIOLATION,
    MISSING_PARAMETERS: SCHEMA_VIOLATION,
    OTHER: SCHEMA_VIOLATION,
}


def missing_call_kind(finish_reason: str | None, content: str | None, tool_names: list[str]) -> str:
    """No call where one was expected: cut short, a call left in the text, or simply none."""
    if finish_reason == "length":
        return TRUNCATED
    return TOOL_MARKUP_IN_TEXT if has_tool_markup(content, tool_names) else NO_CALL


def describe_calls(calls: list[dict[str, Any]]) -> str:
    """``name(<raw arguments>)`` per call, as the model sent them."""
    return "; ".join(f"{shown_name(call.get('name'))}({clip(call.get('arguments'), 200)})" for call in calls)


def validate_tool_calls(tools: list[dict[str, Any]], calls: list[dict[str, Any]]) -> Failure | None:
    """For a response with pred = 1: None when every call validates, else the first failure."""
    if not calls:  # nothing to validate is invalid
        return Failure(EMPTY_TOOL_CALLS, f"finish_reason {TOOL_CALLS!r} with no tool_calls")
    for number, call in enumerate(calls, start=1):  # the first failure decides
        failure = _validate_call(tools, call, number)
        if failure is not None:
            return failure
    return None


def _validate_call(tools: list[dict[str, Any]], call: dict[str, Any], number: int) -> Failure | None:
    name = call.get("name")
    # the first tool of that name; a later tool with the same name is never consulted.
    function = next((t["function"] for t in tools if t["function"]["name"] == name), None)
    if function is None:
        return Failure(UNKNOWN_TOOL, f"call {number}: unknown tool {clip(ascii(name), 80)}")
    where = f"call {number} ({shown_name(name)})"
    # missing and falsy parameters are both invalid (K2VV: `if not schema`).
    if not function.get("parameters"):
        state = "no parameters" if "parameters" not in function else "empty parameters"
        return Failure(MISSING_PARAMETERS, f"{where}: tool {name!r} has {state}, no call to it can validate")
    compiled = compile_schema(function["parameters"])
    if compiled.problem:
        problem_text = f"the tool's parameters are not a valid JSON Schema: {compiled.problem}"
        return Failure(INVALID_SCHEMA, f"{where}: {problem_text}")
    arguments = call.get("arguments")
    problem: tuple[str, str] | None
    if isinstance(arguments, str) and len(arguments) <= _MEMO_TEXT:
        key = (compiled, arguments)
        problem = _VERDICTS.get(key, UNSEEN)
        if problem is UNSEEN:
            problem = remember(_VERDICTS, key, _check_arguments(compiled, arguments))
    else:
        problem = _check_arguments(compiled, arguments)
    if problem is None:
        return None
    kind, detail = problem
    if kind == JSON_DECODE:
        return Failure(kind, f"{where}: {detail}")
    return Failure(kind, clip(f"{where}: {detail}", _REASON_LIMIT))


def _check_arguments(compiled: CompiledSchema, arguments: Any) -> tuple[str, str] | None:
    """(failure kind, detail) when ``arguments`` do not validate, else None."""
    if isinstance(arguments, str):  # the raw string; an object from the server is validated as is
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:  # not JSON, too deep, an int beyond the digit limit
            return JSON_DECODE, f"arguments are not valid JSON ({exc}): {clip(arguments, 200)}"
    try:
        error = best_match(compiled.validator.iter_errors(arguments))  # as jsonschema.validate reports
    except Exception as exc:  # any other failure is invalid too, e.g. an unresolvable $ref
        return OTHER, f"cannot validate: {exc or type(exc).__name__}"
    if error is not None:
        return SCHEMA_ERROR, describe_error(error)
    return None


#: Validation is a pure function of the schema and the raw arguments, and both recur: the oracle's
#: call is validated again by the scorer, repeats and lines sharing a tool send the same arguments.
#: Bounded, and only for arguments of ordinary length.
_VERDICTS: OrderedDict[tuple[CompiledSchema, str], tuple[str, str] | None] = OrderedDict()
_MEMO_TEXT = 4096
