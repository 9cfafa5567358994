"""Hostile prompting replies: decoded with bounded work, and with the official verdict wherever the
official decoder terminates.

``tests/data/bfcl/hostile_decode_official.json`` holds what the official decoders (gorilla 6ea5797)
gave on each reply, run outside this repository with a time and memory limit.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from pytest_toolcall.benchmarks.bfcl.checker import check_answer
from pytest_toolcall.benchmarks.bfcl.data import BfclSample
from pytest_toolcall.benchmarks.bfcl.decode import DecodeError, ValueTooLarge, decode_ast, decode_execute

OFFICIAL = json.loads((Path(__file__).parent.parent / "data" / "bfcl" / "hostile_decode_official.json").read_text())
REPLIES = OFFICIAL["replies"]
NO_VERDICT = ("timeout", "memory")  # the official decoder never returned


def _outcome(decode, text: str) -> str:  # type: ignore[no-untyped-def]
    try:
        return "calls" if decode(text) else "empty"
    except ValueTooLarge:
        return "too_large"
    except DecodeError:
        return "error"


def _bounded(decode, text: str) -> str:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        outcome = _outcome(decode, text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 150 * 2**20, f"{peak:,} bytes"
    return outcome


@pytest.mark.parametrize("reply", REPLIES, ids=[r["text"][:40] for r in REPLIES])
def test_ast_decoding_agrees_with_the_official_decoder(reply: dict) -> None:
    ours = _bounded(lambda t: decode_ast(t, "prompting"), reply["text"])
    official = reply["decode_ast"]
    if official == "calls":
        assert ours in ("calls", "too_large")  # too large: refused, yet counted as calling (below)
    elif official == "error":
        assert ours == "error"
    else:
        assert official in NO_VERDICT and ours in ("too_large", "error")


@pytest.mark.parametrize("reply", REPLIES, ids=[r["text"][:40] for r in REPLIES])
def test_execute_decoding_is_bounded_and_fails_where_the_official_fails(reply: dict) -> None:
    ours = _bounded(lambda t: decode_execute(t, "prompting"), reply["text"])
    if reply["decode_execute"] == "error":
        assert ours in ("error", "too_large")  # both are decoding failures
    elif reply["decode_execute"] == "calls" and ours == "too_large":
        # Documented divergence: the official call string would hold the whole value (hundreds of MB).
        assert reply["decode_ast"] == "calls"
    else:
        assert ours in ("calls", "too_large", "error")


def _relevance_sample(category: str) -> BfclSample:
    doc = {"name": "f", "description": "", "parameters": {"type": "dict", "properties": {}, "required": []}}
    return BfclSample(f"{category}_0", category, [[{"role": "user", "content": "q"}]], [doc], None)


WITH_VERDICT = [r for r in REPLIES if r["decode_ast"] not in NO_VERDICT]


@pytest.mark.parametrize("reply", WITH_VERDICT, ids=[r["text"][:40] for r in WITH_VERDICT])
def test_relevance_verdicts_are_the_official_ones(reply: dict) -> None:
    calls = reply["decode_ast"] == "calls"
    irrelevance = check_answer(_relevance_sample("irrelevance"), reply["text"], [], "prompting")
    relevance = check_answer(_relevance_sample("live_relevance"), reply["text"], [], "prompting")
    assert irrelevance.valid is not calls
    assert relevance.valid is calls
