"""The rules of a case, one by one: each answer's verdict is written by hand from the rules of the case
format (pytest_toolcall/benchmarks/cases/README.md) and the failure kinds (docs/contract.md)."""

from __future__ import annotations

import pytest

from pytest_toolcall.benchmarks.cases.matching import json_equal
from pytest_toolcall.benchmarks.cases.response import judge_response
from tests.cases.cases_support import TOOLS, answer, text

PARIS = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}


def verdict(expect, response, tools=TOOLS):
    return judge_response(response, expect, tools)


def assert_fails(expect, response, kind, *fragments, tools=TOOLS):
    result = verdict(expect, response, tools)
    assert not result.passed
    assert result.failure_kind == kind, result.message
    assert result.message.startswith(f"{kind}: ")
    for fragment in fragments:
        assert fragment in result.message, result.message
    return result


def assert_passes(expect, response, tools=TOOLS):
    result = verdict(expect, response, tools)
    assert result.passed, result.message
    assert result.failure_kind is None and result.message == ""


# ---- no_call and should_call_tool -----------------------------------------------------------------


def test_no_call_passes_on_text():
    assert_passes({"no_call": True}, text("Hello! I can check the weather."))


def test_no_call_fails_on_any_call():
    assert_fails({"no_call": True}, answer(("get_weather", {"city": "Paris"})), "unexpected_call", "got 1: get_weather")


def test_no_call_fails_even_on_an_invalid_call():
    assert_fails({"no_call": True}, answer(("nope", "{")), "unexpected_call")


def test_should_call_tool_true_passes_on_any_valid_call():
    assert_passes({"should_call_tool": True}, answer(("get_time", {"city": "Oslo"})))


def test_should_call_tool_true_fails_on_text():
    assert_fails({"should_call_tool": True}, text("It is sunny."), "no_call", "expected a tool call, got none")


def test_should_call_tool_true_still_requires_valid_calls():
    assert_fails({"should_call_tool": True}, answer(("get_weather", {"city": 3})), "schema_violation", "$.city")


def test_should_call_tool_false():
    assert_passes({"should_call_tool": False}, text("Summer is hotter because of the axial tilt."))
    assert_fails({"should_call_tool": False}, answer(("get_time", {"city": "Oslo"})), "unexpected_call")


# ---- calls: values ---------------------------------------------------------------------------------


def test_exact_call_passes():
    assert_passes(PARIS, answer(("get_weather", {"city": "Paris"})))


def test_wrong_value_names_the_argument_and_both_values():
    result = assert_fails(
        {"calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]},
        answer(("get_weather", {"city": "Lyons"})),
        "wrong_value",
        "get_weather.city: expected 'Lyon', got 'Lyons'",
    )
    assert [(r.position, r.kind) for r in result.calls] == [(1, "wrong_value")]


def test_strings_match_exactly():
    assert_fails(PARIS, answer(("get_weather", {"city": "paris"})), "wrong_value")
    assert_fails(PARIS, answer(("get_weather", {"city": "Paris "})), "wrong_value")


def test_an_argument_not_listed_fails_unless_allow_extra():
    response = answer(("get_weather", {"city": "Paris", "unit": "celsius"}))
    assert_fails(PARIS, response, "wrong_value", "get_weather.unit: not expected, got 'celsius'")
    assert_passes({**PARIS, "allow_extra": True}, response)


def test_a_listed_argument_missing_fails():
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]}
    assert_fails(
        expect, answer(("get_weather", {"city": "Paris"})), "wrong_value", "get_weather.days: missing (expected 3)"
    )
    assert_fails({**expect, "allow_extra": True}, answer(("get_weather", {"city": "Paris"})), "wrong_value")


