"""A stream chunk nested deeper than the door's bound (issue 31, finding 18) is the model's broken
stream (``stream_protocol``: the chunk is not one), scored at once, not an infrastructure error after
a RecursionError and retries; the chunks around it are reassembled as usual."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.streaming.test_stream_modes import TOOLS, run

pytestmark = pytest.mark.slow

ONE = (
    TOOLS
    + """cases:
  - id: paris
    prompt: "Weather in Paris?"
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
"""
)


def sse(*events: str) -> str:
    return "".join(f"data: {event}\n\n" for event in events)


@pytest.mark.parametrize("deep", ["[" * 200_000 + "]" * 200_000, '{"a":' * 500 + "1" + "}" * 500])
def test_a_deep_chunk_is_the_models_stream_failure(pytester: pytest.Pytester, deep: str) -> None:
    call = {"index": 0, "id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    chunks = [
        {"id": "x", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]},
        {
            "id": "x",
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]}}
            ],
        },
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        {"id": "x", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 5}},
    ]
    body = sse(json.dumps(chunks[0]), deep, *(json.dumps(c) for c in chunks[1:]), "[DONE]")
    asked: list[Any] = []

    def respond(request: dict[str, Any]) -> Reply:
        asked.append(request)
        return Reply(body=body)

    pytester.makefile(".toolcall.yaml", one=ONE)
    with ChatServer(respond) as srv:
        result, report = run(pytester, srv, "--toolcall-stream=on")
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "RecursionError" not in out
    (sample,) = report["samples"]
    assert sample["failure_kind"] == "stream_protocol" and not sample.get("error"), sample
    assert sample["stream"]["problems"][0].startswith("not_a_chunk at chunk 2:")
    assert "nested deeper than 100 levels" in sample["stream"]["problems"][0]
    assert len(asked) == 1  # not retried
