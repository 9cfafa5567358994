"""τ³-bench's ``banking_knowledge`` environment behind the interface of ``environment.Environment``
(what the loop and the evaluator use): the agent's and the user's tools on one database, a task's
initial state merged in, the official hash.

As officially, a tool is any method of a side's toolkit: the tools offered (the base tools, the
retrieval tool of the configuration, the user's tools) and the discovered ones, which a call may
also name directly. The agent's calls of read-only discovered tools are logged in the database only
for the tools the task's reference calls (the read-log allowlist the official runner derives from
it), so that an extra prudent read does not change the hash.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Sequence
from typing import Any

from pytest_toolcall.benchmarks.tau2 import knowledge
from pytest_toolcall.benchmarks.tau2.banking import (
    KnowledgeTools,
    KnowledgeUserTools,
    db_hash,
    discoverable,
    fresh_db,
)
from pytest_toolcall.benchmarks.tau2.environment import DATA, Environment, ToolSpec, _differences

DOMAIN = knowledge.DOMAIN


class KBSearchMixin:
    """The ``KB_search`` tool of ``bm25`` (named as the official mixin: a call with arguments that do
    not fit answers with Python's own ``TypeError`` text, which names it)."""

    def KB_search(self, query: str) -> str:
        return knowledge.kb_search(query)


class GrepMixin:
    """The ``grep`` tool of ``grep_only``."""

    def grep(self, pattern: str) -> str:
        return knowledge.grep(pattern)


class KnowledgeToolsWithKBSearch(KBSearchMixin, KnowledgeTools):
    pass


class KnowledgeToolsWithGrep(GrepMixin, KnowledgeTools):
    pass


TOOLKITS = {"KB_search": KnowledgeToolsWithKBSearch, "grep": KnowledgeToolsWithGrep}


@functools.cache
def _entries() -> dict[str, Any]:
    return json.loads((DATA / "tools.json").read_text(encoding="utf-8"))


def _spec(entry: dict[str, Any]) -> ToolSpec:
    return ToolSpec(entry["schema"], bool(entry["mutates_state"]), str(entry["tool_type"]))


def agent_specs(retrieval: str) -> dict[str, ToolSpec]:
    """The agent's tools under a retrieval configuration, as the official toolkit declares them
    (its retrieval tool first)."""
    _, tool = knowledge.RETRIEVAL[retrieval]
    entries = [e for e in _entries()["banking_knowledge_retrieval"] if e["schema"]["function"]["name"] == tool]
    entries += _entries()["banking_knowledge"]
    return {e["schema"]["function"]["name"]: _spec(e) for e in entries}


def user_specs() -> dict[str, ToolSpec]:
    return {e["schema"]["function"]["name"]: _spec(e) for e in _entries()["banking_knowledge_user"]}


def read_log_allowlist(task: dict[str, Any] | None) -> set[str]:
    """The discovered tools the task's reference calls (``_derive_read_log_allowlist``)."""
    criteria = (task or {}).get("evaluation_criteria") or {}
    return {
        str(action["arguments"]["agent_tool_name"])
        for action in criteria.get("actions") or []
        if action.get("name") == "call_discoverable_agent_tool"
        and (action.get("arguments") or {}).get("agent_tool_name")
    }


class BankingEnvironment(Environment):
    def __init__(self, task: dict[str, Any] | None = None, retrieval: str = knowledge.DEFAULT_RETRIEVAL) -> None:
        # (not Environment.__init__: no database model, no phone)
        self.domain = DOMAIN
        self.retrieval = retrieval
        self.specs = agent_specs(retrieval)
        self.user_specs = user_specs()
        self.device = None
        self.db = fresh_db()
        _, tool = knowledge.RETRIEVAL[retrieval]
        toolkit = TOOLKITS.get(tool or "", KnowledgeTools)
        self.tools = toolkit(self.db, read_log_allowlist(task))
        self.user_tools = KnowledgeUserTools(self.db)
        self._agent_discovered = discoverable("agent")
        self._user_discovered = discoverable("user")

    def _side(self, name: str, requestor: str) -> tuple[Any, Any]:
        """The toolkit a call of ``name`` goes to and the tool's entry, or (toolkit, None)."""
        if requestor == "user":
            entry = self.user_specs.get(name) or self._user_discovered.get(name)
            return self.user_tools, entry
        entry = self.specs.get(name) or self._agent_discovered.get(name)
        return self.tools, entry

    def has_tool(self, name: str) -> bool:
        return any(self._side(name, side)[1] is not None for side in ("assistant", "user"))

    def mutates_state(self, name: str) -> bool:
        for side in ("assistant", "user"):
            _, entry = self._side(name, side)
            if isinstance(entry, ToolSpec):
                return entry.mutates_state
            if entry is not None:
                return bool(entry["mutates_state"])
        return True

    def make_tool_call(self, tool_name: str, requestor: str = "assistant", **arguments: Any) -> Any:
        if requestor not in ("assistant", "user"):
            raise ValueError(f"Invalid requestor: {requestor}")
        toolkit, entry = self._side(tool_name, requestor)
        if entry is None:
            raise ValueError(f"Tool '{tool_name}' not found.")
        method = getattr(toolkit, tool_name, None)
        if method is None:
            raise NotImplementedError(f"{tool_name} is not ported yet")
        return method(**arguments)

    def db_hash(self) -> str:
        return db_hash(self.db)

    def user_db_hash(self) -> str | None:
        return db_hash(self.db)  # officially the user's toolkit holds the same database

    def same_state(self, other: Environment) -> bool:
        return self.db_hash() == other.db_hash()

    def state_differences(self, gold: Environment) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        _differences([], self.db, getattr(gold, "db", {}), found)
        return found

    def sync(self) -> None:
        pass  # one database for both sides: nothing to sync

    def set_state(
        self, initial_state: dict[str, Any] | None, messages: Sequence[dict[str, Any]], strict: bool = False
    ) -> None:
        """The task's initial state (its ``agent_data`` merged into the database, as officially),
        then the trajectory replayed."""
        initial_state = initial_state or {}
        data = initial_state.get("initialization_data") or {}
        if data.get("user_data"):
            raise ValueError("banking_knowledge tasks with user_data are not supported (no shipped task has any)")
        if data.get("agent_data"):
            merged = fresh_db(copy.deepcopy(data))
            self.db.clear()
            self.db.update(merged)
        if initial_state.get("initialization_actions"):
            raise ValueError("banking_knowledge has no initialization functions (no shipped task calls one)")
        self.replay(messages, strict=strict)
