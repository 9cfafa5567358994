"""The OpenAI Responses API (``--toolcall-api responses``): a Chat Completions request translated into
a ``POST /responses`` body, and the Responses answer (whole or streamed) read back into the shape of
a ``chat.completion``, so that everything after the model client (store, scoring) is the same.

Mapping: ``system``/``user``/``assistant`` messages become input messages; an assistant turn's
``tool_calls`` become ``function_call`` items (their ids as ``call_id``) and its ``reasoning_content``
a ``reasoning`` item; ``tool`` messages become ``function_call_output`` items of the same
``call_id``. Tools are function tools (``{"type": "function", "name", "description", "parameters",
"strict"}``); ``max_tokens`` is ``max_output_tokens``; a named ``tool_choice`` is
``{"type": "function", "name"}``; ``response_format`` is ``text.format`` (a json_schema's ``name``,
``schema`` and ``strict`` beside its ``type``). In the answer, ``function_call`` output items are the tool calls,
``message`` items the text, ``reasoning`` items the reasoning, ``usage.input_tokens`` /
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


def request_body(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The ``/responses`` body of a Chat Completions request (sampling is added by ``sampling``)."""
    body: dict[str, Any] = {"model": model, "input": [item for m in messages for item in _items(m)]}
    if tools is not None:
        body["tools"] = [_tool(t) for t in tools]
    return body


def sampling(values: dict[str, Any]) -> dict[str, Any]:
    """Chat Completions sampling settings under their Responses names."""
    out = dict(values)
    if "max_tokens" in out:
        out["max_output_tokens"] = out.pop("max_tokens")
    choice = out.get("tool_choice")
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        out["tool_choice"] = {"type": "function", "name": choice["function"].get("name")}
    form = out.pop("response_format", None)
    if isinstance(form, dict) and form.get("type") == "json_schema" and isinstance(form.get("json_schema"), dict):
        out["text"] = {"format": {"type": "json_schema", **form["json_schema"]}}
    elif form is not None:
        out["text"] = {"format": form}
    return out


def _items(message: dict[str, Any]) -> list[dict[str, Any]]:
    role = message.get("role")
    content = message.get("content")
    if role == "tool":
        output = content if isinstance(content, str) else json.dumps(content)
        return [{"type": "function_call_output", "call_id": message.get("tool_call_id"), "output": output}]
    items: list[dict[str, Any]] = []
    if role == "assistant":
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            items.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}]})
        if content:
            items.append({"role": "assistant", "content": _text(content)})
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments") or "",
                }
            )
        return items
    if isinstance(content, list):
        parts = [{"type": "input_text", "text": p.get("text", "")} for p in content if isinstance(p, dict)]
        return [{"role": role, "content": parts}]
    return [{"role": role, "content": content if content is not None else ""}]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool.get("function") if isinstance(tool, dict) else None
    if not isinstance(function, dict):
        return tool  # not a function tool of Chat Completions: sent as it is
    out = {"type": "function", "name": function.get("name"), "parameters": function.get("parameters", {})}
    for key in ("description", "strict"):
        if key in function:
            out[key] = function[key]
    return out


def completion(response: dict[str, Any]) -> dict[str, Any]:
    """A Responses answer as a ``chat.completion``; raises ValueError when it is not one."""
    output = response.get("output")
    if not isinstance(output, list):
        raise ValueError(f"not a Responses answer (no output list): {json.dumps(response)[:200]}")
    return _completion(output, response)


def _completion(output: list[Any], response: dict[str, Any]) -> dict[str, Any]:
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in output:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "message":
            pieces = item.get("content")
            if isinstance(pieces, list):  # odd types are the model's answer, scored as it came
                texts += [_answer_text(p.get("text")) for p in pieces if isinstance(p, dict)]
        elif kind == "function_call":
            calls.append(
                {
                    "id": item.get("call_id"),
                    "type": "function",
                    "function": {"name": item.get("name"), "arguments": item.get("arguments")},
                }
            )
        elif kind == "reasoning":
            summary, content = item.get("summary"), item.get("content")
            parts = [*(summary if isinstance(summary, list) else []), *(content if isinstance(content, list) else [])]
            for part in parts:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    reasoning.append(part["text"])
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    if reasoning:
        message["reasoning_content"] = "\n".join(reasoning)
    return {
        "id": response.get("id"),
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(response, bool(calls))}],
        "usage": _usage(response.get("usage")),
    }


def _answer_text(text: Any) -> str:
    """A text part of the answer as text whatever its JSON type (a number, an object): the model's
    answer, scored as it came, not a transport fault to retry."""
    if text is None:
        return ""
    return text if isinstance(text, str) else json.dumps(text)


