"""Per-sample general_fc verdicts (the call decision, then K2-Vendor-Verifier's validity), on
hand-made responses and on random ones whose validity K2-Vendor-Verifier decided."""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SHIPPED_SET
from pytest_toolcall.benchmarks.general_fc.dataset import GeneralFCSample, load_file
from pytest_toolcall.benchmarks.general_fc.scoring import (
    REASON_KINDS,
    compile_schema,
    score_response,
)
from pytest_toolcall.core.protocol.types import ChatResponse

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
    "required": ["city"],
    "additionalProperties": False,
}
OPEN_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}  # no additionalProperties
DATE_SCHEMA = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}, "required": ["day"]}
DRAFT4_SCHEMA = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
    "required": ["n"],
}
DRAFT7_TUPLE = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}},
    "required": ["pair"],
}
REF_SCHEMA = {
    "type": "object",
    "$defs": {"point": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]}},
    "properties": {"a": {"$ref": "#/$defs/point"}},
    "required": ["a"],
}


def fn(name: str, parameters: Any = ..., **extra: Any) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "description": name, **extra}
    if parameters is not ...:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


TOOLS = [
    fn("get_weather", WEATHER_SCHEMA),
    fn("search", OPEN_SCHEMA),
    fn("no_params", {}),
    fn("missing_params"),
    fn("broken", {"type": "object", "properties": {"x": {"type": "any"}}}),
    fn("day", DATE_SCHEMA),
    fn("draft4", DRAFT4_SCHEMA),
    fn("draft4_as_2020", {k: v for k, v in DRAFT4_SCHEMA.items() if k != "$schema"}),
    fn("draft7", DRAFT7_TUPLE),
    fn("ref", REF_SCHEMA),
    fn("get_weather", {"type": "object"}),  # shadowed by the first get_weather
]


def sample(should_call_tool: bool = True, tools: list[dict[str, Any]] | None = None) -> GeneralFCSample:
    return GeneralFCSample(
        Path("calls.jsonl"),
        "calls",
        0,
        1,
        [{"role": "user", "content": "hi"}],
        TOOLS if tools is None else tools,
        should_call_tool,
        "calls.jsonl:1",
    )