def test_numbers_compare_by_value_but_booleans_are_not_numbers():
    assert json_equal(100, 100.0) and json_equal(0, -0.0)
    assert not json_equal(True, 1) and not json_equal(1, True) and not json_equal(False, 0)
    assert not json_equal("1", 1) and not json_equal(None, 0) and not json_equal([1], (1,))
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}) and not json_equal({"a": 1}, {"a": 1, "b": 2})
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    expect = {"calls": [{"name": "f", "arguments": {"n": 100}}]}
    assert_passes(expect, answer(("f", '{"n": 100.0}')), tools)
    assert_fails(
        {"calls": [{"name": "f", "arguments": {"n": 1}}]}, answer(("f", '{"n": true}')), "wrong_value", tools=tools
    )
    expect = {"calls": [{"name": "f", "arguments": {"flag": True}}]}
    assert_fails(expect, answer(("f", '{"flag": 1}')), "wrong_value", "f.flag: expected true, got 1", tools=tools)


def test_nested_objects_and_lists():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    expect = {"calls": [{"name": "f", "arguments": {"who": {"name": "Ana", "tags": ["a", "b"]}}}]}
    assert_passes(expect, answer(("f", {"who": {"tags": ["a", "b"], "name": "Ana"}})), tools)
    assert_fails(
        expect,
        answer(("f", {"who": {"name": "Ana", "tags": ["b", "a"]}})),
        "wrong_value",
        "f.who.tags[0]: expected 'a', got 'b'",
        tools=tools,
    )
    assert_fails(
        expect,
        answer(("f", {"who": {"name": "Ana", "tags": ["a"]}})),
        "wrong_value",
        "f.who.tags: expected",
        tools=tools,
    )
    assert_fails(
        expect,
        answer(("f", {"who": {"name": "Ana", "tags": ["a", "b"], "age": 3}})),
        "wrong_value",
        "f.who.age: not expected",
        tools=tools,
    )
    assert_passes(
        {**expect, "allow_extra": True}, answer(("f", {"who": {"name": "Ana", "tags": ["a", "b"], "age": 3}})), tools
    )


def test_non_ascii_values():
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": "北京"}}]}
    assert_passes(expect, answer(("get_weather", '{"city": "北京"}')))
    assert_passes(expect, answer(("get_weather", '{"city": "\\u5317\\u4eac"}')))  # the same string, escaped
    assert_fails(expect, answer(("get_weather", {"city": "南京"})), "wrong_value", "expected '北京', got '南京'")
    zurich = {"calls": [{"name": "get_weather", "arguments": {"city": "Zürich"}}]}
    assert_fails(zurich, answer(("get_weather", {"city": "Zurich"})), "wrong_value", "expected 'Zürich', got 'Zurich'")


# ---- matchers --------------------------------------------------------------------------------------


def _one(city_matcher):
    return {"calls": [{"name": "get_weather", "arguments": {"city": city_matcher}}]}


def test_regex_is_a_full_match():
    expect = _one({"$regex": "New York( City)?"})
    assert_passes(expect, answer(("get_weather", {"city": "New York"})))
    assert_passes(expect, answer(("get_weather", {"city": "New York City"})))
    assert_fails(
        expect,
        answer(("get_weather", {"city": "New York, NY"})),
        "wrong_value",
        "expected a string matching 'New York( City)?'",
    )
    assert_fails(_one({"$regex": "York"}), answer(("get_weather", {"city": "New York"})), "wrong_value")


def test_regex_against_a_non_string():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    expect = {"calls": [{"name": "f", "arguments": {"n": {"$regex": "[0-9]+"}}}]}
    assert_fails(
        expect, answer(("f", {"n": 12})), "wrong_value", "f.n: expected a string matching '[0-9]+', got 12", tools=tools
    )


def test_one_of():
    expect = _one({"$one_of": ["Köln", "Cologne"]})
    assert_passes(expect, answer(("get_weather", {"city": "Cologne"})))
    assert_passes(expect, answer(("get_weather", {"city": "Köln"})))
    assert_fails(
        expect,
        answer(("get_weather", {"city": "Koeln"})),
        "wrong_value",
        'expected one of ["Köln", "Cologne"], got \'Koeln\'',
    )


