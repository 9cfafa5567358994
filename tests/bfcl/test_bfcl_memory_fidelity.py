"""BFCL V4 memory (``memory_kv``, ``memory_rec_sum``) against the official pipeline, request by request.

``tests/data/bfcl/memory_official.jsonl.gz`` was learned by running gorilla@6ea5797's own handler and
evaluation with a scripted model (``tests/data/bfcl/learn_memory.py``): every prerequisite
conversation and every question of both backends, in native-tool mode under both readings of a
``tool_calls: []`` reply and in prompting mode. Replaying the same scripted replies through the
plugin's loop, each request (messages and tools) must hash as the official one did, the memory
after each prerequisite conversation must be the snapshot the official code saved, and each
question must get the official verdict.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from concurrent.futures import Future
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.api import ChatRequest, ChatResponse
from pytest_toolcall.benchmarks.bfcl import memory_dialogue, multi_turn_dialogue
from pytest_toolcall.benchmarks.bfcl.data import MEMORY_SCENARIOS, MemorySample, MultiTurnSample, load_memory_category
from pytest_toolcall.benchmarks.bfcl.multi_turn_loop import DialogueRun

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "memory_official.jsonl.gz"
RUNS = [
    ("memory_kv", "fc", "official"),
    ("memory_kv", "fc", "fixed"),
    ("memory_kv", "prompting", "official"),
    ("memory_rec_sum", "fc", "official"),
    ("memory_rec_sum", "fc", "fixed"),
    ("memory_rec_sum", "prompting", "official"),
]
SAMPLING = {"temperature": 0.001}


@cache
def lines() -> list[dict[str, Any]]:
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def request_hash(request: ChatRequest) -> str:
    body = {"messages": request.messages, "tools": request.tools}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:20]


class ScriptedModel:
    """The scripted replies of one entry, answered in order; each request's hash kept."""

    name = "scripted"

    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.hashes: list[str] = []

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        self.hashes.append(request_hash(request))
        reply = self.replies.pop(0) if self.replies else {"content": "Done."}
        calls = [
            {"id": f"call_{n}", "name": call["name"], "arguments": call["arguments"]}
            for n, call in enumerate(reply.get("tool_calls") or [])
        ]
        future: Future[ChatResponse] = Future()
        future.set_result(
            ChatResponse(reply.get("content"), "stop", calls, empty_tool_calls=reply.get("tool_calls") == [])
        )
        return future

    def close(self) -> None:
        pass


def replay(category: str, mode: str, reading: str, scenario: str) -> list[str]:
    """What the plugin does differently from the official run (empty when nothing)."""
    mine = [
        line
        for line in lines()
        if (line["category"], line["mode"], line["empty_tool_calls"]) == (category, mode, reading)
    ]
    by_id = {line["id"]: line for line in mine}
    samples, problems = load_memory_category(category)
    assert not problems
    questions: dict[str, list[MemorySample]] = {}
    for sample in samples:
        questions.setdefault(sample.scenario, []).append(sample)
    model = ScriptedModel()
    problems_found: list[str] = []

    def run(entry: MultiTurnSample) -> DialogueRun:
        line = by_id[entry.id]
        model.replies, model.hashes = [dict(reply) for reply in line["replies"]], []
        dialogue = multi_turn_dialogue.run_with_model(entry, mode, model, SAMPLING, reading)  # type: ignore[arg-type]
        if model.hashes != line["requests"]:
            pairs = zip([*model.hashes, ""], [*line["requests"], ""], strict=False)
            first = next(i for i, (a, b) in enumerate(pairs) if a != b)
            problems_found.append(f"{entry.id}: request {first} of {len(line['requests'])} differs")
        if len(model.replies) != line["unused_replies"]:
            problems_found.append(
                f"{entry.id}: {len(model.replies)} replies unused, officially {line['unused_replies']}"
            )
        if "snapshot" in line:
            snapshot = dialogue.executor.instances[entry.entry["involved_classes"][0]].snapshot()
            if snapshot != line["snapshot"]:
                problems_found.append(f"{entry.id}: memory after it {snapshot} != official {line['snapshot']}")
        return dialogue

    for scenario_questions in [questions[scenario]]:
        snapshot = memory_dialogue.run_prereqs(scenario_questions[0], run)
        for sample in scenario_questions:
            dialogue = memory_dialogue.run_question(sample, snapshot, run)
            verdict = memory_dialogue.evaluate(sample, dialogue, multi_turn_dialogue.decoder(mode))
            got = {"valid": verdict["valid"], "error_type": verdict.get("error_type")}
            if got != by_id[sample.id]["verdict"]:
                problems_found.append(f"{sample.id}: verdict {got} != official {by_id[sample.id]['verdict']}")
    return problems_found


def cases() -> list[Any]:
    """Every run and scenario; the shortest scenario in the fast set, the others marked slow."""
    return [
        pytest.param(
            *run,
            scenario,
            id=f"{'/'.join(run)}/{scenario}",
            marks=[] if scenario == "healthcare" else [pytest.mark.slow],
        )
        for run in RUNS
        for scenario in MEMORY_SCENARIOS
    ]


@pytest.mark.parametrize(("category", "mode", "reading", "scenario"), cases())
def test_memory_as_official(category: str, mode: str, reading: str, scenario: str) -> None:
    assert replay(category, mode, reading, scenario) == []


def test_corpus_covers_both_readings_and_every_outcome() -> None:
    verdicts = {
        (line["category"], line["mode"], line["empty_tool_calls"], line["verdict"]["error_type"])
        for line in lines()
        if "verdict" in line
    }
    for category in ("memory_kv", "memory_rec_sum"):
        for mode, reading in (("fc", "official"), ("fc", "fixed"), ("prompting", "official")):
            for outcome in (None, "agentic:answer_not_found", "agentic:no_last_message"):
                assert (category, mode, reading, outcome) in verdicts
    # The readings differ where the last step is a text carrying tool_calls: [].
    empty_last = [
        line
        for line in lines()
        if "verdict" in line
        and line["mode"] == "fc"
        and line["unused_replies"] == 0
        and line["replies"][-1].get("tool_calls") == []
        and line["replies"][-1].get("content")
    ]
    assert {
        line["empty_tool_calls"] for line in empty_last if line["verdict"]["error_type"] == "agentic:no_last_message"
    } == {"official"}
    prereqs = len(load_memory_category("memory_kv")[0][0].prereqs)
    assert prereqs and len(lines()) == 6 * (155 + 37)  # every question and every prerequisite conversation