def call(name: str, arguments: Any, call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def calls(*pairs: tuple[str, Any], finish: str | None = "tool_calls") -> ChatResponse:
    return ChatResponse(None, finish, [call(name, args, f"c{i}") for i, (name, args) in enumerate(pairs)])


def args(**kwargs: Any) -> str:
    return json.dumps(kwargs)


TEXT = ChatResponse("Nothing to do.", "stop")

# (label, response, valid, passed, reason_kind, reason) — reason is "" or must be a prefix of the reason.
CASES = {
    "no call, label false": (False, TEXT, None, True, None, ""),
    "no call, label true": (True, TEXT, None, False, None, "expected a tool call, got finish_reason 'stop'"),
    "valid call": (True, calls(("get_weather", args(city="Paris"))), True, True, None, ""),
    "valid call, label false": (
        False,
        calls(("get_weather", args(city="Paris"))),
        True,
        False,
        None,
        "expected no tool call, got 1 call(s)",
    ),
    "several valid calls": (
        True,
        calls(("get_weather", args(city="Paris", unit="c")), ("search", args(q="x"))),
        True,
        True,
        None,
        "",
    ),
    "second call misses a required field": (
        True,
        calls(("get_weather", args(city="Paris")), ("get_weather", args(unit="c"))),
        False,
        False,
        "schema_error",
        "call 2 (get_weather): 'city' is a required property",
    ),
    "first failure decides": (
        True,
        calls(("nope", "{}"), ("get_weather", "{")),
        False,
        False,
        "unknown_tool",
        "call 1: unknown tool 'nope'",
    ),
    "invalid JSON arguments": (
        True,
        calls(("search", '{"q":')),
        False,
        False,
        "json_decode",
        'call 1 (search): arguments are not valid JSON (Expecting value: line 1 column 6 (char 5)): {"q":',
    ),
    # evalscope would turn these into {} or {"q": "hello"} and pass them; K2-Vendor-Verifier does not.
    "non-JSON text arguments": (True, calls(("search", "hello")), False, False, "json_decode", "call 1 (search)"),
    "empty string arguments": (True, calls(("search", "")), False, False, "json_decode", "call 1 (search)"),
    "wrong type": (
        True,
        calls(("get_weather", args(city=5))),
        False,
        False,
        "schema_error",
        "call 1 (get_weather): 5 is not of type 'string' (at city)",
    ),
    "not in enum": (
        True,
        calls(("get_weather", args(city="Paris", unit="k"))),
        False,
        False,
        "schema_error",
        "call 1 (get_weather): 'k' is not one of ['c', 'f'] (at unit)",
    ),
    "missing required": (
        True,
        calls(("get_weather", args(unit="c"))),
        False,
        False,
        "schema_error",
        "call 1 (get_weather): 'city' is a required property",
    ),
    "additionalProperties false": (
        True,
        calls(("get_weather", args(city="Paris", x=1))),
        False,
        False,
        "schema_error",
        "call 1 (get_weather): Additional properties are not allowed ('x' was unexpected)",
    ),
    "extra property, no additionalProperties": (True, calls(("search", args(q="a", extra=1))), True, True, None, ""),
    "arguments a JSON list": (
        True,
        calls(("search", "[]")),
        False,
        False,
        "schema_error",
        "call 1 (search): [] is not of type 'object'",
    ),
    "arguments JSON null": (True, calls(("search", "null")), False, False, "schema_error", "call 1 (search): None"),
    "unknown tool": (True, calls(("foo", "{}")), False, False, "unknown_tool", "call 1: unknown tool 'foo'"),
    "tool calls under finish_reason stop": (
        True,
        calls(("get_weather", args(city="Paris")), finish="stop"),
        None,
        False,
        None,
        "expected a tool call, got finish_reason 'stop' with 1 call(s)",
    ),
    "tool calls under stop, label false": (
        False,
        calls(("get_weather", args(city="Paris")), finish="stop"),
        None,
        True,
        None,
        "",
    ),
    "empty tool_calls with finish_reason tool_calls": (
        True,
        calls(),
        False,
        False,
        "empty_tool_calls",
        "finish_reason 'tool_calls' with no tool_calls",
    ),
    "empty tool_calls, label false": (
        False,
        calls(),
        False,
        False,
        "empty_tool_calls",
        "expected no tool call, got finish_reason 'tool_calls' (with no tool_calls)",
    ),
    "legacy function_call finish reason": (
        True,
        calls(("get_weather", args(city="Paris")), finish="function_call"),
        None,
        False,
        None,
        "expected a tool call, got finish_reason 'function_call'",
    ),
    "length": (
        True,
        ChatResponse("...", "length"),
        None,
        False,
        None,
        "expected a tool call, got finish_reason 'length'",
    ),
    "no finish reason": (
        True,
        ChatResponse("", None),
        None,
        False,
        None,
        "expected a tool call, got finish_reason None",
    ),
    "tool with parameters {}": (
        True,
        calls(("no_params", "{}")),
        False,
        False,
        "missing_parameters",
        "call 1 (no_params): tool 'no_params' has empty parameters",
    ),
    "tool without parameters": (
        True,
        calls(("missing_params", "{}")),
        False,
        False,
        "missing_parameters",
        "call 1 (missing_params): tool 'missing_params' has no parameters",
    ),
    "invalid schema": (
        True,
        calls(("broken", args(x=1))),
        False,
        False,
        "invalid_schema",
        "call 1 (broken): the tool's parameters are not a valid JSON Schema: 'any' is not valid under any of the "
        "given schemas (at properties/x/type)",
    ),
    "format is not asserted": (True, calls(("day", args(day="not a date"))), True, True, None, ""),
    "format type still checked": (True, calls(("day", args(day=3))), False, False, "schema_error", "call 1 (day): 3"),
    "draft 4 selected by $schema, valid": (True, calls(("draft4", args(n=1))), True, True, None, ""),
    "draft 4 boolean exclusiveMinimum applies": (
        True,
        calls(("draft4", args(n=0))),
        False,
        False,
        "schema_error",
        "call 1 (draft4): 0 is less than or equal to the minimum of 0 (at n)",
    ),
    "the same schema without $schema is checked as 2020-12": (
        True,
        calls(("draft4_as_2020", args(n=1))),
        False,
        False,
        "invalid_schema",
        "call 1 (draft4_as_2020): the tool's parameters are not a valid JSON Schema: True is not of type 'number'",
    ),
    "draft 7 tuple items, valid": (True, calls(("draft7", args(pair=["a", 1]))), True, True, None, ""),
    "draft 7 tuple items, wrong": (
        True,
        calls(("draft7", args(pair=[1, "a"]))),
        False,
        False,
        "schema_error",
        "call 1 (draft7): 'a' is not of type 'integer' (at pair/1)",  # jsonschema's best_match, as validate()
    ),
    "arguments given as a dict, valid": (True, calls(("search", {"q": "x"})), True, True, None, ""),
    "arguments given as a dict, invalid": (
        True,
        calls(("search", {"r": "x"})),
        False,
        False,
        "schema_error",
        "call 1 (search): 'q' is a required property",
    ),
    "local $ref, valid": (True, calls(("ref", args(a={"lat": 1.5}))), True, True, None, ""),
    "local $ref, invalid": (
        True,
        calls(("ref", args(a={"lat": "n"}))),
        False,
        False,
        "schema_error",
        "call 1 (ref): 'n' is not of type 'number' (at a/lat)",
    ),
    "duplicate name: the first tool decides": (
        True,
        calls(("get_weather", args(other=1))),
        False,
        False,
        "schema_error",
        "call 1 (get_weather): 'city' is a required property",
    ),
}


@pytest.mark.parametrize(("label", "response", "valid", "passed", "kind", "reason"), CASES.values(), ids=CASES)
def test_verdicts(
    label: bool, response: ChatResponse, valid: bool | None, passed: bool, kind: str | None, reason: str
) -> None:
    result = score_response(sample(label), response)
    assert result.pred is (response.finish_reason == "tool_calls")
    assert result.valid is valid
    assert result.successful is (result.pred and valid is True)
    assert result.passed is passed
    assert result.reason_kind == kind
    if reason:
        assert result.reason.startswith(reason), result.reason
    else:
        assert result.reason == ""


def test_validation_reason_kept_when_the_decision_fails() -> None:
    result = score_response(sample(False), calls(("foo", "{}")))
    assert result.reason == "expected no tool call, got 1 call(s): foo({})"  # the calls as sent
    assert result.failure_kind == "unexpected_call"
    assert (result.valid, result.reason_kind, result.validation_reason) == (
        False,
        "unknown_tool",
        "call 1: unknown tool 'foo'",
    )


def test_record_is_plain_and_complete() -> None:
    record = score_response(sample(True), calls(("get_weather", args(city=5)))).record()
    assert record == {
        "should_call_tool": True,
        "finish_reason": "tool_calls",
        "n_calls": 1,
        "pred": True,
        "schema_valid": False,
        "successful": False,
        "passed": False,
        "reason": "call 1 (get_weather): 5 is not of type 'string' (at city)",
        "reason_kind": "schema_error",
        "validation_reason": "call 1 (get_weather): 5 is not of type 'string' (at city)",
        "failure_kind": "schema_violation",
    }
    assert record["reason_kind"] in REASON_KINDS
    assert json.loads(json.dumps(record)) == record


def test_long_reasons_are_shortened() -> None:
    result = score_response(sample(True), calls(("search", json.dumps(["x" * 1000]))))
    assert result.reason_kind == "schema_error"
    assert len(result.reason) <= 300
    assert result.reason.endswith(" chars]")  # clipped, saying how long it was


def test_remote_ref_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    fetched: list[Any] = []
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: fetched.append(a) or None)
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/remote-schema.json"}}}
    result = score_response(sample(True, [fn("remote", schema)]), calls(("remote", args(a=1))))
    assert fetched == []
    assert (result.valid, result.reason_kind) == (False, "other")
    assert result.reason == "call 1 (remote): cannot validate: Unresolvable: https://example.com/remote-schema.json"


