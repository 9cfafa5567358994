"""How the official BFCL checker reads Java and JavaScript argument strings.

For the Java and JavaScript categories the model passes every argument as a string of source code
(``"5"``, ``"new int[]{1, 2}"``, ``"[1, 'a']"``); the checker converts that string into a Python value
by the parameter's declared type, with regular expressions, before comparing it with the possible
answers. A string that does not look like the declared type is kept as a string (and then usually fails
the type check). The rules below reproduce those conversions, including their blind spots (e.g. the
``char`` pattern can never match, an ``Array`` of ``String`` keeps the quotes of its elements).
"""

from __future__ import annotations

import re
from typing import Any

JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}

JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

_INT = r"^-?\d+$"
_JAVA_FLOAT = r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$"
_JAVA_DOUBLE = r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$"
_JAVA_LONG = r"^-?\d+[lL]$"


def _number_or_text(text: str) -> Any:
    """int, else float, else the text itself (Python's own int()/float() spelling rules)."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# --------------------------------------------------------------------------------------------------
# Java


def java_value(text: str, declared: str, element: str | None = None) -> Any:
    """The Python value the checker sees for a Java argument string of type ``declared``."""
    if declared not in JAVA_TYPES:
        raise ValueError(f"unsupported Java type {declared!r}")
    if declared in ("byte", "short", "integer"):
        return int(text) if re.match(_INT, text) else str(text)
    if declared == "float":
        return float(re.sub(r"[fF]$", "", text)) if re.match(_JAVA_FLOAT, text) else str(text)
    if declared == "double":
        return float(text) if re.match(_JAVA_DOUBLE, text) else str(text)
    if declared == "long":
        return int(re.sub(r"[lL]$", "", text)) if re.match(_JAVA_LONG, text) else str(text)
    if declared == "boolean":
        return text == "true" if text in ("true", "false") else str(text)
    if declared == "char":
        # The official pattern for a char literal cannot match any string, so a char stays as written.
        return str(text)
    if declared == "ArrayList":
        return _java_array_list(text, element)
    if declared == "Array":
        return _java_array(text, element)
    if declared == "HashMap":
        return _java_hash_map(text)
    if declared in ("String", "any"):
        return str(text)
    raise NotImplementedError(f"{declared} conversion is not implemented")


def _java_element(text: str, element: str | None) -> Any:
    if element in ("char", "String"):
        return text[1:-1]  # quotes dropped without looking at them
    return java_value(text, element) if element else java_literal(text)


def _java_array_list(text: str, element: str | None) -> Any:
    as_list = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    if as_list:
        return [_java_element(part.strip(), element) for part in as_list.group(1).split(",")]
    with_adds = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.DOTALL)
    if with_adds:
        return [_java_element(part.strip(), element) for part in re.findall(r"add\((.+?)\)", with_adds.group(1))]
    if re.search(r"new\s+ArrayList<\w*>\(\)", text):
        return []
    return text


def _java_array(text: str, element: str | None) -> Any:
    match = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
    if not match:
        return text
    parts = [part.strip() for part in match.group(1).split(",") if part.strip()]
    if element:
        return [java_value(part, element) for part in parts]
    return [java_literal(part) for part in parts]


def _java_hash_map(text: str) -> Any:
    match = re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", text, re.DOTALL)
    if match:
        entries: dict[str, Any] = {}
        body = match.group(1)
        if body.strip():
            for key, value in re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", body):
                entries[key] = java_literal(value.strip())
        return entries
    if re.search(r"new\s+HashMap<.*?>\s*\(\)", text):
        return {}
    return text


def java_literal(text: str) -> Any:
    """A Java literal read without a declared type (collection elements, map values)."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if re.match(_JAVA_LONG, text):
        return int(text[:-1])
    if re.match(_JAVA_FLOAT, text):
        return float(re.sub(r"[fF]$", "", text))
    return _number_or_text(text)


