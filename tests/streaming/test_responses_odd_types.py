"""Odd field types in a Responses answer (issue 31, finding 17) are the model's answer: read as text
(a number or an object where text belongs) or kept as sent (``arguments`` as a list, scored as an
invalid call), never a TypeError that makes the request be retried (paid twice) and the item error."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.model import responses_api
from pytest_toolcall.model.sdk_server import _response

ODD: list[tuple[str, dict[str, Any]]] = [
    ("text a number", {"output": [{"type": "message", "content": [{"type": "output_text", "text": 5}]}]}),
    ("text an object", {"output": [{"type": "message", "content": [{"type": "output_text", "text": {"a": 1}}]}]}),
    ("content a string", {"output": [{"type": "message", "content": "hello"}]}),
    ("arguments a list", {"output": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": [1, 2]}]}),
    ("name a number", {"output": [{"type": "function_call", "call_id": 7, "name": 5, "arguments": "{}"}]}),
    ("summary a string", {"output": [{"type": "reasoning", "summary": "thinking"}]}),
    ("details a string", {"output": [], "status": "incomplete", "incomplete_details": "max_output_tokens"}),
    ("usage odd", {"output": [], "usage": {"input_tokens": "many", "output_tokens": [1]}}),
]


@pytest.mark.parametrize(("name", "answer"), ODD, ids=[name for name, _ in ODD])
def test_odd_types_are_scored_not_retried(name: str, answer: dict[str, Any]) -> None:
    response = _response(responses_api.completion(answer), 0.1)  # no exception: nothing to retry
    assert response.content is None or isinstance(response.content, str)
    for call in response.tool_calls:
        assert call["name"] is None or isinstance(call["name"], str)
    assert response.usage is None or all(isinstance(v, int) for v in response.usage.values())


def test_what_the_odd_answers_read_as() -> None:
    assert _response(responses_api.completion(ODD[0][1]), 0).content == "5"
    assert _response(responses_api.completion(ODD[1][1]), 0).content == '{"a": 1}'
    call = _response(responses_api.completion(ODD[3][1]), 0).tool_calls[0]
    assert call == {"id": "c", "name": "f", "arguments": [1, 2]}  # an invalid call, as in Chat Completions
    assert _response(responses_api.completion(ODD[6][1]), 0).finish_reason == "incomplete"


def test_a_stream_item_with_odd_arguments_is_reassembled() -> None:
    stream = responses_api.ResponsesStream([])
    stream.event(
        '{"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", '
        '"call_id": "c", "name": "f", "arguments": [1]}}'
    )
    stream.event('{"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"}')
    stream.event('{"type": "response.completed", "response": {"status": "completed", "usage": {}}}')
    completion = stream.finish()
    assert completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == "[1]{}"
