"""The numbers of a report read back are checked while it is parsed (the JSON parser's hooks): a good
report is never walked again, and a bad one is refused naming the field, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_toolcall.core.safety import reports


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_document_is_not_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[object] = []
    monkeypatch.setattr(reports, "_first_unreadable", lambda document: walked.append(document))
    document = {"samples": [{"score": 0.5, "usage": {"prompt_tokens": 10**29}}] * 100, "n": -3}
    assert reports.read_json(write(tmp_path / "r.json", json.dumps(document))) == document
    assert walked == []


@pytest.mark.parametrize(
    ("text", "field", "shown"),
    [
        ('{"a": [1, {"b": NaN}]}', "a[1].b", "NaN"),
        ('{"a": {"b": 1e999}}', "a.b", "1e999"),
        ('{"a": -Infinity}', "a", "-Infinity"),
        ('{"x": [0, ' + "9" * 31 + "]}", "x[1]", "an integer of 31 digits"),
        ('{"x": -' + "9" * 30 + ', "y": Infinity}', "y", "Infinity"),  # 30 digits are sane
        ("NaN", "the document", "NaN"),
    ],
)
def test_a_bad_number_is_refused_naming_its_field(tmp_path: Path, text: str, field: str, shown: str) -> None:
    path = write(tmp_path / "r.json", text)
    with pytest.raises(reports.ReportError) as refused:
        reports.read_json(path)
    assert str(refused.value) == f"{path}: {field}: {shown} is not a finite number of a sane size"
