"""JSON Schema ``pattern`` matching (and case files' ``$regex``) in bounded time, with the verdicts of
Python's ``re.search`` (``re.fullmatch``).

jsonschema matches ``pattern`` and ``patternProperties`` with ``re.search``, a backtracking engine:
a pattern such as ``^(a+)+$`` against 34 ``a``s and a ``!`` takes minutes, and the text is the
model's. K2-Vendor-Verifier validates with jsonschema, so its verdicts are those of ``re.search``.

Here a pattern is matched by RE2 (PyPI ``google-re2``, a linear-time engine) whenever RE2 is known
to give ``re.search``'s answer for that pattern and that text; otherwise (a pattern RE2 cannot
compile: backreferences, lookarounds, ``\\Z``...; or a text outside the range where the two engines
agree) by ``re.search`` itself in a helper process that is killed after ``FALLBACK_SECONDS``. A
match that does not finish in time raises ``PatternTimeout``; the scorer counts that call invalid.

Where RE2 and ``re`` agree (checked, and tested against ``re`` on generated cases): the pattern is
ASCII, has no ``{,n}`` (an open lower bound in ``re``, a literal in RE2) and no ``[:`` (a POSIX class
in RE2, a set in ``re``); the text has no lone surrogate, and does not end with a newline when the
pattern has a ``$`` (which matches before one in ``re``). When the pattern uses a class or flag
whose meaning is Unicode in ``re`` and ASCII in RE2 (``\\d \\w \\s \\b``, their negations, ``(?i)``),
the text must also be ASCII without the control characters ``re`` counts as space (``\\x0b``, ``\\x1c``-``\\x1f``).
"""

from __future__ import annotations

import functools
import json
import re
import select
import subprocess
import sys
import threading
from typing import Any

#: Seconds a fallback match may take (``re`` in a helper process) before it is abandoned.
FALLBACK_SECONDS = 2.0

_UNICODE_SENSITIVE = re.compile(r"\\[dDwWsSbB]|\(\?[a-zA-Z-]*i")
_RE2_INCOMPATIBLE = re.compile(r"\{,|\[:")
_NOT_ASCII_TEXT = re.compile(r"[^\x00-\x7f]|[\x0b\x1c-\x1f]")


class PatternTimeout(Exception):
    """A pattern that could not be matched within the time bound."""


def search(pattern: str, text: str) -> bool:
    """``re.search(pattern, text) is not None``, in bounded time (or ``PatternTimeout``)."""
    compiled = _re2(pattern)
    if compiled is not None and _re2_agrees(pattern, text):
        return compiled.search(text) is not None
    return _fallback.search(pattern, text)


def fullmatch(pattern: str, text: str) -> bool:
    """``re.fullmatch(pattern, text) is not None``, in bounded time (or ``PatternTimeout``); a pattern
    ``re`` cannot compile raises ``re.error``."""
    compiled = _re2(pattern)
    if compiled is not None and _re2_agrees(pattern, text):
        return compiled.fullmatch(text) is not None
    return _fallback.search(pattern, text, "fullmatch")


@functools.lru_cache(maxsize=4096)
def _re2(pattern: str) -> Any:
    """The RE2 program of ``pattern``, or None (RE2 not installed, or a pattern it cannot take)."""
    if not pattern.isascii() or _RE2_INCOMPATIBLE.search(pattern):
        return None
    try:
        re.compile(pattern)  # (fast even for patterns slow to match) re's errors stay re's: fallback
    except (re.error, RecursionError, OverflowError):
        return None
    try:
        import re2
    except ImportError:  # optional at run time: everything then goes through the fallback
        return None
    options = re2.Options()
    options.log_errors = False  # RE2 would print every pattern it rejects to stderr
    try:
        return re2.compile(pattern, options)
    except Exception:  # re2.error, or a pattern too big for its memory budget
        return None


def _re2_agrees(pattern: str, text: str) -> bool:
    if text.endswith("\n") and "$" in pattern:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: RE2 matches UTF-8
        return False
    return not (_UNICODE_SENSITIVE.search(pattern) and _NOT_ASCII_TEXT.search(text))


# --- the fallback: re.search in a helper process, killed when it runs too long ----------------------

_HELPER = """
import json, re, sys
for line in sys.stdin:
    pattern, text, how = json.loads(line)
    try:
        found = getattr(re, how)(pattern, text) is not None
    except Exception as exc:
        found = repr(exc)
    sys.stdout.write(json.dumps(found) + "\\n")
    sys.stdout.flush()
"""


class _Fallback:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None

    def search(self, pattern: str, text: str, how: str = "search") -> bool:
        line = json.dumps([pattern, text, how]).encode("ascii") + b"\n"  # ASCII escapes: surrogates survive
        with self._lock:
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(line)
                process.stdin.flush()
                ready, _, _ = select.select([process.stdout], [], [], FALLBACK_SECONDS)
                answer = process.stdout.readline() if ready else b""
            except OSError:
                answer = b""
            if not answer:
                self._kill()
                raise PatternTimeout(f"pattern {pattern[:80]!r} not matched within {FALLBACK_SECONDS:g}s")
        found = json.loads(answer)
        if isinstance(found, str):  # re raised: as jsonschema would have (the schema check catches most)
            raise re.error(found)
        return bool(found)

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
            )
        return self._process

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


_fallback = _Fallback()


def bounded_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with ``pattern`` and ``patternProperties`` matched by
    ``search``: the same errors, in bounded time."""
    return _bounded(cls)


@functools.cache
def _bounded(cls: Any) -> Any:
    """jsonschema's own keyword functions (``jsonschema/_keywords.py``, the same messages), with
    ``search`` where they call ``re.search``."""
    import jsonschema
    from jsonschema._utils import extras_msg

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for property_pattern, subschema in patterns.items():
            for key, value in instance.items():
                if search(property_pattern, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=property_pattern)

    def additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        extras = set(_additional_properties(instance, schema))
        if validator.is_type(additional, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], additional, path=extra)
        elif not additional and extras:
            if "patternProperties" in schema:
                verb = "does" if len(extras) == 1 else "do"
                joined = ", ".join(repr(each) for each in sorted(extras))
                patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
                yield jsonschema.ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
            else:
                error = "Additional properties are not allowed (%s %s unexpected)"
                yield jsonschema.ValidationError(error % extras_msg(sorted(extras, key=str)))

    replacements = {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "additionalProperties": additional_properties,
    }
    keywords = {name: function for name, function in replacements.items() if name in cls.VALIDATORS}
    return jsonschema.validators.extend(cls, keywords) if keywords else cls


def _additional_properties(instance: dict[str, Any], schema: dict[str, Any]) -> Any:
    """jsonschema's ``find_additional_properties`` (one search of the joined patterns), bounded."""
    properties = schema.get("properties", {})
    patterns = "|".join(schema.get("patternProperties", {}))
    for name in instance:
        if name not in properties:
            if patterns and search(patterns, name):
                continue
            yield name
