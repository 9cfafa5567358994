"""Anthropic's Messages API (``--toolcall-api messages``): a Chat Completions request translated into
a ``POST /v1/messages`` body, and the Messages answer (whole or streamed) read back into the shape of
a ``chat.completion``, so that everything after the model client (store, scoring) is the same.

Mapping: ``system`` messages become the top-level ``system`` text; ``user`` messages user turns; an
assistant turn's text a ``text`` block and its ``tool_calls`` ``tool_use`` blocks (``id``, ``name``,
``input``: the arguments parsed); ``tool`` messages ``tool_result`` blocks (``tool_use_id``) of the
user turn that follows, consecutive turns of one role joined into one (the API alternates roles).
Tools are ``{"name", "description", "input_schema"}``; ``tool_choice`` ``auto``/``required``/``none``/
a named function is ``{"type": "auto"|"any"|"none"|"tool"}``, ``parallel_tool_calls: false`` its
``disable_parallel_tool_use``; ``stop`` is ``stop_sequences``; a ``response_format`` json_schema is
``output_config.format``. ``max_tokens`` is required by the API: ``DEFAULT_MAX_TOKENS`` when none is
configured. In the answer, ``tool_use`` blocks are the tool calls (``input`` as JSON text),
``text`` blocks the text, ``thinking`` blocks the reasoning, ``stop_reason`` the finish reason and
``usage.input_tokens`` (with the cache's read and written tokens, which the API counts apart) /
``output_tokens`` the prompt / completion tokens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.core.protocol.failure_kinds import has_tool_markup
from pytest_toolcall.core.safety import door
from pytest_toolcall.model.streaming import (
    ARGUMENTS_AFTER_FINISH,
    FIRST_DELTA,
    INDEX_REUSED,
    INDEX_SKIPPED,
    MARKUP_IN_CONTENT,
    NO_FINISH,
    NO_USAGE,
    NOT_A_CHUNK,
)

#: Sent when no ``max_tokens`` is configured: the Messages API refuses a request without one.
DEFAULT_MAX_TOKENS = 4096
#: The Messages stream's own rules (docs/streaming-and-conformance.md explains each).
BLOCK_NOT_STARTED = "delta_for_unstarted_block"
INPUT_NOT_JSON = "input_json_not_json"
TOOL_USE_WITHOUT_CALL = "tool_use_without_tool_use_block"
NO_MESSAGE_STOP = "no_message_stop"

#: ``stop_reason`` -> the Chat Completions ``finish_reason`` the scorers know.
_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


def sdk_base_url(base_url: str | None) -> str | None:
    """The base URL as the ``anthropic`` SDK takes it (``https://api.anthropic.com``, the requests
    going to ``/v1/messages`` under it). One ending in ``/v1``, as given for Chat Completions
    (``http://host:8000/v1``), is the same server: the ``/v1`` is dropped."""
    if base_url is None:
        return None
    base = base_url.rstrip("/")
    return base.removesuffix("/v1") if base.endswith("/v1") else base


def request_body(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The ``/v1/messages`` body of a Chat Completions request (sampling is added by ``sampling``)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(_text(message.get("content")))
            continue
        blocks = _blocks(message)
        turn_role = "assistant" if role == "assistant" else "user"
        if turns and turns[-1]["role"] == turn_role:
            turns[-1]["content"] += blocks
        else:
            turns.append({"role": turn_role, "content": blocks})
    body: dict[str, Any] = {"model": model, "messages": turns}
    if system:
        body["system"] = "\n\n".join(system)
    if tools is not None:
        body["tools"] = [_tool(t) for t in tools]
    return body


def sampling(values: dict[str, Any]) -> dict[str, Any]:
    """Chat Completions sampling settings under their Messages names."""
    out = dict(values)
    out.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    if "stop" in out:
        stop = out.pop("stop")
        out["stop_sequences"] = [stop] if isinstance(stop, str) else stop
    choice = out.pop("tool_choice", None)
    parallel = out.pop("parallel_tool_calls", None)
    if choice is not None or parallel is False:
        chosen = _tool_choice(choice if choice is not None else "auto")
        if parallel is False and isinstance(chosen, dict) and chosen.get("type") != "none":
            chosen = {**chosen, "disable_parallel_tool_use": True}
        out["tool_choice"] = chosen
    form = out.pop("response_format", None)
    if isinstance(form, dict) and form.get("type") == "json_schema":
        schema = (form.get("json_schema") or {}).get("schema")
        out["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    elif form is not None:
        out["response_format"] = form  # no Messages equivalent: sent as it is, for the server to judge
    return out


def _tool_choice(choice: Any) -> Any:
    if choice == "auto":
        return {"type": "auto"}
    if choice == "required":
        return {"type": "any"}
    if choice == "none":
        return {"type": "none"}
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        return {"type": "tool", "name": choice["function"].get("name")}
    return choice  # not a Chat Completions choice (an invalid one a probe sends): as it is


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    role = message.get("role")
    content = message.get("content")
    if role == "tool":
        output = content if isinstance(content, str) else json.dumps(content)
        return [{"type": "tool_result", "tool_use_id": message.get("tool_call_id"), "content": output}]
    blocks: list[dict[str, Any]] = []
    text = _text(content)
    if text:  # the API refuses empty text blocks
        blocks.append({"type": "text", "text": text})
    if role == "assistant":
        # Reasoning is not passed back: a thinking block without the endpoint's signature is refused.
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "input": _input(function.get("arguments")),
                }
            )
    return blocks


def _input(arguments: Any) -> dict[str, Any]:
    """A call's arguments as the ``input`` object the API takes (arguments that are no JSON object,
    which only a broken answer has, are passed back as an empty one)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {}
    return arguments if isinstance(arguments, dict) else {}


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict):
        return tool  # not a function tool of Chat Completions: sent as it is
    out = {"name": function.get("name"), "input_schema": function.get("parameters") or {"type": "object"}}
    for key in ("description", "strict"):
        if key in function:
            out[key] = function[key]
    return out


def completion(message: dict[str, Any]) -> dict[str, Any]:
    """A Messages answer as a ``chat.completion``; raises ValueError when it is not one."""
    content = message.get("content")
    if not isinstance(content, list):
        raise ValueError(f"not a Messages answer (no content list): {json.dumps(message)[:200]}")
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text") or ""))
        elif kind == "tool_use":
            arguments = block.get("input")
            calls.append(
                {
                    "id": block.get("id"),
                    "type": "function",
                    "function": {
                        "name": block.get("name"),
                        # Text already (a stream's pieces that did not form JSON): kept as it came.
                        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                    },
                }
            )
        elif kind == "thinking":
            reasoning.append(str(block.get("thinking") or ""))
    answer: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        answer["tool_calls"] = calls
    if reasoning:
        answer["reasoning_content"] = "\n".join(reasoning)
    stop = message.get("stop_reason")
    return {
        "id": message.get("id"),
        "object": "chat.completion",
        "choices": [{"index": 0, "message": answer, "finish_reason": _FINISH.get(str(stop), stop)}],
        "usage": _usage(message.get("usage")),
    }


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    # The API's input_tokens leave out the tokens read from and written to its prompt cache; Chat
    # Completions' prompt_tokens count them (and name the cached ones apart).
    read = usage.get("cache_read_input_tokens")
    written = usage.get("cache_creation_input_tokens")
    prompt = usage.get("input_tokens")
    if isinstance(prompt, int):
        prompt += sum(n for n in (read, written) if isinstance(n, int))
    out: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": usage.get("output_tokens")}
    if isinstance(read, int):
        out["prompt_tokens_details"] = {"cached_tokens": read}
    return out


#: The field of each delta type that carries a piece of its block.
_PIECES = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}


@dataclass
class _Block:
    """One content block of a stream: its start event's fields, and its delta pieces (joined once,
    at the end: appending to a list costs the same whatever was streamed before)."""

    start: dict[str, Any]
    pieces: list[str] = field(default_factory=list)
    stopped: bool = False


@dataclass
class MessagesStream:
    """One streamed Messages answer, reassembled from its events and checked by the rules below and
    those of a Chat Completions stream that apply (docs/streaming-and-conformance.md).

    Reassembled here, not by the SDK's ``accumulate_event``: that re-parses a tool call's whole
    partial input at every ``input_json_delta`` (quadratic in its length) and builds typed objects
    per event. The answer is the one it gives (a test holds this on every stream the test server
    sends); what it does not do is check."""

    tool_names: list[str]
    problems: list[str] = field(default_factory=list)
    _events: int = 0
    _message: dict[str, Any] | None = None
    _blocks: dict[int, _Block] = field(default_factory=dict)
    _replaced: list[tuple[int, _Block]] = field(default_factory=list)  # blocks whose index was reused
    _stop_reason: str | None = None
    _usage: dict[str, Any] = field(default_factory=dict)
    _stopped: bool = False

    def event(self, data: str) -> None:
        self._events += 1
        n = self._events
        try:
            event = door.loads(data, "the event")  # bounded: an event nested too deep breaks the rule
        except door.Refused as exc:
            self._problem(NOT_A_CHUNK, n, f"not JSON: {data[:80]!r} ({exc})")
            return
        if not isinstance(event, dict):
            self._problem(NOT_A_CHUNK, n, f"not an object: {data[:80]!r}")
            return
        kind = event.get("type")
        if kind == "error":
            raise ValueError(f"the stream sent an error at event {n}: {json.dumps(event)[:300]}")
        if kind == "ping":
            return
        if kind == "message_start":
            started = event.get("message")
            if not isinstance(started, dict):
                self._problem(NOT_A_CHUNK, n, "message_start without a message")
                return
            self._message = started
            if isinstance(started.get("usage"), dict):
                self._usage.update(started["usage"])
            return
        if self._message is None and kind != "message_stop":
            self._problem(NOT_A_CHUNK, n, f"{kind} before message_start")
        index = event.get("index")
        if kind == "content_block_start":
            self._start(event.get("content_block"), index, n)
        elif kind == "content_block_delta":
            self._delta(event.get("delta"), index, n)
        elif kind == "content_block_stop":
            block = self._blocks.get(index) if isinstance(index, int) else None
            if block is None:
                self._problem(BLOCK_NOT_STARTED, n, f"content_block_stop for index {index}, never started")
            else:
                block.stopped = True
        elif kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason"):
                self._stop_reason = delta["stop_reason"]
            if isinstance(event.get("usage"), dict):
                # Cumulative counts: they replace those of message_start (absent ones are kept).
                self._usage.update({k: v for k, v in event["usage"].items() if v is not None})
        elif kind == "message_stop":
            self._stopped = True

    def _start(self, block: Any, index: Any, n: int) -> None:
        if not isinstance(block, dict) or not isinstance(index, int):
            self._problem(NOT_A_CHUNK, n, "a content_block_start without a block or an integer index")
            return
        if index in self._blocks:
            self._problem(INDEX_REUSED, n, f"index {index} started a second block ({block.get('type')})")
        elif index != len(self._blocks):
            self._problem(INDEX_SKIPPED, n, f"block index {index} after {len(self._blocks)} block(s)")
        if block.get("type") == "tool_use" and (not block.get("id") or not block.get("name")):
            missing = " and ".join(k for k in ("id", "name") if not block.get(k))
            self._problem(FIRST_DELTA, n, f"the tool_use block started at index {index} has no {missing}")
        if index in self._blocks:
            # The first block is kept as it was; the index's later deltas are the second's.
            self._replaced.append((index, self._blocks[index]))
        self._blocks[index] = _Block(block)

    def _delta(self, delta: Any, index: Any, n: int) -> None:
        block = self._blocks.get(index) if isinstance(index, int) else None
        if not isinstance(delta, dict):
            self._problem(NOT_A_CHUNK, n, "a content_block_delta without a delta object")
            return
        if block is None:
            self._problem(BLOCK_NOT_STARTED, n, f"a {delta.get('type')} for index {index}, never started")
            return
        kind = delta.get("type")
        if block.stopped and kind == "input_json_delta":
            self._problem(ARGUMENTS_AFTER_FINISH, n, f"input for index {index} after its content_block_stop")
        piece = _PIECES.get(str(kind))
        if piece is not None and isinstance(delta.get(piece), str):
            block.pieces.append(delta[piece])

    def _problem(self, rule: str, at: int, detail: str) -> None:
        self.problems.append(f"{rule} at chunk {at}: {detail}")

    def finish(self) -> dict[str, Any]:
        """The reassembled ``chat.completion``; ``problems`` then holds every rule the stream broke."""
        last = self._events
        if self._message is None and not self._blocks:
            raise ValueError("the stream carried no message_start")
        blocks = sorted([*self._replaced, *self._blocks.items()], key=lambda pair: pair[0])  # (stable)
        content = [self._block(index, block, last) for index, block in blocks]
        if self._stop_reason is None:
            self._problem(NO_FINISH, last, "the stream ended without a stop_reason")
        elif self._stop_reason == "tool_use" and not any(b.get("type") == "tool_use" for b in content):
            self._problem(TOOL_USE_WITHOUT_CALL, last, "stop_reason tool_use, and no tool_use block")
        if not self._stopped:
            self._problem(NO_MESSAGE_STOP, last, "the stream ended without message_stop")
        if not isinstance(self._usage.get("output_tokens"), int):
            self._problem(NO_USAGE, last, "no usage with output_tokens in message_start or message_delta")
        message = {**(self._message or {}), "content": content, "stop_reason": self._stop_reason}
        message["usage"] = self._usage or None
        result = completion(message)
        text = result["choices"][0]["message"]["content"]
        if isinstance(text, str) and has_tool_markup(text, self.tool_names):
            self._problem(MARKUP_IN_CONTENT, last, f"tool-call markup in the streamed content: {text[:80]!r}")
        return result

    def _block(self, index: int, block: _Block, last: int) -> dict[str, Any]:
        kind = block.start.get("type")
        joined = "".join(block.pieces)
        if kind == "text":
            return {**block.start, "text": str(block.start.get("text") or "") + joined}
        if kind == "thinking":
            return {**block.start, "thinking": str(block.start.get("thinking") or "") + joined}
        if kind == "tool_use":
            if not block.pieces:  # no input streamed: the start's own (``{}`` for a call without arguments)
                return block.start
            try:
                arguments: Any = door.loads(joined, "the input")
            except door.Refused:
                self._problem(INPUT_NOT_JSON, last, f"the input_json_delta pieces of index {index} are not JSON")
                arguments = joined  # kept as text: scored as arguments that are not JSON
            return {**block.start, "input": arguments}
        return block.start
