"""τ³-bench's knowledge base against what the official tau2 1.0.1 builds and answers
(``tests/data/tau2/banking/retrieval.json.gz``, ``learn_banking_retrieval.py``): the documents,
the agent policy of every offline retrieval configuration (and of golden_retrieval for every
task), the BM25 rankings and scores of ``KB_search`` and the matches of ``grep``, and their answers."""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2 import knowledge

LEARNED = Path(__file__).parents[1] / "data" / "tau2" / "banking" / "retrieval.json.gz"


@functools.cache
def learned() -> dict[str, Any]:
    return json.loads(gzip.decompress(LEARNED.read_bytes()))


def digest(text: str) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "length": len(text)}


def test_the_documents_are_the_official_ones() -> None:
    ids = [doc.id for doc in knowledge.documents()]
    assert sorted(ids) == learned()["documents"] and len(ids) == 698


@pytest.mark.parametrize("retrieval", ["bm25", "grep_only", "no_knowledge"])
def test_the_policy_of_a_configuration(retrieval: str) -> None:
    official = learned()["configs"][retrieval]
    assert knowledge.policy(retrieval) == official["text"]
    assert digest(knowledge.policy(retrieval)) == official["policy"]


def test_the_full_kb_policy_holds_every_document() -> None:
    """The official order of the documents is the file system's listing: the template and the set
    of document sections are compared, and the whole policy's length."""
    official = learned()["configs"]["full_kb"]
    sections = knowledge.full_knowledge_base().split(knowledge.SEPARATOR)
    assert sorted(hashlib.sha256(p.encode()).hexdigest() for p in sections) == official["full_kb"]["sections"]
    template = official["full_kb"]["template"]
    assert knowledge.policy("full_kb") == template.replace("{{full_knowledge_base}}", knowledge.full_knowledge_base())
    assert len(knowledge.policy("full_kb")) == official["policy"]["length"]


def test_the_golden_policy_of_every_task() -> None:
    tasks = {t["id"]: t for t in banking_tasks()}
    per_task = learned()["configs"]["golden_retrieval"]["per_task"]
    assert set(per_task) == set(tasks)
    wrong = [tid for tid, want in per_task.items() if digest(knowledge.policy("golden_retrieval", tasks[tid])) != want]
    assert not wrong


def banking_tasks() -> list[dict[str, Any]]:
    folder = knowledge.FOLDER / "tasks"
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("task_*.json"))]


def same_ranking(ours: list[tuple[str, float]], official: list[list[Any]]) -> bool:
    """The same scores (to 1e-9: BM25's average IDF is summed in document order, which officially
    is the file system's listing) and the same documents at each score; equal scores come in
    document order, so at the last score the cut may take other documents."""
    if len(ours) != len(official):
        return False
    if any(s != pytest.approx(t, rel=1e-9) for (_, s), (_, t) in zip(ours, official, strict=True)):
        return False
    last = round(official[-1][1], 6) if official else None
    groups: dict[float, tuple[set[str], set[str]]] = {}
    for (doc, score), (their_doc, _) in zip(ours, official, strict=True):
        mine, theirs = groups.setdefault(round(score, 6), (set(), set()))
        mine.add(doc)
        theirs.add(their_doc)
    return all(mine == theirs for score, (mine, theirs) in groups.items() if score != last)


def untimed(text: str) -> str:
    return re.sub(r"\n\n\[Timing: [^\]]*\]$", "", text)


def test_kb_search_ranks_and_answers_as_officially() -> None:
    rows = learned()["kb_search"]
    answered = 0
    for row in rows:
        ours = knowledge.bm25_search(row["query"])
        assert same_ranking(ours, row["results"]), row["query"]
        if row["answer"] is not None and [d for d, _ in ours] == [d for d, _ in row["results"]]:
            assert untimed(knowledge.kb_search(row["query"])) == row["answer"]
            answered += 1
    assert len(rows) > 100 and answered >= 10
    assert knowledge.kb_search("").startswith("No relevant documents found.")


def test_grep_matches_and_answers_as_officially() -> None:
    rows = learned()["grep"]
    answered = 0
    for row in rows:
        ours = knowledge.grep_search(row["pattern"])
        assert same_ranking(ours, row["results"] or []), row["pattern"]
        if row["answer"] is not None and [d for d, _ in ours] == [d for d, _ in row["results"] or []]:
            assert knowledge.grep(row["pattern"]) == row["answer"], row["pattern"]
            answered += 1
    assert answered >= 10
    assert any(row["pattern"] == "(unclosed" and row["results"] is not None for row in rows)


def test_the_configurations_that_are_not_offline_are_refused_with_a_reason() -> None:
    assert knowledge.refusal("bm25") is None
    assert "embeddings API" in str(knowledge.refusal("openai_embeddings"))
    assert "sandboxed shell" in str(knowledge.refusal("terminal_use"))
    assert "embeddings API" in str(knowledge.refusal("alltools")) and "shell" in str(knowledge.refusal("alltools"))
    assert "not a retrieval configuration" in str(knowledge.refusal("nope"))


def test_the_learned_reference_answers_cover_every_task() -> None:
    """``banking/gold.json.gz`` (``learn_banking_tools.py``) holds, for the port of the domain's
    tools, the official answer to every reference action of every task: all tasks, no errors, and
    every discoverable tool a reference calls is among the learned ones."""
    gold = json.loads(gzip.decompress((LEARNED.parent / "gold.json.gz").read_bytes()))
    tasks = {t["id"]: t for t in banking_tasks()}
    assert set(gold["tasks"]) == set(tasks)
    for task_id, learned_task in gold["tasks"].items():
        actions = tasks[task_id]["evaluation_criteria"]["actions"] or []
        assert len(learned_task["answers"]) == len(actions)
        assert not any(answer["error"] for answer in learned_task["answers"])
    called = {
        a["arguments"].get("agent_tool_name") or a["arguments"].get("discoverable_tool_name")
        for t in tasks.values()
        for a in t["evaluation_criteria"]["actions"] or []
        if "discoverable" in a["name"]
    }
    names = {key.split(".", 1)[1] for key in gold["discoverable"]}
    assert called <= names and len(names) == 48