def test_approx_with_and_without_tolerance():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    loose = {"calls": [{"name": "f", "arguments": {"x": {"$approx": 0.15, "$tol": 0.01}}}]}
    assert_passes(loose, answer(("f", {"x": 0.155})), tools)
    assert_passes(loose, answer(("f", {"x": 0.14})), tools)
    assert_fails(loose, answer(("f", {"x": 0.17})), "wrong_value", "f.x: expected 0.15 ± 0.01, got 0.17", tools=tools)
    assert_fails(loose, answer(("f", {"x": "0.15"})), "wrong_value", tools=tools)
    assert_fails(loose, answer(("f", '{"x": true}')), "wrong_value", tools=tools)
    exactish = {"calls": [{"name": "f", "arguments": {"x": {"$approx": 0.3}}}]}
    assert_passes(exactish, answer(("f", {"x": 0.1 + 0.2})), tools)  # 0.30000000000000004
    assert_fails(exactish, answer(("f", {"x": 0.3001})), "wrong_value", tools=tools)
    assert_fails(exactish, answer(("f", '{"x": NaN}')), "wrong_value", tools=tools)


def test_any_needs_presence_only():
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": {"$any": True}}}]}
    assert_passes(expect, answer(("get_weather", {"city": "Paris", "unit": "fahrenheit"})))
    assert_fails(expect, answer(("get_weather", {"city": "Paris"})), "wrong_value", "get_weather.unit: missing")


# ---- calls: several --------------------------------------------------------------------------------

OSLO_MADRID = {
    "calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}},
        {"name": "get_weather", "arguments": {"city": "Madrid"}},
    ]
}


def test_parallel_calls_in_any_order():
    assert_passes(OSLO_MADRID, answer(("get_weather", {"city": "Madrid"}), ("get_weather", {"city": "Oslo"})))
    assert_passes(OSLO_MADRID, answer(("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Madrid"})))


