"""Fixtures of the benchmark items. Registered only when ``--toolcall-model`` is given; any of them
can be overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.agents import Rollout
from pytest_toolcall.client import ChatResponse, Model, RequestError
from pytest_toolcall.collect import CATALOG, SETTINGS
from pytest_toolcall.datasets.acebench import Sample, family
from pytest_toolcall.options import Settings
from pytest_toolcall.prefetch import Job
from pytest_toolcall.prompts import Prompts
from pytest_toolcall.records import RECORD, new_record
from pytest_toolcall.work import ModelWork

WORK = pytest.StashKey[ModelWork]()


@pytest.fixture(scope="session")
def toolcall_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved ``--toolcall-*`` settings of this run (the API key is never among them)."""
    return pytestconfig.stash[SETTINGS]


@pytest.fixture(scope="session")
def toolcall_model(pytestconfig: pytest.Config) -> Model:
    """The model under test (the openai SDK against the configured endpoint, or the oracle), behind
    the response store."""
    return pytestconfig.stash[WORK].model


@pytest.fixture(scope="session")
def acebench_prompts(pytestconfig: pytest.Config) -> Prompts:
    prompts = pytestconfig.stash[CATALOG].prompts
    assert prompts is not None, "ACEBench items exist only when the prompts loaded"
    return prompts


@pytest.fixture
def toolcall_record(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The result record of this item; it travels to the summary on the item's teardown report."""
    record = new_record(request.node.nodeid)
    request.node.stash[RECORD] = record
    return record


@pytest.fixture
def acebench_answer(
    request: pytest.FixtureRequest, acebench_sample: Sample, toolcall_record: dict[str, Any]
) -> list[str | None] | Rollout:
    """What the model answered, usually already fetched by the prefetcher: the text of every step
    of a normal or special unit, or the whole dialogue of an agent sample."""
    job = request.config.stash[WORK].prefetcher.take(request.node)
    if family(acebench_sample.category) == "agent":
        rollout = _result(job, toolcall_record)
        if rollout is None:
            pytest.skip(
                "agent_multi_turn needs a user simulator: pass --toolcall-user-model=NAME "
                "(and --toolcall-user-base-url=URL if it is served elsewhere)"
            )
        toolcall_record["output"] = rollout.agent_replies
        return rollout
    responses = _result(job, toolcall_record)
    toolcall_record["latency_s"] = round(max(r.latency_s for r in responses), 4)
    outputs = [response.content for response in responses]
    toolcall_record["output"] = outputs[0] if len(outputs) == 1 else outputs
    return outputs


@pytest.fixture
def general_fc_response(request: pytest.FixtureRequest, toolcall_record: dict[str, Any]) -> ChatResponse:
    """The model's answer to the line's messages, with its tools attached as given."""
    job = request.config.stash[WORK].prefetcher.take(request.node)
    (response,) = _result(job, toolcall_record)
    toolcall_record.update(
        output=response.content,
        tool_calls=response.tool_calls,
        latency_s=round(response.latency_s, 4),
    )
    return response


def _result(job: Job, record: dict[str, Any]) -> Any:
    """The job's result; a request that got no answer makes the item an error (a setup failure)."""
    try:
        return job.result()
    except RequestError as exc:
        error = str(exc)
    record["error"] = error
    pytest.fail(f"request failed: {error}", pytrace=False)
