"""The oracle's two sides: an agent that replays the task's reference actions, one tool call per
turn, then says the information to communicate; a user simulator that states its request and then
stops. Both go through the oracle model (the reply travels as the request's ``reference``)."""

from __future__ import annotations

import json
from typing import Any

from pytest_toolcall.benchmarks.tau2.prompts import STOP


def oracle_agent_reply(task: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    """The next reply: the next reference action as a tool call, or, when all are done, the
    communicate texts (``Done.`` when there are none)."""
    criteria = task.get("evaluation_criteria") or {}
    actions = [a for a in criteria.get("actions") or [] if a.get("requestor", "assistant") == "assistant"]
    done = sum(1 for m in history if m.get("role") == "assistant" and m.get("tool_calls"))
    if done < len(actions):
        action = actions[done]
        call = {"id": f"oracle_{done}", "name": action["name"], "arguments": json.dumps(action["arguments"])}
        return {"content": None, "tool_calls": [call]}
    said = " ".join(criteria.get("communicate_info") or []) or "Done."
    return {"content": said}


def oracle_user_reply(task: dict[str, Any], history: list[dict[str, Any]]) -> str:
    """The request first (the scenario's reason for calling), then the stop token."""
    if not any(m.get("role") == "assistant" for m in history):
        instructions = task["user_scenario"]["instructions"]
        return instructions if isinstance(instructions, str) else instructions["reason_for_call"]
    return STOP
