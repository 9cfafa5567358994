"""Fixtures of the benchmark items. Registered only when ``--toolcall-model`` is given; any of them
can be overridden in a ``conftest.py`` like ordinary fixtures."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.client import ChatRequest, Model, ModelSettings, RequestError, build_model
from pytest_toolcall.collect import CATALOG
from pytest_toolcall.datasets.acebench import Sample
from pytest_toolcall.options import Settings
from pytest_toolcall.oracle import acebench_answer
from pytest_toolcall.prompts import Prompts, single_turn_messages
from pytest_toolcall.records import RECORD, new_record

SETTINGS = pytest.StashKey[Settings]()


@pytest.fixture(scope="session")
def toolcall_settings(pytestconfig: pytest.Config) -> Settings:
    return pytestconfig.stash[SETTINGS]


@pytest.fixture(scope="session")
def toolcall_model(toolcall_settings: Settings) -> Iterator[Model]:
    """The model under test (the openai SDK against the configured endpoint, or the oracle)."""
    s = toolcall_settings
    model = build_model(
        ModelSettings(
            model=s.model,
            base_url=s.base_url,
            api_key=s.api_key,
            temperature=s.temperature,
            max_tokens=s.max_tokens,
            extra_body=s.extra_body,
            timeout=s.timeout,
            max_retries=s.max_retries,
            concurrency=s.concurrency,
        )
    )
    yield model
    model.close()


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
    acebench_sample: Sample,
    toolcall_model: Model,
    acebench_prompts: Prompts,
    toolcall_record: dict[str, Any],
) -> list[str | None]:
    """The model's answer to every step of the unit (steps are teacher-forced, so all go at once)."""
    sample = acebench_sample
    requests = [
        ChatRequest(
            single_turn_messages(acebench_prompts, sample.lang, sample.category, step),
            reference=acebench_answer(sample.lang, sample.category, step),
        )
        for step in sample.steps
    ]
    started = time.perf_counter()
    futures = [toolcall_model.submit(request) for request in requests]
    try:
        responses = [future.result() for future in futures]
    except RequestError as exc:
        toolcall_record["error"] = str(exc)
        pytest.fail(f"request failed: {exc}", pytrace=False)
    finally:
        toolcall_record["latency_s"] = round(time.perf_counter() - started, 4)
    outputs = [response.content for response in responses]
    toolcall_record["output"] = outputs[0] if len(outputs) == 1 else outputs
    return outputs
