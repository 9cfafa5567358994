"""Fixtures of the benchmark items, and the public fixtures of the users' own tests (``toolcall_model``,
``toolcall_chat``, ``acebench_env``). Registered only when a model is given; any of them can be
overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.core.benchmark import Skip, Unit
from pytest_toolcall.core.settings import Settings
from pytest_toolcall.model.types import ChatResponse, FatalRequestError, Model, RequestError
from pytest_toolcall.results.records import RECORD, new_record
from pytest_toolcall.runner.answers import ANSWERS, BudgetExhausted
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
def toolcall_record(request: pytest.FixtureRequest, toolcall_unit: Unit) -> dict[str, Any]:
    """The result record of this item; it travels to the summary on the item's teardown report."""
    return _new_record(request.node, toolcall_unit)


def _new_record(item: pytest.Item, unit: Unit) -> dict[str, Any]:
    record = new_record(unit)
    item.stash[RECORD] = record
    return record


@pytest.fixture
def toolcall_chat(request: pytest.FixtureRequest, toolcall_model: Model, toolcall_settings: Settings) -> Iterator[Any]:
    """``toolcall_chat(messages_or_prompt, tools=None, **settings) -> ToolCallResponse``: ask the model
    under test (through the response store and the run's concurrency). The test is counted in the
    ``cases`` block like a case: file = its module, tags = its markers, its verdict = what it raised
    (the failure kind of a failed ``assert_tool_calls``)."""
    cases = request.config.stash[CATALOG].benchmarks[CASES]
    unit = cases.test_unit(request.node)
    _new_record(request.node, unit)
    request.node.stash[TEST_UNIT] = unit
    with cases.python_test(unit, toolcall_model, oracle=toolcall_settings.is_oracle) as chat:
        yield chat


@pytest.fixture
def toolcall_answer(request: pytest.FixtureRequest, toolcall_record: dict[str, Any]) -> Any:
    """What the model answered to the unit's plan, usually already fetched by the prefetcher: the
    responses of its requests, or what its dialogue returned."""
    answers = request.config.stash[ANSWERS]
    job = answers.prefetcher.take(request.node)
    try:
        answer = job.result()
    except BudgetExhausted as exc:
        _keep_usage(job, toolcall_record)
        toolcall_record["not_run"] = "budget"  # the gate counts it as not run: the run is partial
        pytest.skip(str(exc))
    except FatalRequestError as exc:
        # The first such answer is this item's error; every later item is skipped with its reason.
        if answers.stopped is not None:
            toolcall_record["stopped"] = True
            pytest.skip(f"not sent: {answers.stopped}")
        answers.stop(str(exc))
        _keep_usage(job, toolcall_record)
        toolcall_record["error"] = str(exc)
        toolcall_record["stopped"] = True
        pytest.fail(f"request failed: {exc}", pytrace=False)
    except RequestError as exc:
        _keep_usage(job, toolcall_record)
        toolcall_record["error"] = str(exc)
        pytest.fail(f"request failed: {exc}", pytrace=False)  # an error of the item: setup failed
    if isinstance(answer, Skip):
        if answers.stopped is not None and answer.reason.startswith("not sent:"):
            toolcall_record["stopped"] = True
        pytest.skip(answer.reason)
    _keep_usage(job, toolcall_record)
    if isinstance(answer, list) and answer and all(isinstance(r, ChatResponse) for r in answer):
        toolcall_record["latency_s"] = round(max(r.latency_s for r in answer), 4)
    elif toolcall_record["usage"]:  # a dialogue: its requests one after the other
        toolcall_record["latency_s"] = round(sum(r["latency_s"] for r in toolcall_record["usage"]["requests"]), 4)
    return answer


def _keep_usage(job: Any, record: dict[str, Any]) -> None:
    models = getattr(job, "models", None)
    if models is not None:
        record["usage"], record["from_store"] = models.usage()
