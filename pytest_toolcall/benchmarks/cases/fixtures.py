"""The fixture of the users' Python tests that ask the model (registered whenever a model is given)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.api import Models, Unit


@pytest.fixture
def toolcall_chat(toolcall_unit: Unit, toolcall_unit_models: Models) -> Iterator[Any]:
    """``toolcall_chat(messages_or_prompt, tools=None, **settings) -> ToolCallResponse``: ask the model
    under test (through the response store and the run's concurrency). The test is counted in the
    ``cases`` block like a case (its unit: ``Cases.test_unit``): file = its module, tags = its markers,
    its verdict = what it raised (the failure kind of a failed ``assert_tool_calls``), its requests in
    its record's usage."""
    from pytest_toolcall.benchmarks.cases.python_tests import python_test

    with python_test(toolcall_unit.sample, toolcall_unit_models.model, toolcall_unit_models.oracle) as chat:
        yield chat
