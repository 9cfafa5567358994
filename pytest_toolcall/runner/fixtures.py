"""Fixtures of the benchmark items. Registered only when ``--toolcall-model`` is given; any of them
can be overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.core.benchmark import Skip, Unit
from pytest_toolcall.core.settings import Settings
from pytest_toolcall.model.types import ChatResponse, FatalRequestError, Model, RequestError
from pytest_toolcall.results.records import RECORD, new_record
from pytest_toolcall.runner.answers import ANSWERS
from pytest_toolcall.runner.collect import CATALOG


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
def toolcall_record(request: pytest.FixtureRequest, toolcall_unit: Unit) -> dict[str, Any]:
    """The result record of this item; it travels to the summary on the item's teardown report."""
    record = new_record(toolcall_unit)
    request.node.stash[RECORD] = record
    return record


@pytest.fixture
def toolcall_answer(request: pytest.FixtureRequest, toolcall_record: dict[str, Any]) -> Any:
    """What the model answered to the unit's plan, usually already fetched by the prefetcher: the
    responses of its requests, or what its dialogue returned."""
    answers = request.config.stash[ANSWERS]
    job = answers.prefetcher.take(request.node)
    try:
        answer = job.result()
    except FatalRequestError as exc:
        # The first such answer is this item's error; every later item is skipped with its reason.
        if answers.stopped is not None:
            toolcall_record["stopped"] = True
            pytest.skip(f"not sent: {answers.stopped}")
        answers.stop(str(exc))
        toolcall_record["error"] = str(exc)
        toolcall_record["stopped"] = True
        pytest.fail(f"request failed: {exc}", pytrace=False)
    except RequestError as exc:
        toolcall_record["error"] = str(exc)
        pytest.fail(f"request failed: {exc}", pytrace=False)  # an error of the item: setup failed
    if isinstance(answer, Skip):
        if answers.stopped is not None and answer.reason.startswith("not sent:"):
            toolcall_record["stopped"] = True
        pytest.skip(answer.reason)
    if isinstance(answer, list) and answer and all(isinstance(r, ChatResponse) for r in answer):
        toolcall_record["latency_s"] = round(max(r.latency_s for r in answer), 4)
    return answer