def test_multiset_matching_is_not_greedy():
    # The first expected call accepts both answers; only a maximum matching gives the second one its call.
    expect = {
        "calls": [
            {"name": "get_weather", "arguments": {"city": {"$one_of": ["Oslo", "Bergen"]}}},
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
        ]
    }
    assert_passes(expect, answer(("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})))
    assert_passes(expect, answer(("get_weather", {"city": "Bergen"}), ("get_weather", {"city": "Oslo"})))
    assert_fails(
        expect,
        answer(("get_weather", {"city": "Bergen"}), ("get_weather", {"city": "Bergen"})),
        "wrong_value",
        "expected 'Oslo', got 'Bergen'",
    )


def test_missing_call():
    result = assert_fails(
        OSLO_MADRID, answer(("get_weather", {"city": "Oslo"})), "missing_call", "missing call 2: get_weather"
    )
    assert [(r.position, r.kind) for r in result.calls] == [(1, None), (None, "missing_call")]


def test_duplicated_call_is_an_extra_call():
    assert_fails(
        PARIS,
        answer(("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Paris"})),
        "extra_call",
        "one more than expected",
    )


def test_extra_call_to_another_tool():
    assert_fails(
        PARIS,
        answer(("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})),
        "extra_call",
        "extra call 2 get_time",
    )


def test_wrong_tool_is_a_missing_call_plus_an_extra_call():
    result = assert_fails(
        PARIS,
        answer(("get_time", {"city": "Paris"})),
        "missing_call",
        "missing call 1: get_weather",
        "extra call 1 get_time",
    )
    assert {r.kind for r in result.calls} == {"missing_call", "extra_call"}


def test_wrong_value_in_the_second_of_two_calls():
    result = assert_fails(
        OSLO_MADRID,
        answer(("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Madird"})),
        "wrong_value",
        "call 2 get_weather (expected call 2)",
        "get_weather.city: expected 'Madrid', got 'Madird'",
    )
    assert [(r.position, r.kind) for r in result.calls] == [(1, None), (2, "wrong_value")]


def test_text_instead_of_calls():
    assert_fails(
        OSLO_MADRID,
        text("Oslo is colder than Madrid."),
        "no_call",
        "expected 2 tool call(s) (get_weather, get_weather), got none",
        "answer: text 'Oslo is colder than Madrid.'",
    )


def test_ordered_calls():
    expect = {
        "ordered": True,
        "calls": [
            {"name": "get_time", "arguments": {"city": "Oslo"}},
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
        ],
    }
    assert_passes(expect, answer(("get_time", {"city": "Oslo"}), ("get_weather", {"city": "Oslo"})))
    result = assert_fails(
        expect,
        answer(("get_weather", {"city": "Oslo"}), ("get_time", {"city": "Oslo"})),
        "wrong_order",
        "expected get_time, get_weather; got get_weather, get_time",
    )
    assert [r.kind for r in result.calls] == ["wrong_order", "wrong_order"]
    unordered = {"calls": expect["calls"]}
    assert_passes(unordered, answer(("get_weather", {"city": "Oslo"}), ("get_time", {"city": "Oslo"})))


def test_ordered_with_a_wrong_value_is_a_wrong_value():
    expect = {"ordered": True, **OSLO_MADRID}
    assert_fails(
        expect,
        answer(("get_weather", {"city": "Madrid"}), ("get_weather", {"city": "Bergen"})),
        "wrong_value",
        "expected 'Oslo', got 'Bergen'",
    )


# ---- validity ---------------------------------------------------------------------------------------


def test_unknown_tool():
    assert_fails(
        {"should_call_tool": True},
        answer(("get_forecast", {"city": "Paris"})),
        "unknown_tool",
        "call 1 get_forecast: unknown tool (declared: get_weather, get_time)",
    )
    assert_fails(PARIS, answer(("get_weather", {"city": "Paris"}), ("search", {"q": "x"})), "unknown_tool")


def test_arguments_that_are_not_json():
    assert_fails(
        PARIS,
        answer(("get_weather", "{'city': 'Paris'}")),
        "invalid_json",
        "call 1 get_weather: arguments are not valid JSON",
    )
    assert_fails(PARIS, answer(("get_weather", "")), "invalid_json")
    assert_fails(PARIS, answer(("get_weather", '{"city": "Paris"')), "invalid_json")


def test_arguments_that_are_json_but_not_an_object():
    assert_fails(PARIS, answer(("get_weather", '["Paris"]')), "invalid_json", "arguments are not a JSON object")
    assert_fails(PARIS, answer(("get_weather", '"Paris"')), "invalid_json", "not a JSON object")
    assert_fails(PARIS, answer(("get_weather", "null")), "invalid_json")
    # Without declared tools (a Python test given no tools) the object rule still holds.
    assert_fails(PARIS, answer(("get_weather", "[1]")), "invalid_json", tools=None)


def test_schema_violations_name_their_json_path():
    assert_fails(
        PARIS,
        answer(("get_weather", {"city": "Paris", "unit": "kelvin"})),
        "schema_violation",
        "schema violation at $.unit",
        "'kelvin' is not one of",
    )
    assert_fails(PARIS, answer(("get_weather", {"city": "Paris", "days": 30})), "schema_violation", "$.days")
    assert_fails(PARIS, answer(("get_weather", {"town": "Paris"})), "schema_violation", "'city' is a required property")
    assert_fails(PARIS, answer(("get_weather", {"city": ["Paris"]})), "schema_violation", "$.city")


def test_validity_comes_before_the_comparison():
    # The extra argument would be a wrong value; the schema forbids it first (additionalProperties: false).
    assert_fails(
        {**PARIS, "allow_extra": True}, answer(("get_weather", {"city": "Paris", "country": "FR"})), "schema_violation"
    )


def test_without_tools_names_and_schemas_are_not_checked():
    assert_passes({"calls": [{"name": "anything", "arguments": {"x": 1}}]}, answer(("anything", {"x": 1})), tools=None)


# ---- any_of -------------------------------------------------------------------------------------


def test_any_of():
    expect = {
        "any_of": [
            {"no_call": True},
            {"calls": [{"name": "get_weather", "arguments": {"city": {"$regex": "Springfield.*"}}}]},
        ]
    }
    assert_passes(expect, text("Which Springfield?"))
    assert_passes(expect, answer(("get_weather", {"city": "Springfield, IL"})))
    result = assert_fails(
        expect,
        answer(("get_weather", {"city": "Shelbyville"})),
        "unexpected_call",
        "none of the 2 alternatives passed",
        "alternative 1 (unexpected_call)",
        "alternative 2 (wrong_value)",
    )
    assert "expected a string matching 'Springfield.*', got 'Shelbyville'" in result.message


def test_nested_any_of():
    expect = {"any_of": [{"any_of": [PARIS]}, {"should_call_tool": False}]}
    assert_passes(expect, answer(("get_weather", {"city": "Paris"})))
    assert_fails(expect, answer(("get_weather", {"city": "Nice"})), "wrong_value")


# ---- truncation and leaked markup -----------------------------------------------------------------


def test_truncated_answer():
    result = assert_fails(
        PARIS, text("Let me check the weather in", finish="length"), "truncated", "finish_reason 'length'", "no_call"
    )
    assert result.failure_kind == "truncated"
    assert_fails(PARIS, answer(("get_weather", '{"city": "Par'), finish="length"), "truncated", "invalid_json")


def test_a_complete_answer_cut_by_length_still_passes():
    assert_passes(PARIS, answer(("get_weather", {"city": "Paris"}), finish="length"))


@pytest.mark.parametrize(
    "leaked",
    [
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        "[TOOL_CALLS] get_weather",
        'get_weather(city="Paris")',
        "<|tool_calls_section_begin|> <|tool_call_begin|> functions.get_weather:0",
        '<function=get_weather>{"city": "Paris"}</function>',
    ],
)
def test_tool_markup_in_text(leaked):
    assert_fails(PARIS, text(leaked), "tool_markup_in_text", "tool-call syntax")
    assert_fails({"should_call_tool": True}, text(leaked), "tool_markup_in_text")


def test_plain_text_mentioning_weather_is_no_markup():
    assert_fails(PARIS, text("The weather in Paris is mild (about 15 °C)."), "no_call")


def test_markup_when_one_of_two_calls_is_missing():
    response = answer(("get_weather", {"city": "Oslo"}), content='<tool_call>{"name": "get_weather"}</tool_call>')
    assert_fails(OSLO_MADRID, response, "tool_markup_in_text", "missing call 2")


def test_answers_from_the_public_type_and_the_internal_one_agree():
    from pytest_toolcall.benchmarks.cases.response import ToolCallResponse

    internal = answer(("get_weather", {"city": "Lyons"}), ("get_time", "{bad"))
    public = ToolCallResponse.from_chat_response(internal)
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]}
    assert verdict(expect, internal) == verdict(expect, public)


def test_hostile_arguments_give_a_verdict_not_a_crash():
    deep = '{"city": ' + "[" * 5000 + "]" * 5000 + "}"
    # Python < 3.13 refuses this nesting in json.loads (not JSON for us); 3.13 parses it (then the schema refuses it).
    assert verdict(PARIS, answer(("get_weather", deep))).failure_kind in ("invalid_json", "schema_violation")
    nested = '{"city": ' + "[" * 500 + "]" * 500 + "}"  # JSON, but not what the schema wants
    assert_fails(PARIS, answer(("get_weather", nested)), "schema_violation", "$.city")
    assert_fails(PARIS, answer(("get_weather", '{"city": "' + "x" * 100_000 + '"}')), "wrong_value", "...")
    huge = '{"city": ' + "9" * 5000 + "}"  # beyond Python's int digit limit
    assert_fails(PARIS, answer(("get_weather", huge)), "invalid_json")
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    expect = {"calls": [{"name": "f", "arguments": {"a": {"b": 1}}}]}
    assert_fails(
        expect,
        answer(("f", '{"a": {"b": ' + "[" * 500 + "]" * 500 + "}}")),
        "wrong_value",
        "f.a.b: expected 1, got [[[",
        tools=tools,
    )
