"""The expectations beside the calls (``json_output``, ``usage``, ``language``, ``repetition``,
``key_order``), each against answers written out here, the case-file errors that name them, and
the oracle's answers to them; the shipped walle probes are what their build script makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.api import ChatResponse
from pytest_toolcall.benchmarks.cases import checks
from pytest_toolcall.benchmarks.cases.conformance import _paths
from pytest_toolcall.benchmarks.cases.format import CaseFileError, expect_problem
from pytest_toolcall.benchmarks.cases.loading import load_case_file
from pytest_toolcall.benchmarks.cases.response import judge_response

WEATHER = {"type": "json_schema", "json_schema": {"name": "w", "schema": {
    "type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"], "additionalProperties": False}}}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "form", "kind"),
    [
        ('{"city": "Rome", "celsius": 21}', WEATHER, None),
        ('{"city": "Rome"}', WEATHER, "invalid_json_output"),  # celsius missing
        ('{"city": "Rome", "celsius": "21"}', WEATHER, "invalid_json_output"),
        ("It is 21 degrees in Rome.", WEATHER, "invalid_json_output"),
        ('{"anything": [1, 2]}', {"type": "json_object"}, None),
        ("[1, 2]", {"type": "json_object"}, "invalid_json_output"),
        ("", None, "invalid_json_output"),
    ],
)
def test_json_output(text: str, form: Any, kind: str | None) -> None:
    found = checks.json_output(text, form)
    assert (found[0] if found else None) == kind


def test_usage_counts_are_exact() -> None:
    assert checks.usage({"prompt_tokens": 99, "completion_tokens": 5}, {"prompt_tokens": 99}) is None
    kind, message = checks.usage({"prompt_tokens": 98}, {"prompt_tokens": 99}) or ("", "")
    assert kind == "usage_mismatch" and "prompt_tokens 98 (expected 99)" in message
    assert checks.usage(None, {"prompt_tokens": 99}) is not None


@pytest.mark.parametrize(
    ("text", "code", "holds"),
    [
        ("고양이 이름으로는 나비를 추천해요.", "ko", True),
        ("I suggest Nabi.", "ko", False),
        # 8 Hangul letters of 13 (the five of "Nabi!" are Latin): 0.62 < 0.8
        ("나비를 추천해요 Nabi!", "ko", False),
        ("Здравствуйте, Oslo.", "ru", False),  # 12 of 16
        ("Здравствуйте, мир и Осло.", "ru", True),
        ("朝ごはんには、ご飯がいい。", "ja", True),
        ("你好，我很好。", "zh", True),
        ("", "th", False),
    ],
)
def test_language_by_the_share_of_letters_in_its_script(text: str, code: str, holds: bool) -> None:
    assert (checks.language(text, code) is None) is holds


def test_repetition_counts_runs_of_tokens() -> None:
    # "the sea is calm" occurs 3 times: more than 2 fails, 3 allowed passes.
    text = "The sea is calm. Then the sea is calm, and the sea is calm again."
    assert checks.repetition(text, 4, 3) is None
    kind, message = checks.repetition(text, 4, 2) or ("", "")
    assert kind == "repetition" and "'the sea is calm' occur 3 times" in message
    # Ideographs count one token each: 春天来了 four times over is 4 occurrences of its 4-gram.
    assert checks.repetition("春天来了" * 4, 4, 3) is not None and checks.repetition("春天来了" * 3, 4, 3) is None
    assert checks.repetition("too short", 4, 1) is None


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "ship",
            "parameters": {
                "type": "object",
                "properties": {
                    "weight": {"type": "number"},
                    "to": {"type": "object", "properties": {"zip": {"type": "string"}, "city": {"type": "string"}}},
                },
            },
        },
    }
]


@pytest.mark.parametrize(
    ("arguments", "holds"),
    [
        ('{"weight": 2, "to": {"zip": "1", "city": "Oslo"}}', True),
        ('{"to": {"zip": "1", "city": "Oslo"}, "weight": 2}', False),
        ('{"weight": 2, "to": {"city": "Oslo", "zip": "1"}}', False),  # nested objects too
        ('{"weight": 2}', True),  # a key left out leaves the order of the others
        ('{"to": {"zip": "1"}}', True),
    ],
)
def test_key_order_follows_the_declaration(arguments: str, holds: bool) -> None:
    assert (checks.key_order([("ship", arguments)], TOOLS) is None) is holds


def test_the_checks_come_after_the_calls_and_name_their_kind() -> None:
    expect = {"no_call": True, "language": "ko"}
    verdict = judge_response(ChatResponse("Hello!"), expect, [])
    assert (verdict.passed, verdict.failure_kind) == (False, "wrong_language")
    assert verdict.message.startswith("wrong_language: expected Korean (Hangul), 0 of 5 letters in its script")
    # A call where none was expected fails as such, before the language is looked at.
    calls = [{"id": "c", "name": "ship", "arguments": '{"weight": 1}'}]
    assert judge_response(ChatResponse(None, "tool_calls", calls), expect, TOOLS).failure_kind == "unexpected_call"
    ordered = {"should_call_tool": True, "key_order": True}
    swapped = [{"id": "c", "name": "ship", "arguments": '{"to": {}, "weight": 1}'}]
    assert judge_response(ChatResponse(None, "tool_calls", swapped), ordered, TOOLS).failure_kind == "key_order"


@pytest.mark.parametrize(
    ("expect", "problem"),
    [
        ({"no_call": True, "language": "fr"}, "language: 'fr' is not one of"),
        ({"no_call": True, "repetition": {"n": 4}}, "'max' is a required property"),
        ({"no_call": True, "usage": {}}, "should be non-empty"),
        ({"no_call": True, "usage": {"total_tokens": 3}}, "unknown key 'total_tokens'"),
        ({"status": 400, "json_output": True}, "should not be valid"),
    ],
)
def test_a_bad_expectation_is_named(expect: dict[str, Any], problem: str) -> None:
    assert problem in expect_problem(expect)


CASES = """
cases:
  - id: structured
    prompt: "Weather in Rome as JSON."
    settings: {response_format: %s}
    expect: {no_call: true, json_output: true}
  - id: korean
    prompt: "Answer in Korean."
    expect: {no_call: true, language: ko}
  - id: counted
    prompt: "Hi."
    expect: {no_call: true, usage: {prompt_tokens: 12}}
