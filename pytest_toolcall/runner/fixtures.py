"""The run's fixtures for the users' own tests (``toolcall_settings``, ``toolcall_model``), and those a
benchmark's own fixtures build on: the unit of an item it counts and that unit's models. A
benchmark's own fixtures (``toolcall_chat``, ``acebench_env``) live in its folder. Registered only when
a model is given; any of them can be overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

import pytest

from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.benchmark import Models, Unit
from pytest_toolcall.core.protocol.types import Model
from pytest_toolcall.runner.keys import CATALOG, TEST_MODELS, TEST_UNIT, UNIT, WORK


@pytest.fixture(scope="session")
def toolcall_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved ``--toolcall-*`` settings of this run (the API key is never among them)."""
    return pytestconfig.stash[CATALOG].settings


@pytest.fixture(scope="session")
def toolcall_model(pytestconfig: pytest.Config) -> Model:
    """The model under test (the openai SDK against the configured endpoint, or the oracle), behind
    the response store. What a test asks through it belongs to no unit: it is counted in the run's
    usage (the report's ``run.other_requests``), in no sample."""
    return pytestconfig.stash[WORK].session_model


@pytest.fixture
def toolcall_unit(request: pytest.FixtureRequest) -> Unit:
    """The unit of an item of a user's file (a benchmark function's items get it as a parameter), or
    of a user's test counted in a benchmark (one asking for ``toolcall_chat``)."""
    unit = request.node.stash.get(UNIT, None) or request.node.stash.get(TEST_UNIT, None)
    if unit is None:
        pytest.fail("toolcall_unit is only for the items a benchmark counts", pytrace=False)
    return unit


@pytest.fixture
def toolcall_unit_models(request: pytest.FixtureRequest) -> Models:
    """The models as the unit of a user's test counted in a benchmark sees them: each request keyed
    in the response store by that unit, and counted in its record's ``usage`` and ``from_store``."""
    models = request.node.stash.get(TEST_MODELS, None)
    if models is None:
        pytest.fail("toolcall_unit_models is only for the tests a benchmark counts", pytrace=False)
    return models
