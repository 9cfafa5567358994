"""``--toolcall-api messages``: Chat Completions requests as Messages API bodies, Messages answers
(whole and streamed) read back as the SDK reads them, and end to end through the real ``anthropic``
client: the same verdicts as through Chat Completions for the same answers, the stream rules, a
dialogue's ``tool_result`` blocks and the key's header."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import anthropic
import pytest
from anthropic.lib.streaming._messages import accumulate_event

from pytest_toolcall.model import messages_api
from pytest_toolcall.model.streaming import SSEDecoder
from pytest_toolcall.testing.server import MESSAGES_STREAM_BREAKS, ChatServer, Reply, message_text
from tests.support.scripted_runs import server_run_args
from tests.support.serving_contract import BREAKS, contract_model

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def call(city: str) -> dict[str, Any]:
    return {"name": "get_weather", "arguments": {"city": city}}


# --- the request ---------------------------------------------------------------------------------


def test_a_dialogue_becomes_alternating_turns_with_tool_results() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Rome and Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "Two lookups.",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
                {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "not json"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": {"sky": "grey"}},
        {"role": "user", "content": [{"type": "text", "text": "And "}, {"type": "text", "text": "tomorrow?"}]},
    ]
    body = messages_api.request_body("m", messages, [WEATHER])
    assert body == {
        "model": "m",
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Rome and Oslo?"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Rome"}},
                    {"type": "tool_use", "id": "c2", "name": "get_weather", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
                    {"type": "tool_result", "tool_use_id": "c2", "content": '{"sky": "grey"}'},
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
        "tools": [
            {
                "name": "get_weather",
                "input_schema": WEATHER["function"]["parameters"],
                "description": "Weather of a city",
            }
        ],
    }


@pytest.mark.parametrize(
    ("chat", "messages"),
    [
        ({}, {"max_tokens": messages_api.DEFAULT_MAX_TOKENS}),
        ({"max_tokens": 10, "temperature": 0}, {"max_tokens": 10, "temperature": 0}),
        ({"tool_choice": "auto"}, {"tool_choice": {"type": "auto"}}),
        ({"tool_choice": "required"}, {"tool_choice": {"type": "any"}}),
        ({"tool_choice": "none", "parallel_tool_calls": False}, {"tool_choice": {"type": "none"}}),
        (
            {"tool_choice": {"type": "function", "function": {"name": "f"}}},
            {"tool_choice": {"type": "tool", "name": "f"}},
        ),
        ({"parallel_tool_calls": False}, {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}}),
        ({"tool_choice": "sometimes"}, {"tool_choice": "sometimes"}),
        ({"stop": "END"}, {"stop_sequences": ["END"]}),
        (
            {"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}},
            {"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}},
        ),
    ],
)
def test_sampling_under_messages_names(chat: dict[str, Any], messages: dict[str, Any]) -> None:
    assert messages_api.sampling(chat) == {"max_tokens": messages_api.DEFAULT_MAX_TOKENS, **messages}


@pytest.mark.parametrize(
    ("given", "sdk"),
    [("http://h:8000/v1", "http://h:8000"), ("http://h:8000/v1/", "http://h:8000"), ("https://a.b", "https://a.b")],
)
def test_a_chat_style_base_url_is_the_same_server(given: str, sdk: str) -> None:
    assert messages_api.sdk_base_url(given) == sdk


# --- the answer ----------------------------------------------------------------------------------

REPLIES = {
    "text": Reply(content="Hello there, how are you today?"),
    "calls": Reply(tool_calls=[call("Paris"), {"name": "get_time", "arguments": {"zone": "Europe/Rome", "n": [1]}}]),
    "reasoning, text and a call": Reply(content="Looking.", reasoning_content="Think.", tool_calls=[call("Oslo")]),
    "no arguments": Reply(tool_calls=[{"name": "now", "arguments": {}}]),
    "cut short": Reply(content="Half an ans", finish_reason="length"),
}


def writer() -> ChatServer:
    """The test server's answer writers, without a socket (the fast set opens none)."""
    server = object.__new__(ChatServer)
    server._ids = itertools.count(1)
    return server


def events_of(reply: Reply, rule: str | None = None) -> list[str]:
    """The SSE ``data`` of the test server's stream of ``reply`` (breaking ``rule``)."""
    stream = writer()._message_events({"model": "m", "messages": []}, Reply(**{**vars(reply), "stream_break": rule}))
    return SSEDecoder().feed("".join(stream).encode())


def reassembled(events: list[str]) -> tuple[dict[str, Any], list[str]]:
    stream = messages_api.MessagesStream(tool_names=["get_weather"])
    for data in events:
        stream.event(data)
    return stream.finish(), stream.problems


