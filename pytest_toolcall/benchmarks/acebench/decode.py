"""Decode ``[ApiName(key=value), ...]`` model output into calls, without executing anything.

The official ACEBench decoder (56dd66c, ``model_inference/utils.py``) parses the text with ``ast`` and
then evaluates every arithmetic sub-expression with Python's ``eval``. We reach the same decoded values by walking
the tree with a whitelist and folding arithmetic with a small literal interpreter, so model output is
only ever data. Every quirk of the official walk is kept on purpose (they move verdicts):

* only keyword arguments survive, positional ones are dropped;
* a bare name decodes to its identifier as a string (``Paris`` -> ``"Paris"``);
* every top-level unary operator negates a numeric constant (``+5`` and ``~5`` -> -5);
* a subscript becomes its source text (``x[0]`` -> ``"x[0]"``);
* a nested call becomes ``{name: {kwargs}}``; ``**mapping`` is stored under the key ``None``.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from pytest_toolcall.api import literals
from pytest_toolcall.api.text import clip

# Commas and brackets: bounds the size of the parsed tree (the official parse would swamp on more).
# Arithmetic has the caps of core/safety/literals.py.
MAX_STRUCTURAL_CHARS = 50_000


_BRACKET = re.compile(r"[\[\]]")


class DecodeError(ValueError):
    """The text is not a call list the official decoder accepts."""


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[Any, Any]

    def as_dict(self) -> dict[str, dict[Any, Any]]:
        return {self.name: self.args}


def outermost_brackets(text: str) -> str | None:
    """The first outermost ``[...]`` block, found by the official quote-blind depth scan.

    A ``]`` before any ``[`` drives the depth negative, which usually hides every later block.
    """
    start = -1
    depth = 0
    for match in _BRACKET.finditer(text):
        i = match.start()
        if match.group() == "[":
            if depth == 0:
                start = i
            depth += 1
        else:
            depth -= 1
            if depth == 0 and start != -1:
                return text[start : i + 1]
    return None


def decode_single_turn(text: str) -> list[Call]:
    """Single-turn normal categories: decode the first outermost bracket block."""
    block = outermost_brackets(text)
    if block is None:
        raise DecodeError("no [...] block in the output")
    return parse_call_list(block)


def decode_multi_turn(text: str) -> list[Call]:
    """Normal multi-turn steps: delete every whitespace character (inside strings too), then parse."""
    return parse_call_list("".join(text.split()))


def parse_call_list(source: str) -> list[Call]:
    """Parse a list, tuple or set display whose elements are all calls."""
    structural = sum(source.count(c) for c in ",([{")
    if structural > MAX_STRUCTURAL_CHARS:
        raise DecodeError(f"output too complex to decode ({structural} separators)")
    try:
        with warnings.catch_warnings():
            # Invalid escapes etc. only warn; the official parse goes on, and so must ours
            # whatever the warning filters of the test run say.
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="eval")
    except Exception as exc:  # SyntaxError, NUL bytes, nesting limits: all are decode failures
        raise DecodeError(f"not a Python expression: {_short(exc)}") from None
    body = tree.body
    if not isinstance(body, (ast.List, ast.Tuple, ast.Set)):
        raise DecodeError("the output is not a list of calls")
    calls = []
    for element in body.elts:
        if not isinstance(element, ast.Call):
            raise DecodeError(f"list element {_source(element)!r} is not a call")
        calls.append(_guarded(_call, element))
    return calls


def _guarded(fn: Callable[[Any], Any], node: ast.AST) -> Any:
    try:
        return fn(node)
    except DecodeError:
        raise
    except (RecursionError, MemoryError):
        raise DecodeError("output nested too deeply to decode") from None


def call_name(func: ast.expr) -> str:
    """Dotted attribute chain of a call; a base that is not a plain name contributes nothing."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _call(node: ast.Call, agent: bool = False) -> Call:
    args = {kw.arg: _value(kw.value, agent) for kw in node.keywords}
    return Call(call_name(node.func), args)


def _value(node: ast.AST, agent: bool = False) -> Any:
    """One argument value, following the official walk (not Python semantics). ``agent``: the
    official agent runtime's variant, where a nested call without keywords is its source text."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # Officially ``-operand.value`` whatever the operator: numbers and bools negate, anything
        # else raises.
        operand = node.operand
        if isinstance(operand, ast.Constant) and _is_number(operand.value):
            return -operand.value
        raise DecodeError(f"unsupported unary operand in {_source(node)!r}")
    if isinstance(node, ast.List):
        return [_value(e, agent) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(e, agent) for e in node.elts)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise DecodeError("dict unpacking (**) is not a value")
        try:
            return {_value(k, agent): _value(v, agent) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
        except TypeError as exc:  # unhashable key
            raise DecodeError(f"bad dict key: {exc}") from None
    if isinstance(node, ast.BinOp):
        return _arith(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if agent and not node.keywords:
            return ast.unparse(node)
        return _call(node, agent).as_dict()
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"unsupported value {_source(node)!r}")


def _is_number(value: Any) -> TypeGuard[int | float | complex]:
    return isinstance(value, (int, float, complex))  # bool is an int


# --- arithmetic: the shared capped literal interpreter ----------------------------------------


def _arith(node: ast.BinOp) -> Any:
    """What the official ``eval`` of the unparsed node gives for an expression made of literals
    (refused beyond the caps of :mod:`pytest_toolcall.core.safety.literals`, where ``eval`` would hang)."""
    try:
        return literals.evaluate(node)
    except literals.TooLarge as exc:
        raise DecodeError(f"arithmetic refused: {exc}") from None
    except literals.LiteralError as exc:
        raise DecodeError(f"arithmetic failed: {_short(exc)}") from None


def _source(node: ast.AST) -> str:
    try:
        return _short(ast.unparse(node))
    except Exception:  # unparse can itself recurse too deeply
        return type(node).__name__


def _short(value: object) -> str:
    return clip(str(value), 80)


# --- agent runtime variant ---------------------------------------------------------------------
#
# The official agent runtime (model_inference/multi_{step,turn}/execution_role*.py) walks argument
# values like the decoder above with one difference that moves outcomes: a nested call WITHOUT
# keyword arguments becomes its source text (``merchant_name=str(1)`` passes ``'str(1)'``), at any
# depth. A nested call with keywords stays ``{name: {kwargs}}``.


def agent_call(node: ast.Call) -> Call:
    """One call of an agent reply, resolved as the official agent runtime resolves it."""
    return _guarded(lambda n: _call(n, agent=True), node)
