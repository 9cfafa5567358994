"""``examples/cases/test_weather_agent.py`` runs against the API it is written for: a stand-in
``toolcall_chat`` fixture answers from a table (the real fixture asks a model), and the example's
assertions pass on right answers and fail, with the diff, on a wrong one."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cases" / "test_weather_agent.py"

STAND_IN = """
import json

import pytest

import pytest_toolcall
from pytest_toolcall.benchmarks.cases.assertions import assert_tool_calls
from pytest_toolcall.benchmarks.cases.response import ToolCallResponse
from pytest_toolcall.core.protocol.types import ChatResponse

if not hasattr(pytest_toolcall, "assert_tool_calls"):  # until the lead re-exports it
    pytest_toolcall.assert_tool_calls = assert_tool_calls

LYON = LYON_SPELLING


def calls(*pairs):
    tool_calls = [
        {"id": f"c{i}", "name": n, "arguments": json.dumps(a, ensure_ascii=False)} for i, (n, a) in enumerate(pairs)
    ]
    return ChatResponse(None, "tool_calls", tool_calls)


def answer(messages):
    last = messages[-1]
    if last["role"] == "tool":
        return ChatResponse("It is 27 °C and clear in Rome: warm.", "stop")
    prompt = last["content"]
    if prompt.startswith("What's the weather in "):
        city = prompt[len("What's the weather in "):-len(" right now?")]
        return calls(("get_weather", {"city": LYON if city == "Lyon" else city}))
    if prompt.startswith("3-day forecast"):
        return calls(("get_weather", {"city": "Chicago", "unit": "fahrenheit", "days": 3}))
    if prompt.startswith("Compare"):
        return calls(("get_weather", {"city": "Madrid", "unit": "celsius"}), ("get_weather", {"city": "Oslo"}))
    if prompt == "Is it warm in Rome?":
        return calls(("get_weather", {"city": "Rome"}))
    return ChatResponse("You're welcome!", "stop")


@pytest.fixture
def toolcall_chat():
    def chat(messages, tools=None, **settings):
        assert tools and settings == {"temperature": 0}
        return ToolCallResponse.from_chat_response(answer(messages), usage={"prompt_tokens": 1, "completion_tokens": 1})

    return chat
"""


def run(pytester: pytest.Pytester, lyon: str) -> pytest.RunResult:
    pytester.makeconftest(STAND_IN.replace("LYON_SPELLING", repr(lyon)))
    pytester.makepyfile(test_weather_agent=EXAMPLE.read_text(encoding="utf-8"))
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")


def test_the_example_passes_on_right_answers(pytester: pytest.Pytester):
    run(pytester, "Lyon").assert_outcomes(passed=8)


def test_the_example_fails_with_the_diff_on_a_wrong_answer(pytester: pytest.Pytester):
    result = run(pytester, "Lyons")
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(["*test_current_weather?Lyon?*", "*wrong_value: call 1 get_weather*"])
    assert "get_weather.city: expected 'Lyon', got 'Lyons'" in result.stdout.str()
