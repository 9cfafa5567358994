"""general_fc data: JSON Lines of ``messages``, ``tools`` and ``should_call_tool``.

One line is one sample; its identity is the file stem and its 0-based line index, so ids stay stable
when other lines are bad. A line that is not a valid sample (not JSON, a missing field, a tool
without a name or whose ``parameters`` is not a JSON Schema...) is dropped and reported with its file
and line. A tool that no call can validate against although the line is well formed (missing or
empty ``parameters``, a name shadowed by an earlier tool) only earns a warning on the sample: data is
sent as given, and such calls simply score invalid.
"""

from __future__ import annotations

import functools
import json
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pytest_toolcall.api import DataError, jsonl
from pytest_toolcall.api.files import check_regular_file
from pytest_toolcall.api.jsonl import json_type
from pytest_toolcall.api.native import json_text, schema_problem

__all__ = ["GeneralFCSample", "LineRef", "index_file", "load_file", "schema_problem", "tool_warnings"]

FIELDS = ("messages", "tools", "should_call_tool")


@dataclass(frozen=True)
class GeneralFCSample:
    file: Path
    stem: str  # file stem, the first part of the item id
    index: int  # 0-based line index in the file (blank and bad lines count)
    line: int  # 1-based line number, for messages
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    should_call_tool: bool
    source: str  # "path:line"
    #: Tools of this line that no call can validate against.
    warnings: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``<stem>/<index>``, as in node ids."""
        return f"{self.stem}/{self.index}"


class LineProblem(Exception):
    """Why one line is dropped (internal: becomes a problem message)."""


def load_file(path: str | Path) -> tuple[list[GeneralFCSample], list[tuple[int, str]]]:
    """The samples of one file, and (0-based index, message with file and line) per line that is not
    a sample.

    A missing or unreadable file raises ``DataError``.
    """
    samples: list[GeneralFCSample] = []
    problems: list[tuple[int, str]] = []
    for index, _, _, parsed in _scan(Path(path)):
        if isinstance(parsed, GeneralFCSample):
            samples.append(parsed)
        else:
            problems.append((index, parsed))
    return samples, problems


@dataclass(frozen=True, eq=False)  # hashed by identity: a key of the read-back cache
class LineRef:
    """A checked sample line, by its place in the file: what a run keeps of each line, so that a
    100,000-line file does not stay in memory as objects. ``sample()`` reads it back when needed."""

    reader: _Reader
    file: Path
    stem: str
    index: int
    should_call_tool: bool
    warnings: tuple[str, ...]
    offset: int  # of the line's bytes in the file
    length: int
    checksum: int  # CRC-32 of those bytes: a line read back is the line that was checked

    @property
    def id(self) -> str:
        return f"{self.stem}/{self.index}"

    def sample(self) -> GeneralFCSample:
        return _read_back(self)


def index_file(path: str | Path) -> tuple[list[LineRef], list[tuple[int, str]]]:
    """``load_file``'s checks and problems, keeping only where each good line is."""
    refs: list[LineRef] = []
    problems: list[tuple[int, str]] = []
    reader = _Reader(Path(path))
    for index, offset, body, parsed in _scan(Path(path)):
        if isinstance(parsed, GeneralFCSample):
            refs.append(
                LineRef(
                    reader,
                    parsed.file,
                    parsed.stem,
                    index,
                    parsed.should_call_tool,
                    parsed.warnings,
                    offset,
                    len(body),
                    zlib.crc32(body),
                )
            )
        else:
            problems.append((index, parsed))
    return refs, problems


