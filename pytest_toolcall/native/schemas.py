"""JSON Schemas of tool parameters: whether one is valid (``schema_problem``), its compiled validator
(``compile_schema``: class from ``$schema``, default Draft 2020-12, schema checked first, no format
checker, no remote ``$ref``, patterns matched in bounded time), and the bounded caches behind both.

Shared by every benchmark that asks through native tool calling (general_fc, user cases).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing
from jsonschema.exceptions import SchemaError

from pytest_toolcall.core.safety.jsonl import json_type
from pytest_toolcall.core.safety.patterns import bounded_validator
from pytest_toolcall.core.safety.text import clip


def schema_problem(schema: Any) -> str:
    """Why ``schema`` is not a valid JSON Schema for the draft its ``$schema`` names (default 2020-12); ""
    when it is. Cached by content: equal schemas recur across lines, and the full check is slow."""
    if not isinstance(schema, (dict, bool)):
        return f"expected an object, got {json_type(schema)}"
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):
        return _check_schema(schema)
    problem = _SCHEMA_PROBLEMS.get(key)
    if problem is None:
        problem = "" if _plainly_valid(schema) else _check_schema(schema)
        _SCHEMA_PROBLEMS[key] = problem
        if len(_SCHEMA_PROBLEMS) > _SCHEMA_CACHE_SIZE:  # bounded: the oldest entry out
            del _SCHEMA_PROBLEMS[next(iter(_SCHEMA_PROBLEMS))]
    return problem


_SCHEMA_PROBLEMS: dict[str, str] = {}
_SCHEMA_CACHE_SIZE = 8192


def _check_schema(schema: Any) -> str:
    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
    except SchemaError as exc:
        return describe_error(exc)
    except Exception as exc:  # e.g. an unhashable "$schema" value
        return f"{type(exc).__name__}: {exc}"
    return ""


# A fast, sound shortcut for the schemas tool definitions are made of: Draft 2020-12 (no "$schema"),
# only these keywords, each value of the form the 2020-12 meta-schema requires. check_schema takes
# ~2 ms per tool (the 2020-12 meta-schema is heavy); anything outside this subset still gets it.
_SIMPLE_TYPES = frozenset(("array", "boolean", "integer", "null", "number", "object", "string"))
_STRING_KEYWORDS = frozenset(("description", "title", "format"))
_ANY_KEYWORDS = frozenset(("default",))
_NUMBER_KEYWORDS = frozenset(("minimum", "maximum"))
_COUNT_KEYWORDS = frozenset(("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"))
_SCHEMA_KEYWORDS = frozenset(("items", "additionalProperties"))


def _plainly_valid(schema: Any, depth: int = 0) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > 32 or (depth == 0 and "$schema" in schema):
        return False
    for key, value in schema.items():
        if key == "type":
            types = [value] if isinstance(value, str) else value
            if not isinstance(types, list) or not types or not all(t in _SIMPLE_TYPES for t in types):
                return False
            if len(set(types)) != len(types):
                return False
        elif key in _STRING_KEYWORDS:
            if not isinstance(value, str):
                return False
        elif key in _NUMBER_KEYWORDS:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return False
        elif key in _COUNT_KEYWORDS:
            if type(value) is not int or value < 0:
                return False
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return False
            if len(set(value)) != len(value):
                return False
        elif key in ("enum", "examples"):  # arrays of anything
            if not isinstance(value, list):
                return False
        elif key == "properties":
            if not isinstance(value, dict) or not all(_plainly_valid(v, depth + 1) for v in value.values()):
                return False
        elif key in _SCHEMA_KEYWORDS:
            if not _plainly_valid(value, depth + 1):
                return False
        elif key not in _ANY_KEYWORDS:
            return False
    return True


def describe_error(exc: jsonschema.ValidationError | SchemaError) -> str:
    """The error message, with where it applies when that is not the top level."""
    message = clip(exc.message, 200)
    if exc.absolute_path:
        return f"{message} (at {'/'.join(map(str, exc.absolute_path))})"
    return message


def json_text(value: Any, limit: int = 60) -> str:
    return clip(json.dumps(value, ensure_ascii=False), limit)


@dataclass(frozen=True, eq=False)  # hashed by identity: a key of the validation memo
class CompiledSchema:
    validator: Any  # a jsonschema validator, None when the schema is invalid
    problem: str  # "" when the schema is valid


# Schemas are treated as immutable once scored. Two layers: by identity (a sample's schema object,
# kept alive here so its id cannot be reused), then by its text (equal schemas on other lines).
# Both bounded (least recently used out): lines are read back for each item, so a large file would
# otherwise keep every schema object it ever parsed alive here.
_BY_ID: OrderedDict[int, tuple[Any, CompiledSchema]] = OrderedDict()
_BY_TEXT: OrderedDict[str, CompiledSchema] = OrderedDict()
_CACHE_SIZE = 4096
UNSEEN: Any = object()  # (a cache's "no entry": None is a value)
# No remote $ref retrieval while scoring (jsonschema's default registry would fetch over HTTP);
# the meta-schemas stay resolvable.
_REGISTRY: referencing.Registry[Any] = referencing.Registry()


def compile_schema(schema: Any) -> CompiledSchema:
    """The validator for ``schema`` (class from ``$schema``, default Draft 2020-12, schema checked
    first, no format checker), cached."""
    hit = _BY_ID.get(id(schema))
    if hit is not None and hit[0] is schema:
        _BY_ID.move_to_end(id(schema))
        return hit[1]
    # repr, not canonical JSON: twice as fast, and for parsed JSON as exact (a schema whose keys come
    # in another order is merely compiled once more).
    key = repr(schema)
    compiled = _BY_TEXT.get(key)
    if compiled is None:
        compiled = remember(_BY_TEXT, key, _compile(schema))
    else:
        _BY_TEXT.move_to_end(key)
    remember(_BY_ID, id(schema), (schema, compiled))
    return compiled


def remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> Any:
    """Put ``value`` in one of the bounded caches of scoring (the oldest entry out), and return it."""
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def _compile(schema: Any) -> CompiledSchema:
    problem = schema_problem(schema)  # the loader's check, cached: usually already done at load time
    if problem:
        return CompiledSchema(None, problem)
    try:
        # default= also keeps an unknown $schema from warning: it falls back to 2020-12 quietly.
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        # pattern / patternProperties matched in bounded time, with re.search's verdicts (core/safety/patterns.py)
        return CompiledSchema(bounded_validator(cls)(schema, registry=_REGISTRY), "")
    except Exception as exc:
        return CompiledSchema(None, f"{type(exc).__name__}: {exc}")
