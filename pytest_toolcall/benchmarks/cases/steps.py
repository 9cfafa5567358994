"""Multi-step runs: the model acts, its calls are executed, their results go back, up to N times.

Each answer's tool calls are executed in order (by an MCP server, or answered from the case's
``tool_results`` mocks) and appended as tool messages after the assistant message that made them;
the run ends at the first answer without a call (its text is the final answer) or when the step
budget is spent, which is said in the transcript's ``step_limit``, not raised. The calls of an
answer that spends the budget count in the trajectory but are not executed: no step is left to
read their results.

Every execution goes through ``execute(name, arguments)``, which the caller wraps so that the
exchange is kept in the response store: a replay gets the same results without the server.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.api import ChatRequest, ChatResponse

#: ``(chat-API tool name, parsed arguments) -> {"content": text, "is_error": bool}``.
Execute = Callable[[str, Any], dict[str, Any]]


@dataclass
class Transcript:
    """What a multi-step run did: every message (the request's and the run's), every call with its
    result, the final text answer (None when the budget was spent first)."""

    messages: list[dict[str, Any]]
    responses: list[ChatResponse] = field(default_factory=list)
    #: ``{"step", "id", "name", "arguments" (raw string), "result", "is_error"}``; no result (None)
    #: for the calls of an answer that spent the budget.
    calls: list[dict[str, Any]] = field(default_factory=list)
    step_limit: bool = False  # the last answer still called tools when no step was left
    steps: int = 0  # the budget

    @property
    def final(self) -> str | None:
        """The text of the last answer, when it called no tool."""
        if self.step_limit or not self.responses or self.responses[-1].tool_calls:
            return None
        return self.responses[-1].content

    @property
    def first(self) -> ChatResponse | None:
        return self.responses[0] if self.responses else None

    def record(self) -> dict[str, Any]:
        """The record fields of the run (plain builtins)."""
        return {
            "transcript": self.messages,
            "trajectory": [
                {k: call[k] for k in ("step", "name", "arguments", "result", "is_error")} for call in self.calls
            ],
            "steps_used": len(self.responses),
            "step_limit": self.step_limit,
            "final": self.final,
        }


def run_steps(
    ask: Callable[[ChatRequest], ChatResponse],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    sampling: dict[str, Any],
    steps: int,
    execute: Execute,
    references: list[Any] | None = None,
) -> Transcript:
    """Run up to ``steps`` answers. ``references`` (the oracle's) is the answer of each step."""
    __tracebackhide__ = True  # (a Python test's: its request errors end at the test's line)
    transcript = Transcript([json.loads(json.dumps(m)) for m in messages], steps=steps)
    for step in range(steps):
        reference = references[min(step, len(references) - 1)] if references else None
        response = ask(ChatRequest(json.loads(json.dumps(transcript.messages)), tools or None, sampling, reference))
        transcript.responses.append(response)
        calls = [_with_id(call, step, position) for position, call in enumerate(response.tool_calls)]
        transcript.messages.append(_assistant_message(response, calls))
        if not calls:
            return transcript
        last = step == steps - 1
        for call in calls:
            entry = {"step": step + 1, "id": call["id"], "name": call["name"], "arguments": call["arguments"]}
            if last:
                transcript.calls.append({**entry, "result": None, "is_error": None})
                continue
            result = _execute(execute, call)
            transcript.calls.append({**entry, "result": result["content"], "is_error": result["is_error"]})
            transcript.messages.append({"role": "tool", "tool_call_id": call["id"], "content": result["content"]})
    transcript.step_limit = True
    return transcript


def _with_id(call: dict[str, Any], step: int, position: int) -> dict[str, Any]:
    arguments = call.get("arguments")
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call.get("id") or f"call_{step + 1}_{position + 1}", "name": str(call.get("name")), "arguments": raw}


def _assistant_message(response: ChatResponse, calls: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls
        ]
    return message


def _execute(execute: Execute, call: dict[str, Any]) -> dict[str, Any]:
    """Arguments that are not a JSON object never reach the tool: the model is told so."""
    try:
        arguments = json.loads(call["arguments"])
    except (ValueError, RecursionError) as exc:
        return {"content": f"error: the arguments are not valid JSON ({exc})", "is_error": True}
    if not isinstance(arguments, dict):
        return {"content": "error: the arguments must be a JSON object", "is_error": True}
    result = execute(call["name"], arguments)
    return {"content": str(result.get("content", "")), "is_error": bool(result.get("is_error"))}


class MockResults:
    """The ``tool_results`` of a case: ``{tool: value}`` answers every call of that tool with the value;
    ``{tool: [v1, v2, ...]}`` answers the first call with v1, the second with v2, and later ones with the
    last (a list as the one result is written ``[[...]]``). A string is sent as it is, any other value as
    its JSON; a call to a tool without a mock gets an error result the model sees."""

    def __init__(self, results: dict[str, Any]) -> None:
        self.results = results
        self._counts: dict[str, int] = {}

    def __call__(self, name: str, arguments: Any) -> dict[str, Any]:
        if name not in self.results:
            known = ", ".join(sorted(self.results)) or "none"
            message = f"error: no result is given for tool {name!r} (tool_results has: {known})"
            return {"content": message, "is_error": True}
        value = self.results[name]
        if isinstance(value, list):
            count = self._counts[name] = self._counts.get(name, 0) + 1
            value = value[min(count, len(value)) - 1] if value else None
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return {"content": text, "is_error": False}