"""


def test_the_oracle_answers_every_check(tmp_path: Path) -> None:
    from pytest_toolcall.benchmarks.cases.oracle import oracle_answer

    path = tmp_path / "checks.toolcall.yaml"
    path.write_text(CASES % json.dumps(WEATHER), encoding="utf-8")
    structured, korean, counted = load_case_file(path)  # (the loader checks each against the oracle's answer)
    assert checks.json_output(oracle_answer(structured)["content"], WEATHER) is None
    assert checks.language(oracle_answer(korean)["content"], "ko") is None
    assert oracle_answer(counted)["usage"] == {"prompt_tokens": 12}


def test_a_response_format_no_answer_can_hold_is_a_file_error(tmp_path: Path) -> None:
    impossible = {
        "type": "json_schema",
        "json_schema": {"name": "x", "schema": {"type": "string", "minLength": 3, "maxLength": 2}},
    }
    path = tmp_path / "bad.toolcall.yaml"
    path.write_text(CASES % json.dumps(impossible), encoding="utf-8")
    with pytest.raises(CaseFileError, match="structured"):
        load_case_file(path)


@pytest.mark.parametrize(
    ("value", "paths"),
    [
        (None, []),
        ("chat", [("chat", "plain"), ("chat", "streamed")]),
        ("messages/streamed,chat/plain", [("chat", "plain"), ("messages", "streamed")]),
        ("all", [(a, m) for a in ("chat", "responses", "messages") for m in ("plain", "streamed")]),
    ],
)
def test_conformance_paths(value: str | None, paths: list[tuple[str, str]]) -> None:
    assert _paths(value) == paths


@pytest.mark.parametrize("value", ["grpc", "chat/sometimes", "chat,,/plain"])
def test_an_unknown_conformance_path_is_a_usage_error(value: str) -> None:
    with pytest.raises(pytest.UsageError, match="--toolcall-conformance-paths: unknown path"):
        _paths(value)


def test_the_shipped_walle_probes_are_what_the_build_script_makes() -> None:
    import importlib.util

    script = Path(__file__).parents[1] / "data" / "kvv" / "make_tool_call_schemas.py"
    spec = importlib.util.spec_from_file_location("make_tool_call_schemas", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0, f"tool_call_schemas.toolcall.jsonl is out of date: run {script}"
    probes, left_out = module.build()
    # Every walle schema is a probe or left out with its reason: 212 in all.
    assert len(probes) + len(left_out) == 212 and len(probes) == 205
