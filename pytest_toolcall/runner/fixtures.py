"""The run's fixtures for the users' own tests (``toolcall_settings``, ``toolcall_model``) and the unit
of a case file's item. A benchmark's own fixtures (``toolcall_chat``, ``acebench_env``) live in its
folder. Registered only when a model is given; any of them can be overridden in a ``conftest.py``
like ordinary fixtures."""

from __future__ import annotations

import pytest

from pytest_toolcall.core.benchmark import Unit
from pytest_toolcall.core.settings import Settings
from pytest_toolcall.core.types import Model
from pytest_toolcall.runner.answers import ANSWERS
from pytest_toolcall.runner.collect import CATALOG, UNIT


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
