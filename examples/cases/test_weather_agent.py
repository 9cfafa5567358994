"""A Python test of a weather agent, scored like the case files next to it.

Run with ``pytest --toolcall-model MODEL examples/cases/``. The ``toolcall_chat`` fixture asks the
model (through the response store and the run's concurrency) and returns a ``ToolCallResponse``:
``.content``, ``.tool_calls`` (each with ``.name``, ``.arguments`` parsed, ``.raw_arguments``),
``.finish_reason`` and ``.usage``. ``assert_tool_calls`` applies the rules of case files and fails
with a diff such as ``get_weather.city: expected 'Lyon', got 'Lyons'``. These tests are counted in the
``cases`` block beside the case files (file = this module, tags = the tests' markers).

With ``--toolcall-model oracle`` each answer is the oracle's answer to the expectation the test then
asserts (so the suite checks its own expectations offline).
"""

from __future__ import annotations

import json

import pytest

from pytest_toolcall import assert_tool_calls

SYSTEM = "You are a weather assistant. Use the tools to answer; never guess the weather."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather, or a forecast of up to 7 days, for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]


def ask(toolcall_chat, *messages):
    return toolcall_chat([{"role": "system", "content": SYSTEM}, *messages], tools=TOOLS, temperature=0)


@pytest.mark.parametrize("city", ["Paris", "Lyon", "São Paulo", "東京"])
def test_current_weather(toolcall_chat, city):
    response = ask(toolcall_chat, {"role": "user", "content": f"What's the weather in {city} right now?"})
    assert_tool_calls(response, {"calls": [{"name": "get_weather", "arguments": {"city": city}}]}, tools=TOOLS)


def test_forecast_in_fahrenheit(toolcall_chat):
    response = ask(toolcall_chat, {"role": "user", "content": "3-day forecast for Chicago in Fahrenheit, please."})
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": "Chicago", "unit": "fahrenheit", "days": 3}}]}
    assert_tool_calls(response, expect, tools=TOOLS)


def test_two_cities_in_parallel(toolcall_chat):
    response = ask(toolcall_chat, {"role": "user", "content": "Compare the weather in Oslo and Madrid."})
    expect = {
        "allow_extra": True,  # a unit is fine
        "calls": [
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
            {"name": "get_weather", "arguments": {"city": "Madrid"}},
        ],
    }
    assert_tool_calls(response, expect, tools=TOOLS)


def test_answers_from_the_tool_result(toolcall_chat):
    # A whole round trip: the model's call is answered by a fake tool, then the model must reply in text.
    question = {"role": "user", "content": "Is it warm in Rome?"}
    first = ask(toolcall_chat, question)
    assert_tool_calls(first, {"calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]}, tools=TOOLS)
    call = first.tool_calls[0]
    reply = {"temperature": 27, "unit": "celsius", "sky": "clear"}
    second = ask(
        toolcall_chat,
        question,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.raw_arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps(reply)},
    )
    assert_tool_calls(second, {"no_call": True}, tools=TOOLS)
    assert second.content  # a reply in words


def test_small_talk_needs_no_tool(toolcall_chat):
    response = ask(toolcall_chat, {"role": "user", "content": "Thanks, that's all!"})
    assert_tool_calls(response, {"no_call": True}, tools=TOOLS)
