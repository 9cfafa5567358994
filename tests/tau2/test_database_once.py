"""The database of a domain is loaded and validated once per run, however many dialogues start
together: its cost in CPU and memory does not grow with ``--toolcall-concurrency``."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2 import environment
from pytest_toolcall.testing.server import ChatServer, Reply


@pytest.mark.slow
def test_eight_dialogues_at_concurrency_eight_load_the_database_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight airline dialogues start together (the user simulator ends each at once); the database
    is read and validated once for all of them, and for their grading."""
    loads: list[str] = []
    load = environment._load_db

    def counted(domain: str) -> Any:
        loads.append(domain)
        return load(domain)

    monkeypatch.setattr(environment, "_LOADED", {})  # as in a fresh process
    monkeypatch.setattr(environment, "_load_db", counted)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(lambda body: Reply(content="###STOP###")) as server:
        result = pytester.runpytest(
            "--toolcall-model=agent",
            "--toolcall-user-model=user",
            f"--toolcall-base-url={server.base_url}",
            "--toolcall-bench=tau2",
            "--toolcall-tau2-domains=airline",
            "--toolcall-concurrency=8",
            "--toolcall-cache=off",
            "--toolcall-limit=8",
        )
        asked = len(server.requests)
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 8  # graded, every one
    assert asked == 8  # one user turn each
    assert loads == ["airline"]
