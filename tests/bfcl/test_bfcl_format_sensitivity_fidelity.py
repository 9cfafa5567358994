"""BFCL V4 format sensitivity against the official pipeline at gorilla@6ea5797.

``tests/data/bfcl/format_sensitivity_official.jsonl.gz`` (learned by
``tests/data/bfcl/learn_format_sensitivity.py``) holds, for each of the 5,200 items (200 entries x
26 prompt formats), the hash of the messages the official handler sends; for two scripted models'
replies to every item, the official verdict; and the header of each script's official score file
(the per-format accuracies and their spread). Ours must be the same, item by item and number by
number.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.format_sensitivity import (
    FormatSample,
    all_formats,
    build_messages,
    check,
    load_format_sensitivity,
)
from pytest_toolcall.benchmarks.bfcl.metrics import format_sensitivity_fields

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "format_sensitivity_official.jsonl.gz"


@cache
def lines() -> list[dict[str, Any]]:
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@cache
def samples() -> dict[str, FormatSample]:
    loaded, problems = load_format_sensitivity()
    assert not problems
    return {sample.id: sample for sample in loaded}


def test_items_are_the_official_ones_in_the_official_order() -> None:
    official = [line["id"] for line in lines() if line["kind"] == "request"]
    assert list(samples()) == official and len(official) == 200 * 26
    assert {sample.format for sample in samples().values()} == set(all_formats())


@pytest.mark.parametrize(
    "items", [pytest.param(10 * 26, id="first-10-entries"), pytest.param(None, id="all", marks=pytest.mark.slow)]
)
def test_requests_as_official(items: int | None) -> None:
    """The system prompt of every format (return format, tags, doc format, markdown, wording) and the
    docs with their language notes, hashed as the official request's messages (the first entries in
    every format in the fast set, all 5,200 items in the slow one)."""
    differing = []
    for line in [line for line in lines() if line["kind"] == "request"][:items]:
        text = json.dumps(build_messages(samples()[line["id"]]), sort_keys=True, ensure_ascii=False)
        if hashlib.sha256(text.encode()).hexdigest()[:20] != line["messages"]:
            differing.append(line["id"])
    assert differing == []


@pytest.mark.parametrize("script", [0, 1])
def test_verdicts_as_official(script: int) -> None:
    differing = []
    for line in lines():
        if line["kind"] == "verdict" and line["script"] == script:
            verdict = check(samples()[line["id"]], line["reply"])
            if (verdict.valid, verdict.error_type) != (line["valid"], line["error_type"]):
                differing.append((line["id"], line["reply"], verdict.error_type, line["error_type"]))
    assert differing == []


@pytest.mark.parametrize("script", [0, 1])
def test_spread_as_official(script: int) -> None:
    """The official score file's per-format accuracies and spread, from our verdicts and, as a check
    of the formula alone, from the official verdicts."""
    header = next(line for line in lines() if line["kind"] == "metric" and line["script"] == script)
    verdicts = [line for line in lines() if line["kind"] == "verdict" and line["script"] == script]
    ours = [
        {"format": samples()[line["id"]].format, "score": float(check(samples()[line["id"]], line["reply"]).valid)}
        for line in verdicts
    ]
    theirs = [{"format": samples()[line["id"]].format, "score": float(line["valid"])} for line in verdicts]
    for records in (ours, theirs):
        fields = format_sensitivity_fields(records)["format_sensitivity"]
        assert fields["accuracy_max_delta"] == header["accuracy_max_delta"]
        assert fields["accuracy_std"] == header["accuracy_std"]
        assert fields["accuracy_variance"] == header["accuracy_variance"]
        assert fields["by_format"] == {name: header[name] for name in all_formats()}
    assert sum(record["score"] for record in ours) == header["correct_count"]


def test_corpus_covers_every_format_and_many_outcomes() -> None:
    verdicts = [line for line in lines() if line["kind"] == "verdict"]
    outcomes = Counter(line["error_type"] for line in verdicts)
    assert len(outcomes) >= 10 and outcomes[None] > 5000 and outcomes["ast_decoder:decoder_failed"] > 1000
    failing_formats = {samples()[line["id"]].format for line in verdicts if not line["valid"]}
    assert failing_formats == set(all_formats())
