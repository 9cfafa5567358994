"""JSON Lines: one reader for every benchmark's ``.jsonl`` data, whose problems name file and line."""

from __future__ import annotations

from pytest_toolcall.core.safety.jsonl import JsonlError, Line, json_type, lines, parse_object, pieces

__all__ = ["JsonlError", "Line", "json_type", "lines", "parse_object", "pieces"]
