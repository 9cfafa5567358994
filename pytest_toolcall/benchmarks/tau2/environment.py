"""A domain's environment: its database, its tools, tool calls as the official ``Environment`` makes
them, the replay of a trajectory onto a fresh database, and the database hash.

Telecom is dual control: besides the agent's database there is the user's phone (``UserDevice``,
``telecom_device.py``, handed in by ``dual_control.new_environment``), which the user simulator
acts on with tools of its own. A call goes to the
side of its ``requestor``; after every successful call, every initialization function and every
replay, the environment syncs the two sides as the official ``TelecomEnvironment.sync_tools``: the
phone learns from the line whether it is active, may roam, is over its data limit, and whether a
bill awaits payment; a payment made on the phone marks the bill paid.

Messages are plain dicts in the official ``SimulationRun`` format: ``{"role": "assistant" | "user" |
"tool", "content", "tool_calls": [{"id", "name", "arguments", "requestor"}]}``, tool results
``{"role": "tool", "id", "content", "requestor", "error"}``.
"""

from __future__ import annotations

import copy
import functools
import json
import threading
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel

from pytest_toolcall.benchmarks.tau2.models import FlightDB, LineStatus, RetailDB, TelecomDB, db_hash
from pytest_toolcall.benchmarks.tau2.names import ALL_DOMAINS, DATA, DOMAINS

__all__ = ["ALL_DOMAINS", "DATA", "DOMAINS", "Environment", "ToolSpec"]
#: The domains whose user simulator has tools (on the user's phone).
DUAL_CONTROL = ("telecom",)


class ReplayError(Exception):
    """A trajectory that cannot be replayed (a tool call without its result): the official
    evaluator raises too."""


@dataclass(frozen=True)
class ToolSpec:
    schema: dict[str, Any]  # the official OpenAI tool schema
    mutates_state: bool  # replayed by the evaluator (the official WRITE tools)
    tool_type: str  # read, write, generic, think


@functools.cache
def tool_specs(domain: str) -> dict[str, ToolSpec]:
    """The domain's tools as the official toolkit declares them (``data/tools.json`` was written by
    the official code: ``Tool.openai_schema`` and ``ToolKitBase.tool_mutates_state``); the user's
    tools of a dual-control domain are under ``<domain>_user``."""
    entries = json.loads((DATA / "tools.json").read_text(encoding="utf-8"))[domain]
    return {
        e["schema"]["function"]["name"]: ToolSpec(e["schema"], bool(e["mutates_state"]), str(e["tool_type"]))
        for e in entries
    }


@functools.cache
def policy(domain: str) -> str:
    """The domain policy of the agent's prompt. Telecom's is composed as the official environment
    composes it: the main policy and the tech support manual, each in its tag."""
    if domain == "telecom":
        main = (DATA / domain / "main_policy.md").read_text(encoding="utf-8")
        manual = (DATA / domain / "tech_support_manual.md").read_text(encoding="utf-8")
        return f"<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{manual}\n</tech_support_policy>"
    return (DATA / domain / "policy.md").read_text(encoding="utf-8")


#: Each domain's database as loaded and validated: once per process, however many dialogues start
#: together (a cache without the lock would have each of the first dialogue threads load its own).
_LOADED: dict[str, Any] = {}
_LOAD_LOCK = threading.Lock()


def _load_db(domain: str) -> Any:
    """The database of a domain as shipped: airline's and retail's validated, telecom's raw (each
    environment validates its own copy: it is small)."""
    if domain == "telecom":
        return tomllib.loads((DATA / "telecom" / "db.toml").read_text(encoding="utf-8"))
    raw = json.loads((DATA / domain / "db.json").read_text(encoding="utf-8"))
    return FlightDB.model_validate(raw) if domain == "airline" else RetailDB.model_validate(raw)


def _database(domain: str) -> Any:
    with _LOAD_LOCK:
        if domain not in _LOADED:
            _LOADED[domain] = _load_db(domain)
        return _LOADED[domain]


def _pristine_db(domain: str) -> BaseModel:
    return _database(domain)


def _telecom_raw() -> dict[str, Any]:
    return _database("telecom")


class CopyOnRead(dict):
    """A table of the database shared with the pristine one until an entry is looked up by key:
    that entry is then copied, so a tool may change it. Iteration (the searches) reads the shared
    entries and changes none. Copying the whole database per environment would cost seconds."""

    def __init__(self, pristine: dict[str, BaseModel]) -> None:
        super().__init__(pristine)
        self.owned: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        if key not in self.owned and dict.__contains__(self, key):
            dict.__setitem__(self, key, dict.__getitem__(self, key).model_copy(deep=True))
            self.owned.add(key)
        return dict.__getitem__(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self.owned.add(key)
        dict.__setitem__(self, key, value)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str, *default: Any) -> Any:
        self.owned.discard(key)
        return dict.pop(self, key, *default)


