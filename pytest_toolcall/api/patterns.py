"""Regular expressions from data (JSON Schema ``pattern``, case-file matchers) in linear time (RE2),
with a bounded fallback for the syntax RE2 lacks."""

from __future__ import annotations

from pytest_toolcall.core.safety.patterns import FALLBACK_SECONDS, PatternTimeout, bounded_validator, fullmatch, search

__all__ = ["FALLBACK_SECONDS", "PatternTimeout", "bounded_validator", "fullmatch", "search"]
