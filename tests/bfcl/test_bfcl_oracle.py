"""The oracle reply: how it is written in each mode (its verdicts are checked against the official
checker in test_bfcl_official_verdicts.py)."""

from __future__ import annotations

import json

from pytest_toolcall.benchmarks.bfcl.data import load_category
from pytest_toolcall.benchmarks.bfcl.oracle import DECLINE, expected_arguments, oracle_answer, oracle_passes


def by_id(category: str, sample_id: str):
    samples, _ = load_category(category)
    return next(sample for sample in samples if sample.id == sample_id)


def test_first_option_of_each_parameter_leading_blank_omitted() -> None:
    doc = {"parameters": {"properties": {"d": {"type": "dict"}, "x": {"type": "integer"}}}}
    params = {"x": [3, 4], "y": ["", "z"], "d": [{"k": ["a", "b"], "o": ["", 1]}]}
    assert expected_arguments(doc, params) == {"x": 3, "d": {"k": "a"}}


def test_fc_and_prompting_forms_of_a_python_sample() -> None:
    sample = by_id("simple_python", "simple_python_0")
    ((name, params),) = sample.ground_truth[0].items()
    fc = oracle_answer(sample, "fc")
    assert fc.content is None and len(fc.tool_calls) == 1
    assert fc.tool_calls[0]["name"] == name.replace(".", "_")
    arguments = json.loads(fc.tool_calls[0]["arguments"])
    assert all(arguments[key] == options[0] for key, options in params.items() if options[0] != "")
    text = oracle_answer(sample, "prompting").content
    assert text.startswith(f"[{name}(") and text.endswith(")]")
    assert oracle_passes(sample, "fc") and oracle_passes(sample, "prompting")


def test_java_arguments_are_source_text() -> None:
    sample = by_id("simple_java", "simple_java_0")
    fc = oracle_answer(sample, "fc")
    assert json.loads(fc.tool_calls[0]["arguments"]) == {"controller": "mapController", "parent": "mapArea"}
    assert oracle_answer(sample, "prompting").content == (
        '[GeometryPresentation.createPresentation(controller="mapController", parent="mapArea")]'
    )


def test_relevance_oracles() -> None:
    irrelevant = load_category("irrelevance")[0][0]
    assert oracle_answer(irrelevant, "fc").content == DECLINE and not oracle_answer(irrelevant, "fc").tool_calls
    relevant = load_category("live_relevance")[0][0]
    call = oracle_answer(relevant, "fc").tool_calls[0]
    assert call == {"name": relevant.functions[0]["name"].replace(".", "_"), "arguments": "{}"}
    assert oracle_answer(relevant, "prompting").content == f"[{relevant.functions[0]['name']}()]"
    assert oracle_passes(irrelevant, "prompting") and oracle_passes(relevant, "prompting")
