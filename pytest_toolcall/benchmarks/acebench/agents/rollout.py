"""The two official agent loops (``apimodel_inference.py : multi_{step,turn}_inference``), with the
models as plain callables: ``agent(messages) -> str`` and ``user(messages) -> str``.

Both loops count every message (agent, user simulator, execution) against ``max_turns`` and stop
when a message produced at loop index > 1 contains ``finish conversation`` (substring of a text,
element of an execution list); that message is neither executed nor recorded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.benchmarks.acebench.agents.dispatch import MULTI_STEP, MULTI_TURN, CallRecord, execute
from pytest_toolcall.benchmarks.acebench.agents.envs import Environment, StateError
from pytest_toolcall.benchmarks.acebench.agents.parse import AgentCall, ReplyError, parse_reply
from pytest_toolcall.benchmarks.acebench.agents.prompts import (
    Messages,
    step_agent_messages,
    strip_speaker,
    turn_agent_messages,
    user_seed_messages,
)
from pytest_toolcall.benchmarks.acebench.dataset import Sample
from pytest_toolcall.benchmarks.acebench.prompts import Prompts, function_list

#: Sampling of the official agent and user-simulator requests (CLI sampling flags are not passed).
#: Model names containing "o1" are sent no sampling settings at all.
AGENT_SAMPLING: dict[str, Any] = {"temperature": 0.001, "top_p": 1, "max_tokens": 1000}
USER_SAMPLING: dict[str, Any] = dict(AGENT_SAMPLING)
MAX_TURNS = 40
FINISH = "finish conversation"
#: multi_step's answer to a reply it cannot parse (there is no user to talk to).
UNPARSEABLE_REPLY = "Please do not ask me any questions, use the known conditions to solve the problem"

Agent = Callable[[Messages], str]
User = Callable[[Messages], str]

_TO_EXECUTION_STEP = re.compile(r"\[.*?\]")  # multi_step labels (never routes) by a match at the start
_TO_EXECUTION_TURN = re.compile(r"\[.*\]")  # multi_turn: brackets on one line, anywhere


@dataclass(frozen=True)
class Message:
    """One message of the official dialogue history."""

    sender: str  # "user", "agent" or "execution"
    recipient: str
    content: Any  # text, or the execution result list
    #: Execution messages: each call of the executed reply with its outcome.
    calls: tuple[CallRecord, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"sender": self.sender, "recipient": self.recipient, "message": self.content}


@dataclass
class Rollout:
    lang: str
    category: str
    id: str
    transcript: list[Message] = field(default_factory=list)
    #: The agent replies sent to execution, raw (multi_step: every reply; multi_turn: parsed ones).
    process: list[str] = field(default_factory=list)
    #: The official result list ``[{Class: {attr: value}}]`` after its JSON round trip; ``[]`` when
    #: no execution ever recorded state; ``None`` when the state cannot be serialised (see ``state_error``).
    end_state: list[dict[str, Any]] | None = None
    #: The loop ended on "finish conversation" (False: it ran into ``max_turns``).
    finished: bool = False
    state_error: str | None = None

    @property
    def agent_replies(self) -> list[str]:
        return [m.content for m in self.transcript if m.sender == "agent"]

    @property
    def user_replies(self) -> list[str]:
        """multi_turn: the simulator's messages, its opening first."""
        if self.category != MULTI_TURN:
            return []
        return [m.content for m in self.transcript if m.sender == "user"]


class _State:
    """Environment plus the official "was state ever recorded" bookkeeping."""

    def __init__(self, sample: Sample) -> None:
        row = sample.first.row
        self.env = Environment(sample.lang, row["involved_classes"], row["initial_config"])
        self.recorded = False

    def finish(self, rollout: Rollout) -> Rollout:
        if not self.recorded:
            rollout.end_state = []
            return rollout
        try:
            rollout.end_state = self.env.capture()
        except StateError as exc:
            rollout.state_error = str(exc)
        return rollout


