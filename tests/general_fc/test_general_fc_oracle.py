"""The general_fc oracle: every shared line passes our own scorer, and generated arguments validate for
a range of schema keywords."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_DATA
from pytest_toolcall.benchmarks.general_fc.dataset import GeneralFCSample, load_file
from pytest_toolcall.benchmarks.general_fc.metrics import general_fc_metrics
from pytest_toolcall.benchmarks.general_fc.oracle import NO_TOOL_ANSWER, general_fc_answer
from pytest_toolcall.benchmarks.general_fc.scoring import score_response
from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse
from pytest_toolcall.model.oracle import OracleModel


def oracle_response(sample: GeneralFCSample) -> ChatResponse:
    """Through the built-in oracle model, as a run would get it."""
    request = ChatRequest(sample.messages, sample.tools, reference=general_fc_answer(sample))
    return OracleModel().submit(request).result()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "size", "positives"), [("example_3", 3, 2), ("k2vv_zh_511", 511, 453)])
def test_oracle_passes_every_shared_line(general_fc_set: Path, name: str, size: int, positives: int) -> None:
    samples, _ = load_file(general_fc_set if name == "k2vv_zh_511" else TEST_DATA / "general_fc" / f"{name}.jsonl")
    assert len(samples) == size
    records = []
    for sample in samples:
        result = score_response(sample, oracle_response(sample))
        assert result.passed, f"{sample.source}: {result.reason}"
        records.append({**result.record(), "outcome": "passed"})
    metrics = general_fc_metrics(records)
    assert (metrics["TP"], metrics["TN"], metrics["FP"], metrics["FN"]) == (positives, size - positives, 0, 0)
    assert metrics["tool_call_f1"] == 1.0
    assert metrics["schema_accuracy"] == 1.0


def sample(tools: list[dict[str, Any]], should_call_tool: bool = True) -> GeneralFCSample:
    return GeneralFCSample(
        Path("o.jsonl"), "o", 0, 1, [{"role": "user", "content": "go"}], tools, should_call_tool, "o.jsonl:1"
    )


def fn(name: str, parameters: Any = ...) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name}
    if parameters is not ...:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


def obj(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        **extra,
    }


SCHEMAS = {
    "scalars": obj(
        {"s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"}}
    ),
    "enum and const": obj(
        {"e": {"enum": ["x", "y"]}, "c": {"const": {"k": [1]}}, "te": {"type": "integer", "enum": [3]}}
    ),
    "enum filtered by type": obj({"e": {"type": "integer", "enum": ["a", 2]}}),
    "formats": obj(
        {f: {"type": "string", "format": f} for f in ("date", "date-time", "email", "uri", "uuid", "weird")}
    ),
    "string lengths": obj({"short": {"type": "string", "maxLength": 3}, "long": {"type": "string", "minLength": 20}}),
    "patterns": obj(
        {
            "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2,4}$"},
            "alt": {"type": "string", "pattern": "^(foo|bar)+baz?$"},
            "neg": {"type": "string", "pattern": "^[^a-z]\\w+\\s\\S$", "minLength": 6},
            "phone": {"type": "string", "pattern": "^\\+?[1-9]\\d{1,14}$"},
        }
    ),
    "integer bounds": obj(
        {
            "big": {"type": "integer", "minimum": 10},
            "neg": {"type": "integer", "maximum": -5},
            "open": {"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 3},
            "mult": {"type": "integer", "minimum": 7, "multipleOf": 5},
        }
    ),
    "number bounds": obj(
        {
            "rate": {"type": "number", "minimum": 0, "maximum": 0.5},
            "tiny": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.001},
            "cents": {"type": "number", "minimum": 0.15, "multipleOf": 0.05},
        }
    ),
    "arrays": obj(
        {
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 3, "uniqueItems": True},
            "none": {"type": "array", "maxItems": 0},
            "nums": {
                "type": "array",
                "items": {"type": "integer", "enum": [1, 2, 3]},
                "minItems": 2,
                "uniqueItems": True,
            },
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False},
            "has": {"type": "array", "contains": {"const": 7}},
        }
    ),
    "nested objects": obj(
        {"point": obj({"lat": {"type": "number", "minimum": -90, "maximum": 90}, "lng": {"type": "number"}})}
    ),
    "optional properties skipped, additionalProperties false": obj(
        {"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"], additionalProperties=False
    ),
    "additionalProperties schema": obj(
        {"dims": {"type": "object", "additionalProperties": {"type": "number"}, "minProperties": 2}}
    ),
    "required but undeclared": {"type": "object", "required": ["x"], "additionalProperties": {"type": "integer"}},
    "patternProperties": {"type": "object", "required": ["x_1"], "patternProperties": {"^x_": {"type": "boolean"}}},
    "minProperties from declared": obj({"a": {"type": "string"}, "b": {"type": "string"}}, [], minProperties=2),
    "dependentRequired": obj(
        {"a": {"type": "string"}, "b": {"type": "integer"}}, ["a"], dependentRequired={"a": ["b"]}
    ),
    "type lists and nullable": obj(
        {
            "maybe": {"type": ["number", "null"]},
            "null_first": {"type": ["null", "string"], "minLength": 2},
            "nullable": {"type": "string", "nullable": True},
            "any": {},
        }
    ),
    "anyOf": obj({"v": {"anyOf": [{"type": "string", "maxLength": 0, "minLength": 1}, {"type": "integer"}]}}),
    "oneOf with overlap": obj({"v": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}),
    "oneOf objects": obj(
        {"v": {"oneOf": [obj({"kind": {"const": "a"}}), obj({"kind": {"const": "b"}, "n": {"type": "integer"}})]}}
    ),
    "allOf": {"allOf": [obj({"a": {"type": "string"}}), obj({"b": {"type": "integer", "minimum": 2}})]},
    "$ref to $defs": {
        "type": "object",
        "$defs": {
            "unit": {"enum": ["kg", "lb"]},
            "qty": {"type": "object", "properties": {"u": {"$ref": "#/$defs/unit"}}, "required": ["u"]},
        },
        "properties": {"q": {"$ref": "#/$defs/qty"}},
        "required": ["q"],
    },
    "recursive $ref": {
        "type": "object",
        "$defs": {
            "node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
        },
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "required": ["tree"],
    },
    "recursive required array": {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                "required": ["kids"],
            }
        },
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "required": ["tree"],
    },
    "draft 7 definitions and tuple items": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"id": {"type": "string", "pattern": "^id[0-9]+$"}},
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": [{"$ref": "#/definitions/id"}, {"type": "integer"}], "minItems": 2}
        },
        "required": ["ids"],
    },
    "draft 4 boolean exclusiveMinimum": {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1, "exclusiveMinimum": True, "maximum": 2}},
        "required": ["n"],
    },
    "untyped top level": {"properties": {"q": {"type": "string"}}, "required": ["q"]},
    "boolean schema true": True,
}


@pytest.mark.parametrize("schema", SCHEMAS.values(), ids=SCHEMAS)
def test_generated_arguments_validate(schema: Any) -> None:
    item = sample([fn("f", schema)])
    answer = general_fc_answer(item)
    (call,) = answer["tool_calls"]
    assert (call["id"], call["name"]) == ("call_0", "f")
    assert isinstance(call["arguments"], str)
    json.loads(call["arguments"])
    result = score_response(item, oracle_response(item))
    assert result.passed, f"{result.reason}; arguments {call['arguments']}"


def test_generated_values_look_like_the_schema() -> None:
    schema = SCHEMAS["formats"]
    args = json.loads(general_fc_answer(sample([fn("f", schema)]))["tool_calls"][0]["arguments"])
    assert args["date"] == "2024-01-01"
    assert args["email"] == "user@example.com"
    schema = SCHEMAS["optional properties skipped, additionalProperties false"]
    assert json.loads(general_fc_answer(sample([fn("f", schema)]))["tool_calls"][0]["arguments"]) == {"a": "example"}


def test_negative_label_answers_text() -> None:
    answer = general_fc_answer(sample([fn("f", SCHEMAS["scalars"])], should_call_tool=False))
    assert answer == {"content": NO_TOOL_ANSWER}
    response = oracle_response(sample([fn("f", SCHEMAS["scalars"])], should_call_tool=False))
    assert (response.finish_reason, response.tool_calls, response.content) == ("stop", [], NO_TOOL_ANSWER)


def test_first_usable_tool_is_called() -> None:
    tools = [
        fn("empty", {}),
        fn("missing"),
        fn("broken", {"type": "any"}),
        fn("never", obj({"x": False})),
        fn("ok", obj({})),
    ]
    answer = general_fc_answer(sample(tools))
    assert answer["tool_calls"] == [{"id": "call_0", "name": "ok", "arguments": "{}"}]


UNCALLABLE = {
    "parameters {}": [fn("f", {})],
    "no parameters": [fn("f")],
    "invalid schema": [fn("f", {"type": "object", "properties": {"x": {"type": "any"}}})],
    "unsatisfiable": [fn("f", obj({"x": False}))],
    "contradictory bounds": [fn("f", obj({"n": {"type": "integer", "minimum": 3, "maximum": 2}}))],
    "usable tool shadowed by an unusable one of the same name": [fn("f", {}), fn("f", obj({}))],
}


@pytest.mark.parametrize("tools", UNCALLABLE.values(), ids=UNCALLABLE)
def test_no_callable_tool_calls_the_first_with_empty_arguments(tools: list[dict[str, Any]]) -> None:
    item = sample(tools)
    answer = general_fc_answer(item)
    assert answer == {"content": None, "tool_calls": [{"id": "call_0", "name": "f", "arguments": "{}"}]}
    assert general_fc_answer(item) == answer  # deterministic
    result = score_response(item, oracle_response(item))
    assert (result.pred, result.valid, result.passed) == (True, False, False)


def test_answers_are_deterministic(general_fc_set: Path) -> None:
    samples, _ = load_file(general_fc_set)
    first = [general_fc_answer(s) for s in samples[:50]]
    assert [general_fc_answer(s) for s in samples[:50]] == first


def test_arguments_built_once_per_schema_are_called_with_each_tool_name() -> None:
    schema = obj({"city": {"type": "string"}}, required=["city"])
    first = general_fc_answer(sample([fn("weather", schema)]))
    # An equal schema on another tool of another line: the arguments are shared, the name is not.
    second = general_fc_answer(sample([fn("forecast", json.loads(json.dumps(schema)))]))
    assert first["tool_calls"][0]["name"] == "weather"
    assert second["tool_calls"][0]["name"] == "forecast"
    assert second["tool_calls"][0]["arguments"] == first["tool_calls"][0]["arguments"] == '{"city": "example"}'
    # Shadowed by an earlier tool of the same name that cannot take them: still checked per line.
    shadowed = general_fc_answer(sample([fn("forecast", {}), fn("forecast", schema)]))
    assert shadowed["tool_calls"] == [{"id": "call_0", "name": "forecast", "arguments": "{}"}]
