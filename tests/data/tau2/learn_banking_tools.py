"""How ``banking/gold.json.gz`` was learned: what the official tau2 1.0.1 (a2c0247)
``banking_knowledge`` environment answers to each task's reference actions, for the port of the
domain's tools. Run outside the test suite, with the official code installed with its ``knowledge``
extra (see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_banking_tools.py OUT_DIR

Per task (all 97, retrieval ``bm25``, the per-task read-log allowlist as the official runner derives
it from the reference): the environment set to the task's initial state (``initialization_data``)
as the evaluator sets it, then each reference action sent as a tool call of its requestor through
``Environment.get_response`` (the answer a live agent or user would get: its text and whether it is
an error), and the hash of the agent's and the user's database after them all (the gold side of
the DB check). Also, for every discoverable tool, the description and parameters the official code
derives from its docstring (what ``unlock_discoverable_agent_tool`` and ``give_discoverable_user_tool``
answer with; ``banking_knowledge_discoverable`` in the package's ``data/tools.json``), its signature
(names, and which have defaults), type and whether it mutates; the agent's and the user's toolkit
(names, types, whether replayed); and the hash of the database as loaded.
"""

import gzip
import inspect
import json
import sys
from pathlib import Path

from tau2.data_model.message import ToolCall
from tau2.domains.banking_knowledge.environment import get_environment, get_tasks
from tau2.domains.banking_knowledge.tools import (
    KnowledgeTools,
    KnowledgeUserTools,
    parse_discoverable_tool_docstring,
)
from tau2.runner.build import _derive_read_log_allowlist

OUT = Path(sys.argv[1])


def toolkit(kit):
    return {
        name: {"type": kit.tool_type(name).value, "mutates_state": kit.tool_mutates_state(name)} for name in kit.tools
    }


def main():
    tasks = get_tasks()
    learned = {"tasks": {}, "discoverable": {}}
    fresh = get_environment(retrieval_variant="bm25", task=tasks[0])
    learned["db_hash"] = fresh.get_db_hash()
    learned["agent_toolkit"] = toolkit(fresh.tools)
    learned["user_toolkit"] = toolkit(fresh.user_tools)
    for cls in (KnowledgeTools, KnowledgeUserTools):
        for name in dir(cls):
            method = getattr(cls, name)
            if getattr(method, "__discoverable__", False):
                signature = inspect.signature(method)
                learned["discoverable"][f"{cls.__name__}.{name}"] = {
                    **parse_discoverable_tool_docstring(method),
                    "parameter_order": list(parse_discoverable_tool_docstring(method)["parameters"]),
                    "signature": [
                        [p.name, p.default is not inspect.Parameter.empty]
                        for p in signature.parameters.values()
                        if p.name != "self"
                    ],
                    "type": method.__tool_type__.value,
                    "mutates_state": method.__mutates_state__,
                }
    for task in tasks:
        env = get_environment(retrieval_variant="bm25", task=task, read_log_allowlist=_derive_read_log_allowlist(task))
        state = task.initial_state
        env.set_state(
            initialization_data=state.initialization_data if state else None,
            initialization_actions=state.initialization_actions if state else None,
            message_history=[],
        )
        answers = []
        for index, action in enumerate(task.evaluation_criteria.actions or []):
            call = ToolCall(
                id=f"gold_{index}", name=action.name, arguments=action.arguments, requestor=action.requestor
            )
            response = env.get_response(call)
            answers.append({"content": response.content, "error": response.error})
        learned["tasks"][task.id] = {
            "answers": answers,
            "db_hash": env.get_db_hash(),
            "user_db_hash": env.get_user_db_hash(),
        }
    out = OUT / "gold.json.gz"
    with gzip.open(out, "wt") as fh:
        json.dump(learned, fh, indent=1, sort_keys=True)
    errors = sum(a["error"] for t in learned["tasks"].values() for a in t["answers"])
    print(out, len(learned["tasks"]), "tasks", len(learned["discoverable"]), "discoverable tools", errors, "errors")


main()