class _Reader:
    """The file of a set of lines, opened once for all of them: reading a line back is a seek and a
    read, not an open (which cost more than parsing the line)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: BinaryIO | None = None
        self._lock = threading.Lock()

    def read(self, offset: int, length: int) -> bytes:
        with self._lock:
            if self._handle is None:
                self._handle = open(self.path, "rb")  # closed when the last line is let go
            self._handle.seek(offset)
            return self._handle.read(length)

    def __del__(self) -> None:
        if self._handle is not None:
            self._handle.close()


@functools.lru_cache(maxsize=4)  # the items being asked and scored: a window, never the file
def _read_back(ref: LineRef) -> GeneralFCSample:
    try:
        raw = ref.reader.read(ref.offset, ref.length)
    except OSError as exc:
        raise DataError(f"{ref.file}: cannot read back line {ref.index + 1}: {exc}") from None
    where = f"{ref.file}:{ref.index + 1}"
    if zlib.crc32(raw) != ref.checksum:
        raise DataError(f"{where}: the file changed since the run started")
    # The very bytes checked at load: parsed, not checked again.
    row = json.loads(raw.decode("utf-8").removesuffix("\r"))
    messages, tools = _decoded(row, "messages"), _decoded(row, "tools")
    return GeneralFCSample(
        ref.file, ref.stem, ref.index, ref.index + 1, messages, tools, ref.should_call_tool, where, ref.warnings
    )


def _scan(path: Path) -> Iterator[tuple[int, int, bytes, GeneralFCSample | str]]:
    """(0-based index, byte offset, bytes, sample or problem message) per non-blank line, reading one
    line at a time."""
    try:
        check_regular_file(path, what="data file")  # a FIFO would block the run at its first line
        handle = open(path, "rb")  # closed by the with below; opening errors are DataErrors
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, expected a .jsonl file") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc}") from None
    with handle:
        try:
            for line in jsonl.lines(handle):
                where = f"{path}:{line.number}"
                index = line.number - 1
                try:
                    messages, tools, label = _parse_line(line)
                except LineProblem as exc:
                    yield index, line.offset, line.raw, f"{where}: {exc}"
                    continue
                warnings = tuple(f"{where}: {w}" for w in tool_warnings(tools))
                sample = GeneralFCSample(path, path.stem, index, index + 1, messages, tools, label, where, warnings)
                yield index, line.offset, line.raw, sample
        except jsonl.JsonlError as exc:
            raise DataError(f"{path}: cannot read: {exc}") from None
    # A final newline leaves no last piece; a last line without one is read like the others.


def _parse_line(line: jsonl.Line) -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool]:
    try:
        row = jsonl.parse_object(line)
    except jsonl.JsonlError as exc:
        raise LineProblem(exc.message) from None
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise LineProblem(f"missing field{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    label = row["should_call_tool"]
    if not isinstance(label, bool):  # 0/1 or "true" are not accepted: the label decides every verdict
        got = "null" if label is None else f"{json_type(label)} {json_text(label)}"
        raise LineProblem(f"should_call_tool must be a boolean, got {got}")
    messages = _decoded(row, "messages")
    tools = _decoded(row, "tools")
    _check_messages(messages)
    _check_tools(tools)
    return messages, tools, label


def _decoded(row: dict[str, Any], field: str) -> Any:
    """The field's list; the format also allows a JSON string holding it."""
    value = row[field]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise LineProblem(f"{field} is a string but not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, list):
        raise LineProblem(f"{field} must be a list, got {json_type(value)}")
    if not value:
        # Empty messages cannot be sent; an empty tools list is rejected by OpenAI-style servers and
        # leaves nothing to call.
        raise LineProblem(f"{field} is empty")
    return value


def _check_messages(messages: list[Any]) -> None:
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise LineProblem(f"messages[{i}] must be an object, got {json_type(message)}")
        if not isinstance(message.get("role"), str) or not message["role"]:
            raise LineProblem(f"messages[{i}] has no role")


def _check_tools(tools: list[Any]) -> None:
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise LineProblem(f"tools[{i}] must be an object, got {json_type(tool)}")
        function = tool.get("function")
        if not isinstance(function, dict):
            raise LineProblem(f"tools[{i}] has no function object")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise LineProblem(f"tools[{i}].function has no name")
        parameters = function.get("parameters")
        reason = schema_problem(parameters) if parameters else ""
        if reason:
            raise LineProblem(f"tools[{i}].function.parameters is not a valid JSON Schema: {reason}")


def tool_warnings(tools: list[dict[str, Any]]) -> list[str]:
    """Tools no call can ever validate against: reported, never fatal."""
    warnings = []
    seen: dict[str, int] = {}
    for i, tool in enumerate(tools):
        function = tool["function"]
        name = function["name"]
        if name in seen:
            # calls are looked up by the first tool of that name; this one is never used.
            warnings.append(
                f"tools[{i}].function.name {name!r} repeats tools[{seen[name]}]: calls to {name!r} are checked "
                f"against tools[{seen[name]}] only"
            )
            continue
        seen[name] = i
        if "parameters" not in function:
            warnings.append(f"tools[{i}].function has no parameters: no call to {name!r} can validate")
            continue
        parameters = function["parameters"]
        if not parameters:
            warnings.append(
                f"tools[{i}].function.parameters is empty ({json_text(parameters)}): no call to {name!r} can validate"
            )
    return warnings
