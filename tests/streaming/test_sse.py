"""The stream reader on its own: server-sent events cut anywhere, and the reassembly of chunks."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from pytest_toolcall.model.streaming import ChatStream, SSEDecoder

EVENTS = (
    'data: {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}\r\n\r\n'
    ": a comment line\n"
    "event: ignored\n"
    'data: {"choices": [{"index": 0, "delta": {"content": "lo"},\n'
    'data:  "finish_reason": "stop"}]}\n\n'
    'data: {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}\n\n'
    "data: [DONE]\n\n"
)


def test_events_cut_at_every_byte_read_the_same() -> None:
    whole = SSEDecoder().feed(EVENTS.encode())
    decoder = SSEDecoder()
    pieces = [event for byte in EVENTS.encode() for event in decoder.feed(bytes([byte]))] + decoder.close()
    assert pieces == whole
    assert len(whole) == 4 and whole[-1] == "[DONE]"
    # Two data lines of one event are joined by a newline (the SSE rule), which JSON reads as space.
    assert json.loads(whole[1])["choices"][0]["finish_reason"] == "stop"


def test_chunks_reassemble_and_a_sound_stream_breaks_no_rule() -> None:
    stream = ChatStream(tool_names=["get_weather"])
    for data in SSEDecoder().feed(EVENTS.encode()):
        stream.event(data)
    completion = stream.finish()
    assert stream.problems == []
    assert completion["choices"][0]["message"]["content"] == "Hello"
    assert completion["choices"][0]["finish_reason"] == "stop"
    assert completion["usage"] == {"prompt_tokens": 3, "completion_tokens": 2}


def test_a_last_event_without_its_blank_line_is_read_and_the_missing_done_named() -> None:
    decoder = SSEDecoder()
    stream = ChatStream(tool_names=[], usage_asked=False)
    text = 'data: {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}'
    for data in decoder.feed(text.encode()) + decoder.close():
        stream.event(data)
    stream.finish()
    assert stream.problems == ["no_done at chunk 1: the stream ended without data: [DONE]"]


def test_a_long_line_is_searched_once() -> None:
    """Bytes of an unfinished line are kept and never searched again: after each read the decoder
    knows where its search stopped (the whole buffer), so a long event costs linear time."""
    decoder = SSEDecoder()
    piece = b"x" * 1000
    decoder.feed(b"data: ")
    for n in range(1, 101):
        assert decoder.feed(piece) == []
        assert decoder._scanned == len(decoder._buffer) == 6 + n * 1000
    (event,) = decoder.feed(b"\n\n")
    assert event == "x" * 100_000 and len(decoder._buffer) == 0 and decoder._scanned == 0


def test_streamed_text_is_joined_once() -> None:
    """Every piece of a streamed text is kept as it came and joined at the end (the SDK adds each
    piece to all the text before it: quadratic in the answer's length)."""
    from pytest_toolcall.model.streaming import _Text, accumulate

    message: dict[str, Any] = {}
    for n in range(500):
        message = accumulate(message, {"content": f"{n} "})
        call = {"index": 0, "function": {"arguments": f"{n},"}}
        message = accumulate(
            message, {"tool_calls": [call if n else {**call, "id": "c", "function": {"name": "f", "arguments": ""}}]}
        )
    assert isinstance(message["content"], _Text) and len(message["content"].pieces) == 500
    assert len(message["tool_calls"][0]["function"]["arguments"].pieces) == 500


def random_delta(rng: random.Random, depth: int = 0) -> Any:
    """A delta of the shapes streams send (text pieces, indexed lists, nested objects, numbers, None)."""
    kind = rng.random()
    if depth > 2 or kind < 0.35:
        return rng.choice(["a", "bc", "", "d\n", None, 1, 2.5])
    if kind < 0.7:
        keys = rng.sample(["content", "role", "type", "name", "arguments", "id", "function", "x"], rng.randint(1, 3))
        return {k: random_delta(rng, depth + 1) for k in keys}
    return [
        {
            "index": rng.randint(0, 2),
            **{k: random_delta(rng, depth + 1) for k in rng.sample(["id", "function", "type"], 2)},
        }
        for _ in range(rng.randint(1, 2))
    ]


@pytest.mark.parametrize("seed", range(100))
def test_the_linear_merge_is_the_sdks(seed: int) -> None:
    from openai.lib.streaming._deltas import accumulate_delta

    from pytest_toolcall.model.streaming import accumulate, materialize

    rng = random.Random(seed)
    deltas = [
        {"tool_calls" if rng.random() < 0.4 else "content": random_delta(rng, 1)} for _ in range(rng.randint(1, 12))
    ]
    deltas += [random_delta(rng, 1) for _ in range(3)]
    deltas = [d for d in deltas if isinstance(d, dict)]

    def run(merge: Any) -> Any:
        acc: dict[str, Any] = {}
        try:
            for delta in copy.deepcopy(deltas):
                acc = merge(acc, delta)
        except Exception as exc:  # the same refusal, of the same delta
            return type(exc).__name__, str(exc)
        return materialize(acc)

    assert run(accumulate) == run(accumulate_delta)
