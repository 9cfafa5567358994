"""The simulated APIs of the ACEBench agent categories (our own implementation of the official
behaviour at 56dd66c)."""

from __future__ import annotations

from pytest_toolcall.benchmarks.acebench.agents.envs.environment import (
    API,
    CLASSES,
    SAVED_ATTRIBUTES,
    Environment,
    StateError,
)

__all__ = ["API", "CLASSES", "SAVED_ATTRIBUTES", "Environment", "StateError"]