@pytest.mark.parametrize("name", list(REPLIES))
def test_a_stream_reads_as_the_sdk_reassembles_it(name: str) -> None:
    events = events_of(REPLIES[name])
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for data in events:
        snapshot = accumulate_event(event=json.loads(data), current_snapshot=snapshot, json_bufs=buffers)
    ours, problems = reassembled(events)
    assert problems == []
    assert ours == messages_api.completion(snapshot.to_dict())
    # ... and it is what the same answer not streamed reads as.
    plain = messages_api.completion(writer()._message_object({"model": "m", "messages": []}, REPLIES[name]))
    assert {**ours, "id": None} == {**plain, "id": None}


def test_the_answer_as_a_chat_completion() -> None:
    completion = messages_api.completion(
        {
            "id": "msg_1",
            "content": [
                {"type": "thinking", "thinking": "Hm.", "signature": "s"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Oslo", "a": 1}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 90},
        }
    )
    assert completion["choices"] == [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": "Looking.",
                "reasoning_content": "Hm.",
                "tool_calls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo", "a": 1}'},
                    }
                ],
            },
        }
    ]
    # Cached prompt tokens are part of the prompt, as Chat Completions counts them.
    assert completion["usage"] == {
        "prompt_tokens": 100,
        "completion_tokens": 5,
        "prompt_tokens_details": {"cached_tokens": 90},
    }


@pytest.mark.parametrize("rule", MESSAGES_STREAM_BREAKS)
def test_each_planted_break_is_the_one_rule_named(rule: str) -> None:
    reply = Reply(content="Sure.", tool_calls=[call("Paris"), call("Rome")])
    _, problems = reassembled(events_of(reply, rule))
    assert {p.split(" at chunk ")[0] for p in problems} == {rule}


def test_events_cut_at_every_byte_reassemble_the_same() -> None:
    events = events_of(REPLIES["reasoning, text and a call"])
    text = "".join(f"event: x\ndata: {data}\n\n" for data in events).encode()
    decoder = SSEDecoder()
    pieces = [data for byte in text for data in decoder.feed(bytes([byte]))] + decoder.close()
    assert reassembled(pieces) == reassembled(events)


# --- end to end through the anthropic SDK ---------------------------------------------------------

