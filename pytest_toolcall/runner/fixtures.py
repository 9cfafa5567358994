"""The fixtures of the users' own tests (``toolcall_model``, ``toolcall_chat``, ``acebench_env``) and the
unit of a case file's item. Registered only when a model is given; any of them can be
overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.core.benchmark import Unit
from pytest_toolcall.core.settings import Settings
from pytest_toolcall.model.types import Model
from pytest_toolcall.results.records import RECORD, new_record
from pytest_toolcall.runner.answers import ANSWERS
from pytest_toolcall.runner.collect import CATALOG, TEST_UNIT, UNIT

#: The benchmark that counts the Python tests using ``toolcall_chat``.
CASES = "cases"


@pytest.fixture(scope="session")
def toolcall_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved ``--toolcall-*`` settings of this run (the API key is never among them)."""
    return pytestconfig.stash[CATALOG].settings


@pytest.fixture(scope="session")
def toolcall_model(pytestconfig: pytest.Config) -> Model:
    """The model under test (the openai SDK against the configured endpoint, or the oracle), behind
    the response store."""
    return pytestconfig.stash[ANSWERS].model


@pytest.fixture
def toolcall_unit(request: pytest.FixtureRequest) -> Unit:
    """The unit of an item of a user's file (a benchmark function's items get it as a parameter)."""
    return request.node.stash[UNIT]


@pytest.fixture
def toolcall_chat(request: pytest.FixtureRequest, toolcall_model: Model, toolcall_settings: Settings) -> Iterator[Any]:
    """``toolcall_chat(messages_or_prompt, tools=None, **settings) -> ToolCallResponse``: ask the model
    under test (through the response store and the run's concurrency). The test is counted in the
    ``cases`` block like a case: file = its module, tags = its markers, its verdict = what it raised
    (the failure kind of a failed ``assert_tool_calls``)."""
    cases = request.config.stash[CATALOG].benchmarks[CASES]
    unit = cases.test_unit(request.node)
    request.node.stash[RECORD] = new_record(unit)
    request.node.stash[TEST_UNIT] = unit
    with cases.python_test(unit, toolcall_model, oracle=toolcall_settings.is_oracle) as chat:
        yield chat