def test_unknown_dollar_schema_falls_back_to_2020_12_quietly(recwarn: pytest.WarningsRecorder) -> None:
    schema = {"$schema": "https://example.com/my-dialect", "type": "object", "required": ["a"]}
    result = score_response(sample(True, [fn("f", schema)]), calls(("f", "{}")))
    assert result.reason == "call 1 (f): 'a' is a required property"
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]


def test_compiled_schemas_are_cached_by_identity_and_by_content() -> None:
    schema = {"type": "object", "properties": {"cache_probe": {"type": "integer"}}}
    first = compile_schema(schema)
    assert compile_schema(schema) is first
    assert compile_schema(json.loads(json.dumps(schema))) is first  # an equal schema from another line
    assert compile_schema({"type": "object", "properties": {"cache_probe": {"type": "string"}}}) is not first


def test_remembered_verdicts_name_each_call() -> None:
    """Validation is remembered per (schema, raw arguments): the message still names the call."""
    tools = [fn("get_weather", WEATHER_SCHEMA), fn("forecast", json.loads(json.dumps(WEATHER_SCHEMA)))]
    bad = args(city=5)
    first = score_response(sample(True, tools), calls(("get_weather", bad)))
    again = score_response(sample(True, tools), calls(("get_weather", args(city="Paris")), ("forecast", bad)))
    assert first.reason == "call 1 (get_weather): 5 is not of type 'string' (at city)"
    assert again.reason == "call 2 (forecast): 5 is not of type 'string' (at city)"
    broken = "{" + "x" * 300
    long_first = score_response(sample(True, tools), calls(("get_weather", broken)))
    long_again = score_response(sample(True, tools), calls(("forecast", broken)))
    assert long_first.reason_kind == long_again.reason_kind == "json_decode"
    assert long_again.reason == long_first.reason.replace("call 1 (get_weather)", "call 1 (forecast)")


