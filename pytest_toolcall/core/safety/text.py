"""Showing values in messages: bounded in length, and safe for any value a decoder can produce.

Model and server text is data. ``inert`` is the one place that makes such text safe to print on a
terminal or in a CI log: control and invisible characters escaped (an ESC cannot clear a screen, a
CR cannot overwrite a line, a right-to-left override cannot reorder one), no line that a CI runner
would take as a command (GitHub Actions reads a line starting with ``::`` or ``##[``), long texts
clipped with a count. ``name`` shows an identifier (a tool name, an argument key) with every
non-ASCII character escaped, so that a look-alike never reads as the declared name.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

#: The most an item prints (characters, lines): a failure message quotes outputs, not megabytes, and
#: a reply of 10,000 calls is not 10,000 lines of a CI log.
MESSAGE_LIMIT = 20_000
MESSAGE_LINES = 200

# Characters never printed as they are: C0/C1 controls but tab and newline, DEL, and the Unicode
# categories that draw nothing or move text (format: zero-width, bidi overrides; line and paragraph
# separators; surrogates, private use and unassigned code points).
_UNSAFE = re.compile(r"[^\n\t\x20-\x7e\xa0-\U0010ffff]")
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# What a CI runner reads as a command at the start of a line (leading blanks trimmed): GitHub's
# ``::name::`` and its older ``##[name]``.
_COMMAND_LINE = re.compile(r"^([ \t]*)(::|##\[)", re.MULTILINE)


def _escape(char: str) -> str:
    code = ord(char)
    if code == 0x0D:
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _visible(text: str) -> str:
    text = _UNSAFE.sub(lambda m: _escape(m.group(0)), text)
    if text.isascii():
        return text
    return "".join(_escape(c) if ord(c) > 0x7E and unicodedata.category(c) in _HIDDEN_CATEGORIES else c for c in text)


def inert(value: object, limit: int = MESSAGE_LIMIT) -> str:
    """Text (or a value's ``str``) safe for a terminal or a CI log, over several lines: escapes for
    control and invisible characters (``\\x1b``, ``\\r``, ``\\u202e``; tabs and newlines kept), a
    backslash before a line's leading ``::`` or ``##[``, at most ``MESSAGE_LINES`` lines and ``limit``
    characters (what is cut counted)."""
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception as exc:
        text = f"<{type(value).__name__}: {exc}>"
    if text.count("\n") >= MESSAGE_LINES:
        lines = text.split("\n")
        text = "\n".join(lines[:MESSAGE_LINES]) + f"\n... [{len(lines) - MESSAGE_LINES} more lines]"
    if len(text) > limit:
        text = f"{text[:limit]}... [{len(text) - limit} more chars]"
    return _COMMAND_LINE.sub(r"\1\\\2", _visible(text))


def name(value: object, limit: int = 120) -> str:
    """An identifier from a model or a server (a tool name, an argument key) on one line: as it is
    when it is printable ASCII, else quoted with every other character escaped (``'get\\u0430ge'``
    for a Cyrillic ``а``), so that a look-alike never reads as the declared name."""
    if isinstance(value, str) and value.isascii() and value.isprintable():
        return clip(value, limit)
    return clip(ascii(value) if isinstance(value, str) else value, limit)


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
