"""The oracle: for each sample, the reply a model would give to produce its first possible answer.

Each parameter takes the first value its possible answer lists (a leading ``""`` — "may be omitted" —
means the parameter is left out, unless the doc requires it: then the first real value is used);
dictionaries and lists of dictionaries, whose possible answers list options per key, take the first
option of each key. The reply is then written as a model would write it:

* ``fc``: tool calls with JSON arguments, names with dots turned into underscores (as the tools were);
* ``prompting``: the python call list ``[module.func(a=1, b='x')]``.

Java and JavaScript arguments are source-code strings (``"5L"``, ``"new int[]{1, 2}"``, ``"[1, 2]"``), in
fc mode the bare text, in prompting mode the literal itself. The relevance categories get a plain
sentence (irrelevance) or a call of the first function without arguments (relevance).

Some possible answers cannot be produced this way (the official readers lose or keep quotes, drop
anonymous class bodies, a Java call of one argument without ``;`` does not parse, ...): the ceiling,
:func:`oracle_passes`, says whether the oracle reply passes the checker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.benchmarks.bfcl.checker import Verdict, check_answer, expected_name
from pytest_toolcall.benchmarks.bfcl.data import BfclSample, is_relevance_category, language_of

DECLINE = "None of the given functions can be used for this request."


@dataclass(frozen=True)
class OracleAnswer:
    """A chat reply: ``content`` text and ``tool_calls`` ``[{"name", "arguments" (JSON text)}]``."""

    content: str | None
    tool_calls: list[dict[str, str]] = field(default_factory=list)


def _first(options: Any) -> Any:
    return options[0] if isinstance(options, list) and options else options


def _pick_dict(option: dict[str, Any]) -> dict[str, Any]:
    """A concrete dict from a possible answer listing options per key (keys led by "" are left out)."""
    return {key: _first(values) for key, values in option.items() if _first(values) != ""}


def expected_arguments(doc: dict[str, Any] | None, params: dict[str, list[Any]]) -> dict[str, Any]:
    """The oracle's parameter values for one expected call, as Python values."""
    declared = (doc or {}).get("parameters", {}).get("properties", {})
    required = (doc or {}).get("parameters", {}).get("required", [])
    chosen: dict[str, Any] = {}
    for param, options in params.items():
        value = _first(options)
        if value == "" and param in required and isinstance(options, list):
            # "May be omitted" listed first for a required parameter: omitting it cannot pass, so the
            # oracle gives the first real value instead.
            value = next((option for option in options if option != ""), "")
        if value == "":
            continue
        info = declared.get(param, {})
        kind = info.get("type")
        items = info.get("items", {}).get("type") if isinstance(info.get("items"), dict) else None
        if kind in ("dict", "HashMap") and isinstance(value, dict):
            value = _pick_dict(value)
        elif kind in ("array", "ArrayList", "Array") and items == "dict" and isinstance(value, list):
            value = [_pick_dict(item) if isinstance(item, dict) else item for item in value]
        chosen[param] = value
    return chosen


# --------------------------------------------------------------------------------------------------
# Writing values as source text


