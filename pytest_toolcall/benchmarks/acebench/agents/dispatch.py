"""Run a parsed reply on an environment, through the declared API table only.

The official dispatcher rebuilds each call as text, finds the first ``identifier(`` in it, prefixes
that identifier with an instance name for every instance owning a method of that name, and
``eval``s the result. We reproduce its observable behaviour without evaluating anything:

* the same first-``identifier(`` search decides which method is meant; a name no involved class
  declares runs nothing, and the call's result is the PREVIOUS call's result of the same reply
  (first call of a reply: the ``UnboundLocalError`` text of Python 3.11);
* a method owned by several instances (``turn_on_wifi``, ``login_device``) runs on each of them,
  in ``involved_classes`` order, and the last result counts;
* where the official ``eval`` would fail before reaching the method (dotted names such as
  ``os.system``, a callee that is not a plain name, ``**`` arguments, ``inf``/``nan`` values,
  nested calls) the call fails with the corresponding Python error text and changes nothing.
  A nested call ``g(k=v)`` in an argument runs only when ``g`` is one of a few pure builtins
  (``dict``, ``str``, ...), which the official eval resolves the same way; any other name (``open``,
  ``__import__``, an API method, the official runner's own globals) is refused as undefined;
* methods are called with the decoded keyword arguments, so a wrong or missing argument yields
  Python's own ``TypeError`` text (our methods have the official names and parameters).

Results become the execution message as officially: strings kept, dicts ``json.dumps``-ed, anything
else ``str()``-ed, then each text is ``json.loads``-ed back when it is valid JSON.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.benchmarks.acebench.agents.envs import Environment
from pytest_toolcall.benchmarks.acebench.agents.parse import AgentCall

MULTI_STEP = "agent_multi_step"
MULTI_TURN = "agent_multi_turn"

#: The official dispatcher's method lookup: the first identifier followed by "(" in the call text.
_CALL_HEAD = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
#: What ``str(e)`` gives for a first-call unknown name on Python 3.11 (the official variable name).
UNBOUND_TEXT = "cannot access local variable 'func_call_result' where it is not associated with a value"
#: multi_turn's error text: the official code forgot the f-string prefix, so it is sent literally.
TURN_ERROR_TEXT = "Error during execution: {str(e)}"

OK, ERROR, UNKNOWN = "ok", "error", "unknown"


@dataclass(frozen=True)
class CallRecord:
    """One call of an executed reply, for transcripts."""

    name: str
    arguments: dict[Any, Any]
    #: ``ok``: ran; ``error``: raised (``result`` is the error text); ``unknown``: no such method
    #: (``result`` is whatever the official code reports in its place).
    outcome: str
    result: Any


@dataclass(frozen=True)
class Execution:
    #: The official execution message content.
    message: Any
    calls: tuple[CallRecord, ...]
    #: multi_turn only: a call raised, the batch stopped, and this turn does not record state.
    aborted: bool = False


_UNSET = object()

#: Builtins a nested keyword call may name. The official eval resolves them from its builtins; on
#: literal data they either compute a small value or raise their own TypeError (most take no
#: keyword arguments). Deliberately absent: anything with effects or unbounded cost (open, print,
#: __import__, eval, pow, round, bytes, ...).
_PURE_TYPES = (dict, str, int, float, bool, list, tuple, set, frozenset, complex)
_PURE_FUNCTIONS = (abs, len, repr, format, min, max, sorted, sum)
PURE_BUILTINS: dict[str, Any] = {f.__name__: f for f in (*_PURE_TYPES, *_PURE_FUNCTIONS)}


def execute(env: Environment, calls: list[AgentCall], mode: str) -> Execution:
    """Execute one parsed reply. ``mode`` is ``agent_multi_step`` or ``agent_multi_turn``."""
    if mode not in (MULTI_STEP, MULTI_TURN):
        raise ValueError(f"unknown agent mode {mode!r}")
    results: list[Any] = []
    records: list[CallRecord] = []
    last: Any = _UNSET  # the official ``func_call_result``: survives unknown names within a reply
    for call in calls:
        try:
            targets = _resolve(env, call)
            for instance, function in targets:
                last = function(instance, **_evaluate_arguments(call))
            if last is _UNSET:
                raise UnboundLocalError(UNBOUND_TEXT)
        except Exception as exc:
            if mode == MULTI_TURN:
                records.append(CallRecord(call.name, call.arguments, ERROR, str(exc)))
                # Official: the whole batch stops, earlier calls keep their effects, and the agent
                # receives the literal template split into characters.
                return Execution([_from_text(c) for c in TURN_ERROR_TEXT], tuple(records), aborted=True)
            text = f"Error during execution: {exc}"
            results.append(text)
            records.append(CallRecord(call.name, call.arguments, ERROR, text))
            continue
        results.append(last)
        records.append(CallRecord(call.name, call.arguments, OK if targets else UNKNOWN, _from_text(_to_text(last))))
    return Execution([_from_text(_to_text(r)) for r in results], tuple(records))


def _resolve(env: Environment, call: AgentCall) -> list[tuple[Any, Any]]:
    """The owners the official dispatcher would run ``call`` on ([] for an unknown name), or raise
    the error its ``eval`` would raise before any method runs."""
    head = _CALL_HEAD.search(call.source)
    if head is None or head.group(1) not in env.owners:
        return []
    if head.start() == 0 and head.group(1) == call.name:
        _check_syntax(call.source)
        return env.owners[call.name]
    # The identifier found is not the callee itself (a dotted name like ``os.system`` or
    # ``self.__dict__.turn_on_wifi``, a callee that is not a name, a name inside the arguments):
    # the official eval fails on the rebuilt text before calling anything.
    rebuilt = call.source[: head.start()] + "instance." + call.source[head.start() :]
    tree = _check_syntax(rebuilt)
    func = tree.body.func if isinstance(tree.body, ast.Call) else tree.body
    while isinstance(func, ast.Attribute):
        func = func.value
    if isinstance(func, ast.Name):
        raise NameError(f"name {func.id!r} is not defined")
    raise TypeError("the call target is not callable")


def _check_syntax(source: str) -> ast.Expression:
    """Parse (never compile) the rebuilt text; its SyntaxError is the one the official eval raises."""
    return ast.parse(source, filename="<string>", mode="eval")


def _evaluate_arguments(call: AgentCall) -> dict[str, Any]:
    """What evaluating the rebuilt argument texts gives, left to right, as fresh objects."""
    return {key: _argument(value) for key, value in call.arguments.items()}


def _argument(value: Any) -> Any:
    if isinstance(value, dict):  # rendered as a nested call: name = first key
        return _nested_call(value)
    _check_finite(value)
    return copy.deepcopy(value)


def _nested_call(value: dict[Any, Any]) -> Any:
    name = next(iter(value))
    if isinstance(name, str) and name in PURE_BUILTINS:
        builtin = PURE_BUILTINS[name]
        return builtin(**{key: _argument(v) for key, v in value[name].items()})
    # The official eval resolves any other name in its own namespace (builtins such as open or
    # __import__, its module globals): refused here, with the text of an undefined name.
    if isinstance(name, str):
        raise NameError(f"name {name!r} is not defined")
    raise TypeError(f"{type(name).__name__!r} object is not callable")


def _check_finite(value: Any) -> None:
    """``repr`` of inf/nan is a bare name the official eval cannot resolve (``name 'inf' is not defined``)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise NameError(f"name {repr(abs(value))!r} is not defined")
    if isinstance(value, complex):
        if not math.isfinite(value.real):
            raise NameError(f"name {repr(abs(value.real))!r} is not defined")
        if not math.isfinite(value.imag):
            raise NameError(f"name {repr(abs(value.imag)) + 'j'!r} is not defined")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_finite(key)
            _check_finite(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _check_finite(item)


def _to_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        try:
            return json.dumps(result)
        except Exception:  # unserialisable values in the dict: the official falls back to str()
            return str(result)
    return str(result)


def _from_text(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
