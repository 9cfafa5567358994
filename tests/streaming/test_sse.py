"""The stream reader on its own: server-sent events cut anywhere, and the reassembly of chunks."""

from __future__ import annotations

import json

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
