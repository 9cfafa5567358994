"""The door: the one boundary through which every byte from outside the process comes in.

Outside is everything this process did not write itself: model answers (plain, streamed, Responses;
the model under test, the user simulator and the judge alike), MCP servers (their stderr, tool lists,
names, descriptions, schemas, results and errors), results files and reports, the response store and
case files. What comes in is made safe here, before any other code holds it:

* **secrets redacted**: the API keys of the run's models, the credentials written in their URLs
  (``add_secret``, ``add_url``, registered when a run starts) and every secret handed to a child
  process (``child_environment``) are replaced by ``***`` in every string, dictionary keys
  included, at any depth (``redact``);
* **bounded**: JSON nested deeper than ``MAX_DEPTH`` levels is refused (``loads``, ``check_depth``)
  before any recursive code walks it; text is cut to a documented size with a note saying so
  (``cap``);
* **typed**: a value of the wrong type is refused with one line naming what it came from
  (``chat_response``, ``string``).

A refusal is a ``Refused`` (a ``ValueError``) whose message is one line naming the source; each
entry point turns it into what its source's failure is (a stream rule broken, a request error, a
usage error naming file and line). What is printed still goes through ``text.inert``: the door
makes input safe to hold, ``inert`` makes text safe to print, and neither relies on the other.
docs/security.md lists every source and what the door does to it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.core.protocol.types import ChatResponse
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.core.safety.urls import CREDENTIAL_NAME, url_secrets

#: The deepest nesting of JSON from outside (answers, tool lists, judge verdicts, store rows, results
#: files). A chat completion is 6 levels deep, a tool schema rarely 20; what is deeper is not data a
#: scorer needs, and recursive code (``copy``, ``repr``, jsonschema) must never meet it.
MAX_DEPTH = 100
#: The deepest nesting of a JSON report (it quotes answers and arguments at their own depth).
MAX_REPORT_DEPTH = 400
#: The largest text of an MCP tool result (characters) the model is sent and the store keeps.
MCP_RESULT_LIMIT = 100_000
#: The largest text of any other field an MCP server sends (a description, an error message).
MCP_TEXT_LIMIT = 20_000
#: The most of an MCP server's stderr that is kept to be quoted (characters, its end).
STDERR_LIMIT = 600
#: Secrets shorter than this are not masked: local servers take placeholders (``EMPTY``, ``x``), and
#: replacing those in answers would rewrite what the model said and change its score.
MIN_SECRET = 8

MASK = "***"

# The run's secrets, longest first (a secret that contains another is masked whole).
_SECRETS: list[str] = []

#: What a child process (an MCP server) inherits of this process's environment: the search path,
#: the home folder and the locale, never the run's keys.
_INHERITED = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR")


class Refused(ValueError):
    """Input the door does not let in: the message is one line naming its source and why."""


# --- secrets ---------------------------------------------------------------------------------------


def add_secret(value: str | None) -> None:
    """Mask ``value`` (a key, a password) wherever text from outside carries it, from now on."""
    if isinstance(value, str) and len(value) >= MIN_SECRET and value not in _SECRETS:
        _SECRETS.append(value)
        _SECRETS.sort(key=len, reverse=True)


def add_url(url: str | None) -> None:
    """Mask the user name, password and credential-like query values of ``url``."""
    for secret in url_secrets(url):
        add_secret(secret)


def secrets() -> tuple[str, ...]:
    """The secrets masked now, longest first."""
    return tuple(_SECRETS)


def forget_secrets() -> None:
    """Mask nothing any more (a run's end; tests)."""
    _SECRETS.clear()


def redact(value: Any, extra: tuple[str, ...] = ()) -> Any:
    """``value`` with every secret (and each of ``extra``) replaced by ``***`` in every string, keys
    included, at any depth; the value itself when nothing is to be masked. ``value`` has passed
    ``check_depth`` (or comes from ``loads``), so the walk is bounded."""
    masked = [*_SECRETS, *(s for s in extra if isinstance(s, str) and len(s) >= MIN_SECRET)]
    if not masked:
        return value
    return _masked(value, masked)


def _masked(value: Any, masked: list[str]) -> Any:
    if isinstance(value, str):
        for secret in masked:
            if secret in value:
                value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {_masked(k, masked): _masked(v, masked) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v, masked) for v in value]
    return value


# --- bounds ----------------------------------------------------------------------------------------


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists and dictionaries deeper than ``limit`` levels (walked without
    recursion, so any depth is measured)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list, tuple)))
        elif isinstance(item, (list, tuple)):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list, tuple)))
    return False


def check_depth(value: Any, what: str, limit: int = MAX_DEPTH) -> Any:
    """``value`` when it nests at most ``limit`` levels deep; ``Refused`` naming ``what`` otherwise."""
    if too_deep(value, limit):
        raise Refused(f"{what}: nested deeper than {limit} levels: refused")
    return value