def _finish_reason(response: dict[str, Any], called: bool) -> str | None:
    status = response.get("status")
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return "length" if reason == "max_output_tokens" else str(reason or "incomplete")
    if status not in (None, "completed"):
        return None
    return "tool_calls" if called else "stop"


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    return {
        "prompt_tokens": usage.get("input_tokens"),
        "completion_tokens": usage.get("output_tokens"),
        "prompt_tokens_details": usage.get("input_tokens_details"),
        "completion_tokens_details": usage.get("output_tokens_details"),
    }


#: The prefix of an item's field holding the pieces streamed for another (``_pieces_text``): joined
#: once, at the end, so that reassembly stays linear.
_PIECES = "_pieces_"


@dataclass
class ResponsesStream:
    """One streamed Responses answer, reassembled from its output-item and delta events and checked
    by the same rules as a Chat Completions stream (a Responses stream ends with
    ``response.completed``; it has no ``[DONE]``)."""

    tool_names: list[str]
    problems: list[str] = field(default_factory=list)
    _events: int = 0
    _items: dict[int, dict[str, Any]] = field(default_factory=dict)
    _done: set[int] = field(default_factory=set)
    _final: dict[str, Any] | None = None

    def event(self, data: str) -> None:
        if data.strip() == "[DONE]":
            return
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
        kind, index = event.get("type"), event.get("output_index")
        if kind == "error" or kind == "response.failed":
            raise ValueError(f"the stream sent an error at event {n}: {json.dumps(event)[:300]}")
        if kind == "response.output_item.added" and isinstance(event.get("item"), dict):
            self._added(event["item"], index, n)
        elif kind in ("response.output_text.delta", "response.function_call_arguments.delta"):
            item = self._items.get(index) if isinstance(index, int) else None
            if item is None:
                self._problem(NOT_A_CHUNK, n, f"a delta for output index {index}, which no item was added at")
                return
            if kind.startswith("response.function_call") and index in self._done:
                self._problem(ARGUMENTS_AFTER_FINISH, n, f"arguments for output index {index} after its item was done")
            key = "arguments" if item.get("type") == "function_call" else "text"
            item.setdefault(_PIECES + key, []).append(str(event.get("delta") or ""))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            item = self._items.setdefault(index if isinstance(index, int) else -1, {"type": "reasoning"})
            item.setdefault(_PIECES + "text", []).append(str(event.get("delta") or ""))
        elif kind == "response.output_item.done" and isinstance(index, int):
            self._done.add(index)
        elif kind in ("response.completed", "response.incomplete") and isinstance(event.get("response"), dict):
            self._final = event["response"]

    def _added(self, item: dict[str, Any], index: Any, n: int) -> None:
        if not isinstance(index, int):
            self._problem(NOT_A_CHUNK, n, "an output item without an integer output_index")
            return
        if index in self._items:
            self._problem(INDEX_REUSED, n, f"output index {index} reused for a second item")
        elif index != len(self._items):
            self._problem(INDEX_SKIPPED, n, f"output index {index} after {len(self._items)} item(s)")
        if item.get("type") == "function_call" and (not item.get("call_id") or not item.get("name")):
            missing = " and ".join(k for k in ("call_id", "name") if not item.get(k))
            self._problem(FIRST_DELTA, n, f"the function_call added at output index {index} has no {missing}")
        self._items[index] = (
            {**item, "arguments": _answer_text(item.get("arguments"))}
            if item.get("type") == ("function_call")
            else {"type": item.get("type")}
        )

    def _problem(self, rule: str, at: int, detail: str) -> None:
        self.problems.append(f"{rule} at chunk {at}: {detail}")

    def finish(self) -> dict[str, Any]:
        last = self._events
        if self._final is None:
            self._problem(NO_FINISH, last, "the stream ended without response.completed")
        elif not isinstance(self._final.get("usage"), dict):
            self._problem(NO_USAGE, last, "response.completed carried no usage")
        if not self._items and self._final is None:
            raise ValueError("the stream carried no event")
        for item in self._items.values():
            for key in ("arguments", "text"):
                pieces = item.pop(_PIECES + key, None)
                if pieces:
                    item[key] = str(item.get(key) or "") + "".join(pieces)
        output: list[dict[str, Any]] = []
        for _, item in sorted(self._items.items()):
            if item.get("type") == "message":
                output.append({"type": "message", "content": [{"type": "output_text", "text": item.get("text", "")}]})
            elif item.get("type") == "reasoning":
                output.append(
                    {"type": "reasoning", "summary": [{"type": "summary_text", "text": item.get("text", "")}]}
                )
            elif item.get("type") == "function_call":
                output.append(item)
        result = _completion(output, self._final or {"status": None})
        content = result["choices"][0]["message"]["content"]
        if isinstance(content, str) and has_tool_markup(content, self.tool_names):
            self._problem(MARKUP_IN_CONTENT, last, f"tool-call markup in the streamed content: {content[:80]!r}")
        return result
