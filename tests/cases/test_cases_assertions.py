"""The public response type and ``assert_tool_calls``, as a Python test uses them."""

from __future__ import annotations

import pytest

from pytest_toolcall.benchmarks.cases.assertions import assert_tool_calls
from pytest_toolcall.benchmarks.cases.response import ToolCall, ToolCallResponse
from pytest_toolcall.core.protocol.types import ChatResponse
from tests.cases.cases_support import TOOLS, answer, text

PARIS = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}


def test_public_response_from_a_chat_response():
    internal = ChatResponse(
        "Checking.",
        "tool_calls",
        [
            {"id": "a", "name": "get_weather", "arguments": '{"city": "Zürich"}'},
            {"id": "b", "name": "get_time", "arguments": "{oops"},
            {"id": "c", "name": "get_time", "arguments": "[1, 2]"},
        ],
        reasoning="think",
        latency_s=0.5,
    )
    public = ToolCallResponse.from_chat_response(internal, usage={"prompt_tokens": 10, "completion_tokens": 3})
    assert public == ToolCallResponse(
        content="Checking.",
        tool_calls=(
            ToolCall("a", "get_weather", {"city": "Zürich"}, '{"city": "Zürich"}'),
            ToolCall("b", "get_time", None, "{oops"),
            ToolCall("c", "get_time", [1, 2], "[1, 2]"),
        ),
        finish_reason="tool_calls",
        usage={"prompt_tokens": 10, "completion_tokens": 3},
        reasoning="think",
        latency_s=0.5,
    )
    assert public.tool_calls[0].arguments["city"] == "Zürich"


def test_passes_silently_on_either_response_type():
    internal = answer(("get_weather", {"city": "Paris"}))
    assert assert_tool_calls(internal, PARIS) is None
    assert assert_tool_calls(ToolCallResponse.from_chat_response(internal), PARIS, tools=TOOLS) is None


def test_raises_an_assertion_error_with_the_diff():
    response = ToolCallResponse.from_chat_response(answer(("get_weather", {"city": "Lyons"})))
    with pytest.raises(AssertionError) as info:
        assert_tool_calls(response, {"calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]})
    assert str(info.value).startswith("wrong_value: ")
    assert "get_weather.city: expected 'Lyon', got 'Lyons'" in str(info.value)


def test_tools_add_the_validity_checks():
    response = answer(("get_weather", {"city": "Paris", "unit": "kelvin"}))
    assert_tool_calls(response, {**PARIS, "allow_extra": True})  # without tools: no schema to check
    with pytest.raises(AssertionError, match=r"^schema_violation: .*\$\.unit"):
        assert_tool_calls(response, {**PARIS, "allow_extra": True}, tools=TOOLS)


def test_no_call_and_text():
    assert_tool_calls(text("Hello"), {"no_call": True})
    with pytest.raises(AssertionError, match=r"^no_call: "):
        assert_tool_calls(text("Hello"), PARIS)


@pytest.mark.parametrize(
    ("expect", "tools", "fragment"),
    [
        ({"calls": [{"name": "get_weather", "arguments": {"city": {"$regex": 1}}}]}, None, "invalid matcher"),
        ({"call": []}, None, "unknown key 'call'"),
        ({}, None, "exactly one of"),
        ({"calls": [{"name": "get_forecast"}]}, TOOLS, "undeclared tool 'get_forecast'"),
        (
            PARIS,
            [{"function": {"name": "get_weather", "parameters": {"type": 1}}}],
            "not a valid, non-empty JSON Schema",
        ),
        (PARIS, "get_weather", "tools must be a list"),
    ],
)
def test_a_malformed_expect_or_tools_is_the_tests_own_error(expect, tools, fragment):
    with pytest.raises(ValueError, match="assert_tool_calls: invalid expect/tools: .*" + fragment):
        assert_tool_calls(answer(("get_weather", {"city": "Paris"})), expect, tools=tools)


def test_the_failure_carries_its_verdict_and_check_does_not_raise():
    from pytest_toolcall.benchmarks.cases.assertions import ToolCallAssertionError, check_tool_calls

    response = answer(("get_weather", "{oops"))
    with pytest.raises(ToolCallAssertionError) as info:
        assert_tool_calls(response, PARIS, tools=TOOLS)
    assert info.value.verdict.failure_kind == "invalid_json"
    assert isinstance(info.value, AssertionError) and str(info.value) == info.value.verdict.message
    verdict = check_tool_calls(response, PARIS, tools=TOOLS)
    assert (verdict.passed, verdict.failure_kind) == (False, "invalid_json")
    assert check_tool_calls(answer(("get_weather", {"city": "Paris"})), PARIS).passed
