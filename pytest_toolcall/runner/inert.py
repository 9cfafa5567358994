"""The public fixtures of a run without a model: a test that asks for one is skipped with the reason,
instead of failing on an unknown fixture (a project's suite runs with and without a model)."""

from __future__ import annotations

from typing import Any

import pytest

REASON = "needs a model: --toolcall-model NAME (or toolcall_model in the ini file)"


@pytest.fixture
def toolcall_model() -> Any:
    pytest.skip(REASON)


@pytest.fixture
def toolcall_chat() -> Any:
    pytest.skip(REASON)