def _java_literal(value: Any) -> str:
    """A Java literal for a value inside a collection or map."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


def _java_text(value: Any, kind: str | None, element: str | None) -> str:
    """Java source text the official conversion turns back into ``value``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "long" and isinstance(value, int):
        return f"{value}L"
    if kind == "float" and isinstance(value, (int, float)):
        return f"{value}f"
    if kind == "Array" and isinstance(value, list):
        element_type = {"integer": "int", "String": "String", "long": "long", "char": "char"}.get(
            element or "", "Object"
        )
        return f"new {element_type}[]{{{', '.join(_java_element(v, element) for v in value)}}}"
    if kind == "ArrayList" and isinstance(value, list):
        parts = ", ".join(
            _java_literal(v) if element in ("String", "char") else _java_element(v, element) for v in value
        )
        return f"new ArrayList<>(Arrays.asList({parts}))"
    if kind == "HashMap" and isinstance(value, dict):
        puts = " ".join(f"put({json.dumps(str(k))}, {_java_literal(v)});" for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _java_element(value: Any, element: str | None) -> str:
    if element == "long" and isinstance(value, int) and not isinstance(value, bool):
        return f"{value}L"
    if element == "float" and isinstance(value, (int, float)):
        return f"{value}f"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _js_number(value: float) -> str:
    text = repr(value)
    return format(value, "f") if "e" in text else text


def _js_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, list):
        return "[" + ", ".join(_js_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_js_literal(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "null"
    return str(value)


def _js_text(value: Any, kind: str | None) -> str:
    """JavaScript source text the official conversion turns back into ``value``."""
    if kind == "Bigint" and isinstance(value, int) and not isinstance(value, bool):
        return f"{value}n"
    if isinstance(value, str):
        return value
    return _js_literal(value)


def _source_arguments(doc: dict[str, Any] | None, values: dict[str, Any], language: str) -> dict[str, str]:
    declared = (doc or {}).get("parameters", {}).get("properties", {})
    texts = {}
    for param, value in values.items():
        info = declared.get(param, {})
        items = info.get("items", {}).get("type") if isinstance(info.get("items"), dict) else None
        if language == "java":
            texts[param] = _java_text(value, info.get("type"), items)
        else:
            texts[param] = _js_text(value, info.get("type"))
    return texts


# --------------------------------------------------------------------------------------------------
# Replies


def _doc(sample: BfclSample, name: str) -> dict[str, Any] | None:
    return next((doc for doc in sample.functions if doc["name"] == name), None)


def _python_call_text(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def _source_call_text(name: str, arguments: dict[str, str], language: str, kinds: dict[str, str]) -> str:
    """A Java/JavaScript call as a prompting answer: strings become string literals, others stay as text."""
    parts = []
    for key, text in arguments.items():
        literal = kinds.get(key) in ("String", "any", "char") or (language == "javascript" and kinds.get(key) is None)
        parts.append(f"{key}={json.dumps(text) if literal else text}")
    return f"{name}({', '.join(parts)})"


def oracle_answer(sample: BfclSample, mode: str) -> OracleAnswer:
    """The oracle reply of ``sample`` in ``mode`` ("fc" or "prompting")."""
    if is_relevance_category(sample.category):
        if "irrelevance" in sample.category or not sample.functions:
            return OracleAnswer(content=DECLINE)
        name = sample.functions[0]["name"]
        if mode == "fc":
            return OracleAnswer(content=None, tool_calls=[{"name": expected_name(name, mode), "arguments": "{}"}])
        return OracleAnswer(content=f"[{name}()]")
    assert sample.ground_truth is not None
    language = language_of(sample.category)
    calls: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    for expected in sample.ground_truth:
        name, params = next(iter(expected.items()))
        doc = _doc(sample, name)
        calls.append((name, expected_arguments(doc, params), doc))
    if mode == "fc":
        tool_calls = []
        for name, values, doc in calls:
            arguments = values if language == "python" else _source_arguments(doc, values, language)
            tool_calls.append({"name": expected_name(name, mode), "arguments": json.dumps(arguments)})
        return OracleAnswer(content=None, tool_calls=tool_calls)
    texts = []
    for name, values, doc in calls:
        if language == "python":
            texts.append(_python_call_text(name, values))
        else:
            kinds = {k: v.get("type") for k, v in (doc or {}).get("parameters", {}).get("properties", {}).items()}
            texts.append(_source_call_text(name, _source_arguments(doc, values, language), language, kinds))
    return OracleAnswer(content="[" + ", ".join(texts) + "]")


def oracle_verdict(sample: BfclSample, mode: str) -> Verdict:
    """The checker's verdict on the oracle reply."""
    answer = oracle_answer(sample, mode)
    return check_answer(sample, answer.content, answer.tool_calls, mode)


def oracle_passes(sample: BfclSample, mode: str) -> bool:
    """The ceiling of one sample: can a reply producing its first possible answer pass at all?"""
    return oracle_verdict(sample, mode).valid


def ceilings(samples: list[BfclSample], mode: str) -> dict[str, tuple[int, int]]:
    """Per category: (samples whose oracle passes, samples)."""
    counts: dict[str, tuple[int, int]] = {}
    for sample in samples:
        passed, total = counts.get(sample.category, (0, 0))
        counts[sample.category] = (passed + oracle_passes(sample, mode), total + 1)
    return counts
