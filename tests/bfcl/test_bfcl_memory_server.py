"""BFCL V4 memory through the plugin against the local chat-completions server (the real ``openai``
client): a model that stores what it hears in its prerequisite conversations and answers each
question with a text turn of ``"tool_calls": []`` (as vLLM and SGLang send it). Under the official
reading of 6ea5797 every question then fails (``agentic:no_last_message``); under the fixed one the
answers count. The report records the reading; the aggregates do not depend on xdist."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.data import load_memory_category
from pytest_toolcall.benchmarks.bfcl.memory_dialogue import ANSWER_FORMAT_PROMPT
from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow  # runs pytest and a server

SCENARIO = "healthcare"


def answers() -> dict[str, str]:
    samples, _ = load_memory_category("memory_kv")
    return {s.entry["question"][0][-1]["content"]: s.ground_truth[0] for s in samples if s.scenario == SCENARIO}


def respond(body: dict[str, Any]) -> Reply:
    messages = body["messages"]
    users = [m for m in messages if m["role"] == "user"]
    since_user = len(messages) - 1 - max(i for i, m in enumerate(messages) if m["role"] == "user")
    if ANSWER_FORMAT_PROMPT in messages[0]["content"]:  # a question
        answer = answers()[users[-1]["content"]]
        return Reply(content="{'answer': " + repr(answer) + ", 'context': 'memory'}", tool_calls=[])
    if since_user == 0:  # a prerequisite turn: store a piece of it, then say so
        key = f"note_{len(users)}"
        value = users[-1]["content"][:200]
        return Reply(
            tool_calls=[
                {
                    "name": "core_memory_add" if len(users) < 7 else "archival_memory_add",
                    "arguments": {"key": key, "value": value},
                }
            ]
        )
    return Reply(content="Noted.", tool_calls=[])


def run(pytester: pytest.Pytester, server: ChatServer, *extra: str) -> dict[str, Any]:
    pytester.runpytest(
        "--toolcall-model=served-model",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-bench=bfcl",
        "--toolcall-bfcl-categories=memory_kv",
        "-k",
        SCENARIO,
        "--toolcall-max-retries=0",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
        *extra,
    )
    return json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))


def test_empty_tool_calls_official_and_fixed(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-bfcl-test")
    count = len(answers())
    with ChatServer(respond) as server:
        official = run(pytester, server)
        fixed = run(pytester, server, "--toolcall-bfcl-empty-tool-calls=fixed")
        distributed = run(pytester, server, "--toolcall-bfcl-empty-tool-calls=fixed", "-n", "2")
        requests = server.requests
    assert count > 5
    kinds = {s["error_type"] for s in official["samples"]}
    assert kinds == {"agentic:no_last_message"} and len(official["samples"]) == count
    assert [s["outcome"] for s in fixed["samples"]] == ["passed"] * count
    assert official["metrics"]["bfcl"]["categories"]["memory_kv"]["passed"] == 0
    assert fixed["metrics"]["bfcl"]["categories"]["memory_kv"]["accuracy"] == 1.0
    assert distributed["metrics"] == fixed["metrics"]
    # The reading is part of the run's identity.
    assert official["run"]["datasets"]["bfcl"]["empty_tool_calls"] == "official"
    assert fixed["run"]["datasets"]["bfcl"]["empty_tool_calls"] == "fixed"
    # The questions saw the memory the prerequisite conversations wrote, in the system prompt.
    questions = [b for b in requests if ANSWER_FORMAT_PROMPT in b["messages"][0]["content"]]
    assert questions and all('"note_1"' in b["messages"][0]["content"] for b in questions)
    # The empty list stays in the history, as the official handler keeps the message it got.
    history = [m for b in requests for m in b["messages"] if m["role"] == "assistant" and m.get("content") == "Noted."]
    assert history and all(m["tool_calls"] == [] for m in history)
