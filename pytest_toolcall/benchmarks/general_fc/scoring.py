"""general_fc scoring: one response → verdict, records → metrics.

The validation is K2-Vendor-Verifier's (``validate_tool_call``), not evalscope's: the raw arguments
string goes through ``json.loads``, the tool is the first of that name, the schema is checked first,
no format checker, and an empty ``tool_calls`` list under ``finish_reason == "tool_calls"`` is invalid.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing
from jsonschema.exceptions import best_match

from pytest_toolcall.benchmarks.general_fc.dataset import GeneralFCSample, describe_error, schema_problem
from pytest_toolcall.core.failure_kinds import (
    INVALID_JSON,
    NO_CALL,
    SCHEMA_VIOLATION,
    TOOL_MARKUP_IN_TEXT,
    TRUNCATED,
    UNEXPECTED_CALL,
    UNKNOWN_TOOL_KIND,
    has_tool_markup,
)
from pytest_toolcall.core.patterns import bounded_validator
from pytest_toolcall.core.text import clip
from pytest_toolcall.core.types import ChatResponse

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

#: Record outcomes without an answer to score: excluded from every metric.
ERROR, SKIPPED = "error", "skipped"

_REASON_LIMIT = 300  # schema messages repeat the instance: keep failure texts readable


@dataclass(frozen=True)
class Failure:
    kind: str  # one of REASON_KINDS
    message: str


@dataclass(frozen=True)
class GeneralFCResult:
    should_call_tool: bool
    finish_reason: str | None
    n_calls: int
    pred: bool  # finish_reason == "tool_calls", nothing else
    valid: bool | None  # only when pred; None otherwise
    successful: bool  # pred and valid
    passed: bool  # label true: successful; label false: not pred
    reason: str  # why the sample failed, "" when it passed
    reason_kind: str | None  # the validation failure kind when valid is False
    validation_reason: str  # the validation failure, even when the decision already failed the sample
    failure_kind: str | None  # why the sample failed, in the vocabulary of native tool calling

    def record(self) -> dict[str, Any]:
        """The fields a per-sample record needs for ``general_fc_metrics`` (plain builtins)."""
        fields = dict(vars(self))  # every field is a scalar: asdict's deep copy is not needed
        fields["schema_valid"] = fields.pop("valid")
        return fields


def score_response(sample: GeneralFCSample, response: ChatResponse) -> GeneralFCResult:
    calls = response.tool_calls or []
    pred = response.finish_reason == TOOL_CALLS
    failure = validate_tool_calls(sample.tools, calls) if pred else None
    valid = failure is None if pred else None
    successful = pred and failure is None
    kind = None
    if sample.should_call_tool:
        passed = successful
        if not pred:
            reason = f"expected a tool call, got finish_reason {response.finish_reason!r}"
            if calls:  # calls returned under another finish reason do not count
                reason += f" with {len(calls)} call(s) (only finish_reason 'tool_calls' counts)"
                reason += f": {describe_calls(calls)}"
            elif response.content:
                reason += f" and the text {clip(response.content, 200)!r}"
            kind = _missing_call_kind(sample, response)
        elif failure:
            reason, kind = failure.message, _FAILURE_KIND[failure.kind]
        else:
            reason = ""
    else:
        passed = not pred
        if passed:
            reason = ""
        elif calls:
            reason = f"expected no tool call, got {len(calls)} call(s): {describe_calls(calls)}"
        else:
            reason = f"expected no tool call, got finish_reason {TOOL_CALLS!r} (with no tool_calls)"
        kind = None if passed else UNEXPECTED_CALL
    return GeneralFCResult(
        should_call_tool=sample.should_call_tool,
        finish_reason=response.finish_reason,
        n_calls=len(calls),
        pred=pred,
        valid=valid,
        successful=successful,
        passed=passed,
        reason=reason,
        reason_kind=failure.kind if failure else None,
        validation_reason=failure.message if failure else "",
        failure_kind=kind,
    )


#: Validation failures in the shared failure-kind vocabulary.
_FAILURE_KIND = {
    UNKNOWN_TOOL: UNKNOWN_TOOL_KIND,
    JSON_DECODE: INVALID_JSON,
    SCHEMA_ERROR: SCHEMA_VIOLATION,
    EMPTY_TOOL_CALLS: NO_CALL,
    INVALID_SCHEMA: SCHEMA_VIOLATION,
    MISSING_PARAMETERS: SCHEMA_VIOLATION,
    OTHER: SCHEMA_VIOLATION,
}


def _missing_call_kind(sample: GeneralFCSample, response: ChatResponse) -> str:
    """No call where one was expected: cut short, a call left in the text, or simply none."""
    if response.finish_reason == "length":
        return TRUNCATED
    names = [tool["function"]["name"] for tool in sample.tools]
    return TOOL_MARKUP_IN_TEXT if has_tool_markup(response.content, names) else NO_CALL


def describe_calls(calls: list[dict[str, Any]]) -> str:
    """``name(<raw arguments>)`` per call, as the model sent them."""
    return "; ".join(f"{call.get('name')}({clip(call.get('arguments'), 200)})" for call in calls)


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
        return Failure(UNKNOWN_TOOL, f"call {number}: unknown tool {clip(repr(name), 80)}")
    where = f"call {number} ({name})"
    # missing and falsy parameters are both invalid (K2VV: `if not schema`).
    if not function.get("parameters"):
        state = "no parameters" if "parameters" not in function else "empty parameters"
        return Failure(MISSING_PARAMETERS, f"{where}: tool {name!r} has {state}, no call to it can validate")
    compiled = compile_schema(function["parameters"])
    if compiled.problem:
        problem = f"the tool's parameters are not a valid JSON Schema: {compiled.problem}"
        return Failure(INVALID_SCHEMA, f"{where}: {problem}")
    arguments = call.get("arguments")
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


@dataclass(frozen=True, eq=False)  # hashed by identity: a key of the verdicts below
class CompiledSchema:
    validator: Any  # a jsonschema validator, None when the schema is invalid
    problem: str  # "" when the schema is valid


# Schemas are treated as immutable once scored. Two layers: by identity (a sample's schema object,
# kept alive here so its id cannot be reused), then by its text (equal schemas on other lines).
# Both bounded (least recently used out): lines are read back for each item, so a large file would
# otherwise keep every schema object it ever parsed alive here.
_BY_ID: OrderedDict[int, tuple[Any, CompiledSchema]] = OrderedDict()
_BY_TEXT: OrderedDict[str, CompiledSchema] = OrderedDict()
_CACHE_SIZE = 4096
#: Validation is a pure function of the schema and the raw arguments, and both recur: the oracle's
#: call is validated again by the scorer, repeats and lines sharing a tool send the same arguments.
#: Bounded, and only for arguments of ordinary length.
_VERDICTS: OrderedDict[tuple[CompiledSchema, str], tuple[str, str] | None] = OrderedDict()
_MEMO_TEXT = 4096
UNSEEN: Any = object()  # (a cache's "no entry": None is a value)
# No remote $ref retrieval while scoring (jsonschema's default registry would fetch over HTTP);
# the meta-schemas stay resolvable.
_REGISTRY: referencing.Registry[Any] = referencing.Registry()


def compile_schema(schema: Any) -> CompiledSchema:
    """The validator for ``schema`` (class from ``$schema``, default Draft 2020-12, schema checked
    first, no format checker), cached."""
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        _BY_ID.move_to_end(id(schema))
        return hit[1]
    # repr, not canonical JSON: twice as fast, and for parsed JSON as exact (a schema whose keys come
    # in another order is merely compiled once more).
    key = repr(schema)
    compiled = _BY_TEXT.get(key)
    if compiled is None:
        compiled = remember(_BY_TEXT, key, _compile(schema))
    else:
        _BY_TEXT.move_to_end(key)
    remember(_BY_ID, id(schema), (schema, compiled))
    return compiled


def remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> Any:
    """Put ``value`` in one of the bounded caches of scoring (the oldest entry out), and return it."""
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def _compile(schema: Any) -> CompiledSchema:
    problem = schema_problem(schema)  # the loader's check, cached: usually already done at load time
    if problem:
        return CompiledSchema(None, problem)
    try:
        # default= also keeps an unknown $schema from warning: it falls back to 2020-12 quietly.
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        # pattern / patternProperties matched in bounded time, with re.search's verdicts (core/patterns.py)
        return CompiledSchema(bounded_validator(cls)(schema, registry=_REGISTRY), "")
    except Exception as exc:
        return CompiledSchema(None, f"{type(exc).__name__}: {exc}")
