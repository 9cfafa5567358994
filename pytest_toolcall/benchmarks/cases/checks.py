"""The expectations that stand beside the calls (``expect.json_output``, ``usage``, ``language``,
``repetition``, ``key_order``): what vendors' verifiers check of an answer besides its tool calls
(Kimi Vendor Verifier's structured output and prompt-token counts, MiniMax's provider verifier's
language following, repetition and argument key order). Each returns None when the answer holds,
else ``(failure kind, message)``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from typing import Any

from pytest_toolcall.api.native import compile_schema

INVALID_JSON_OUTPUT = "invalid_json_output"
USAGE_MISMATCH = "usage_mismatch"
WRONG_LANGUAGE = "wrong_language"
REPETITION = "repetition"
KEY_ORDER = "key_order"

#: The languages ``expect.language`` knows: those a script tells apart (a Latin-script language cannot
#: be told from English by its letters), each with the script's code point ranges and a greeting (the
#: oracle's answer).
LANGUAGES: dict[str, tuple[str, tuple[tuple[int, int], ...], str]] = {
    "ja": (
        "Japanese (kana and kanji)",
        ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF)),
        "こんにちは、元気です。",
    ),
    "ko": ("Korean (Hangul)", ((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF)), "안녕하세요, 잘 지내요."),
    "zh": ("Chinese (Han)", ((0x3400, 0x4DBF), (0x4E00, 0x9FFF)), "你好，我很好。"),
    "ru": ("Russian (Cyrillic)", ((0x0400, 0x04FF),), "Здравствуйте, у меня всё хорошо."),
    "uk": ("Ukrainian (Cyrillic)", ((0x0400, 0x04FF),), "Добрий день, у мене все добре."),
    "el": ("Greek", ((0x0370, 0x03FF), (0x1F00, 0x1FFF)), "Γεια σας, είμαι καλά."),
    "ar": ("Arabic", ((0x0600, 0x06FF), (0x0750, 0x077F)), "مرحبا، أنا بخير."),
    "fa": ("Persian (Arabic script)", ((0x0600, 0x06FF), (0x0750, 0x077F)), "سلام، من خوبم."),
    "he": ("Hebrew", ((0x0590, 0x05FF),), "שלום, אני בסדר."),
    "hi": ("Hindi (Devanagari)", ((0x0900, 0x097F),), "नमस्ते, मैं ठीक हूँ।"),
    "bn": ("Bengali", ((0x0980, 0x09FF),), "নমস্কার, আমি ভালো আছি।"),
    "ta": ("Tamil", ((0x0B80, 0x0BFF),), "வணக்கம், நான் நலமாக இருக்கிறேன்."),
    "th": ("Thai", ((0x0E00, 0x0E7F),), "สวัสดีครับ สบายดีครับ"),
    "ka": ("Georgian", ((0x10A0, 0x10FF),), "გამარჯობა, კარგად ვარ."),
    "hy": ("Armenian", ((0x0530, 0x058F),), "Բարեւ, ես լավ եմ."),
}
#: The share of an answer's letters that must be in the language's script.
LANGUAGE_SHARE = 0.8
#: Kana, CJK ideographs and Hangul syllables count one token each (no spaces between words).
_TOKENS = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]|[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+"
)


def json_output(content: str | None, response_format: Any) -> tuple[str, str] | None:
    """The text is JSON: an object for ``json_object``, valid against the schema for ``json_schema``."""
    try:
        value = json.loads(content or "")
    except ValueError as exc:
        return INVALID_JSON_OUTPUT, f"{INVALID_JSON_OUTPUT}: the text is not JSON ({exc}): {_clip(content)}"
    schema = None
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    if schema is None:
        if not isinstance(value, dict):
            return INVALID_JSON_OUTPUT, f"{INVALID_JSON_OUTPUT}: the text is JSON but not an object: {_clip(content)}"
        return None
    compiled = compile_schema(schema)
    if compiled.validator is None:
        return (
            INVALID_JSON_OUTPUT,
            f"{INVALID_JSON_OUTPUT}: the response_format schema is not valid: {compiled.problem}",
        )
    error = next(iter(compiled.validator.iter_errors(value)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(the whole value)"
        message = f"{INVALID_JSON_OUTPUT}: the text is not valid against the response_format schema at {where}"
        return INVALID_JSON_OUTPUT, f"{message}: {error.message[:200]}"
    return None


def usage(answer_usage: dict[str, int] | None, expected: dict[str, int]) -> tuple[str, str] | None:
    """The endpoint's token counts are the expected ones, exactly (a serving stack that renders
    another prompt than the model's template counts other tokens)."""
    got = answer_usage or {}
    wrong = [f"{key} {got.get(key)} (expected {value})" for key, value in expected.items() if got.get(key) != value]
    if not wrong:
        return None
    return USAGE_MISMATCH, f"{USAGE_MISMATCH}: the answer's usage says {', '.join(wrong)}"