def run_multi_step(
    sample: Sample,
    prompts: Prompts,
    agent: Agent,
    *,
    max_turns: int = MAX_TURNS,
    prompt_lang: str | None = None,
    merge_system: bool = False,
) -> Rollout:
    """agent_multi_step: the agent sees the task and the execution results, never its own replies.

    ``prompt_lang``: the prompt language (default: the sample's; ``"zh"`` reproduces the official API
    runner). ``merge_system``: one user message instead of system + user (official for "o1" models).
    """
    row = sample.first.row
    functions = function_list(row["function"])
    lang = prompt_lang or sample.lang
    state = _State(sample)
    rollout = Rollout(sample.lang, sample.category, sample.id, [Message("user", "agent", row["question"])])
    history = ""
    for index in range(max_turns):
        last = rollout.transcript[-1]
        if index == 0 or last.sender == "execution":
            history += f"user:{last.content}\n" if last.sender == "user" else f"execution result:{last.content}\n"
            reply = _text(agent(step_agent_messages(prompts, lang, functions, history, merge=merge_system)))
            recipient = "execution" if _TO_EXECUTION_STEP.match(reply) else "user"
            message = Message("agent", recipient, reply)
        else:
            # Every reply goes to execution, parsed or not, and is recorded as a milestone.
            rollout.process.append(last.content)
            try:
                calls = parse_reply(last.content)
            except ReplyError:
                message = Message("execution", "agent", UNPARSEABLE_REPLY)
            else:
                run = execute(state.env, calls, MULTI_STEP)
                state.recorded = True  # even for zero calls: the instances now exist
                message = Message("execution", "agent", run.message, run.calls)
        if _append(rollout, message, index):
            break
    return state.finish(rollout)


def run_multi_turn(
    sample: Sample,
    prompts: Prompts,
    agent: Agent,
    user: User,
    *,
    max_turns: int = MAX_TURNS,
    merge_system: bool = False,
) -> Rollout:
    """agent_multi_turn: a user simulator opens and answers every agent message that is not an
    executable call list; the agent sees the whole history."""
    row = sample.first.row
    functions = function_list(row["function"])
    involved = row["involved_classes"]
    state = _State(sample)
    simulator = user_seed_messages(prompts, sample.lang, involved, row["question"])
    opening = _text(user(list(simulator)))
    simulator.append({"role": "system", "content": opening})  # its own lines carry role "system"
    rollout = Rollout(sample.lang, sample.category, sample.id, [Message("user", "agent", opening)])
    history = ""
    pending: list[AgentCall] = []
    for index in range(max_turns):
        last = rollout.transcript[-1]
        history += _history_line(last)
        if last.recipient == "user":
            simulator.append({"role": "user", "content": strip_speaker(last.content)})
            reply = _text(user(list(simulator)))
            simulator.append({"role": "system", "content": reply})
            message = Message("user", "agent", reply)
        elif last.recipient == "agent":
            reply = _text(
                agent(turn_agent_messages(prompts, sample.lang, functions, involved, history, merge=merge_system))
            )
            recipient = "user"
            if _TO_EXECUTION_TURN.search(reply):
                try:
                    pending = parse_reply(reply)
                    recipient = "execution"
                except ReplyError:
                    pass
            message = Message("agent", recipient, reply)
        else:
            rollout.process.append(last.content)
            run = execute(state.env, pending, MULTI_TURN)
            if not run.aborted:  # an aborted batch returns no instances officially
                state.recorded = True
            message = Message("execution", "agent", run.message, run.calls)
        if _append(rollout, message, index):
            break
    return state.finish(rollout)


def _append(rollout: Rollout, message: Message, index: int) -> bool:
    """Add the message; True when it ends the dialogue (the official stop rule of both loops)."""
    rollout.transcript.append(message)
    rollout.finished = index > 1 and FINISH in message.content
    return rollout.finished


def _history_line(message: Message) -> str:
    if message.sender == "user":
        return f"user:{message.content}\n"
    if message.sender == "agent":
        return f"agent:{message.content}\n"
    return f"execution:{message.content}\n"


def _text(reply: str | None) -> str:
    """A missing reply counts as empty (the official loop would crash on None)."""
    return "" if reply is None else str(reply)
