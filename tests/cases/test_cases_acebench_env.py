"""``acebench_env``: the simulated ACEBench APIs as OpenAI tools, run by explicit lookup."""

from __future__ import annotations

import json

import jsonschema
import pytest

from pytest_toolcall.benchmarks.acebench.agents.native import ENVIRONMENTS, SimulatedEnvironment
from pytest_toolcall.benchmarks.cases.response import ToolCallResponse
from pytest_toolcall.core.protocol.types import ChatResponse


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
def test_tools_are_valid_openai_definitions(name: str, lang: str) -> None:
    env = SimulatedEnvironment.create(name, lang=lang)
    assert env.tools
    for tool in env.tools:
        function = tool["function"]
        assert tool["type"] == "function" and function["description"]
        jsonschema.Draft202012Validator.check_schema(function["parameters"])
        assert function["parameters"]["type"] == "object"
    names = {t["function"]["name"] for t in env.tools}
    expected = {"phone": "send_message", "food": "add_food_delivery_order", "travel": "reserve_flight"}[name]
    assert expected in names
    order = SimulatedEnvironment.create("food").tools
    items = next(t for t in order if t["function"]["name"] == "add_food_delivery_order")["function"]["parameters"]
    assert items["properties"]["items"]["type"] == "array"
    assert items["properties"]["items"]["items"]["type"] == "object"


def test_calls_change_the_state_and_errors_are_results() -> None:
    env = SimulatedEnvironment.create("phone", config={"BaseApi": {"wifi": False}})
    assert env.state()["BaseApi"] == {"wifi": False, "logged_in": True}
    refused = env.call("send_message", {"sender_name": "Eve", "receiver_name": "Frank", "message": "hi"})
    assert refused["status"] is False and "Wi-Fi" in refused["message"]
    assert env.call("turn_on_wifi", "{}")["status"] is True
    assert env.state()["BaseApi"]["wifi"] is True
    assert env.call("delete_message", '{"message_id": 3}')["status"] is True
    assert env.call("send_message", '{"sender_name": "Eve", "receiver_name": "Frank", "message": "hi"}')["status"]
    inbox = env.state()["MessageApi"]["inbox"]
    assert "3" not in inbox and inbox["7"] == {"sender_id": "USR100", "receiver_id": "USR101", "message": "hi"}
    assert [c["name"] for c in env.calls] == ["send_message", "turn_on_wifi", "delete_message", "send_message"]
    # wrong arguments, not JSON, not an object: the call's result says so, nothing runs
    assert "unexpected keyword argument" in env.call("send_message", {"to": "Frank"})["message"]
    assert "not JSON" in env.call("send_message", '{"sender_name": ')["message"]
    assert "JSON object" in env.call("send_message", "[1, 2]")["message"]


@pytest.mark.parametrize(
    "name", ["__import__", "_load", "capture", "os.system", "turn_on_wifi()", "search_orders", "reserve_flight"]
)
def test_only_offered_tools_run(name: str) -> None:
    env = SimulatedEnvironment.create("phone", config={"BaseApi": {"wifi": False}})
    result = env.call(name, {})
    assert result["status"] is False and result["message"].startswith("unknown tool")
    assert env.state()["BaseApi"]["wifi"] is False


def test_tool_messages_answer_each_call_in_order() -> None:
    env = SimulatedEnvironment.create(["phone", "food"])
    calls = [
        {"id": "a", "name": "turn_on_wifi", "arguments": "{}"},
        {"id": "b", "name": "check_balance", "arguments": json.dumps({"user_name": "Eve"})},
    ]
    response = ToolCallResponse.from_chat_response(ChatResponse(None, "tool_calls", calls))
    messages = env.tool_messages(response)
    assert [m["tool_call_id"] for m in messages] == ["a", "b"] and all(m["role"] == "tool" for m in messages)
    assert json.loads(messages[0]["content"])["status"] is True
    assert response.to_message()["tool_calls"][1]["function"] == {
        "name": "check_balance",
        "arguments": calls[1]["arguments"],
    }


def test_unknown_environment() -> None:
    with pytest.raises(ValueError, match="unknown environment 'bank'; choose from phone, food, travel"):
        SimulatedEnvironment.create("bank")
