"""Showing values in messages: bounded in length, and safe for any value a decoder can produce."""

from __future__ import annotations

from typing import Any


def clip(value: object, limit: int = 120) -> str:
    """``repr`` of a value (a string is shown as is), cut to ``limit`` characters.

    ``repr`` itself can fail (an int beyond Python's digit limit); a message must not.
    """
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception as exc:
        text = f"<{type(value).__name__}: {exc}>"
    return text if len(text) <= limit else f"{text[: limit - 3]}... [{len(text)} chars]"


def show(value: Any, limit: int = 120) -> str:
    """A value as Python writes it (strings quoted: ``'a'``), cut to ``limit`` characters."""
    return clip(repr(value) if isinstance(value, str) else value, limit)


def one_line(value: Any, limit: int = 120) -> str:
    """``clip`` on one line: newlines written as ``\\n``."""
    return clip(value, limit).replace("\n", "\\n")


def number(value: float | None, digits: int = 3) -> str:
    """A metric in a table: fixed digits, ``-`` when it was not measured."""
    return "-" if value is None else f"{value:.{digits}f}"


def measured(value: float | None, digits: int = 3) -> str:
    """A metric that nothing may have measured (every item errored): never shown as 0."""
    return "not measured" if value is None else f"{value:.{digits}f}"
