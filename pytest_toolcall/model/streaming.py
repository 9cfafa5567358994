"""Streamed answers (``--toolcall-stream on|both``): the server-sent events of a streamed Chat
Completions answer, reassembled into the completion a non-streamed request would have got, and
checked against the rules clients rely on while they read a stream.

The reassembly is the SDK's (``openai.lib.streaming._deltas.accumulate_delta``, what
``ChatCompletionStreamState`` folds every chunk with), so an answer reads as the SDK's users get it:
the same merge, rule for rule, written here so that it is linear (``accumulate``: the SDK adds each
text piece to all that came before it, which costs a long answer quadratic time; a test holds the two
equal). What the SDK does not do is check: it merges whatever arrives under one index, never says that
``[DONE]`` or the usage chunk did not come, and never looks at ``content``. Those checks are here,
each a named rule reported with the (1-based) number of the chunk where it broke.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.core.protocol.failure_kinds import has_tool_markup
from pytest_toolcall.core.safety import door

#: The rules, by the names the problems carry (docs/streaming-and-conformance.md explains each).
FIRST_DELTA = "first_delta_without_id_or_name"
INDEX_SKIPPED = "index_skipped"
INDEX_REUSED = "index_reused"
ARGUMENTS_AFTER_FINISH = "arguments_after_finish"
NO_FINISH = "no_finish_reason"
NO_DONE = "no_done"
NO_USAGE = "no_usage_chunk"
MARKUP_IN_CONTENT = "tool_markup_in_content"
NOT_A_CHUNK = "not_a_chunk"


class SSEDecoder:
    """Server-sent events from bytes as they arrive: ``feed`` returns the ``data`` of each complete
    event (several ``data:`` lines of one event joined by newlines, as the SSE standard says).

    Linear in the bytes: each byte is looked at once (the search for a line's end resumes where the
    last one stopped) and only what is left of an unfinished line is kept."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no line end
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[str]:
        buffer = self._buffer
        buffer += chunk
        events: list[str] = []
        start = 0
        end = buffer.find(b"\n", self._scanned)
        while end >= 0:
            line = buffer[start:end]
            start = end + 1
            if line.endswith(b"\r"):
                del line[-1:]
            if not line:
                if self._data:
                    events.append("\n".join(self._data))
                    self._data = []
            elif line.startswith(b"data:"):
                text = line[5:].decode("utf-8", "replace")
                self._data.append(text[1:] if text.startswith(" ") else text)
            # ``event:``, ``id:``, ``retry:`` and comments carry nothing a completion needs
            end = buffer.find(b"\n", start)
        if start:
            del buffer[:start]
        self._scanned = len(buffer)
        return events

    def close(self) -> list[str]:
        """The last event, when the stream ended without the blank line that closes it."""
        events = self.feed(b"\n\n") if self._buffer or self._data else []
        return events


class _Text:
    """A string being streamed: its pieces, joined once at the end."""

    __slots__ = ("pieces",)

    def __init__(self, first: str, second: str) -> None:
        self.pieces = [first, second]


def accumulate(acc: dict[Any, Any], delta: dict[Any, Any]) -> dict[Any, Any]:
    """``accumulate_delta`` of the SDK, rule for rule, but a string that grows is kept as its pieces
    (``_Text``): call ``materialize`` on the result once the stream is over."""
    for key, value in delta.items():
        if key not in acc or acc[key] is None:
            if _indexed(value):
                acc[key] = []  # (a first indexed list is merged too: one chunk may repeat an index)
            else:
                acc[key] = value
                continue
        current = acc[key]
        if key == "index" or key == "type":  # an array's position and a union's tag are set, not added
            acc[key] = value
            continue
        if isinstance(current, str) and isinstance(value, str):
            current = _Text(current, value)
        elif isinstance(current, _Text) and isinstance(value, str):
            current.pieces.append(value)
        elif isinstance(current, (int, float)) and isinstance(value, (int, float)):
            current += value
        elif isinstance(current, dict) and isinstance(value, dict):
            current = accumulate(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            if all(isinstance(x, (str, int, float)) for x in current) and (current or not _indexed(value)):
                current.extend(value)
                continue
            for entry in value:
                if not isinstance(entry, dict):
                    raise TypeError(f"Unexpected list delta entry is not a dictionary: {entry}")
                if "index" not in entry:
                    raise RuntimeError(f"Expected list delta entry to have an `index` key; {entry}")
                index = entry["index"]
                if not isinstance(index, int):
                    raise TypeError(f"Unexpected, list delta entry `index` value is not an integer; {index}")
                if -len(current) <= index < len(current):
                    if not isinstance(current[index], dict):
                        raise TypeError("not handled yet")
                    current[index] = accumulate(current[index], entry)
                else:
                    current.insert(index, entry)
        acc[key] = current
    return acc


def materialize(value: Any) -> Any:
    """``value`` with every ``_Text`` joined into its string."""
    if isinstance(value, _Text):
        return "".join(value.pieces)
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v) for v in value]
    return value


def _indexed(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(e, dict) and "index" in e for e in value)


