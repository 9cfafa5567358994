"""The one JSON-Lines reader: lines with their numbers and byte offsets, problems as ``file:line``.

Every benchmark that reads JSONL reads it through here, so all agree on what a line is:

* lines end at ``b"\\n"`` only (``str.splitlines`` would also split at U+2028/U+2029 and other
  separators, which JSON allows raw inside strings), an optional ``\\r`` before it is dropped;
* a leading UTF-8 byte-order mark (common in hand-edited files) is skipped;
* blank lines are skipped, numbers stay those of the file (1-based);
* a line that is not UTF-8 is a :class:`JsonlError` naming its line.

The file is read one line at a time (never whole), and each :class:`Line` keeps its byte offset and
raw bytes, so a reader can come back to one line later without scanning again (general_fc does).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any


class JsonlError(ValueError):
    """A line that cannot be used: ``line`` (1-based) and ``message`` (without the file)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Line:
    number: int  # 1-based, as an editor shows it
    offset: int  # byte offset of ``raw`` in the file
    raw: bytes  # the line's bytes, without the byte-order mark and the final b"\n"
    text: str  # decoded, without a final "\r"


def lines(handle: Iterable[bytes]) -> Iterator[Line]:
    """The non-blank lines of a binary file (or of ``data.splitlines(keepends=True)``-like pieces that
    each end with ``b"\\n"``)."""
    offset = 0
    for index, piece in enumerate(handle):
        skip = len(codecs.BOM_UTF8) if index == 0 and piece.startswith(codecs.BOM_UTF8) else 0
        start = offset + skip
        offset += len(piece)
        raw = piece[skip:].removesuffix(b"\n")
        try:
            text = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as exc:
            raise JsonlError(index + 1, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
        if text.strip():
            yield Line(index + 1, start, raw, text)


def pieces(data: bytes) -> Iterator[bytes]:
    """``data`` cut after every ``b"\\n"``: what iterating a binary file gives, for text in memory."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end == -1 else end + 1
        yield data[start:end]
        start = end


def json_type(value: Any) -> str:
    """A JSON value's kind in words (``an object``, ``a list``...), for messages."""
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def parse_object(
    line: Line, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None, *, objects_only: bool = True
) -> Any:
    """The JSON object on ``line``, or :class:`JsonlError` (``not valid JSON (<why> at column <n>)``,
    ``expected a JSON object, got a list``); with ``objects_only=False`` any JSON value."""
    try:
        value = json.loads(line.text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise JsonlError(line.number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:  # a hook's refusal, nesting too deep, digits beyond the limit
        raise JsonlError(line.number, f"not valid JSON ({exc or type(exc).__name__})") from None
    if objects_only and not isinstance(value, dict):
        raise JsonlError(line.number, f"expected a JSON object, got {json_type(value)}")
    return value