GENERAL_FC: list[tuple[str, bool, Reply]] = [
    ("no call, label false", False, Reply(content="It is sunny.")),
    ("no call, label true", True, Reply(content="I don't know.")),
    ("valid call", True, Reply(tool_calls=[call("Paris")])),
    ("several calls", True, Reply(tool_calls=[call("Oslo"), {"name": "get_time", "arguments": {}}])),
    ("wrong type", True, Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": 5}}])),
    ("missing required", True, Reply(tool_calls=[{"name": "get_weather", "arguments": {"unit": "c"}}])),
    ("unknown tool", True, Reply(tool_calls=[{"name": "get_wether", "arguments": {"city": "Paris"}}])),
    ("calls under stop", True, Reply(tool_calls=[call("Oslo")], finish_reason="stop")),
    ("call, label false", False, Reply(tool_calls=[{"name": "get_time", "arguments": {}}])),
    ("cut short", True, Reply(content="I will call get_weath", finish_reason="length")),
    ("server error", True, Reply(status=500)),
]


def general_fc_file(path: Path, cases: list[tuple[str, bool, Reply]]) -> Path:
    lines = [
        json.dumps({"messages": [{"role": "user", "content": text}], "tools": [WEATHER], "should_call_tool": label})
        for text, label, _ in cases
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(pytester: pytest.Pytester, server: ChatServer, *args: str) -> dict[str, Any]:
    pytester.runpytest(
        *server_run_args(server),
        *args,
    )
    return json.loads((pytester.path / "report.json").read_text())


def verdicts(report: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {s["nodeid"]: (s["outcome"], s.get("failure_kind")) for s in report["samples"]}


@pytest.mark.slow
@pytest.mark.parametrize("stream", ["off", "on"])
def test_the_same_verdicts_as_chat_completions(pytester: pytest.Pytester, stream: str) -> None:
    # The conformance probes with every contract broken (answers right and wrong of every kind) and
    # general_fc lines answered every way: 63 units. (Streamed, a missing usage breaks every stream.)
    breaks = frozenset(BREAKS) - ({"no_usage"} if stream == "on" else set())
    contract = contract_model(breaks)
    lines = {text: reply for text, _, reply in GENERAL_FC}

    def respond(body: dict[str, Any]) -> Reply:
        return lines.get(message_text(body)) or contract(body)

    path = general_fc_file(pytester.path / "calls.jsonl", GENERAL_FC)
    args = ("--toolcall-bench=conformance,general_fc", f"--toolcall-general-fc={path}", f"--toolcall-stream={stream}")
    args += ("-m", "not tool_call_schemas")  # (205 more probes of one kind of answer)
    with ChatServer(respond) as server:
        chat = run(pytester, server, *args)
        sent = len(server.requests)
        messages = run(pytester, server, *args, "--toolcall-api=messages")
        assert {b.get("_api", "chat") for b in server.requests[:sent]} == {"chat"}
        assert {b.get("_api") for b in server.requests[sent:]} == {"messages"}
    assert verdicts(messages) == verdicts(chat)
    assert len(verdicts(chat)) == 63  # 52 probes, 11 lines
    kinds = {kind for _, kind in verdicts(chat).values()}
    assert {"unexpected_status", "reasoning_only", "extra_call", "schema_violation", "truncated"} <= kinds
    assert {"invalid_json_output", "wrong_language", "repetition", "key_order", "usage_mismatch"} <= kinds
    assert messages["metrics"]["general_fc"] == chat["metrics"]["general_fc"]
    assert messages["metrics"]["conformance"] == chat["metrics"]["conformance"]


@pytest.mark.slow
def test_streamed_exactly_the_planted_violations_fail(pytester: pytest.Pytester) -> None:
    # One line per rule, answered with a right call through a stream that breaks it; as many right
    # and sound: those pass.
    sound = [(f"Weather in city {n}?", True, Reply(tool_calls=[call("Paris")])) for n in range(6)]
    # (Text before the call: the call's block index can be skipped or reused.)
    broken = [
        (f"Weather, {r}?", True, Reply(content="Sure.", tool_calls=[call("Paris")], stream_break=r))
        for r in MESSAGES_STREAM_BREAKS
    ]
    lines = {text: reply for text, _, reply in sound + broken}
    path = general_fc_file(pytester.path / "calls.jsonl", sound + broken)
    with ChatServer(lambda body: lines[message_text(body)]) as server:
        report = run(
            pytester,
            server,
            "--toolcall-bench=general_fc",
            f"--toolcall-general-fc={path}",
            "--toolcall-stream=on",
            "--toolcall-api=messages",
        )
    samples = report["samples"]
    assert len(samples) == len(sound) + len(broken)
    failed = {s["index"]: s for s in samples if s["outcome"] != "passed"}
    assert sorted(failed) == list(range(len(sound), len(sound) + len(broken)))
    for number, rule in enumerate(MESSAGES_STREAM_BREAKS, len(sound)):
        assert failed[number]["failure_kind"] == "stream_protocol"
        assert {p.split(" at chunk ")[0] for p in failed[number]["stream"]["problems"]} == {rule}


DIALOGUE = """
WEATHER = [{"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def test_dialogue(toolcall_chat):
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Check the weather in Rome, and if it is sunny book me a flight there."}]
    first = toolcall_chat(messages, WEATHER)
    (call,) = first.tool_calls
    assert first.finish_reason == "tool_calls"
    messages += [first.to_message(), {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "sunny"}'}]
    second = toolcall_chat(messages, WEATHER)
    assert second.content == "Booked."
"""


@pytest.mark.slow
@pytest.mark.parametrize("stream", ["off", "on"])
def test_a_dialogue_passes_tool_use_ids_and_results_back_with_the_key(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, stream: str
) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"][0]
        if last.get("type") == "tool_result":
            return Reply(content="Booked.")
        return Reply(tool_calls=[call("Rome")])

    pytester.makepyfile(test_dialogue=DIALOGUE)
    monkeypatch.setenv("VENDOR_KEY", "sk-ant-secret-key")
    with ChatServer(respond) as server:
        report = run(pytester, server, "--toolcall-api=messages", f"--toolcall-stream={stream}", ".")
        # (the last option wins: the key is read from VENDOR_KEY)
        run(
            pytester,
            server,
            "--toolcall-api=messages",
            f"--toolcall-stream={stream}",
            "--toolcall-api-key-env=VENDOR_KEY",
            ".",
        )
    assert [s["outcome"] for s in report["samples"]] == ["passed"]
    first, second = server.requests[:2]
    assert first["system"] == "Be brief." and first["tools"][0]["input_schema"]["required"] == ["city"]
    use, result = second["messages"][1]["content"][0], second["messages"][2]["content"][0]
    assert use["type"] == "tool_use" and use["name"] == "get_weather" and use["input"] == {"city": "Rome"}
    assert result == {"type": "tool_result", "tool_use_id": use["id"], "content": '{"sky": "sunny"}'}
    assert first.get("stream", False) is (stream == "on")
    # No key: neither header. A key: the header of the installed SDK (x-api-key before 2.0).
    assert server.auth_headers[:2] == [None, None] and server.api_key_headers[:2] == [None, None]
    if int(anthropic.__version__.split(".")[0]) >= 2:
        assert set(server.auth_headers[2:]) == {"Bearer sk-ant-secret-key"}
    else:
        assert set(server.api_key_headers[2:]) == {"sk-ant-secret-key"}
