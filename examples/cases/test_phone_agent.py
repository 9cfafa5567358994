"""An agent loop of your own against ACEBench's simulated phone, judged on the phone's end state.

The ``acebench_env`` fixture gives a fresh simulated environment: ``env.tools`` (OpenAI tool
definitions), ``env.tool_messages(response)`` (runs the answer's calls against the simulated API and
returns the ``tool`` messages that answer them) and ``env.state()`` (the end state the ACEBench grader
compares). The loop below is the usual native tool-calling loop: ask, run the calls, send the results
back, until the model answers in words.

Run with ``pytest --toolcall-model MODEL examples/cases/``. The oracle answers expectations, and an
agent loop states none before its end: under ``--toolcall-model oracle`` this test is skipped.
"""

from __future__ import annotations

import pytest

SYSTEM = "You operate the user's phone through the tools. Act, then confirm in one sentence."
TASK = (
    "I am Eve. Send Frank the message 'Lunch tomorrow at noon?'. "
    "If the inbox is full, first delete the earliest message."
)
MAX_STEPS = 8


def run_agent(toolcall_chat, env, task):
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    for _ in range(MAX_STEPS):
        response = toolcall_chat(messages, tools=env.tools, temperature=0)
        messages.append(response.to_message())
        if not response.tool_calls:
            return response
        messages += env.tool_messages(response)
    pytest.fail(f"no final answer after {MAX_STEPS} steps; calls: {[c['name'] for c in env.calls]}")


def test_message_is_sent_after_making_room(toolcall_chat, toolcall_model, acebench_env):
    if toolcall_model.oracle:  # the built-in oracle (it carries the flag, whatever its name)
        pytest.skip("the oracle answers stated expectations; an agent loop needs a model")
    env = acebench_env("phone", config={"BaseApi": {"wifi": False, "logged_in": True}})
    run_agent(toolcall_chat, env, TASK)

    state = env.state()
    inbox = state["MessageApi"]["inbox"]
    sent = [m for m in inbox.values() if m["message"] == "Lunch tomorrow at noon?"]
    assert state["BaseApi"]["wifi"] is True
    assert len(sent) == 1, f"expected the message once, inbox: {inbox}"
    assert (sent[0]["sender_id"], sent[0]["receiver_id"]) == ("USR100", "USR101")  # Eve -> Frank
    assert "3" not in inbox, "the earliest message (id 3, 2023-12-05) should have been deleted"
