"""How a reply of ``"tool_calls": []`` is read (``--toolcall-bfcl-empty-tool-calls``), single turn.

``tests/data/bfcl/empty_tool_calls_official.jsonl`` (``tests/data/bfcl/learn_empty_tool_calls.py``):
such replies, with prose, a call list, an empty text or no text, through gorilla@6ea5797's FC
handler as it is (``official``) and with the upstream fix (``fixed``), and the official verdicts.
Multi-turn and memory dialogues under both readings: ``test_bfcl_memory_fidelity.py``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.api import ChatResponse
from pytest_toolcall.benchmarks.bfcl.benchmark import recorded_result
from pytest_toolcall.benchmarks.bfcl.checker import check_result
from pytest_toolcall.benchmarks.bfcl.data import SINGLE_TURN_CATEGORIES, BfclSample, load_samples

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "empty_tool_calls_official.jsonl"


def lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


@cache
def samples() -> dict[str, BfclSample]:
    loaded, problems = load_samples()
    assert not problems
    return {sample.id: sample for sample in loaded}


@pytest.mark.parametrize(
    "line", lines(), ids=lambda line: f"{line['empty_tool_calls']}/{line['id']}/{line['content']!r:.20}"
)
def test_read_as_official(line: dict[str, Any]) -> None:
    response = ChatResponse(line["content"], "stop", [], empty_tool_calls=True)
    recorded = recorded_result(response, [], "fc", line["empty_tool_calls"])
    assert recorded == line["recorded"]
    verdict = check_result(samples()[line["id"]], recorded, "fc")
    assert (verdict.valid, verdict.error_type) == (line["valid"], line["error_type"])


def test_corpus_covers_every_category_and_both_readings() -> None:
    seen = {(line["category"], line["empty_tool_calls"]) for line in lines()}
    assert seen == {(category, reading) for category in SINGLE_TURN_CATEGORIES for reading in ("official", "fixed")}
    # The readings give different verdicts on the same reply.
    by_reply: dict[tuple[str, Any], set[Any]] = {}
    for line in lines():
        by_reply.setdefault((line["id"], line["content"]), set()).add(line["error_type"])
    assert sum(len(types) > 1 for types in by_reply.values()) > 50


def test_null_tool_calls_read_the_same_under_both() -> None:
    """Only an empty list is read differently: no ``tool_calls`` keeps the text under both readings."""
    response = ChatResponse("Sorry.", "stop", [])
    assert recorded_result(response, [], "fc", "official") == recorded_result(response, [], "fc", "fixed") == "Sorry."
    # Prompting mode reads the text whatever the tool_calls field says, as the official handler does.
    empty = ChatResponse("[f(a=1)]", "stop", [], empty_tool_calls=True)
    assert recorded_result(empty, [], "prompting", "official") == "[f(a=1)]"
