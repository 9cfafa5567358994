"""The fixture of the users' Python tests that ask the model (registered whenever a model is given)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import pytest

from pytest_toolcall.core.settings import Settings
from pytest_toolcall.core.types import Model
from pytest_toolcall.results.records import RECORD, new_record
from pytest_toolcall.runner.collect import CATALOG, TEST_UNIT

if TYPE_CHECKING:
    from pytest_toolcall.benchmarks.cases.benchmark import Cases


@pytest.fixture
def toolcall_chat(request: pytest.FixtureRequest, toolcall_model: Model, toolcall_settings: Settings) -> Iterator[Any]:
    """``toolcall_chat(messages_or_prompt, tools=None, **settings) -> ToolCallResponse``: ask the model
    under test (through the response store and the run's concurrency). The test is counted in the
    ``cases`` block like a case: file = its module, tags = its markers, its verdict = what it raised
    (the failure kind of a failed ``assert_tool_calls``)."""
    cases = cast("Cases", request.config.stash[CATALOG].benchmarks["cases"])  # the entry point's class
    unit = cases.test_unit(request.node)
    request.node.stash[RECORD] = new_record(unit)
    request.node.stash[TEST_UNIT] = unit
    with cases.python_test(unit, toolcall_model, oracle=toolcall_settings.is_oracle) as chat:
        yield chat
