"""Turning a model answer into the forms the official BFCL code works on.

* :func:`official_result` — what the official OpenAI-compatible handler stores as the "result" of one
  reply: in ``fc`` mode the list ``[{name: raw JSON arguments}, ...]`` when the reply has tool calls and
  the text content otherwise; in ``prompting`` mode always the text content.
* :func:`decode_ast` — that result decoded into ``[{name: {param: value}}, ...]`` for the AST checker.
* :func:`decode_execute` — that result decoded into call strings ``name(a=1,b='x')`` (the multi-turn
  form).

Failures behave as in the official code: whatever the official decoder raises on, we raise
:class:`DecodeError` on; whatever it silently turns into an empty or odd list, we return as well (the
callers judge that shape). Model output is parsed with :mod:`ast` and :mod:`json`, never evaluated.
"""

from __future__ import annotations

import ast
import json
import operator
from typing import Any

from pytest_toolcall.benchmarks.bfcl.source_calls import parse_java_call, parse_javascript_call


class DecodeError(Exception):
    """The official decoder would have raised on this answer."""


ToolCall = dict[str, Any]  # {"name": str, "arguments": str (raw JSON)}


def official_result(content: str | None, tool_calls: list[ToolCall] | None, mode: str) -> Any:
    """The stored result of one reply. An empty ``tool_calls`` list counts as "no tool call" (the
    OpenAI SDK reports absent tool calls as None, and the official handler then keeps the content)."""
    if mode == "fc" and tool_calls:
        return [{call["name"]: call["arguments"]} for call in tool_calls]
    return content


# --------------------------------------------------------------------------------------------------
# Python call lists (prompting mode)


def _prompt_text(text: Any) -> str:
    """The official clean-up before parsing: trim backticks, newlines and spaces at both ends, then make
    sure the text is wrapped in one pair of square brackets."""
    if not isinstance(text, str):
        raise DecodeError(f"no text to decode ({type(text).__name__})")
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def _arithmetic(node: ast.AST) -> Any:
    """Value of a constant arithmetic expression such as ``2 * 3.5`` or ``'a' + 'b'``.

    The official decoder evaluates a binary-operation argument with Python's ``eval``. We never evaluate
    model text; this small interpreter covers literal operands (numbers, strings, lists, tuples, dicts,
    unary minus) and the arithmetic operators, and refuses everything else — names included, which
    ``eval`` would mostly reject as undefined too. Huge powers are refused instead of computed."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, type(Ellipsis)):
        return node.value
    if isinstance(node, ast.List):
        return [_arithmetic(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_arithmetic(item) for item in node.elts)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_arithmetic(k): _arithmetic(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp):
        operand = _arithmetic(node.operand)
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        if isinstance(node.op, ast.Not):
            return not operand
        if isinstance(node.op, ast.Invert):
            return ~operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > 1000:
            raise DecodeError("power too large to compute")
        if isinstance(node.op, ast.Mult) and isinstance(left, (str, list, tuple)) and isinstance(right, int):
            if right > 100_000:
                raise DecodeError("repetition too large to compute")
        try:
            return _BINARY[type(node.op)](left, right)
        except (ArithmeticError, TypeError, ValueError) as exc:
            raise DecodeError(f"cannot compute {ast.unparse(node)}: {exc}") from exc
    raise DecodeError(f"cannot compute {ast.unparse(node)} without evaluating it")


def _argument_value(node: ast.AST) -> Any:
    """One argument value, following the official AST-to-value rules (quirks included)."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # The official rule negates the operand's constant whatever the operator is (so "+5" gives -5),
        # and fails when the operand is not a constant.
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise DecodeError(f"unsupported unary operand in {ast.unparse(node)}")
        value: Any = operand.value  # whatever the constant is: only negating it tells
        try:
            return -value
        except TypeError as exc:
            raise DecodeError(f"cannot negate {operand.value!r}") from exc
    if isinstance(node, ast.List):
        return [_argument_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        result = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise DecodeError("dict unpacking is not supported")
            decoded_key = _argument_value(key)
            try:
                result[decoded_key] = _argument_value(value)
            except TypeError as exc:  # unhashable key
                raise DecodeError(f"unusable dict key {decoded_key!r}") from exc
        return result
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    if isinstance(node, ast.Name):
        return node.id  # a bare name stands for a variable: kept as its name
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        return _call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_argument_value(item) for item in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"unsupported argument syntax: {type(node).__name__}")


