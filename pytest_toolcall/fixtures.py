"""Fixtures of the benchmark items. Registered only when ``--toolcall-model`` is given; any of them
can be overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.client import Model, RequestError
from pytest_toolcall.collect import CATALOG
from pytest_toolcall.datasets.acebench import Sample
from pytest_toolcall.options import Settings
from pytest_toolcall.prompts import Prompts
from pytest_toolcall.records import RECORD, new_record
from pytest_toolcall.work import ModelWork

SETTINGS = pytest.StashKey[Settings]()
WORK = pytest.StashKey[ModelWork]()


@pytest.fixture(scope="session")
def toolcall_settings(pytestconfig: pytest.Config) -> Settings:
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
def acebench_outputs(
    request: pytest.FixtureRequest, acebench_sample: Sample, toolcall_record: dict[str, Any]
) -> list[str | None]:
    """The model's answer to every step of the unit, usually already fetched by the prefetcher."""
    job = request.config.stash[WORK].prefetcher.take(request.node)
    try:
        responses = job.result()
    except RequestError as exc:
        toolcall_record["error"] = str(exc)
        pytest.fail(f"request failed: {exc}", pytrace=False)
    toolcall_record["latency_s"] = round(max(r.latency_s for r in responses), 4)
    outputs = [response.content for response in responses]
    toolcall_record["output"] = outputs[0] if len(outputs) == 1 else outputs
    return outputs