def language(content: str | None, code: str) -> tuple[str, str] | None:
    """At least ``LANGUAGE_SHARE`` of the text's letters are in the language's script."""
    name, ranges, _ = LANGUAGES[code]
    letters = [c for c in content or "" if unicodedata.category(c).startswith("L")]
    inside = sum(1 for c in letters if any(low <= ord(c) <= high for low, high in ranges))
    if letters and inside / len(letters) >= LANGUAGE_SHARE:
        return None
    share = f"{inside} of {len(letters)} letters" if letters else "no letters"
    return WRONG_LANGUAGE, f"{WRONG_LANGUAGE}: expected {name}, {share} in its script: {_clip(content)}"


def repetition(content: str | None, n: int, most: int) -> tuple[str, str] | None:
    """No run of ``n`` tokens (words; a kana, ideograph or Hangul syllable each) occurs more than
    ``most`` times: the degenerate loops a misconfigured decoder (top-k, repetition penalty) falls into."""
    tokens = [t.lower() for t in _TOKENS.findall(content or "")]
    grams = Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    if not grams:
        return None
    gram, count = grams.most_common(1)[0]
    if count <= most:
        return None
    shown = " ".join(gram)
    return REPETITION, f"{REPETITION}: {n} tokens {shown!r} occur {count} times (at most {most}): {_clip(content)}"


def key_order(calls: list[tuple[str, Any]], tools: list[dict[str, Any]] | None) -> tuple[str, str] | None:
    """Each call's argument keys come in the order its tool declares them (``parameters.properties``,
    and the properties of nested objects): a stack that sorts keys renders another schema to the
    model. ``calls``: (name, raw arguments text)."""
    declared = {t["function"]["name"]: t["function"].get("parameters") for t in tools or [] if "function" in t}
    for name, raw in calls:
        try:
            value = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            continue  # not JSON: the call's own failure says so
        problem = _order(value, declared.get(name), name)
        if problem:
            return KEY_ORDER, f"{KEY_ORDER}: {problem}"
    return None


def _order(value: Any, schema: Any, path: str) -> str:
    if not isinstance(value, dict) or not isinstance(schema, dict):
        return ""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return ""
    order = [k for k in properties if k in value]
    got = [k for k in value if k in properties]
    if got != order:
        return f"{path}: arguments in the order {got}, the tool declares {order}"
    for key in got:
        problem = _order(value[key], properties[key], f"{path}.{key}")
        if problem:
            return problem
    return ""


def _clip(text: str | None, limit: int = 160) -> str:
    text = text or ""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def check(
    expect: dict[str, Any],
    content: str | None,
    calls: list[tuple[str, Any]],
    answer_usage: dict[str, int] | None,
    tools: list[dict[str, Any]] | None,
    settings: dict[str, Any] | None,
) -> tuple[str, str] | None:
    """The first of the answer's expectations beside the calls that it breaks, or None."""
    if expect.get("json_output"):
        found = json_output(content, (settings or {}).get("response_format"))
        if found:
            return found
    if "usage" in expect:
        found = usage(answer_usage, expect["usage"])
        if found:
            return found
    if "language" in expect:
        found = language(content, expect["language"])
        if found:
            return found
    if "repetition" in expect:
        found = repetition(content, expect["repetition"]["n"], expect["repetition"]["max"])
        if found:
            return found
    if expect.get("key_order"):
        return key_order(calls, tools)
    return None
