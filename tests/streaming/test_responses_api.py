"""``--toolcall-api responses``: the same answers through the Responses API get the same verdicts as
through Chat Completions (plain and streamed), and a dialogue passes the model's call ids and the
tool outputs back as ``function_call`` / ``function_call_output`` items."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer
from tests.support.scripted_runs import server_run_args
from tests.support.serving_contract import BREAKS, contract_model

# Every test here runs pytest against the local server: the integration set, left out of the fast loop.
pytestmark = pytest.mark.slow


def verdicts(pytester: pytest.Pytester, server: ChatServer, *args: str) -> dict[str, tuple[str, str | None]]:
    pytester.runpytest(
        *server_run_args(server),
        *args,
    )
    report = json.loads((pytester.path / "report.json").read_text())
    return {s["nodeid"]: (s["outcome"], s["failure_kind"]) for s in report["samples"]}


@pytest.mark.parametrize("stream", ["off", "on"])
def test_the_same_verdicts_as_chat_completions(pytester: pytest.Pytester, stream: str) -> None:
    # Every contract broken at once: answers right and wrong of every kind (calls, text, refusals,
    # reasoning alone, missing usage). (Streamed, a missing usage breaks every stream: left out.)
    breaks = frozenset(BREAKS) - ({"no_usage"} if stream == "on" else set())
    with ChatServer(contract_model(breaks)) as server:
        # (the walle schemas left out: 205 more probes of one kind of answer)
        args = ("--toolcall-bench=conformance", f"--toolcall-stream={stream}", "-m", "not tool_call_schemas")
        chat = verdicts(pytester, server, *args)
        chat_paths = {b.get("_api", "chat") for b in server.requests}
        responses = verdicts(pytester, server, *args, "--toolcall-api=responses")
    assert chat_paths == {"chat"}
    assert {b.get("_api") for b in server.requests[-len(responses) :]} == {"responses"}
    assert responses == chat
    kinds = {kind for _, kind in chat.values()}
    assert len(chat) == 52 and {"unexpected_status", "reasoning_only", "extra_call", "schema_violation"} <= kinds
    assert {"invalid_json_output", "wrong_language", "repetition", "key_order", "unknown_tool"} <= kinds
    assert ("usage_missing" in kinds) == (stream == "off")
    assert sum(outcome == "passed" for outcome, _ in chat.values()) > 0


DIALOGUE = """
import json

WEATHER = [{"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def test_dialogue(toolcall_chat):
    messages = [{"role": "user", "content": "Check the weather in Rome, and if it is sunny book me a flight there."}]
    first = toolcall_chat(messages, WEATHER)
    (call,) = first.tool_calls
    messages += [first.to_message(), {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny"}'}]
    second = toolcall_chat(messages, WEATHER)
    assert second.content == "Booked."
"""


def test_a_dialogue_passes_call_ids_and_outputs_back(pytester: pytest.Pytester) -> None:
    from pytest_toolcall.testing.server import Reply

    def respond(body: dict[str, Any]) -> Reply:
        if body["input"][-1].get("type") == "function_call_output":
            return Reply(content="Booked.")
        return Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Rome"}}])

    pytester.makepyfile(test_dialogue=DIALOGUE)
    with ChatServer(respond) as server:
        result = verdicts(pytester, server, "--toolcall-api=responses", "--toolcall-stream=on", ".")
    assert list(result.values()) == [("passed", None)]
    first, second = server.requests
    assert first["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "parameters": json.loads(json.dumps(first["tools"][0]["parameters"])),
        }
    ]
    call, output = second["input"][1], second["input"][2]
    assert call["type"] == "function_call" and call["name"] == "get_weather"
    assert json.loads(call["arguments"]) == {"city": "Rome"} and call["call_id"].startswith("call_")
    assert output == {"type": "function_call_output", "call_id": call["call_id"], "output": '{"sky": "sunny"}'}
    assert first["stream"] is True and second["stream"] is True