TABLES = {"airline": ("flights", "users", "reservations"), "retail": ("products", "users", "orders")}


def fresh_db(domain: str) -> BaseModel:
    """The domain's database as loaded, for one environment (its tables copy on lookup; telecom's
    is small and validated anew)."""
    if domain == "telecom":
        return TelecomDB.model_validate(_telecom_raw())
    pristine = _pristine_db(domain)
    tables = {name: CopyOnRead(getattr(pristine, name)) for name in TABLES[domain]}
    return type(pristine).model_construct(None, **tables)


def same_state(a: BaseModel, b: BaseModel, domain: str) -> bool:
    """Whether two databases of the domain have the same official hash: the hash is of the sorted
    JSON text of the whole database, so it is equal exactly when every table has the same keys and
    every entry the same JSON text. Entries neither side looked up are the pristine ones."""
    if domain not in TABLES:
        return db_hash(a) == db_hash(b)
    for name in TABLES[domain]:
        left, right = getattr(a, name), getattr(b, name)
        if left.keys() != right.keys():
            return False
        for key in left.owned | right.owned:
            if entry_text(dict.__getitem__(left, key)) != entry_text(dict.__getitem__(right, key)):
                return False
    return True


#: Differences named per failed DB check: enough to see what went wrong, a record that stays small.
SHOWN_DIFFERENCES = 20


def state_differences(ours: BaseModel, gold: BaseModel, domain: str) -> list[dict[str, Any]]:
    """Where the trajectory's database differs from the gold replay's: ``{"table", "key", "field",
    "ours", "gold"}`` per differing field (``field`` None for an entry only one side has), the first
    ``SHOWN_DIFFERENCES``; what makes ``same_state`` false, said for a person."""
    found: list[dict[str, Any]] = []
    if domain not in TABLES:  # telecom: a small database, compared whole
        _differences([], ours.model_dump(warnings=False), gold.model_dump(warnings=False), found)
        return found
    for name in TABLES[domain]:
        left, right = getattr(ours, name), getattr(gold, name)
        for key in sorted(left.keys() ^ right.keys()):
            ours_has = key in left
            found.append({"table": name, "key": key, "field": None, "ours": ours_has, "gold": not ours_has})
        for key in sorted((left.owned | right.owned) & left.keys() & right.keys()):
            a = dict.__getitem__(left, key).model_dump(warnings=False)
            b = dict.__getitem__(right, key).model_dump(warnings=False)
            for field in sorted(set(a) | set(b)):
                if _text(a.get(field)) != _text(b.get(field)):
                    found.append(
                        {"table": name, "key": key, "field": field, "ours": a.get(field), "gold": b.get(field)}
                    )
            if len(found) >= SHOWN_DIFFERENCES:
                break
    return found[:SHOWN_DIFFERENCES]


