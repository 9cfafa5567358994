"""The oracle's answers: each expectation made concrete, and always passing its own case."""

from __future__ import annotations

import json
import re

import pytest

from pytest_toolcall.benchmarks.cases.format import Case
from pytest_toolcall.benchmarks.cases.loading import check_oracle
from pytest_toolcall.benchmarks.cases.oracle import NO_TOOL_ANSWER, OracleError, oracle_answer
from pytest_toolcall.benchmarks.cases.response import judge_case
from pytest_toolcall.benchmarks.general_fc.scoring import validate_tool_calls
from pytest_toolcall.core.protocol.types import ChatRequest
from pytest_toolcall.model.oracle import OracleModel
from tests.cases.cases_support import TOOLS

FREE = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def case(expect, tools=TOOLS) -> Case:
    return Case("x.toolcall.yaml", 1, "c", [{"role": "user", "content": "?"}], tools, (), {}, expect)


def arguments(answer, index=0):
    return json.loads(answer["tool_calls"][index]["arguments"])


def test_text_for_no_call_and_for_should_call_tool_false():
    assert oracle_answer(case({"no_call": True})) == {"content": NO_TOOL_ANSWER}
    assert oracle_answer(case({"should_call_tool": False})) == {"content": NO_TOOL_ANSWER}


def test_a_schema_valid_call_for_should_call_tool_true():
    answer = oracle_answer(case({"should_call_tool": True}))
    (call,) = answer["tool_calls"]
    assert answer["content"] is None and call["name"] == "get_weather"
    assert validate_tool_calls(TOOLS, [call]) is None
    assert isinstance(arguments(answer)["city"], str)


def test_expected_calls_in_order_with_their_values():
    expect = {
        "calls": [
            {"name": "get_time", "arguments": {"city": "Oslo"}},
            {"name": "get_weather", "arguments": {"city": "北京", "days": 3}},
        ]
    }
    answer = oracle_answer(case(expect))
    assert [c["name"] for c in answer["tool_calls"]] == ["get_time", "get_weather"]
    assert [c["id"] for c in answer["tool_calls"]] == ["call_0", "call_1"]
    assert answer["tool_calls"][1]["arguments"] == '{"city": "北京", "days": 3}'  # non-ASCII kept as is


def test_matchers_become_values_that_satisfy_them():
    expect = {
        "calls": [
            {
                "name": "f",
                "arguments": {
                    "one": {"$one_of": ["Köln", "Cologne"]},
                    "near": {"$approx": 0.15, "$tol": 0.01},
                    "code": {"$regex": "[A-Z]{3}-\\d{2,4}"},
                    "nested": {"list": [{"$regex": "(?i)yes|no"}, 2]},
                },
            }
        ]
    }
    values = arguments(oracle_answer(case(expect, [FREE])))
    assert values["one"] == "Köln" and values["near"] == 0.15
    assert re.fullmatch("[A-Z]{3}-\\d{2,4}", values["code"])
    assert re.fullmatch("(?i)yes|no", values["nested"]["list"][0]) and values["nested"]["list"][1] == 2


def test_any_gets_a_schema_valid_value():
    expect = {
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Oslo", "unit": {"$any": True}, "days": {"$any": True}}}
        ]
    }
    values = arguments(oracle_answer(case(expect)))
    assert values["unit"] in ("celsius", "fahrenheit") and isinstance(values["days"], int) and 1 <= values["days"] <= 7


def test_regex_prefers_an_enum_value_that_matches():
    tool = {
        "type": "function",
        "function": {"name": "g", "parameters": {"type": "object", "properties": {"m": {"enum": ["walk", "drive"]}}}},
    }
    values = arguments(oracle_answer(case({"calls": [{"name": "g", "arguments": {"m": {"$regex": "dr.*"}}}]}, [tool])))
    assert values == {"m": "drive"}


def test_allow_extra_fills_required_arguments_the_case_leaves_out():
    tool = {
        "type": "function",
        "function": {
            "name": "g",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "n": {"type": "integer", "minimum": 5}},
                "required": ["a", "n"],
            },
        },
    }
    values = arguments(
        oracle_answer(case({"allow_extra": True, "calls": [{"name": "g", "arguments": {"a": "x"}}]}, [tool]))
    )
    assert values["a"] == "x" and isinstance(values["n"], int) and values["n"] >= 5


def test_any_of_answers_the_first_alternative():
    expect = {"any_of": [{"calls": [{"name": "get_time", "arguments": {"city": "Oslo"}}]}, {"no_call": True}]}
    assert oracle_answer(case(expect))["tool_calls"][0]["name"] == "get_time"
    assert oracle_answer(case({"any_of": [{"no_call": True}, expect]})) == {"content": NO_TOOL_ANSWER}


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?!x)x", "a\\bb"])
def test_a_regex_the_oracle_cannot_satisfy_is_an_error(pattern):
    with pytest.raises(
        OracleError, match=re.escape(f"f.x: cannot produce a string that fully matches $regex {pattern!r}")
    ):
        oracle_answer(case({"calls": [{"name": "f", "arguments": {"x": {"$regex": pattern}}}]}, [FREE]))


def test_should_call_tool_with_no_callable_tool_is_an_error():
    impossible = {
        "type": "function",
        "function": {
            "name": "h",
            "parameters": {
                "type": "object",
                "properties": {"x": {"type": "string", "minLength": 3, "maxLength": 2}},
                "required": ["x"],
            },
        },
    }
    with pytest.raises(OracleError, match="no declared tool can be called"):
        oracle_answer(case({"should_call_tool": True}, [impossible]))


def test_check_oracle_refuses_cases_no_answer_passes():
    with pytest.raises(OracleError, match=r"no model can pass it: schema_violation: .*\$\.days"):
        check_oracle(case({"calls": [{"name": "get_weather", "arguments": {"city": "Oslo", "days": 30}}]}))
    check_oracle(case({"calls": [{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}]}))


@pytest.mark.parametrize(
    "expect",
    [
        {"no_call": True},
        {"should_call_tool": True},
        {"should_call_tool": False},
        {"calls": [{"name": "get_weather", "arguments": {"city": {"$regex": "Os.o"}, "unit": {"$any": True}}}]},
        {
            "ordered": True,
            "calls": [
                {"name": "get_time", "arguments": {"city": "A"}},
                {"name": "get_weather", "arguments": {"city": "B"}},
            ],
        },
        {
            "any_of": [
                {"calls": [{"name": "get_weather", "arguments": {"city": {"$one_of": ["x", "y"]}}}]},
                {"no_call": True},
            ]
        },
    ],
)
def test_the_oracle_model_answer_passes_through_the_plugin_path(expect):
    # The path the plugin takes: the answer travels as ChatRequest.reference through the oracle model.
    this = case(expect)
    request = ChatRequest(this.messages, this.tools, this.sampling(), reference=oracle_answer(this))
    response = OracleModel().submit(request).result()
    assert judge_case(this, response).passed
