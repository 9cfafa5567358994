"""τ³-bench's banking_knowledge database and tools against the official answers
(``tests/data/tau2/banking/gold.json.gz``, ``learn_banking_tools.py``): from each task's initial
state, its reference actions get the official answers, and leave the database with the official
hash, for every task (with the handing out, unlocking and calling of discovered tools, and the
read-log allowlist the official runner derives from the reference)."""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

from pytest_toolcall.benchmarks.tau2 import banking, knowledge

GOLD = Path(__file__).parents[1] / "data" / "tau2" / "banking" / "gold.json.gz"


@functools.cache
def gold() -> dict[str, Any]:
    return json.loads(gzip.decompress(GOLD.read_bytes()))


def tasks() -> dict[str, dict[str, Any]]:
    folder = knowledge.FOLDER / "tasks"
    return {t["id"]: t for t in (json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("task_*.json")))}


def ported(action: dict[str, Any]) -> bool:
    kit = banking.KnowledgeTools if action["requestor"] == "assistant" else banking.KnowledgeUserTools
    discovered = action["arguments"].get("agent_tool_name") or action["arguments"].get("discoverable_tool_name")
    return hasattr(kit, action["name"]) and (
        discovered is None
        or hasattr(banking.KnowledgeTools, discovered)
        or hasattr(banking.KnowledgeUserTools, discovered)
    )


def test_the_database_as_shipped_has_the_official_hash() -> None:
    assert banking.db_hash(banking.fresh_db()) == gold()["db_hash"]


def test_reference_actions_get_the_official_answers_and_database() -> None:
    checked = initialized = 0
    for task_id, task in tasks().items():
        actions = task["evaluation_criteria"]["actions"] or []
        if not all(ported(a) for a in actions):
            continue
        init = (task.get("initial_state") or {}).get("initialization_data")
        db = banking.fresh_db(init)
        allowlist = {
            a["arguments"].get("agent_tool_name") for a in actions if a["name"] == "call_discoverable_agent_tool"
        }
        agent, user = banking.KnowledgeTools(db, allowlist), banking.KnowledgeUserTools(db)
        answers = [
            getattr(agent if a["requestor"] == "assistant" else user, a["name"])(**a["arguments"]) for a in actions
        ]
        learned = gold()["tasks"][task_id]
        assert answers == [a["content"] for a in learned["answers"]], task_id
        assert banking.db_hash(db) == learned["db_hash"], task_id
        checked += 1
        initialized += bool(init)
    # the tasks whose reference uses only ported tools (97 of 97), 53 from an initial state merged in
    assert (checked, initialized) == (97, 53)
