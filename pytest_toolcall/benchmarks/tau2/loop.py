"""The official half-duplex loop (tau2 1.0.1 ``orchestrator.Orchestrator``), with the agent and the
user simulator as plain callables: ``speaker(messages, tools) -> (content, tool_calls)``.

The agent opens with the official greeting; each step is one message (the user's, the agent's, or
the environment's answers to a message's tool calls). The user simulator ends the dialogue with
``###STOP###``, ``###TRANSFER###`` or ``###OUT-OF-SCOPE###`` (``user_stop``); the official agent
never stops. After a step that does not wait for the environment, ``max_steps`` (200) steps or
``max_errors`` (10) failed tool calls end it (``max_steps`` / ``too_many_errors``, the latter
checked last, and both even after a stop, as officially).

Dual control (telecom): the environment starts from the task's initial state; the user simulator
is offered the user's tools (the official schemas) and its turn may be tool calls on its phone,
whose results go back to it (the agent never sees them, nor the user its calls); a step is still
one message of either side, so ``max_steps`` counts both; the two sides are synced after every
step, as the official orchestrator does.

An exchange the official run would abort (an empty message, tool arguments that are not JSON) is
raised as ``InfrastructureError``: the official runner retries the simulation and then records
``infrastructure_error``, which no metric counts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.api import RequestError
from pytest_toolcall.benchmarks.tau2.dual_control import new_environment
from pytest_toolcall.benchmarks.tau2.prompts import GREETING, agent_system_prompt, is_user_stop, user_system_prompt

MAX_STEPS = 200
MAX_ERRORS = 10
#: The official runner's seed (``DEFAULT_SEED``), from which it draws each trial's.
RUN_SEED = 300


def trial_seed(trial: int) -> int:
    """The seed the official runner gives trial ``trial`` (from 0), which its Orchestrator sends in
    every request of the agent and of the user simulator: the runner seeds Python's ``random`` with
    the run's seed and draws one ``randint(0, 1000000)`` per trial, in order."""
    draws = random.Random(RUN_SEED)
    seed = 0
    for _ in range(trial + 1):
        seed = draws.randint(0, 1_000_000)
    return seed


def request_sampling(trial: int, tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    """What a request of either side carries besides its messages, tools and the benchmark's
    sampling (temperature 0), as the official ``generate`` sends it: the trial's seed, and
    ``tool_choice: auto`` when there are tools."""
    sampling: dict[str, Any] = {"seed": trial_seed(trial)}
    if tools:
        sampling["tool_choice"] = "auto"
    return sampling


Call = dict[str, Any]  # {"id", "name", "arguments": dict}
Speaker = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], tuple[str | None, list[Call]]]


class InfrastructureError(RequestError):
    """The official run would have aborted (and, after its retries, recorded ``infrastructure_error``)."""


@dataclass
class Simulation:
    task_id: str
    messages: list[dict[str, Any]]
    termination_reason: str
    steps: int = 0
    errors: int = 0
    info: dict[str, Any] = field(default_factory=dict)


def decode_calls(raw_calls: list[dict[str, Any]]) -> list[Call]:
    """Tool calls of an answer with their arguments parsed (``json.loads``, as the official ``generate``)."""
    calls = []
    for index, raw in enumerate(raw_calls):
        if raw.get("malformed") or not raw.get("name"):
            raise InfrastructureError(f"a tool call without a name: {raw.get('malformed') or raw}")
        arguments = raw.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError as exc:
                raise InfrastructureError(f"tool call {raw['name']}: arguments are not JSON ({exc})") from None
        if not isinstance(arguments, dict):
            raise InfrastructureError(f"tool call {raw['name']}: arguments are not a JSON object")
        calls.append({"id": raw.get("id") or f"call_{index}", "name": raw["name"], "arguments": arguments})
    return calls


