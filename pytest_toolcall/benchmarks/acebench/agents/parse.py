"""Agent reply text -> calls, exactly as the official agent runtime reads a reply.

The official runtime (``execution_role*.py : decode_function_list``) does, in order:

1. drop exactly one leading space (any other leading/trailing whitespace or newline breaks the reply);
2. wrap in ``[`` ... ``]`` where missing, then strip every leading and trailing ``[``, ``]`` and ``'``;
3. parse ONE Python expression: a call -> one call; a list/tuple of calls -> those calls (a non-call
   element fails the reply); ANY other expression (``Done``, ``42``, a set of calls) -> zero calls;
4. resolve keyword arguments (positional ones are dropped) with the agent value walk
   (``decode.agent_call``: a nested call without keywords becomes its source text);
5. re-render each call as ``name(key=repr(value), ...)``; a dict value is rendered as a nested call
   ``key(**value)``, so a dict argument whose first value is not itself a dict (or an empty dict)
   fails the whole reply.

Any failure makes the reply unparseable: multi_step answers it with a fixed text, multi_turn sends
it to the user. Nothing is ever evaluated; the rendered text is kept only because the official
dispatcher looks at it (``dispatch.py``).
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.benchmarks.acebench.decode import MAX_STRUCTURAL_CHARS, DecodeError, agent_call


class ReplyError(ValueError):
    """The reply is not something the official runtime can execute."""


@dataclass(frozen=True)
class AgentCall:
    #: Dotted name as written (``a.b.f``); ``""`` when the callee is not a name chain.
    name: str
    #: Decoded keyword arguments (a ``**`` argument sits under the key ``None``).
    arguments: dict[Any, Any]
    #: The official re-rendering ``name(key=repr(value), ...)``, which its dispatcher inspects.
    source: str


def parse_reply(reply: str) -> list[AgentCall]:
    """The calls of one agent reply; raises ``ReplyError`` when the official runtime cannot parse it."""
    if not reply:
        raise ReplyError("empty reply")
    text = reply[1:] if reply[0] == " " else reply
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    text = text.strip("[]'")
    if sum(text.count(c) for c in ",([{") > MAX_STRUCTURAL_CHARS:
        raise ReplyError("reply too complex to parse")  # documented cap; the official parse would go on
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes only warn, the official parse goes on
            body = ast.parse(text, mode="eval").body
    except Exception as exc:  # SyntaxError, NUL bytes, nesting limits
        raise ReplyError(f"not a Python expression: {type(exc).__name__}: {exc}") from None
    if isinstance(body, ast.Call):
        nodes = [body]
    elif isinstance(body, (ast.List, ast.Tuple)):
        if not all(isinstance(e, ast.Call) for e in body.elts):
            raise ReplyError("a list element is not a call")
        nodes = [e for e in body.elts if isinstance(e, ast.Call)]  # every one, as just checked
    else:
        return []  # official quirk: any other expression is a batch of zero calls
    calls = []
    for node in nodes:
        try:
            call = agent_call(node)
            source = render_call(call.name, call.args)
        except DecodeError as exc:
            raise ReplyError(f"cannot resolve {ast.unparse(node)[:80]!r}: {exc}") from None
        except (RecursionError, MemoryError):
            raise ReplyError("reply nested too deeply") from None
        calls.append(AgentCall(call.name, call.args, source))
    return calls


def render_call(name: Any, arguments: Any) -> str:
    """``name(k=<rendered v>, ...)`` as the official runtime rebuilds it; raises ``DecodeError``
    where that rebuilding raises (which makes the reply unparseable)."""
    if not isinstance(arguments, dict):
        raise DecodeError(f"{type(arguments).__name__} value where a nested call's arguments are expected")
    rendered = ", ".join(f"{key}={render_value(value)}" for key, value in arguments.items())
    return f"{name}({rendered})"


def render_value(value: Any) -> str:
    """A dict at argument level is rendered as the call ``first_key(**first_value)``."""
    if isinstance(value, dict):
        if not value:
            raise DecodeError("empty dict argument")
        name = next(iter(value))
        return render_call(name, value[name])
    try:
        return repr(value)
    except ValueError as exc:  # int beyond Python's digit limit
        raise DecodeError(str(exc)) from None
