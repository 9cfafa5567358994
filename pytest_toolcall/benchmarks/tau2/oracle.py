"""The oracle's two sides: an agent that replays the task's reference actions of the assistant,
one tool call per turn, then says the information to communicate; a user simulator that states its
request, replays the reference actions of the user (telecom: tool calls on its phone) and then
stops. Both go through the oracle model (the reply travels as the request's ``reference``).

The reference actions keep their order across the two sides: they are cut into turns, runs of
one side's actions, and each side plays its run of a turn and then hands over with a text message
(the user's first text is its request). Each side counts only what it sees: its own tool calls and
the other side's texts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_toolcall.benchmarks.tau2.prompts import OUT_OF_SCOPE, STOP, TRANSFER

HAND_OVER = {"user": "I have done that.", "assistant": "Please go ahead."}


def _turns(task: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The reference actions in runs of one requestor; the even runs the user's (the first may be
    empty: the user speaks first), the odd ones the assistant's."""
    criteria = task.get("evaluation_criteria") or {}
    turns: list[list[dict[str, Any]]] = [[]]
    for action in criteria.get("actions") or []:
        side = 0 if action.get("requestor", "assistant") == "user" else 1
        if (len(turns) - 1) % 2 == side:  # the last turn is this side's
            turns[-1].append(action)
        else:
            turns.append([action])
    return turns


def _planned(turns: list[list[dict[str, Any]]], side: int, up_to: int) -> list[dict[str, Any]]:
    """One side's actions of the turns up to index ``up_to``."""
    return [a for index, turn in enumerate(turns[: up_to + 1]) if index % 2 == side for a in turn]


def _call(action: dict[str, Any], index: int) -> dict[str, Any]:
    call = {"id": f"oracle_{index}", "name": action["name"], "arguments": json.dumps(action["arguments"])}
    return {"content": None, "tool_calls": [call]}


def _own_calls(history: list[dict[str, Any]]) -> int:
    return sum(len(m.get("tool_calls") or ()) for m in history if m.get("role") == "assistant")


def oracle_agent_reply(task: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
    """The next reply in the agent's view (the user's texts are ``user`` messages): its next
    reference action of the current turn as a tool call; when all are done, the communicate texts
    (``Done.`` when there are none); between turns, a hand-over."""
    turns = _turns(task)
    handed = sum(1 for m in history if m.get("role") == "user")  # the user's texts
    due = _planned(turns, 1, 2 * handed - 1)
    done = _own_calls(history)
    if done < len(due):
        return _call(due[done], done)
    if done < len(_planned(turns, 1, len(turns))):
        return {"content": HAND_OVER["assistant"]}
    criteria = task.get("evaluation_criteria") or {}
    return {"content": " ".join(criteria.get("communicate_info") or []) or "Done."}


def oracle_user_reply(task: dict[str, Any], history: list[dict[str, Any]]) -> Any:
    """The next reply in the user simulator's view (its own messages are ``assistant`` ones): its
    reference actions of the current turn as tool calls, then the request (first) or a hand-over;
    the stop token once every turn is played."""
    turns = _turns(task)
    said = sum(1 for m in history if m.get("role") == "assistant" and not m.get("tool_calls"))
    if 2 * said >= len(turns):
        return STOP
    due = _planned(turns, 0, 2 * said)
    done = _own_calls(history)
    if done < len(due):
        return _call(due[done], done)
    if said == 0:
        instructions = task["user_scenario"]["instructions"]
        if isinstance(instructions, str):
            # (banking_knowledge's instructions tell the user when to end with these tokens: said
            # as they stand, the request itself would end the dialogue)
            return re.sub("|".join(re.escape(t) for t in (STOP, TRANSFER, OUT_OF_SCOPE)), "", instructions)
        return instructions["reason_for_call"]
    return HAND_OVER["user"]
