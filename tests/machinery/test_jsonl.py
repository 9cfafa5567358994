"""The one JSON-Lines reader: what a line is, numbers and offsets, problems naming the line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pytest_toolcall.benchmarks.bfcl.data import _read_json_lines
from pytest_toolcall.core.safety import jsonl


def test_lines_end_at_newline_only_and_keep_file_numbers() -> None:
    data = '\ufeff{"a": "x\u2028y"}\r\n\n   \n{"b": 1}'.encode()
    found = list(jsonl.lines(io.BytesIO(data)))
    assert [line.number for line in found] == [1, 4]
    assert json.loads(found[0].text) == {"a": "x\u2028y"}  # a raw U+2028 inside a string is no line end
    for line in found:  # offsets and raw bytes read the line back
        assert data[line.offset : line.offset + len(line.raw)] == line.raw
    assert found[0].raw.decode().removesuffix("\r") == found[0].text


def test_pieces_are_what_a_binary_file_gives() -> None:
    data = b'{"a": 1}\n\n{"b": 2}\r\n{"c": 3}'
    assert list(jsonl.pieces(data)) == list(io.BytesIO(data))
    assert list(jsonl.pieces(b"")) == []


def test_a_line_that_is_not_utf8_is_named() -> None:
    with pytest.raises(jsonl.JsonlError) as info:
        list(jsonl.lines(io.BytesIO(b'{"a": 1}\n{"b": "\xff"}\n')))
    assert info.value.line == 2 and "not UTF-8" in info.value.message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1', "not valid JSON (Expecting ',' delimiter at column 8)"),
        ("[1, 2]", "expected a JSON object, got a list"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),  # nested too deeply for the parser
        ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),  # beyond the integer digit limit
    ],
)
def test_parse_problems_are_one_line(text: str, message: str) -> None:
    (line,) = jsonl.lines(io.BytesIO(b"\n" + text.encode()))
    with pytest.raises(jsonl.JsonlError) as info:
        jsonl.parse_object(line)
    assert info.value.line == 2 and info.value.message.startswith(message)
    assert "\n" not in str(info.value)


def test_bfcl_reads_a_raw_line_separator_inside_a_string(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text('{"id": "x\u2028y"}\n{"id": 2}\n', encoding="utf-8")
    problems: list = []
    rows = _read_json_lines(path, problems)
    assert problems == [] and [number for number, _ in rows] == [1, 2] and rows[0][1]["id"] == "x\u2028y"
