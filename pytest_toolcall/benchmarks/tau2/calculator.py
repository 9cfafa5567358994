"""The ``calculate`` tool of both domains without ``eval``: the expression is parsed and only
numbers and arithmetic are computed, with Python's own results and error texts.

The official tool checks the characters (digits, ``+-*/().`` and spaces) and evaluates the text
with Python; ``*`` twice is a power and ``//`` a floor division, so both are allowed here too. A
power whose result would be huge is refused (the official code would compute it for as long as it
takes).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

ALLOWED = set("0123456789+-*/(). ")
MAX_EXPONENT = 10_000
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def calculate(expression: str) -> str:
    if not all(char in ALLOWED for char in expression):
        raise ValueError("Invalid characters in expression")
    tree = ast.parse(expression, filename="<string>", mode="eval")  # SyntaxError text as eval's
    return str(round(float(_value(tree.body)), 2))


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT and abs(left) > 1:
            raise OverflowError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    # Only digits, operators, parentheses and dots get here: anything else is not arithmetic.
    raise ValueError("Invalid expression")
