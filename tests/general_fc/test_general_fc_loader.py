"""The general_fc loader: samples, and one message per bad line naming file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_DATA
from pytest_toolcall.benchmarks.general_fc.dataset import GeneralFCSample, index_file, load_file
from pytest_toolcall.core.protocol.benchmark import DataError

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
MESSAGES = [{"role": "user", "content": "weather in Paris?"}]


def row(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"messages": MESSAGES, "tools": [WEATHER], "should_call_tool": True}
    base.update(fields)
    return base


def tool(name: str, parameters: Any = None, **extra: Any) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, **extra}
    if parameters is not None:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


def write(tmp_path: Path, lines: list[Any], name: str = "calls.jsonl") -> Path:
    path = tmp_path / name
    text = "\n".join(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_good_lines_with_blank_lines_keep_true_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, [row(), "", "   ", row(should_call_tool=False)])
    samples, problems = load_file(path)
    assert problems == []
    assert [(s.index, s.line) for s in samples] == [(0, 1), (3, 4)]
    first, second = samples
    assert first == GeneralFCSample(path, "calls", 0, 1, MESSAGES, [WEATHER], True, f"{path}:1")
    assert first.id == "calls/0"
    assert second.should_call_tool is False
    assert second.source == f"{path}:4"


def test_bad_line_does_not_shift_later_indices(tmp_path: Path) -> None:
    path = write(tmp_path, [row(), "{oops", row()])
    samples, problems = load_file(path)
    assert [s.index for s in samples] == [0, 2]
    assert len(problems) == 1


def test_json_string_fields_are_decoded(tmp_path: Path) -> None:
    path = write(tmp_path, [row(messages=json.dumps(MESSAGES), tools=json.dumps([WEATHER]))])
    samples, problems = load_file(path)
    assert problems == []
    assert samples[0].messages == MESSAGES
    assert samples[0].tools == [WEATHER]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"messages": [], "tools" []}', "not valid JSON (Expecting ':' delimiter at column 26)"),
        ('{"a": 1 "b": 2}', "not valid JSON (Expecting ',' delimiter at column 9)"),
        ("[1, 2]", "expected a JSON object, got a list"),
        ('"text"', "expected a JSON object, got a string"),
        ({"messages": MESSAGES, "tools": [WEATHER]}, "missing field should_call_tool"),
        ({"should_call_tool": True}, "missing fields messages, tools"),
        (row(should_call_tool="true"), 'should_call_tool must be a boolean, got a string "true"'),
        (row(should_call_tool=1), "should_call_tool must be a boolean, got a number 1"),
        (row(should_call_tool=None), "should_call_tool must be a boolean, got null"),
        (row(messages=[]), "messages is empty"),
        (row(messages="[]"), "messages is empty"),
        (row(messages={"role": "user"}), "messages must be a list, got an object"),
        (row(messages="[{"), "messages is a string but not valid JSON (Expecting property name enclosed in double"),
        (row(messages=[{"content": "hi"}]), "messages[0] has no role"),
        (row(messages=[*MESSAGES, "hi"]), "messages[1] must be an object, got a string"),
        (row(tools=[]), "tools is empty"),
        (row(tools="not json"), "tools is a string but not valid JSON (Expecting value at column 1)"),
        (row(tools=[WEATHER, 5]), "tools[1] must be an object, got a number"),
        (row(tools=[{"type": "function"}]), "tools[0] has no function object"),
        (row(tools=[WEATHER, tool("", {"type": "object"})]), "tools[1].function has no name"),
        (row(tools=[{"type": "function", "function": {"parameters": {}}}]), "tools[0].function has no name"),
    ],
)
def test_dropped_line_problems(tmp_path: Path, line: Any, message: str) -> None:
    path = write(tmp_path, [row(), line])
    samples, problems = load_file(path)
    assert [s.line for s in samples] == [1]
    assert len(problems) == 1
    assert problems[0][0] == 1
    assert problems[0][1].startswith(f"{path}:2: {message}")


INVALID_SCHEMA = {"type": "object", "properties": {"x": {"type": "any"}}}
DRAFT4 = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
}


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (
            [WEATHER, tool("f", INVALID_SCHEMA)],
            "tools[1].function.parameters is not a valid JSON Schema: 'any' is not valid under any of the given "
            "schemas (at properties/x/type)",
        ),
        # Draft 2020-12 (the default) wants a number for exclusiveMinimum.
        (
            [tool("f", {k: v for k, v in DRAFT4.items() if k != "$schema"})],
            "tools[0].function.parameters is not a valid JSON Schema: True is not of type 'number' "
            "(at properties/n/exclusiveMinimum)",
        ),
    ],
)
def test_line_with_an_invalid_schema_is_not_a_sample(tmp_path: Path, tools: list[dict[str, Any]], message: str) -> None:
    path = write(tmp_path, [row(), row(tools=tools)])
    samples, problems = load_file(path)
    assert [s.line for s in samples] == [1]
    assert problems == [(1, f"{path}:2: {message}")]


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([tool("f", {})], "tools[0].function.parameters is empty ({}): no call to 'f' can validate"),
        ([tool("f")], "tools[0].function has no parameters: no call to 'f' can validate"),
        (
            [WEATHER, WEATHER],
            "tools[1].function.name 'get_weather' repeats tools[0]: calls to 'get_weather' are checked against "
            "tools[0] only",
        ),
    ],
)
def test_kept_line_with_tool_warnings(tmp_path: Path, tools: list[dict[str, Any]], message: str) -> None:
    path = write(tmp_path, [row(), row(tools=tools)])
    samples, problems = load_file(path)
    assert [s.line for s in samples] == [1, 2]  # sent as given, its calls score invalid
    assert problems == []
    assert samples[1].warnings == (f"{path}:2: {message}",)
    assert samples[0].warnings == ()


def test_schema_draft_named_by_dollar_schema_is_used(tmp_path: Path) -> None:
    path = write(tmp_path, [row(tools=[tool("f", DRAFT4)])])
    samples, problems = load_file(path)
    assert problems == []
    assert samples[0].warnings == ()


def test_each_warning_is_kept(tmp_path: Path) -> None:
    path = write(tmp_path, [row(tools=[tool("f", {}), tool("g")])])
    samples, problems = load_file(path)
    assert problems == []
    assert samples[0].warnings == (
        f"{path}:1: tools[0].function.parameters is empty ({{}}): no call to 'f' can validate",
        f"{path}:1: tools[1].function has no parameters: no call to 'g' can validate",
    )


def test_line_separators_inside_strings_do_not_split_lines(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "a\u2028b\u2029c\x85d"}]
    path = tmp_path / "sep.jsonl"
    path.write_text(json.dumps(row(messages=messages), ensure_ascii=False) + "\r\n" + json.dumps(row()), "utf-8")
    samples, problems = load_file(path)
    assert problems == []
    assert [s.line for s in samples] == [1, 2]
    assert samples[0].messages == messages


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(row()).encode())
    samples, problems = load_file(path)
    assert problems == []
    assert len(samples) == 1


def test_missing_file_raises_with_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    with pytest.raises(DataError, match=f"^{path}: file not found$"):
        load_file(path)


def test_directory_raises_with_path(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=f"^{tmp_path}: is a directory"):
        load_file(tmp_path)


def test_undecodable_file_raises_with_path(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"x": "\xe9"}\n')
    with pytest.raises(DataError, match=f"^{path}: cannot read"):
        load_file(path)


def test_shared_files_load(general_fc_set: Path) -> None:
    samples, problems = load_file(general_fc_set)
    assert len(samples) == 511
    assert sum(s.should_call_tool for s in samples) == 453
    assert [s.index for s in samples] == list(range(511))
    # Four lines offer two tools of the same name (reported, kept); no other schema problem.
    assert [s.line for s in samples if s.warnings] == [72, 168, 328, 379]
    assert problems == []
    assert all("repeats tools[0]" in w for s in samples for w in s.warnings)
    samples, problems = load_file(TEST_DATA / "general_fc" / "example_3.jsonl")
    assert (len(samples), problems) == (3, [])
    assert [s.should_call_tool for s in samples] == [True, False, True]


def _schema_variants() -> list[Any]:
    """Valid and invalid schemas around the keywords the fast check accepts."""
    base: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    mutations: list[dict[str, Any]] = [
        {"type": "any"},
        {"type": ["string", "string"]},
        {"type": []},
        {"type": ["number", "null"]},
        {"required": "a"},
        {"required": ["a", "a"]},
        {"required": [1]},
        {"enum": "x"},
        {"enum": []},
        {"examples": "x"},
        {"examples": [1, "x"]},
        {"minLength": -1},
        {"minLength": 1.0},
        {"minLength": True},
        {"maxItems": 3},
        {"minimum": "0"},
        {"minimum": True},
        {"maximum": 2.5},
        {"description": 5},
        {"format": 5},
        {"title": "t", "default": {"any": ["thing"]}},
        {"properties": []},
        {"properties": {"a": {"type": "str"}}},
        {"properties": {"a": {"items": {"type": "wrong"}}}},
        {"items": 5},
        {"items": False},
        {"additionalProperties": "no"},
        {"additionalProperties": {"type": "number"}},
        {"pattern": "("},
        {"$defs": {"x": {"type": "nope"}}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "exclusiveMinimum": True, "minimum": 0},
        {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]},
        {"items": [{"type": "string"}]},
        {"x-vendor": {"type": "whatever"}},
    ]
    return [base, True, False, *({**base, **m} for m in mutations)]


@pytest.mark.slow
def test_fast_schema_check_agrees_with_check_schema(general_fc_set: Path) -> None:
    # The shortcut may only ever say "valid" when jsonschema's check_schema agrees (it is an optimisation).
    from pytest_toolcall.native.schemas import _check_schema, schema_problem

    samples, _ = load_file(general_fc_set)
    schemas = [t["function"]["parameters"] for s in samples for t in s.tools] + _schema_variants()
    verdicts = [(schema_problem(schema), _check_schema(schema)) for schema in schemas]
    assert all(fast == full for fast, full in verdicts)
    assert sum(1 for fast, _ in verdicts if fast) >= 20  # the invalid variants really are invalid


def test_lines_are_read_back_as_they_were_checked(tmp_path: Path) -> None:
    path = write(tmp_path, [row(), row(should_call_tool=False)])
    refs, problems = index_file(path)
    assert problems == []
    samples, _ = load_file(path)
    assert [ref.sample() for ref in refs] == samples
    # A line edited after the run started, even into another valid line of the same length, is not
    # scored as if it were the line that was checked.
    edited = write(tmp_path, [row(), row()], name="edited.jsonl")
    before, _ = index_file(edited)
    edited.write_text(edited.read_text(encoding="utf-8").replace("Paris", "Lyons"), encoding="utf-8")
    after, _ = index_file(edited)  # (a new run reads the new text)
    assert after[1].sample().messages[0]["content"] == "weather in Lyons?"
    with pytest.raises(DataError, match=rf"^{edited}:2: the file changed since the run started$"):
        before[1].sample()
