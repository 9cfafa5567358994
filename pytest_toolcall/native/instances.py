"""Values built from a JSON Schema, for oracle answers: minimal (required properties only, the first
enum value, bounds respected...), realistic where that is cheap (formats, patterns), checked against
the schema's own validator for every choice (``anyOf``, ``oneOf``, type lists).

Shared by every benchmark whose oracle makes up tool calls (general_fc, user cases).
"""

from __future__ import annotations

import math
import re
from typing import Any

import referencing
import referencing.jsonschema

_MAX_DEPTH = 24  # recursive $refs stop here (only required properties are followed anyway)
_MAX_ITEMS = 64  # a minItems beyond this is not worth building
_REALISTIC_DEPTH = 6  # below this nesting, optional array elements are left out

# Values that look right for common formats (formats are not asserted, realism only).
_FORMATS = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T09:00:00Z",
    "time": "09:00:00",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "uri-reference": "https://example.com",
    "iri": "https://example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "duration": "P1D",
}


class Unsatisfiable(Exception):
    """No value could be built for a schema."""


class Generator:
    """Builds a value for a schema, best effort; choices (anyOf, oneOf, type lists) are checked with the
    root validator evolved to the subschema, so ``$ref``s keep resolving against the root."""

    def __init__(self, root: Any, validator: Any) -> None:
        self.validator = validator
        # For $ref lookups while generating (jsonschema's own resolver is private): local refs only.
        resource = referencing.Resource.from_contents(root, default_specification=referencing.jsonschema.DRAFT202012)
        self._resolver = referencing.Registry().resolver_with_root(resource)

    def valid(self, schema: Any, value: Any) -> bool:
        try:
            return bool(self.validator.evolve(schema=schema).is_valid(value))
        except Exception:
            return False

    def value(self, schema: Any, variant: int = 0, depth: int = 0) -> Any:
        """A value for ``schema``; ``variant`` > 0 asks for a different one (unique array items)."""
        if depth > _MAX_DEPTH:
            raise Unsatisfiable("schema nesting too deep")
        if schema is True:
            return {} if depth == 0 else "example"
        if schema is False or not isinstance(schema, dict):
            raise Unsatisfiable(f"no value satisfies {schema!r}")
        schema = self._flatten(schema)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return self._pick(schema, list(schema["enum"]), variant)
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self._choose(schema, key, variant, depth)
        types = _types(schema)
        # Prefer real values to null for nullable types; keep the schema's order otherwise.
        ordered = [t for t in types if t != "null"] + [t for t in types if t == "null"]
        last: Exception = Unsatisfiable(f"no type of {types} could be built")
        for kind in ordered:
            try:
                candidate = self._typed(kind, schema, variant, depth)
            except Unsatisfiable as exc:
                last = exc
                continue
            if len(ordered) == 1 or self.valid(schema, candidate):
                return candidate
        raise last

    # -- combinators --------------------------------------------------------------------------------

    def _flatten(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Inline local ``$ref``s and ``allOf`` into one dict (properties merged, required united)."""
        for _ in range(_MAX_DEPTH):
            if "$ref" in schema:
                target = self._resolve(schema["$ref"])
                rest = {k: v for k, v in schema.items() if k != "$ref"}
                schema = _merge(target, rest) if isinstance(target, dict) else rest
            elif "allOf" in schema:
                rest = {k: v for k, v in schema.items() if k != "allOf"}
                for part in schema["allOf"]:
                    if isinstance(part, dict):
                        rest = _merge(rest, part)
                schema = rest
            else:
                return schema
        raise Unsatisfiable("$ref/allOf chain too long")

    def _resolve(self, ref: str) -> Any:
        try:
            return self._resolver.lookup(ref).contents
        except Exception:
            raise Unsatisfiable(f"cannot resolve $ref {ref!r}") from None

    def _choose(self, schema: dict[str, Any], key: str, variant: int, depth: int) -> Any:
        options = schema[key]
        rest = {k: v for k, v in schema.items() if k != key}
        # Nullable unions: try the non-null options first, for a realistic value.
        order = sorted(range(len(options)), key=lambda i: _is_null(options[i]))
        for i in order:
            option = _merge(rest, options[i]) if isinstance(options[i], dict) else options[i]
            for attempt in range(variant, variant + 4):  # other variants, when one matches several options
                try:
                    candidate = self.value(option, attempt, depth + 1)
                except Unsatisfiable:
                    break
                if key == "oneOf" and sum(self.valid(o, candidate) for o in options) != 1:
                    continue  # oneOf rejects a value matching several options
                if self.valid(schema, candidate):
                    return candidate
        raise Unsatisfiable(f"no {key} option could be built")

    def _pick(self, schema: dict[str, Any], values: list[Any], variant: int) -> Any:
        rest = {k: v for k, v in schema.items() if k != "enum"}
        fitting = [value for value in values if self.valid(rest, value)] or values
        if not fitting:
            raise Unsatisfiable("empty enum")
        return fitting[variant % len(fitting)]

    # -- types --------------------------------------------------------------------------------------

    def _typed(self, kind: str, schema: dict[str, Any], variant: int, depth: int) -> Any:
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, depth)
        if kind == "string":
            return _string(schema, variant)
        if kind in ("integer", "number"):
            return _number(schema, variant, integer=kind == "integer")
        if kind == "boolean":
            return variant % 2 == 0
        if kind == "null":
            return None
        raise Unsatisfiable(f"unknown type {kind!r}")

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        names = [n for n in schema.get("required") or [] if isinstance(n, str)]
        # Dependent requirements (2019-09+ ``dependentRequired``, older ``dependencies`` lists).
        dependent = {**_lists(schema.get("dependencies")), **_lists(schema.get("dependentRequired"))}
        result: dict[str, Any] = {}
        pending = list(dict.fromkeys(names))
        while pending:
            name = pending.pop(0)
            if name in result:
                continue
            result[name] = self.value(self._property_schema(schema, name), 0, depth + 1)
            pending.extend(dependent.get(name, []))
        extra = (n for n in properties if n not in result)
        minimum = schema.get("minProperties", 0)
        counter = 0
        while len(result) < minimum:
            listed = next(extra, None)
            if listed is None:
                counter += 1
                listed = f"extra_{counter}"
                if counter > _MAX_ITEMS:
                    raise Unsatisfiable("minProperties too large")
            name = listed
            result[name] = self.value(self._property_schema(schema, name), 0, depth + 1)
        return result

    def _property_schema(self, schema: dict[str, Any], name: str) -> Any:
        properties = schema.get("properties") or {}
        if name in properties:
            return properties[name]
        for pattern, sub in (schema.get("patternProperties") or {}).items():
            if re.search(pattern, name):
                return sub
        additional = schema.get("additionalProperties", True)
        return additional if additional is not True else {"type": "string"}

    def _array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        prefix = schema.get("prefixItems") or []
        items = schema.get("items", True)
        if isinstance(items, list):  # drafts before 2020-12: a tuple schema
            prefix, items = items, schema.get("additionalItems", True)
        needed = max(schema.get("minItems", 0), len(prefix), 1 if "contains" in schema else 0)
        # One element when allowed, near the top: a realistic answer that exercises the items schema. Deeper
        # down (recursive schemas), or when that element cannot be built, the shortest allowed array.
        one = 1 if items is not False and depth < _REALISTIC_DEPTH else 0
        wanted = min(max(needed, one), schema.get("maxItems", math.inf))
        if needed > _MAX_ITEMS:
            raise Unsatisfiable("minItems too large")
        try:
            return self._items(schema, prefix, items, wanted, depth)
        except Unsatisfiable:
            if wanted <= needed:
                raise
            return self._items(schema, prefix, items, needed, depth)

    def _items(self, schema: dict[str, Any], prefix: list[Any], items: Any, count: int, depth: int) -> list[Any]:
        result: list[Any] = []
        if "contains" in schema and count > 0:
            result.append(self.value(schema["contains"], 0, depth + 1))
        while len(result) < count:
            i = len(result)
            result.append(self.value(prefix[i] if i < len(prefix) else items, i, depth + 1))
        return result


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list) and declared:
        return [t for t in declared if isinstance(t, str)]
    # No type: infer from the keywords present, so an untyped {"properties": ...} still gets an object.
    if any(k in schema for k in ("properties", "required", "additionalProperties", "minProperties")):
        return ["object"]
    if any(k in schema for k in ("items", "prefixItems", "minItems", "contains")):
        return ["array"]
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return ["number"]
    return ["string"]


def _string(schema: dict[str, Any], variant: int) -> str:
    low, high = schema.get("minLength", 0), schema.get("maxLength", math.inf)
    pattern = schema.get("pattern") if isinstance(schema.get("pattern"), str) else None
    bases = pattern_strings(pattern, low) if pattern is not None else []
    bases.append(_FORMATS.get(str(schema.get("format")), "example"))
    for base in bases:
        for text in [base + str(variant), base] if variant else [base]:
            if len(text) < low:
                text += (text[-1:] or "x") * (low - len(text))  # repeating the last character keeps \w+ runs
            if len(text) > high:
                text = text[: int(high)]
            if pattern is None or re.search(pattern, text):
                return text
    raise Unsatisfiable(f"no string for pattern {pattern!r}")


def _number(schema: dict[str, Any], variant: int, integer: bool) -> int | float:
    low, low_open, high, high_open = _bounds(schema)

    def inside(x: float) -> bool:
        return (x > low if low_open else x >= low) and (x < high if high_open else x <= high)

    # Start from 1 (a plausible amount, count or rate), then move to the nearest allowed end. Variants of a
    # number step by halves, so one of them is not an integer (oneOf [number, integer] needs it).
    value: float = 1 + (variant if integer else variant / 2)
    if not inside(value):
        if value <= low:
            gap = min(1.0, (high - low) / 2) if high < math.inf else 1.0
            value = low + gap if low_open else low
            value = math.ceil(value) if integer else value
        else:
            gap = min(1.0, (high - low) / 2) if low > -math.inf else 1.0
            value = high - gap if high_open else high
            value = math.floor(value) if integer else value
    step = schema.get("multipleOf")
    if isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0:
        value = math.ceil(value / step) * step
        if not inside(value):
            value -= step
        value = round(value, 12)  # 0.1 * 3 → 0.3, so that multipleOf's own division comes out whole
    if integer or (isinstance(value, float) and value.is_integer() and abs(value) < 2**53):
        value = int(value) if float(value).is_integer() else value
    if not inside(value):
        raise Unsatisfiable("no number fits the bounds")
    return value


def _bounds(schema: dict[str, Any]) -> tuple[float, bool, float, bool]:
    """(low, low exclusive, high, high exclusive); draft 4 spells exclusivity as a boolean modifier."""
    low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
    low_open = schema.get("exclusiveMinimum") is True
    high_open = schema.get("exclusiveMaximum") is True
    exclusive_min, exclusive_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if _is_number(exclusive_min) and exclusive_min >= low:
        low, low_open = exclusive_min, True
    if _is_number(exclusive_max) and exclusive_max <= high:
        high, high_open = exclusive_max, True
    return low, low_open, high, high_open


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def pattern_strings(pattern: str, min_length: int) -> list[str]:
    """Strings matching ``pattern``, shortest first: open repeats (``+``, ``{2,}``) are taken 0, 1, 2, 4...
    extra times, so that a ``minLength`` can be met. Uses the stdlib regex parser (a private module:
    any surprise gives no candidate, and the final check decides)."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern)
        extras = sorted({0, 1, 2, 4, 8, 16, 32, min_length})
        return list(dict.fromkeys(_Renderer(extra).render(parsed) for extra in extras))
    except Exception:
        return []


class _Renderer:
    """One string matched by a parsed regex (``re._parser`` nodes): first branch, first fitting class
    character, each repeat at its minimum plus ``extra``."""

    _POOL = "aA0_- x.@" + "".join(map(chr, range(33, 127)))

    def __init__(self, extra: int) -> None:
        from re import _constants  # type: ignore[attr-defined]

        self.c = _constants
        self.extra = extra

    def render(self, parsed: Any) -> str:
        c = self.c
        out = []
        for op, arg in parsed:
            if op is c.LITERAL:
                out.append(chr(arg))
            elif op in (c.NOT_LITERAL, c.ANY, c.IN, c.CATEGORY):
                out.append(next(ch for ch in self._POOL if self._matches(op, arg, ch)))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                low, high, sub = arg
                out.append(self.render(sub) * min(low + self.extra, high))
            elif op is c.SUBPATTERN:
                out.append(self.render(arg[-1]))
            elif op is c.ATOMIC_GROUP:
                out.append(self.render(arg))
            elif op is c.BRANCH:
                out.append(self.render(arg[1][0]))
            elif op not in (c.AT, c.ASSERT, c.ASSERT_NOT):  # anchors and lookarounds are skipped
                raise ValueError(f"unsupported regex node {op}")
        return "".join(out)

    def _matches(self, op: Any, arg: Any, ch: str) -> bool:
        c = self.c
        if op is c.LITERAL:
            return ch == chr(arg)
        if op is c.NOT_LITERAL:
            return ch != chr(arg)
        if op is c.ANY:
            return ch != "\n"
        if op is c.RANGE:
            return arg[0] <= ord(ch) <= arg[1]
        if op is c.CATEGORY:
            return re.fullmatch(_CATEGORIES[str(arg)], ch) is not None
        if op is c.IN:
            negate = bool(arg) and arg[0][0] is c.NEGATE
            hit = any(self._matches(o, a, ch) for o, a in (arg[1:] if negate else arg))
            return hit != negate
        raise ValueError(f"unsupported class item {op}")


_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = {**base, **extra}
    if "properties" in base and "properties" in extra:
        merged["properties"] = {**base["properties"], **extra["properties"]}
    if "required" in base and "required" in extra:
        merged["required"] = list(dict.fromkeys([*base["required"], *extra["required"]]))
    return merged


def _lists(value: Any) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, list)}


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"
