"""Text for terminals and reports: every piece of model output or data a benchmark puts in a
message goes through one of these, so that it is visible (no control characters, no forged CI
workflow commands) and bounded."""

from __future__ import annotations

from pytest_toolcall.core.safety.text import clip, inert, measured, name, number, one_line, show

__all__ = ["clip", "inert", "measured", "name", "number", "one_line", "show"]