@dataclass
class ChatStream:
    """One streamed Chat Completions answer: feed the ``data`` of each event, then ``finish``."""

    tool_names: list[str]
    usage_asked: bool = True
    problems: list[str] = field(default_factory=list)
    _chunks: int = 0
    _done: bool = False
    _message: dict[str, Any] = field(default_factory=dict)
    _finish_reason: str | None = None
    _finished_at: int | None = None
    _calls: dict[int, dict[str, Any]] = field(default_factory=dict)  # index -> {"id", "name"} of its first delta
    _usage: Any = None
    _first: dict[str, Any] | None = None

    def event(self, data: str) -> None:
        if self._done:
            return  # nothing after [DONE] is read (the SDK stops there too)
        if data.strip() == "[DONE]":
            self._done = True
            return
        self._chunks += 1
        n = self._chunks
        try:
            chunk = door.loads(data, "the chunk")  # bounded: a chunk nested too deep breaks the rule
        except door.Refused as exc:
            self._problem(NOT_A_CHUNK, n, f"not JSON: {data[:80]!r} ({exc})")
            return
        if not isinstance(chunk, dict):
            self._problem(NOT_A_CHUNK, n, f"not an object: {data[:80]!r}")
            return
        if "error" in chunk and "choices" not in chunk:
            raise ValueError(f"the stream sent an error at chunk {n}: {json.dumps(chunk['error'])[:300]}")
        if self._first is None:
            self._first = chunk
        if chunk.get("usage") is not None:
            self._usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # one answer is asked for (n=1)
            self._delta(choice.get("delta") or {}, n)
            if choice.get("finish_reason"):
                self._finish_reason = choice["finish_reason"]
                if self._finished_at is None:
                    self._finished_at = n

    def _delta(self, delta: dict[str, Any], n: int) -> None:
        if not isinstance(delta, dict):
            self._problem(NOT_A_CHUNK, n, "a delta that is not an object")
            return
        calls = delta.get("tool_calls") or []
        for call in calls if isinstance(calls, list) else [calls]:
            if isinstance(call, dict):
                self._check_call(call, n)
        try:
            self._message = accumulate(self._message, delta)
        except (TypeError, RuntimeError) as exc:
            self._problem(NOT_A_CHUNK, n, f"a delta the SDK cannot merge ({exc})")

    def _check_call(self, call: dict[str, Any], n: int) -> None:
        index = call.get("index")
        function: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else {}
        if not isinstance(index, int):
            self._problem(NOT_A_CHUNK, n, "a tool-call delta without an integer index")
            return
        if self._finished_at is not None and function.get("arguments"):
            self._problem(ARGUMENTS_AFTER_FINISH, n, f"arguments for call index {index} after finish_reason")
        first = self._calls.get(index)
        if first is None:
            if index != len(self._calls):
                self._problem(INDEX_SKIPPED, n, f"call index {index} after {len(self._calls)} call(s)")
            if not call.get("id") or not function.get("name"):
                fields = (("id", call.get("id")), ("function.name", function.get("name")))
                missing = " and ".join(k for k, v in fields if not v)
                self._problem(FIRST_DELTA, n, f"the first delta of call index {index} has no {missing}")
            self._calls[index] = {"id": call.get("id"), "name": function.get("name")}
            return
        # Only a call's first delta names it: a later one with a name (or another id) starts a second
        # call under the same index, which clients merge into one (names and arguments concatenated).
        new_id, new_name = call.get("id"), function.get("name")
        if new_name or (new_id and new_id != first["id"]):
            self._problem(INDEX_REUSED, n, f"call index {index} reused for a second call ({new_name or new_id})")

    def _problem(self, rule: str, chunk: int, detail: str) -> None:
        self.problems.append(f"{rule} at chunk {chunk}: {detail}")

    def finish(self) -> dict[str, Any]:
        """The reassembled ``chat.completion``; ``problems`` then holds every rule the stream broke."""
        last = self._chunks
        if self._finish_reason is None:
            self._problem(NO_FINISH, last, "the stream ended without a finish_reason")
        if not self._done:
            self._problem(NO_DONE, last, "the stream ended without data: [DONE]")
        if self.usage_asked and self._usage is None:
            self._problem(NO_USAGE, last, "include_usage was asked for and no chunk carried usage")
        self._message = materialize(self._message)
        content = self._message.get("content")
        if isinstance(content, str) and has_tool_markup(content, self.tool_names):
            self._problem(MARKUP_IN_CONTENT, last, f"tool-call markup in the streamed content: {content[:80]!r}")
        if self._first is None and not self._message:
            raise ValueError("the stream carried no chunk")
        message = {"role": "assistant", "content": None, **self._message}
        return {
            "id": (self._first or {}).get("id"),
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish_reason}],
            "usage": self._usage,
        }


def tool_names(tools: list[dict[str, Any]] | None) -> list[str]:
    """The declared function names of a request's tools (for the markup rule)."""
    names = []
    for tool in tools or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else (tool or {}).get("name")
        if isinstance(name, str):
            names.append(name)
    return names