def loads(data: str | bytes, what: str, *, limit: int = MAX_DEPTH, max_bytes: int | None = None, **hooks: Any) -> Any:
    """The JSON value of ``data``, at most ``limit`` levels deep and with the run's secrets masked;
    ``Refused`` with one line naming ``what`` for anything else (not UTF-8, not JSON, too deep, too
    large, digits beyond Python's limit). ``hooks``: ``json.loads``'s ``parse_*`` arguments."""
    if max_bytes is not None and len(data) > max_bytes:
        raise Refused(f"{what}: {len(data):,} bytes, more than {max_bytes:,}: refused")
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Refused(f"{what}: not UTF-8 text (at byte {exc.start})") from None
    if not isinstance(data, str):
        raise Refused(f"{what}: expected JSON text, got {type(data).__name__}")
    try:
        value = json.loads(data, **hooks)
    except json.JSONDecodeError as exc:
        raise Refused(f"{what}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:  # the parser itself gave up: far deeper than any limit
        raise Refused(f"{what}: nested deeper than {limit} levels: refused") from None
    except ValueError as exc:  # an integer beyond Python's digit limit, a hook's refusal
        raise Refused(f"{what}: not usable JSON ({exc})") from None
    # Fewer brackets than the limit cannot nest deeper than it: the walk is skipped (C-speed count).
    if data.count("[") + data.count("{") > limit:
        check_depth(value, what, limit)
    return redact(value)


def cap(text: str, limit: int, what: str) -> str:
    """``text`` cut to ``limit`` characters, with a note saying how much was cut and why."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[{len(text) - limit:,} more characters cut: {what} is capped at {limit:,} characters]"


def string(value: Any, what: str, limit: int | None = None) -> str:
    """A text field from outside: a string (``Refused`` otherwise), secrets masked, cut at ``limit``."""
    if not isinstance(value, str):
        raise Refused(f"{what}: expected a string, got {_kind(value)}")
    text = redact(value)
    return cap(text, limit, what) if limit is not None else text


def printable(value: Any, limit: int = STDERR_LIMIT) -> str:
    """Text from outside that will be printed as it is (a server's stderr, a name it gave): secrets
    masked, then made inert (no escape byte, no workflow command), at most ``limit`` characters."""
    text = value if isinstance(value, str) else str(value)
    return inert(redact(text), limit)


# --- child processes -------------------------------------------------------------------------------


def child_environment(extra: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The environment of a child process the run starts (an MCP server): the search path, home and
    locale of this one, and ``extra`` (what the case file names), never the run's keys. Values of
    ``extra`` that can be credentials are masked in whatever the child sends back."""
    env = {k: v for k, v in os.environ.items() if k in _INHERITED or k.startswith("LC_")}
    for key, value in (extra or {}).items():
        env[str(key)] = str(value)
        if _credential_like(str(key), str(value)):
            add_secret(str(value))
    return env


def _credential_like(key: str, value: str) -> bool:
    return bool(CREDENTIAL_NAME.search(key)) or len(value) >= 16


# --- types -----------------------------------------------------------------------------------------

_OPTIONAL_TEXT = ("content", "finish_reason", "reasoning")
_NUMBERS = ("latency_s",)
_COUNTS = ("retries", "status")


def chat_response(fields: Any, what: str) -> ChatResponse:
    """A ``ChatResponse`` from its fields as another process or the store sends them: every field of
    its type (``Refused`` naming the first that is not), at most ``MAX_DEPTH`` deep, secrets masked."""
    if not isinstance(fields, dict):
        raise Refused(f"{what}: expected an answer object, got {_kind(fields)}")
    known = set(ChatResponse.__dataclass_fields__)
    unknown = sorted(str(k) for k in fields if k not in known)
    if unknown:
        raise Refused(f"{what}: unknown field {inert(unknown[0], 60)!r}")
    if "content" not in fields:
        raise Refused(f"{what}: no content field")
    check_depth(fields, what)
    for key in _OPTIONAL_TEXT:
        if fields.get(key) is not None and not isinstance(fields[key], str):
            raise Refused(f"{what}: {key}: expected a string or null, got {_kind(fields[key])}")
    for key in _NUMBERS:
        if key in fields and not _is_number(fields[key]):
            raise Refused(f"{what}: {key}: expected a number, got {_kind(fields[key])}")
    for key in _COUNTS:
        if key in fields and not (type(fields[key]) is int and fields[key] >= 0):
            raise Refused(f"{what}: {key}: expected a count, got {_kind(fields[key])}")
    if fields.get("stored_at") is not None and not _is_number(fields["stored_at"]):
        raise Refused(f"{what}: stored_at: expected a number or null, got {_kind(fields['stored_at'])}")
    if "from_store" in fields and type(fields["from_store"]) is not bool:
        raise Refused(f"{what}: from_store: expected a boolean, got {_kind(fields['from_store'])}")
    usage = fields.get("usage")
    if usage is not None and not (
        isinstance(usage, dict) and all(isinstance(k, str) and type(v) is int and v >= 0 for k, v in usage.items())
    ):
        raise Refused(f"{what}: usage: expected token counts or null, got {_short(usage)}")
    calls = fields.get("tool_calls", [])
    if not isinstance(calls, list):
        raise Refused(f"{what}: tool_calls: expected a list, got {_kind(calls)}")
    for number, call in enumerate(calls):
        if not isinstance(call, dict):
            raise Refused(f"{what}: tool_calls[{number}]: expected an object, got {_kind(call)}")
        for key in ("id", "name"):
            if call.get(key) is not None and not isinstance(call[key], str):
                raise Refused(f"{what}: tool_calls[{number}].{key}: expected a string or null, got {_kind(call[key])}")
    problems = fields.get("stream_problems", [])
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise Refused(f"{what}: stream_problems: expected a list of strings")
    return ChatResponse(**redact(fields))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    if type(value) in names:
        return names[type(value)]
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__


def _short(value: Any) -> str:
    try:
        return inert(json.dumps(value)[:60], 80)
    except (TypeError, ValueError, RecursionError):
        return _kind(value)
