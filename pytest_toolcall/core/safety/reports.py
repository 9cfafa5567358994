"""Reading a JSON report back (``merge``, ``gate``, ``html``, ``merge-junit``, ``--toolcall-baseline``):
one reader, which refuses what is not a report this version wrote before anything uses it.

A report may come from anywhere (an artefact of another job, a file edited by hand): it is read only
from a regular file of a sane size (a FIFO would block, ``/dev/zero`` never ends), every number in it
must be finite and of a sane size (``NaN``, ``1e999``, a 5,000-digit integer), and the fields the
tools read must have their types. Every problem is one line naming the file and the field.

It is in ``core`` because a benchmark reads reports too (general_fc's reference run).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_toolcall.core.safety.door import MAX_REPORT_DEPTH, redact, too_deep
from pytest_toolcall.core.safety.files import read_regular_file

#: The ``schema`` of every JSON report this version writes (and the only one it reads).
SCHEMA = "pytest-toolcall/report/1"

#: The largest report read (bytes): a report of 100,000 items with long outputs is a few hundred MB.
MAX_REPORT_BYTES = 2**30
#: The most digits an integer of a report has (counts, token totals): more is not a report's number.
MAX_DIGITS = 30

OUTCOMES = frozenset({"passed", "failed", "error", "skipped", "xfailed", "xpassed"})


class ReportError(Exception):
    """A report that cannot be used, or reports that cannot be merged: the message names the files."""


class _Unreadable:
    """What the JSON parser found where a finite, sane number belongs (kept to be named by its field)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"{self.text}" if len(self.text) <= 20 else f"an integer of {len(self.text)} digits"


class _Insane(Exception):
    """Raised by the parser's hooks at the first number that is not finite or not of a sane size."""


def _integer(text: str) -> int:
    if len(text) > MAX_DIGITS and len(text.lstrip("-")) > MAX_DIGITS:
        raise _Insane(text)
    return int(text)


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Insane(text)
    return value


def _constant(text: str) -> Any:
    raise _Insane(text)  # NaN, Infinity, -Infinity


