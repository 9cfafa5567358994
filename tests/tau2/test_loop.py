"""The official loop with scripted speakers: turn order, what each side sees, every way it ends."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks
from pytest_toolcall.benchmarks.tau2.loop import InfrastructureError, decode_calls, run_simulation
from pytest_toolcall.benchmarks.tau2.prompts import GREETING, agent_system_prompt, user_system_prompt

TASK = domain_tasks("airline", "base")[0]
READ = {"id": "r", "name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}
BAD = {"id": "b", "name": "get_user_details", "arguments": {"user_id": "nobody"}}


class Script:
    """Replies in order; records what it was sent."""

    def __init__(self, *replies: tuple[str | None, list[dict[str, Any]]]) -> None:
        self.replies = list(replies)
        self.seen: list[tuple[list[dict[str, Any]], Any]] = []

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> tuple[str | None, list[dict[str, Any]]]:
        self.seen.append((messages, tools))
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def test_turns_and_views() -> None:
    agent = Script((None, [READ]), ("Your user id is mia_li_3668.", []))
    user = Script(("I am Mia.", []), ("###STOP###", []))
    sim = run_simulation("airline", TASK, agent, user)
    assert sim.termination_reason == "user_stop"
    assert [m["role"] for m in sim.messages] == ["assistant", "user", "assistant", "tool", "assistant", "user"]
    assert sim.messages[0]["content"] == GREETING and sim.steps == 5
    first_user_view = user.seen[0][0]
    assert first_user_view == [
        {"role": "system", "content": user_system_prompt(TASK)},
        {"role": "user", "content": GREETING},
    ]
    assert user.seen[0][1] is None  # the user simulator has no tools in airline
    # The second user turn sees the agent's text, never its tool call or the tool result.
    assert [m["role"] for m in user.seen[1][0]] == ["system", "user", "assistant", "user"]
    agent_view, tools = agent.seen[1]
    assert agent_view[0] == {"role": "system", "content": agent_system_prompt("airline")}
    assert [m["role"] for m in agent_view] == ["system", "assistant", "user", "assistant", "tool"]
    assert json.loads(agent_view[3]["tool_calls"][0]["function"]["arguments"]) == READ["arguments"]
    assert agent_view[4]["tool_call_id"] == "r" and len(tools) == 14


def test_transfer_and_out_of_scope_are_user_stops() -> None:
    for token in ("###TRANSFER###", "###OUT-OF-SCOPE###", "ok ###STOP### bye"):
        sim = run_simulation("airline", TASK, Script(("Hello", [])), Script((token, [])))
        assert sim.termination_reason == "user_stop"


def test_max_steps_counts_every_message() -> None:
    sim = run_simulation("airline", TASK, Script(("Hello", [])), Script(("Hi", [])), max_steps=7)
    assert sim.termination_reason == "max_steps" and sim.steps == 7 and len(sim.messages) == 8


def test_max_steps_is_not_checked_while_the_environment_owes_answers() -> None:
    sim = run_simulation("airline", TASK, Script((None, [READ])), Script(("Hi", [])), max_steps=2)
    assert sim.termination_reason == "max_steps" and sim.steps == 3  # user, agent call, its result
    assert sim.messages[-1]["role"] == "tool"


def test_too_many_errors() -> None:
    sim = run_simulation("airline", TASK, Script((None, [BAD, BAD])), Script(("Hi", [])), max_errors=10)
    assert sim.termination_reason == "too_many_errors" and sim.errors == 10
    assert sum(1 for m in sim.messages if m["role"] == "tool") == 10


def test_errors_end_even_a_stopped_dialogue_last() -> None:
    """As officially, the step limits are checked after a stop too, and errors last."""
    sim = run_simulation("airline", TASK, Script(("Hello", [])), Script(("###STOP###", [])), max_steps=1)
    assert sim.termination_reason == "max_steps"


@pytest.mark.parametrize(
    "raw",
    [
        {"id": "x", "name": "get_user_details", "arguments": "{not json"},
        {"id": "x", "name": "get_user_details", "arguments": "[1]"},
        {"id": None, "name": None, "arguments": None, "malformed": "{}"},
    ],
)
def test_an_answer_the_official_run_aborts_on(raw: dict[str, Any]) -> None:
    with pytest.raises(InfrastructureError):
        decode_calls([raw])


def test_an_empty_message_aborts() -> None:
    with pytest.raises(InfrastructureError, match="empty message"):
        run_simulation("airline", TASK, Script(("  ", [])), Script(("Hi", [])))


def test_dual_control_views() -> None:
    """Telecom: the user simulator is offered its phone's tools, its calls' answers come back to it
    and never reach the agent; each of its messages is a step."""
    task = domain_tasks("telecom", "base")[0]
    status = {"id": "u1", "name": "check_status_bar", "arguments": {}}
    agent = Script(("Please check your status bar.", []), ("Thanks.", []))
    user = Script(("My data does not work.", []), (None, [status]), ("It shows airplane mode.", []), ("###STOP###", []))
    sim = run_simulation("telecom", task, agent, user)
    assert sim.termination_reason == "user_stop" and sim.steps == 7
    roles = [(m["role"], m.get("requestor")) for m in sim.messages]
    assert roles == [
        ("assistant", None),
        ("user", None),
        ("assistant", None),
        ("user", None),
        ("tool", "user"),
        ("user", None),
        ("assistant", None),
        ("user", None),
    ]
    assert sim.messages[3]["tool_calls"][0]["requestor"] == "user"
    assert "Airplane Mode" in sim.messages[4]["content"]  # the task starts with airplane mode on
    offered = user.seen[0][1]
    assert offered and "check_status_bar" in {t["function"]["name"] for t in offered}
    assert "check_status_bar" not in {t["function"]["name"] for t in agent.seen[0][1]}
    after_call = user.seen[2][0]  # the user's view after its call: its call, then the answer
    assert after_call[-2]["role"] == "assistant" and after_call[-2]["tool_calls"][0]["function"]["name"] == (
        "check_status_bar"
    )
    assert after_call[-1] == {"role": "tool", "content": sim.messages[4]["content"], "tool_call_id": "u1"}
    agent_view = agent.seen[1][0]
    assert [m["role"] for m in agent_view] == ["system", "assistant", "user", "assistant", "user"]
