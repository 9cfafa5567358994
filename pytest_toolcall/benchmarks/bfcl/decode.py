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
from typing import Any

from pytest_toolcall.api import literals
from pytest_toolcall.api.text import clip
from pytest_toolcall.benchmarks.bfcl.source_calls import parse_java_call, parse_javascript_call


class DecodeError(Exception):
    """The official decoder would have raised on this answer."""


class ValueTooLarge(DecodeError):
    """An argument's arithmetic is beyond the literal interpreter's caps, and nothing else in the reply
    fails to decode. The official decoder would have computed it (or never returned): the reply then
    holds calls, each with a value no dataset answer equals. A documented divergence: we refuse the
    decoding, the relevance rules count the reply as calling a function (see ``checker``)."""


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


def _arithmetic(node: ast.AST, refused: list[str]) -> Any:
    """Value of a constant arithmetic expression such as ``2 * 3.5`` or ``'a' + 'b'``.

    The official decoder evaluates a binary-operation argument with Python's ``eval``; we use the
    shared capped literal interpreter (:mod:`pytest_toolcall.core.safety.literals`), which refuses names and
    calls (``eval`` mostly fails on them too: they are undefined) and values beyond its caps. A value
    beyond a cap is noted in ``refused`` and stands in as None, so that the rest of the reply is
    still decoded: an error elsewhere decides as it would officially."""
    try:
        return literals.evaluate(node)
    except literals.TooLarge as exc:
        refused.append(f"{clip(ast.unparse(node), 60)}: {exc}")
        return None
    except literals.LiteralError as exc:
        raise DecodeError(f"cannot compute {clip(ast.unparse(node), 80)}: {exc}") from None


def _argument_value(node: ast.AST, refused: list[str]) -> Any:
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
        return [_argument_value(item, refused) for item in node.elts]
    if isinstance(node, ast.Dict):
        result = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise DecodeError("dict unpacking is not supported")
            decoded_key = _argument_value(key, refused)
            try:
                result[decoded_key] = _argument_value(value, refused)
            except TypeError as exc:  # unhashable key
                raise DecodeError(f"unusable dict key {decoded_key!r}") from exc
        return result
    if isinstance(node, ast.BinOp):
        return _arithmetic(node, refused)
    if isinstance(node, ast.Name):
        return node.id  # a bare name stands for a variable: kept as its name
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        return _call(node, refused)
    if isinstance(node, ast.Tuple):
        return tuple(_argument_value(item, refused) for item in node.elts)
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


def _call(node: ast.Call, refused: list[str]) -> dict[str, Any]:
    """``{name: {keyword: value}}``; positional arguments are ignored, as officially."""
    arguments: dict[Any, Any] = {}
    for keyword in node.keywords:
        arguments[keyword.arg] = _argument_value(keyword.value, refused)  # ``**x`` is stored under None
    return {_call_name(node.func): arguments}


def parse_python_calls(text: str) -> list[dict[str, Any]]:
    """A python call or list of calls as ``[{name: {param: value}}]`` (the text is already wrapped)."""
    cleaned = text.strip().strip("'")
    try:
        tree = ast.parse(cleaned, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise DecodeError(f"not a python expression: {exc}") from exc
    body = tree.body
    refused: list[str] = []
    if isinstance(body, ast.Call):
        calls = [_call(body, refused)]
    else:
        elements = getattr(body, "elts", None)
        if elements is None:
            raise DecodeError(f"not a list of calls: {type(body).__name__}")
        calls = []
        for element in elements:
            if not isinstance(element, ast.Call):
                raise DecodeError(f"list element is not a call: {clip(ast.unparse(element), 80)}")
            calls.append(_call(element, refused))
    if refused:
        raise ValueTooLarge(refused[0])
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
    "ValueTooLarge",
    "decode_ast",
    "decode_execute",
    "is_call_list",
    "is_empty_decoded",
    "is_empty_execute",
    "official_result",
    "parse_python_calls",
]
