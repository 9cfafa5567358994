"""The native tool-call layer: tool schemas compiled once and checked without network access,
tool calls validated against them, and instances generated from a schema (for reference answers)."""

from __future__ import annotations

from pytest_toolcall.native.instances import Generator, Unsatisfiable, pattern_strings
from pytest_toolcall.native.schemas import UNSEEN, CompiledSchema, compile_schema, json_text, remember, schema_problem
from pytest_toolcall.native.validation import (
    EMPTY_TOOL_CALLS,
    FAILURE_KIND,
    INVALID_SCHEMA,
    JSON_DECODE,
    MISSING_PARAMETERS,
    OTHER,
    REASON_KINDS,
    SCHEMA_ERROR,
    TOOL_CALLS,
    UNKNOWN_TOOL,
    Failure,
    describe_calls,
    missing_call_kind,
    validate_tool_calls,
)

__all__ = [
    "EMPTY_TOOL_CALLS",
    "FAILURE_KIND",
    "INVALID_SCHEMA",
    "JSON_DECODE",
    "MISSING_PARAMETERS",
    "OTHER",
    "REASON_KINDS",
    "SCHEMA_ERROR",
    "TOOL_CALLS",
    "UNKNOWN_TOOL",
    "UNSEEN",
    "CompiledSchema",
    "Failure",
    "Generator",
    "Unsatisfiable",
    "compile_schema",
    "describe_calls",
    "json_text",
    "missing_call_kind",
    "pattern_strings",
    "remember",
    "schema_problem",
    "validate_tool_calls",
]