def read_json(path: Path, what: str = "JSON report") -> Any:
    """The JSON document at ``path``, every number in it finite and sane: ``ReportError`` otherwise.

    The numbers are checked as the parser meets them (its hooks), so a good document is never walked
    again; only a bad one is parsed a second time, keeping what the hooks refused, to name its field."""
    try:
        data = read_regular_file(path, MAX_REPORT_BYTES, what)
    except OSError as exc:
        raise ReportError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    refused = False
    try:
        text = data.decode("utf-8")
        try:
            document = json.loads(text, parse_int=_integer, parse_float=_number, parse_constant=_constant)
        except _Insane:
            refused = True
            document = json.loads(text, parse_int=_kept_integer, parse_float=_kept_number, parse_constant=_Unreadable)
    except UnicodeDecodeError:
        raise ReportError(f"{path}: not a pytest-toolcall {what} (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ReportError(f"{path}: nested too deep to be a pytest-toolcall {what}") from None
    if too_deep(document, MAX_REPORT_DEPTH):  # the door's bound: no recursive code meets deeper
        raise ReportError(f"{path}: nested deeper than {MAX_REPORT_DEPTH} levels: not a pytest-toolcall {what}")
    if refused:
        where, value = _first_unreadable(document)
        raise ReportError(f"{path}: {where}: {value!r} is not a finite number of a sane size")
    return redact(document)  # the run's keys (none offline): a report from elsewhere may hold them


def _kept_integer(text: str) -> Any:
    return _Unreadable(text) if len(text.lstrip("-")) > MAX_DIGITS else int(text)


def _kept_number(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _Unreadable(text)


def _first_unreadable(document: Any) -> tuple[str, _Unreadable]:
    """Where the first number the hooks refused is (``samples[3].usage.prompt_tokens``)."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _Unreadable):
            return where or "the document", value
        if isinstance(value, dict):
            stack.extend((f"{where}.{key}" if where else str(key), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((f"{where}[{number}]", item) for number, item in enumerate(value))
    raise AssertionError("a number was refused while parsing but is not in the document")


# --- the fields the tools read ---------------------------------------------------------------------


def _number_or_none(value: Any) -> bool:
    return value is None or (type(value) in (int, float))


def _text_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


Check = tuple[Callable[[Any], bool], str]
_NUMBER: Check = (_number_or_none, "a number or null")
_TEXT: Check = (_text_or_none, "a string or null")
_OBJECT: Check = (lambda v: v is None or isinstance(v, dict), "an object or null")

RUN_FIELDS: dict[str, Check] = {
    "model": (lambda v: isinstance(v, str), "a string"),
    "base_url": _TEXT,
    "started_at": _TEXT,
    "finished_at": _TEXT,
    "plugin_version": _TEXT,
    "settings": _OBJECT,
    "datasets": _OBJECT,
    "repeat": (lambda v: v is None or (type(v) is int and v >= 1), "a positive integer"),
    "selected": (_count, "a count (an integer, at least 0)"),
    "not_run": (lambda v: v is None or _count(v), "a count (an integer, at least 0)"),
    "not_asked": (lambda v: v is None or _count(v), "a count (an integer, at least 0)"),
    "data_problems": (lambda v: v is None or _texts(v), "a list of strings"),
    "ordinary_failed": (lambda v: v is None or _texts(v), "a list of strings"),
    "other_requests": (
        lambda v: v is None or (isinstance(v, list) and all(isinstance(e, dict) for e in v)),
        "a list of objects",
    ),
    "interrupted": (lambda v: v is None or isinstance(v, bool), "true or false"),
    "shard": _TEXT,
    "selection": (
        lambda v: isinstance(v, dict) and _count(v.get("count")) and isinstance(v.get("digest"), str),
        "an object with a count and a digest",
    ),
    "options": (lambda v: isinstance(v, dict), "an object"),
    "aggregation": (lambda v: isinstance(v, dict), "an object"),
    "partial": (lambda v: v is None or isinstance(v, bool), "true or false"),
    "missing": (lambda v: v is None or _texts(v), "a list of strings"),
}
SAMPLE_FIELDS: dict[str, Check] = {
    "nodeid": (lambda v: isinstance(v, str), "a string"),
    "benchmark": _TEXT,
    "lang": _TEXT,
    "category": _TEXT,
    "id": (lambda v: v is None or (isinstance(v, (str, int)) and not isinstance(v, bool)), "a string"),
    "outcome": (lambda v: v is None or v in OUTCOMES, f"one of {', '.join(sorted(OUTCOMES))}"),
    "score": _NUMBER,
    "process": _NUMBER,
    "error": _TEXT,
    "latency_s": _NUMBER,
    "failure_kind": _TEXT,
    "reason": _TEXT,
    "repeat": (lambda v: v is None or (type(v) is int and v >= 1), "a positive integer"),
    "usage": _OBJECT,
    "from_store": (lambda v: v is None or isinstance(v, bool), "true or false"),
}


def read_report(path: Path) -> dict[str, Any]:
    """A JSON report, checked enough that what follows never meets a surprise."""
    document = read_json(path)
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise ReportError(f"{path}: not a pytest-toolcall report (schema {found!r}, expected {SCHEMA!r})")
    run, samples, metrics = document.get("run"), document.get("samples"), document.get("metrics")
    if not isinstance(run, dict) or not isinstance(samples, list) or not isinstance(metrics, dict):
        raise ReportError(f"{path}: a report needs 'run' and 'metrics' objects and a 'samples' list")
    _check_fields(path, "run", run, RUN_FIELDS)
    for number, sample in enumerate(samples):
        if not isinstance(sample, dict) or not isinstance(sample.get("nodeid"), str):
            raise ReportError(f"{path}: samples[{number}] is not a sample with a 'nodeid'")
        _check_fields(path, f"samples[{number}]", sample, SAMPLE_FIELDS)
    return document


def _check_fields(path: Path, where: str, section: dict[str, Any], fields: dict[str, Check]) -> None:
    for name, (valid, expected) in fields.items():
        if name in section and not valid(section[name]):
            raise ReportError(f"{path}: {where}.{name}: expected {expected}, got {_shown(section[name])}")


def _shown(value: Any) -> str:
    from pytest_toolcall.core.safety.text import clip

    return f"{type(value).__name__} {clip(json.dumps(value, default=repr), 60)}"
