"""The simulated ACEBench environments for native tool calling: the ``acebench_env`` fixture.

A team can test its own agent loop against the simulated phone, food platform and travel APIs: the
environment offers its API as OpenAI tool definitions (the descriptions the ACEBench agent samples
give, their ``dict``/``list`` types written as JSON Schema's ``object``/``array``), runs a call by
explicit lookup in the declared API table (never ``eval``: the name must be an offered tool, the
arguments a JSON object, passed as keyword arguments), and shows its end state.

A call runs on every involved instance that declares the method, as the official runner does (so
``turn_on_wifi`` turns on every phone instance's flag); what the method returns, or the error it
raises, is the call's result.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_toolcall.benchmarks.acebench.agents.envs import Environment

#: Environment name -> the simulated classes it involves (the ACEBench ``involved_classes``).
ENVIRONMENTS: dict[str, tuple[str, ...]] = {
    "phone": ("BaseApi", "MessageApi", "ReminderApi"),
    "food": ("BaseApi", "FoodPlatform"),
    "travel": ("Travel",),
}
_TYPES = {"dict": "object", "list": "array", "tuple": "array", "float": "number", "int": "integer", "str": "string"}


class SimulatedEnvironment:
    """One fresh simulated world. ``tools``: its API as OpenAI tool definitions; ``call``: run one
    call; ``tool_messages``: run every call of an answer, as the ``tool`` messages to send back;
    ``state()``: what the official grader keeps of each instance."""

    def __init__(self, names: Sequence[str], lang: str = "en", config: Mapping[str, Any] | None = None) -> None:
        unknown = [n for n in names if n not in ENVIRONMENTS]
        if unknown or not names:
            raise ValueError(
                f"unknown environment {', '.join(map(repr, unknown)) or 'none'}; choose from {', '.join(ENVIRONMENTS)}"
            )
        classes = tuple(dict.fromkeys(c for n in names for c in ENVIRONMENTS[n]))
        self.lang = lang
        self._env = Environment(lang, classes, copy.deepcopy(dict(config or {})))
        descriptions = _descriptions(lang)
        self.tools: list[dict[str, Any]] = [
            {"type": "function", "function": descriptions[name]} for name in self._env.owners if name in descriptions
        ]
        self._offered = frozenset(tool["function"]["name"] for tool in self.tools)
        #: Every call run so far: {"name", "arguments", "result"}.
        self.calls: list[dict[str, Any]] = []

    @classmethod
    def create(
        cls, name: str | Sequence[str], lang: str = "en", config: Mapping[str, Any] | None = None
    ) -> SimulatedEnvironment:
        """``create("phone")``, ``create(["phone", "food"], lang="zh", config={"BaseApi": {"wifi": False}})``;
        ``config`` is an ACEBench ``initial_config`` (class name -> attributes)."""
        return cls([name] if isinstance(name, str) else list(name), lang, config)

    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None) -> Any:
        """Run one call (``arguments``: a dict or the raw JSON string of a tool call) and return its
        result; a call the API cannot run returns ``{"status": False, "message": why}``."""
        result = self._run(name, arguments)
        self.calls.append({"name": name, "arguments": arguments, "result": result})
        return result

    def tool_messages(self, response: Any) -> list[dict[str, Any]]:
        """Run every tool call of an answer (a ``ToolCallResponse``) in order; the ``tool`` messages
        that answer them, each result as JSON text."""
        messages = []
        for position, call in enumerate(response.tool_calls, start=1):
            result = self.call(call.name, call.raw_arguments)
            text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
            messages.append({"role": "tool", "tool_call_id": call.id or f"call_{position}", "content": text})
        return messages

    def state(self) -> dict[str, dict[str, Any]]:
        """The end state: class name -> the attributes the official grader compares."""
        return {name: attributes for entry in self._env.capture() for name, attributes in entry.items()}

    def _run(self, name: str, arguments: Mapping[str, Any] | str | None) -> Any:
        if name not in self._offered:
            return _failure(f"unknown tool {name!r}; the tools are {', '.join(sorted(self._offered))}")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return _failure(f"the arguments are not JSON: {exc}")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
            return _failure("the arguments must be a JSON object")
        result: Any = None
        for instance, function in self._env.owners[name]:
            try:
                result = function(instance, **copy.deepcopy(dict(arguments)))
            except Exception as exc:  # the method's own error (a wrong argument...): the call's result
                return _failure(f"{type(exc).__name__}: {exc}")
        return result


def _failure(message: str) -> dict[str, Any]:
    return {"status": False, "message": message}


@functools.cache
def _descriptions(lang: str) -> dict[str, dict[str, Any]]:
    """Tool name -> its description as an OpenAI function, from the shipped agent samples (this
    language's first, then the other's for a method only that one describes)."""
    from pytest_toolcall.benchmarks.acebench.benchmark import SHIPPED_ROOT

    found: dict[str, dict[str, Any]] = {}
    for language in (lang, "zh" if lang == "en" else "en"):
        for category in ("agent_multi_turn", "agent_multi_step"):
            path = SHIPPED_ROOT / "data_all" / f"data_{language}" / f"data_{category}.json"
            for line in path.read_text(encoding="utf-8").splitlines():
                for function in json.loads(line)["function"] if line.strip() else ():
                    found.setdefault(function["name"], {**function, "parameters": _json_schema(function["parameters"])})
    return found


def _json_schema(schema: Any) -> Any:
    """ACEBench's parameter types in JSON Schema's words (``dict`` -> ``object``, ``list`` -> ``array``)."""
    if isinstance(schema, dict):
        converted = {key: _json_schema(value) for key, value in schema.items()}
        if isinstance(schema.get("type"), str):
            converted["type"] = _TYPES.get(schema["type"], schema["type"])
        if isinstance(schema.get("properties"), dict):
            converted["properties"] = {k: _json_schema(v) for k, v in schema["properties"].items()}
        return converted
    if isinstance(schema, list):
        return [_json_schema(item) for item in schema]
    return schema