# --- agreement with K2-Vendor-Verifier ---------------------------------------------------------------


@cache
def k2vv_rows() -> list[GeneralFCSample]:
    samples, problems = load_file(SHIPPED_SET)
    assert not problems
    return samples


def k2vv_cases() -> list[Any]:
    with open(REPO / "data" / "verdicts" / "general_fc_k2vv.jsonl", encoding="utf-8") as handle:
        return [pytest.param(json.loads(line), id=f"line{n}") for n, line in enumerate(handle, start=1)]


@pytest.mark.parametrize("case", k2vv_cases())
def test_validity_agrees_with_k2vv(case: dict[str, Any]) -> None:
    """Random tool calls for rows of k2vv_zh_511 (right and wrong values, missing and extra keys,
    broken JSON, objects instead of strings, unknown names; some rows with odd tools added: empty or
    missing parameters, an invalid schema, drafts 4 and 7, a shadowed name), with the validity that
    K2-Vendor-Verifier's ``validate_tool_call`` (0bc5061) gives them, run outside this repository."""
    row = k2vv_rows()[case["row"]]
    row = dataclasses.replace(row, tools=row.tools + case["extra_tools"])
    result = score_response(row, ChatResponse(None, "tool_calls", case["tool_calls"]))
    assert result.valid is case["valid"], result.reason


@pytest.mark.parametrize(
    ("label", "response", "kind"),
    [
        (True, ChatResponse("Let me look that up.", "stop"), "no_call"),
        (True, ChatResponse("<tool_call>{...}", "stop"), "tool_markup_in_text"),
        (True, ChatResponse('I will call search(q="x")', "stop"), "tool_markup_in_text"),
        (True, ChatResponse("Let me", "length"), "truncated"),
        (True, ChatResponse(None, "tool_calls"), "no_call"),  # tool_calls finish, no call
        (True, calls(("nope", "{}")), "unknown_tool"),
        (True, calls(("search", "{")), "invalid_json"),
        (True, calls(("search", '{"q": 5}')), "schema_violation"),
        (False, calls(("search", '{"q": "x"}')), "unexpected_call"),
        (True, calls(("search", '{"q": "x"}')), None),
        (False, ChatResponse("Hello.", "stop"), None),
    ],
)
def test_failure_kinds(label: bool, response: ChatResponse, kind: str | None) -> None:
    """Every failed line names why in the shared vocabulary of native tool calling; a pass has none."""
    result = score_response(sample(label), response)
    assert result.failure_kind == kind
    assert (kind is None) is result.passed
