"""Fixtures of ACEBench for a team's own tests (registered whenever a model is given)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def acebench_env() -> Callable[..., Any]:
    """``acebench_env("phone" | "food" | "travel", lang="en", config=None)``: a fresh simulated ACEBench
    environment with ``.tools`` (OpenAI tool definitions), ``.call(name, arguments)``,
    ``.tool_messages(response)`` and ``.state()`` (its end state)."""
    from pytest_toolcall.benchmarks.acebench.agents.native import SimulatedEnvironment

    return SimulatedEnvironment.create
