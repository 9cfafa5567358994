"""Our multi-turn inference loop asks the same questions as the official one.

`data/verdicts/bfcl_multi_turn_loop.jsonl` comes from running the OFFICIAL base handler's
multi-turn loops (native-tool and prompting) outside this repository, on every 4th sample of each
category, with a scripted model: the ground-truth calls of each turn (sometimes split over two
steps), then chat text, an empty list or `[""]` to end the turn; in about one dialogue in eight the
model repeats a call 25 times in turn 1 (the step limit force-quits). Recorded: the official result
list, and for every request a hash of its messages (the executed results are part of them) and the
tool names offered. The stand-in handler puts `tools: [names]` into a system message in prompting
mode; the replay does the same through `prepare_prompting`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.multi_turn_loop import ModelReply, load_func_docs, run_dialogue
from tests.bfcl.multi_turn_fidelity import BFCL_DATA, CATEGORIES, VERDICTS, entries

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


class ScriptedModel:
    """The scripted model of the recording: answers in order, one tool-call id per call."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.queries: list[dict[str, Any]] = []

    def ask(self, messages: list[dict[str, Any]], functions: list[dict[str, Any]] | None) -> ModelReply:
        tools = None if functions is None else [doc["name"] for doc in functions]
        self.queries.append({"messages": digest(messages), "tools": tools})
        answer = self.script.pop(0) if self.script else "(script exhausted)"
        ids = [f"call_{index}" for index in range(len(answer))] if isinstance(answer, list) else []
        return ModelReply(message={"role": "assistant", "content": str(answer)}, raw=answer, tool_call_ids=ids)


def decode(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        raise ValueError("not calls")
    return raw


def prepare(messages: list[dict[str, Any]], functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": "system", "content": f"tools: {[doc['name'] for doc in functions]}"}, *messages]


def test_every_recorded_dialogue_matches() -> None:
    lines = [json.loads(line) for line in (VERDICTS / "bfcl_multi_turn_loop.jsonl").read_text().splitlines()]
    assert len(lines) == 400
    assert sum(len(line["result"]) < len(entry_of(line)["question"]) for line in lines) >= 10  # force-quits
    docs = load_func_docs(BFCL_DATA / "multi_turn_func_doc")
    problems = []
    for line in lines:
        model = ScriptedModel(line["script"])
        # The official handler is constructed with "scripted-model"; instance names use it.
        run = run_dialogue(
            entry_of(line), model.ask, decode, docs, mode=line["mode"], prepare_prompting=prepare,
            model_name="scripted_model",
        )  # fmt: skip
        if run.result != line["result"]:
            problems.append(f"{line['id']} {line['mode']}: result differs")
        for number, (ours, official) in enumerate(zip(model.queries, line["queries"], strict=False)):
            if ours != official:
                problems.append(f"{line['id']} {line['mode']}: request {number} differs")
                break
        if len(model.queries) != len(line["queries"]):
            problems.append(f"{line['id']} {line['mode']}: {len(model.queries)} requests != {len(line['queries'])}")
    assert problems == [], "\n".join(problems[:20])


def entry_of(line: dict[str, Any]) -> dict[str, Any]:
    category = next(name for name in CATEGORIES if line["id"].startswith(f"multi_turn_{name}_"))
    return entries(category)[line["id"]]
