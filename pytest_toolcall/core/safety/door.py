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
    """Mask the password and the credential-like query values of ``url`` (``url_secrets`` decides
    which). Not the user name: ``user`` or ``admin`` is a word answers and data carry, not a secret;
    and, as for keys, nothing shorter than ``MIN_SECRET``."""
    from urllib.parse import unquote, urlsplit

    user = urlsplit((url or "").partition("?")[0]).username
    for secret in url_secrets(url):
        if user is not None and secret in (user, unquote(user)):
            continue
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


def _text_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _counts_or_none(value: Any) -> bool:
    return value is None or (
        isinstance(value, dict) and all(isinstance(k, str) and _count(v) for k, v in value.items())
    )


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


#: What each annotation of ``ChatResponse``'s fields admits (a field added later is checked by its
#: annotation; one of a kind not listed here is refused until it is).
_ADMITS: dict[str, tuple[Any, str]] = {
    "str | None": (_text_or_none, "a string or null"),
    "float": (lambda v: _is_number(v), "a number"),
    "float | None": (lambda v: v is None or _is_number(v), "a number or null"),
    "int": (_count, "a count"),
    "bool": (lambda v: type(v) is bool, "a boolean"),
    "dict[str, int] | None": (_counts_or_none, "token counts or null"),
    "list[str]": (_texts, "a list of strings"),
    "list[dict[str, Any]]": (_objects, "a list of objects"),
}


def chat_response(fields: Any, what: str) -> ChatResponse:
    """A ``ChatResponse`` from its fields as another process or the store sends them: every field of
    the type its annotation says (``Refused`` naming the first that is not), at most ``MAX_DEPTH``
    deep, secrets masked."""
    if not isinstance(fields, dict):
        raise Refused(f"{what}: expected an answer object, got {_kind(fields)}")
    declared = ChatResponse.__dataclass_fields__
    unknown = sorted(str(k) for k in fields if k not in declared)
    if unknown:
        raise Refused(f"{what}: unknown field {inert(unknown[0], 60)!r}")
    if "content" not in fields:
        raise Refused(f"{what}: no content field")
    check_depth(fields, what)
    for key, value in fields.items():
        admits, expected = _ADMITS.get(str(declared[key].type), (None, str(declared[key].type)))
        if admits is None or not admits(value):
            raise Refused(f"{what}: {key}: expected {expected}, got {_short(value)}")
    for number, call in enumerate(fields.get("tool_calls") or []):
        for key in ("id", "name"):
            if not _text_or_none(call.get(key)):
                raise Refused(f"{what}: tool_calls[{number}].{key}: expected a string or null, got {_kind(call[key])}")
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
