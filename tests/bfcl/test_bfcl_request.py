"""Requests built from a sample: tools, language notes, the default system prompt and its place."""

from __future__ import annotations

import copy
import json

import pytest

from pytest_toolcall.benchmarks.bfcl.data import BfclSample
from pytest_toolcall.benchmarks.bfcl.request import build_request, default_system_prompt

DOC = {
    "name": "geometry.circle_area",
    "description": "Area of a circle.",
    "parameters": {
        "type": "dict",
        "properties": {
            "radius": {"type": "float", "description": "The radius."},
            "units": {"type": "string", "description": "Units.", "default": "cm"},
            "tags": {"type": "array", "items": {"type": "float"}, "description": "Tags."},
            "shape": {"type": "tuple", "items": {"type": "integer"}, "description": "Shape."},
            "extra": {"description": "No type given."},
        },
        "required": ["radius"],
    },
}


def sample(category: str = "simple_python", docs: list | None = None, question: list | None = None) -> BfclSample:
    return BfclSample(
        id=f"{category}_0",
        category=category,
        question=question or [[{"role": "user", "content": "Area of a circle of radius 2?"}]],
        functions=docs if docs is not None else [copy.deepcopy(DOC)],
        ground_truth=None,
    )


def test_fc_tools_follow_openai_rules() -> None:
    original = sample()
    request = build_request(original, "fc")
    assert request.messages == [{"role": "user", "content": "Area of a circle of radius 2?"}]
    assert request.settings == {"temperature": 0.001}
    (tool,) = request.tools or []
    function = tool["function"]
    assert tool["type"] == "function"
    assert function["name"] == "geometry_circle_area"  # dots are not allowed in OpenAI names
    assert function["description"] == "Area of a circle. Note that the provided function is in Python 3 syntax."
    params = function["parameters"]
    assert params["type"] == "object" and params["required"] == ["radius"]
    radius = params["properties"]["radius"]
    assert radius == {"type": "number", "format": "float", "description": "The radius. This is a float type value."}
    assert params["properties"]["tags"]["items"] == {"type": "number"}
    assert params["properties"]["shape"]["type"] == "array"
    assert params["properties"]["extra"]["type"] == "string"
    assert params["properties"]["units"]["default"] == "cm"
    assert original.functions == [DOC]  # the sample is left untouched


def test_fc_without_functions_sends_no_tools() -> None:
    assert build_request(sample(docs=[]), "fc").tools is None


def test_prompting_puts_the_default_prompt_first() -> None:
    request = build_request(sample(), "prompting")
    assert request.tools is None
    system, user = request.messages
    assert system["role"] == "system" and user["role"] == "user"
    prompt = system["content"]
    assert prompt.startswith("You are an expert in composing functions.You are given a question")
    assert "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You" in prompt
    assert "Here is a list of functions in json format that you can invoke.\n" in prompt
    listed = json.loads(prompt.split("that you can invoke.\n", 1)[1])
    assert listed[0]["name"] == "geometry.circle_area"  # prompting keeps the dotted name and raw types
    assert listed[0]["parameters"]["properties"]["radius"]["type"] == "float"
    assert listed[0]["description"].endswith("Python 3 syntax.")
    assert prompt.endswith("\n")


def test_prompting_merges_into_an_existing_system_message() -> None:
    question = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]]
    request = build_request(sample(question=question), "prompting")
    assert len(request.messages) == 2
    assert (
        request.messages[0]["content"]
        == default_system_prompt(
            [{**DOC, "description": DOC["description"] + " Note that the provided function is in Python 3 syntax."}]
        )
        + "\n\nBe brief."
    )
    assert question[0][0]["content"] == "Be brief."


def test_java_parameters_become_described_strings() -> None:
    doc = {
        "name": "Util.sum",
        "description": "Sum.",
        "parameters": {
            "type": "dict",
            "properties": {
                "values": {"type": "Array", "items": {"type": "integer"}, "description": "Values."},
                "target": {"type": "any", "description": "Target."},
                "limit": {"type": "long", "description": "Limit."},
            },
            "required": ["values"],
        },
    }
    request = build_request(sample("simple_java", [doc]), "fc")
    function = request.tools[0]["function"]
    assert function["description"] == "Sum. Note that the provided function is in Java 8 SDK syntax."
    props = function["parameters"]["properties"]
    assert props["values"] == {
        "type": "string",
        "description": "Values. This is Java Array type parameter in string representation. The list elements are of"
        " type integer; they are not in string representation.",
    }
    assert props["target"]["description"] == (
        "Target. This parameter can be of any type of Java object in string representation."
    )
    assert props["limit"]["description"] == "Limit. This is Java long type parameter in string representation."


def test_javascript_dict_schema_moves_into_the_description() -> None:
    doc = {
        "name": "setup",
        "description": "Setup.",
        "parameters": {
            "type": "dict",
            "properties": {
                "options": {"type": "dict", "properties": {"a": {"type": "String"}}, "description": "Opts."}
            },
            "required": [],
        },
    }
    request = build_request(sample("simple_javascript", [doc]), "prompting")
    listed = json.loads(request.messages[0]["content"].split("that you can invoke.\n", 1)[1])
    options = listed[0]["parameters"]["properties"]["options"]
    assert options == {
        "type": "string",
        "description": "Opts. This is JavaScript dict type parameter in string representation. The dictionary entries"
        ' have the following schema; they are not in string representation. {"a": {"type": "String"}}',
    }


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        build_request(sample(), "xml")