def _call_name(func: ast.AST) -> str:
    """Dotted name of the callee; parts that are not plain names or attributes are dropped."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _call(node: ast.Call) -> dict[str, Any]:
    """``{name: {keyword: value}}``; positional arguments are ignored, as officially."""
    arguments: dict[Any, Any] = {}
    for keyword in node.keywords:
        arguments[keyword.arg] = _argument_value(keyword.value)  # ``**x`` is stored under None
    return {_call_name(node.func): arguments}


def parse_python_calls(text: str) -> list[dict[str, Any]]:
    """A python call or list of calls as ``[{name: {param: value}}]`` (the text is already wrapped)."""
    cleaned = text.strip().strip("'")
    try:
        tree = ast.parse(cleaned, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise DecodeError(f"not a python expression: {exc}") from exc
    body = tree.body
    if isinstance(body, ast.Call):
        return [_call(body)]
    elements = getattr(body, "elts", None)
    if elements is None:
        raise DecodeError(f"not a list of calls: {type(body).__name__}")
    calls = []
    for element in elements:
        if not isinstance(element, ast.Call):
            raise DecodeError(f"list element is not a call: {ast.unparse(element)}")
        calls.append(_call(element))
    return calls


# --------------------------------------------------------------------------------------------------
# AST decoding


def decode_ast(result: Any, mode: str, language: str = "python") -> Any:
    """The official ``decode_ast`` of an OpenAI-compatible handler for ``result`` (see
    :func:`official_result`). ``language`` is the checker language of the category. Usually a call
    list; the Java/JavaScript readers may give ``{}`` or None when they find no call (the callers'
    format check rejects those, as officially)."""
    if language not in ("python", "java", "javascript"):
        raise ValueError(f"unknown language {language!r}")
    try:
        return _decode_ast(result, mode, language)
    except DecodeError:
        raise
    except Exception as exc:  # the official decoders fail on many odd inputs in many ways
        raise DecodeError(f"{type(exc).__name__}: {exc}") from exc


def _decode_ast(result: Any, mode: str, language: str) -> Any:
    if mode == "fc":
        return _decode_fc(result)
    text = _prompt_text(result)
    if language == "python":
        return parse_python_calls(text)
    # Java and JavaScript answers lose their first and last characters (the brackets) before parsing.
    inner = text[1:-1]
    if language == "java":
        return parse_java_call(inner)
    return parse_javascript_call(inner)


def _tool_calls(result: Any) -> Any:
    """The reply's tool calls. A text reply is iterated like the official loop does: an empty string
    gives an empty list, any other text (or None) fails."""
    if result is None:
        raise DecodeError("the reply has neither tool calls nor content")
    if isinstance(result, str):
        if result:
            raise DecodeError("the reply is text, not tool calls")
        return []
    return result


def _decode_fc(result: Any) -> list[Any]:
    """Tool calls with JSON arguments decoded."""
    decoded = []
    for call in _tool_calls(result):
        name = next(iter(call))
        try:
            decoded.append({name: json.loads(call[name])})
        except (json.JSONDecodeError, TypeError) as exc:
            raise DecodeError(f"arguments of {name!r} are not JSON: {exc}") from exc
    return decoded


# --------------------------------------------------------------------------------------------------
# Execute decoding (call strings)


def _nested_text(value: Any) -> str:
    """How the official prompting decoder prints an argument: a dict whose values are all dicts is a
    nested call ``f(a=...)``, any other dict is printed with quoted keys, everything else with repr."""
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            if not value:
                raise DecodeError("an empty dict argument cannot be printed as a call")
            name = next(iter(value))
            args = ", ".join(f"{k}={_nested_text(v)}" for k, v in value[name].items())
            return f"{name}({args})"
        return "{" + ", ".join(f"'{k}': {_nested_text(v)}" for k, v in value.items()) + "}"
    return repr(value)


def decode_execute(result: Any, mode: str) -> list[str]:
    """The official ``decode_execute`` of an OpenAI-compatible handler: call strings, python only."""
    try:
        return _decode_execute(result, mode)
    except DecodeError:
        raise
    except Exception as exc:
        raise DecodeError(f"{type(exc).__name__}: {exc}") from exc


def _decode_execute(result: Any, mode: str) -> list[str]:
    if mode == "fc":
        if isinstance(result, dict):
            result = [result]
        calls = []
        for call in _tool_calls(result):
            for name, arguments in call.items():
                if isinstance(arguments, str):
                    try:
                        arguments = json.loads(arguments)
                    except json.JSONDecodeError as exc:
                        raise DecodeError(f"arguments of {name!r} are not JSON: {exc}") from exc
                if not isinstance(arguments, dict):
                    raise DecodeError(f"arguments of {name!r} are not an object")
                calls.append(f"{name}({','.join(f'{k}={v!r}' for k, v in arguments.items())})")
        return calls
    calls = []
    for call in parse_python_calls(_prompt_text(result)):
        for name, arguments in call.items():
            calls.append(f"{name}({', '.join(f'{k}={_nested_text(v)}' for k, v in arguments.items())})")
    return calls


def is_empty_execute(calls: list[str]) -> bool:
    """True for the decoded forms the multi-turn runner skips (no call at all)."""
    return not calls or (len(calls) == 1 and not calls[0])


def is_call_list(decoded: Any) -> bool:
    """The official format test: a list of one-key dicts whose value is a dict (``[]`` included)."""
    if not isinstance(decoded, list):
        return False
    return all(type(item) is dict and len(item) == 1 and type(next(iter(item.values()))) is dict for item in decoded)


def is_empty_decoded(decoded: Any) -> bool:
    """The official "no call" test used for relevance: wrong format, ``[]`` or ``[{}]``."""
    if not is_call_list(decoded):
        return True
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


__all__ = [
    "DecodeError",
    "decode_ast",
    "decode_execute",
    "is_call_list",
    "is_empty_decoded",
    "is_empty_execute",
    "official_result",
    "parse_python_calls",
]