def _differences(path: list[str], a: Any, b: Any, found: list[dict[str, Any]]) -> None:
    """Each leaf where two dumps differ, as ``state_differences`` says them: ``table`` the first
    step of the path, ``field`` the last, ``key`` the steps between joined by dots; an entry that
    only one side's dict has is ``field`` None with ``ours``/``gold`` saying which side has it."""
    if len(found) >= SHOWN_DIFFERENCES or _text(a) == _text(b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for name in sorted(set(a) | set(b), key=str):
            if name in a and name in b:
                _differences([*path, str(name)], a[name], b[name], found)
            elif len(found) < SHOWN_DIFFERENCES:
                steps = [*path, str(name)]
                key = ".".join(steps[1:]) or None
                found.append({"table": steps[0], "key": key, "field": None, "ours": name in a, "gold": name in b})
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _differences([*path, str(index)], x, y, found)
    else:
        table = path[0] if path else None
        key = ".".join(path[1:-1]) or None
        field = path[-1] if len(path) > 1 else None
        found.append({"table": table, "key": key, "field": field, "ours": a, "gold": b})


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def entry_text(entry: Any) -> str:
    return json.dumps(entry.model_dump(warnings=False), sort_keys=True, default=str)


def _toolkit(domain: str, db: BaseModel) -> Any:
    if domain == "airline":
        from pytest_toolcall.benchmarks.tau2.airline import AirlineTools

        return AirlineTools(db)  # type: ignore[arg-type]
    if domain == "retail":
        from pytest_toolcall.benchmarks.tau2.retail import RetailTools

        return RetailTools(db)  # type: ignore[arg-type]
    if domain == "telecom":
        from pytest_toolcall.benchmarks.tau2.telecom import TelecomTools

        return TelecomTools(db)  # type: ignore[arg-type]
    raise ValueError(f"no environment for the {domain} domain")


class Environment:
    def __init__(self, domain: str, device: Any = None) -> None:
        """``device``: the user's phone of a dual-control domain (``dual_control.Phone``)."""
        if (device is None) != (domain not in DUAL_CONTROL):
            raise ValueError(f"the {domain} environment {'needs' if device is None else 'has no'} a user's device")
        self.domain = domain
        self.specs = tool_specs(domain)
        self.tools = _toolkit(domain, fresh_db(domain))
        self.device = device
        self.user_specs = tool_specs(f"{domain}_user") if device is not None else {}
        self.sync()

    def has_tool(self, name: str) -> bool:
        """A tool of either side (``Environment._has_tool``)."""
        return name in self.specs or name in self.user_specs

    def mutates_state(self, name: str) -> bool:
        spec = self.specs.get(name) or self.user_specs.get(name)
        return spec is None or spec.mutates_state

    def make_tool_call(self, tool_name: str, requestor: str = "assistant", **arguments: Any) -> Any:
        """A call on its requestor's side, without the sync (as the official ``make_tool_call``:
        the gold replay of the evaluator calls this and never syncs). The parameters are named as
        officially, so that a tool's own argument ``name`` (banking's ``log_verification``) is one."""
        if requestor == "user":
            if self.device is None:
                raise ValueError("User tools not available")  # airline and retail give the user none
            if tool_name not in self.user_specs:
                raise ValueError(f"Tool '{tool_name}' not found.")
            return self.device.call(tool_name, arguments)
        if requestor != "assistant":
            raise ValueError(f"Invalid requestor: {requestor}")
        if tool_name not in self.specs:
            raise ValueError(f"Tool '{tool_name}' not found.")
        method: Callable[..., Any] = getattr(self.tools, tool_name)
        return method(**arguments)

    def get_response(self, call: dict[str, Any]) -> dict[str, Any]:
        """The tool message answering a call; a failing call (or sync) answers ``Error: <exception>``."""
        requestor = call.get("requestor") or "assistant"
        error = False
        try:
            result = self.make_tool_call(call["name"], requestor=requestor, **_arguments(call))
            self.sync()
        except Exception as exc:  # the official environment turns every exception into the answer
            result, error = f"Error: {exc}", True
        return {
            "role": "tool",
            "id": call.get("id"),
            "content": to_json_str(result),
            "requestor": requestor,
            "error": error,
        }

    def db_hash(self) -> str:
        """The official hash of the agent's database (slow for airline and retail: the whole
        database is dumped); ``same_state`` compares as it does."""
        return db_hash(self.tools.db)

    def user_db_hash(self) -> str | None:
        return None if self.device is None else str(self.device.db_hash())

    def same_state(self, other: Environment) -> bool:
        """The official DB check: both databases, the agent's and the user's, hash alike."""
        return same_state(self.tools.db, other.tools.db, self.domain) and self.user_db_hash() == other.user_db_hash()

    def state_differences(self, gold: Environment) -> list[dict[str, Any]]:
        """Where this environment's databases differ from ``gold``'s (``state_differences``), the
        user's phone included."""
        found = state_differences(self.tools.db, gold.tools.db, self.domain)
        if self.user_db_hash() != gold.user_db_hash():
            found.append({"table": "user device", "key": None, "field": None, "ours": "differs", "gold": "differs"})
        return found

    def sync(self) -> None:
        """``TelecomEnvironment.sync_tools`` (nothing to do without a phone, or before the phone
        knows its number)."""
        device = self.device
        if device is None or device.surroundings.phone_number is None:
            return
        surroundings = device.surroundings
        phone_number = surroundings.phone_number
        line = self.tools._get_line_by_phone(phone_number)
        surroundings.line_active = line.status == LineStatus.ACTIVE
        surroundings.roaming_allowed = bool(line.roaming_enabled)
        plan = self.tools._get_plan_by_id(line.plan_id)
        surroundings.mobile_data_usage_exceeded = line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb
        request = surroundings.payment_request
        if request is not None and request.paid:
            self.tools._set_bill_to_paid(request.bill_id)
            surroundings.payment_request = None
        if surroundings.payment_request is None:
            customer = self.tools.get_customer_by_phone(phone_number)
            awaiting = self.tools._get_bills_awaiting_payment(customer)
            if awaiting:
                surroundings.payment_request = device.request_payment(awaiting[0].bill_id, awaiting[0].total_due)

    def run_function(self, function: dict[str, Any]) -> Any:
        """An ``EnvFunctionCall`` of a task (initialization action or assertion) on the side its
        ``env_type`` names, then the sync (``Environment.run_env_function_call``)."""
        env_type, name = function.get("env_type"), function["func_name"]
        arguments = dict(function.get("arguments") or {})
        if env_type == "assistant":
            if not isinstance(name, str) or name.startswith("_"):  # an attribute, not a tool (``__init__``)
                raise AttributeError(f"'{type(self.tools).__name__}' object has no attribute {name!r}")
            result = getattr(self.tools, name)(**arguments)
        elif env_type == "user" and self.device is not None:
            result = self.device.run_function(name, arguments)
        else:
            raise ValueError(f"Invalid environment type: {env_type}")
        self.sync()
        return result

    def run_assertion(self, assertion: dict[str, Any]) -> bool:
        """Whether an ``EnvAssertion`` holds: its function returns a bool equal to ``assert_value``."""
        result = self.run_function(assertion)
        if not isinstance(result, bool):
            raise ValueError(f"Function {assertion['func_name']} returned {type(result)} instead of bool")
        return result == assertion.get("assert_value", True)

    def set_state(
        self, initial_state: dict[str, Any] | None, messages: Sequence[dict[str, Any]], strict: bool = False
    ) -> None:
        """``Environment.set_state``: the task's initial state (its initialization functions, in
        order), then the trajectory replayed, then the sync."""
        initial_state = initial_state or {}
        if initial_state.get("initialization_data"):
            raise ValueError("tasks with initialization_data are not supported (no shipped task has any)")
        for function in initial_state.get("initialization_actions") or []:
            self.run_function(function)
        self.replay(messages, strict=strict)
        self.sync()

    def replay(self, messages: Sequence[dict[str, Any]], strict: bool = False) -> None:
        """Re-run the state-changing calls of a trajectory, in order (both sides').

        Calls of tools that do not exist are skipped (they changed nothing live) and so are reads;
        ``strict`` (live evaluation) fails when a replayed result differs from the recorded one.
        """
        for call, recorded in _calls_with_results(messages):
            name = str(call.get("name"))
            if not self.has_tool(name) or not self.mutates_state(name):
                continue
            content = self.get_response(call)["content"]
            if strict and _loaded(content) != _loaded(recorded.get("content")):
                raise ReplayError(
                    f"replayed {name} returned {content!r}, the trajectory recorded {recorded.get('content')!r}"
                )


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    arguments = call.get("arguments")
    if not isinstance(arguments, dict):
        raise TypeError(f"arguments of {call.get('name')} must be an object, got {type(arguments).__name__}")
    return copy.deepcopy(arguments)


def _calls_with_results(messages: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each tool call with the tool message that follows it, as the official replay pairs them."""
    pending = list(messages)[::-1]
    pairs = []
    while pending:
        message = pending.pop()
        role = message.get("role")
        if role == "tool":
            raise ReplayError("Tool message not expected. Tool messages should always follow a tool call.")
        if role in ("assistant", "user") and message.get("tool_calls"):
            for call in message["tool_calls"]:
                if not pending:
                    raise ReplayError("Tool message expected. Got None.")
                result = pending.pop()
                if result.get("role") != "tool":
                    raise ReplayError(f"Tool message expected. Got a {result.get('role')} message.")
                if call.get("id") != result.get("id"):
                    raise ReplayError(f"Tool call id mismatch. Got {call.get('id')} and {result.get('id')}")
                pairs.append((call, result))
    return pairs


def _loaded(content: Any) -> Any:
    try:
        return json.loads(content)
    except (TypeError, ValueError):
        return content


def to_json_str(result: Any) -> str:
    """``Environment.to_json_str``: text stays text; numbers become their text (so ``5`` is sent as
    ``"5"``); models are dumped; the rest is JSON with ``default=str``."""

    def process(value: Any) -> Any:
        if isinstance(value, BaseModel):
            return value.model_dump(warnings=False)
        if isinstance(value, str) or value is None:
            return value
        if isinstance(value, (int, float, bool)):
            return str(value)
        if isinstance(value, list):
            return [process(item) for item in value]
        if isinstance(value, tuple):
            return tuple(process(item) for item in value)
        if isinstance(value, dict):
            return {k: process(v) for k, v in value.items()}
        if isinstance(value, (datetime, date)):
            return value.isoformat()
        raise ValueError(f"Unsupported type: {type(value)}")

    if isinstance(result, str):
        return result
    return json.dumps(process(result), default=str)