def run_simulation(
    domain: str,
    task: dict[str, Any],
    agent: Speaker,
    user: Speaker,
    *,
    max_steps: int = MAX_STEPS,
    max_errors: int = MAX_ERRORS,
    retrieval: str = "bm25",
) -> Simulation:
    """``retrieval``: banking_knowledge's retrieval configuration (its agent policy and tool)."""
    env = new_environment(domain, task, retrieval)
    initial_state = task.get("initial_state") or {}
    if initial_state.get("message_history"):
        raise ValueError(f"task {task.get('id')}: a task that starts with a message history is not supported")
    env.set_state(initial_state, [], strict=True)
    tools = [spec.schema for spec in env.specs.values()]
    offered = task.get("user_tools")  # a task may offer the user only some of its tools
    user_tools = [s.schema for n, s in env.user_specs.items() if offered is None or n in offered] or None
    agent_system = {"role": "system", "content": agent_system_prompt(domain, task, retrieval)}
    user_system = {"role": "system", "content": user_system_prompt(task, user_tools is not None)}
    greeting: dict[str, Any] = {"role": "assistant", "content": GREETING, "tool_calls": None}
    trajectory: list[dict[str, Any]] = [greeting]
    agent_history: list[dict[str, Any]] = [greeting]  # the agent's own view
    user_history: list[dict[str, Any]] = []  # what the user simulator has seen, unflipped
    message: Any = greeting
    sender, receiver = "agent", "user"
    steps = errors = 0
    reason: str | None = None
    while reason is None:
        if receiver == "user":
            if isinstance(message, list):  # the answers to its own tool calls
                user_history.extend(message)
            elif _has_text(message) or message.get("tool_calls"):
                user_history.append(message)
            content, calls = user([user_system, *_flipped(user_history)], user_tools)
            reply = _message("user", content, calls, "user")
            user_history.append(reply)
            trajectory.append(reply)
            if not reply.get("tool_calls") and is_user_stop(content):
                reason = "user_stop"
            message, sender = reply, "user"
            receiver = "env" if reply.get("tool_calls") else "agent"
        elif receiver == "agent":
            agent_history.extend(message if isinstance(message, list) else [message])
            content, calls = agent([agent_system, *_api_messages(agent_history)], tools)
            reply = _message("assistant", content, calls, "assistant")
            agent_history.append(reply)
            trajectory.append(reply)
            message, sender = reply, "agent"
            receiver = "env" if reply.get("tool_calls") else "user"
        else:
            results = [env.get_response(call) for call in message["tool_calls"]]
            errors += sum(1 for result in results if result["error"])
            trajectory.extend(results)
            message, sender, receiver = results, "env", sender
        steps += 1
        env.sync()
        if receiver != "env":
            if steps >= max_steps:
                reason = "max_steps"
            if errors >= max_errors:
                reason = "too_many_errors"
    return Simulation(str(task["id"]), trajectory, reason, steps, errors)


def _has_text(message: dict[str, Any]) -> bool:
    return isinstance(message.get("content"), str) and bool(message["content"].strip())


def _message(role: str, content: str | None, calls: list[Call], requestor: str) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": role,
        "content": content,
        "tool_calls": [{**call, "requestor": requestor} for call in calls] or None,
    }
    if not (_has_text(message) or message["tool_calls"]):
        # The official ``validate()`` raises on a message with neither text nor tool calls.
        raise InfrastructureError(f"the {role} sent an empty message")
    return message


def _api_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's view as chat messages (the official ``to_litellm_messages``)."""
    out: list[dict[str, Any]] = []
    for m in history:
        if m["role"] == "tool":
            out.append({"role": "tool", "content": m["content"], "tool_call_id": m["id"]})
        elif m["role"] == "assistant":
            out.append(_as_assistant(m))
        else:
            out.append({"role": m["role"], "content": m["content"]})
    return out


def _as_assistant(m: dict[str, Any]) -> dict[str, Any]:
    """A message as the chat message of the model that sent it, with its tool calls, as the
    official request carries it over the wire: each call also has its ``name`` beside the
    ``function`` (``to_litellm_messages``), and a field without a value (no text, no calls) is left
    out (litellm drops it)."""
    entry: dict[str, Any] = {"role": "assistant"}
    if m["content"] is not None:
        entry["content"] = m["content"]
    if m.get("tool_calls"):
        entry["tool_calls"] = [
            {
                "id": c["id"],
                "name": c["name"],
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                "type": "function",
            }
            for c in m["tool_calls"]
        ]
    return entry


def _flipped(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The user simulator's view (``UserState.flip_roles``): the agent's texts as the user's, its
    own messages (with their tool calls, on its phone) as the assistant's, and the answers to those."""
    out: list[dict[str, Any]] = []
    for m in history:
        if m["role"] == "user":
            out.append(_as_assistant(m))
        elif m["role"] == "assistant":
            out.append({"role": "user", "content": m["content"]})
        else:
            out.append({"role": "tool", "content": m["content"], "tool_call_id": m["id"]})
    return out