# --------------------------------------------------------------------------------------------------
# JavaScript


def js_value(text: str, declared: str, element: str | None = None) -> Any:
    """The Python value the checker sees for a JavaScript argument string of type ``declared``."""
    if declared not in JS_TYPES:
        raise ValueError(f"unsupported JavaScript type {declared!r}")
    if declared == "String":
        quoted = (text.startswith('"') and text.endswith('"')) or (text.startswith("'") and text.endswith("'"))
        return text[1:-1] if quoted else str(text)
    if declared == "integer":
        return int(text) if re.match(_INT, text) else str(text)
    if declared == "float":
        return float(text) if re.match(r"^-?\d+(\.\d+)?$", text) else str(text)
    if declared == "Bigint":
        return int(text[:-1]) if re.match(r"^-?\d+n$", text) else str(text)
    if declared == "Boolean":
        return text == "true" if text in ("true", "false") else str(text)
    if declared == "dict":
        return js_collection(text, "dict", element)
    if declared == "array":
        return js_collection(text, "array", element)
    return str(text)  # any


def js_collection(code: str, kind: str, element: str | None = None) -> Any:
    """An array or object literal read with regular expressions; the text itself when that fails."""
    code = code.strip()
    if kind == "array":
        try:
            return _js_array(code, element)
        except Exception:  # the official reader falls back to the text on any error
            return code
    if kind == "dict":
        if code == "{}":
            return {}
        match = re.match(r"\{(.*?)\}", code)
        if not match:
            return code
        try:
            entries: dict[str, Any] = {}
            for key, value in _js_entries(match.group(1)):
                key = key.strip().strip("'\"")
                value = value.strip()
                if value.startswith("[") and value.endswith("]"):
                    entries[key] = js_collection(value, "array")
                elif value.startswith("{") and value.endswith("}"):
                    entries[key] = js_collection(value, "dict")
                else:
                    entries[key] = js_literal(value.strip("'\""))
            return entries
        except Exception:
            return code
    raise ValueError(f"unsupported collection kind {kind!r}")


def _js_array(code: str, element: str | None) -> Any:
    nested = re.match(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)", code)
    if nested:
        rows = []
        for index, inner in enumerate(re.findall(r"\[(.*?)\]", nested.group(0))):
            inner = inner.strip()
            if index == 0 and inner.startswith("["):
                inner = inner[1:]
            rows.append([js_literal(part.strip()) for part in inner.split(",")])
        return rows
    flat = re.match(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)", code)
    if not flat:
        return code
    body = flat.group(1) if flat.group(1) is not None else flat.group(2)
    body = (body or "").strip()
    parts = body.split(",") if body else []
    if element:
        values = []
        for part in parts:
            part = part.strip()
            # A quoted element is read with the declared element type all the same.
            values.append(js_value(part, element, "String" if part.startswith(("'", '"')) else None))
        return values
    return [js_literal(part.strip()) for part in parts]


def js_literal(text: str) -> Any:
    """A JavaScript literal read without a declared type."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if (text.startswith('"') and text.endswith('"')) or (text.startswith("'") and text.endswith("'")):
        return text[1:-1]
    return _number_or_text(text)


_JS_ENTRY = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def _js_entries(body: str) -> list[tuple[str, str]]:
    """The official ``re.findall`` of the object's ``key: value`` pairs, without its quadratic case.

    Every start position of the scan fails after reading to the end when no ``:`` follows it, which is
    quadratic in the length (40,000 characters without a colon: 16 s). Without a newline (``.`` stops
    at one) the first match starts at the first non-colon character before the last colon, and every
    later match starts where the previous one ended; when there is no such character nothing matches.
    So that case is answered at once, and every other text goes to the official pattern unchanged."""
    if "\n" not in body:
        last = body.rfind(":")
        if last == -1 or not body[:last].strip(":"):
            return []
    return _JS_ENTRY.findall(body)
