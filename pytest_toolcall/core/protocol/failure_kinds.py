"""Why an answer given through native tool calling failed: one vocabulary for every benchmark that
asks that way (general_fc, user cases), shown in summaries, JUnit properties and the HTML report."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

NO_CALL = "no_call"
UNEXPECTED_CALL = "unexpected_call"
UNKNOWN_TOOL_KIND = "unknown_tool"
INVALID_JSON = "invalid_json"
SCHEMA_VIOLATION = "schema_violation"
WRONG_VALUE = "wrong_value"
MISSING_CALL = "missing_call"
EXTRA_CALL = "extra_call"
WRONG_ORDER = "wrong_order"
TRUNCATED = "truncated"
TOOL_MARKUP_IN_TEXT = "tool_markup_in_text"
#: Multi-step runs: the final text answer differs, or the step budget was spent before one came.
WRONG_FINAL = "wrong_final"
STEP_LIMIT = "step_limit"
#: Reasoning, and neither text nor a tool call (a reasoning parser that swallowed the answer).
REASONING_ONLY = "reasoning_only"
#: The endpoint answered with another HTTP status than the case expects (``expect.status``).
UNEXPECTED_STATUS = "unexpected_status"
#: A streamed answer that broke a stream rule (``--toolcall-stream on|both``).
STREAM_PROTOCOL = "stream_protocol"
#: ``--toolcall-stream both``: the streamed answer differs from the plain one.
STREAM_MISMATCH = "stream_mismatch"
FAILURE_KINDS = (
    NO_CALL,
    UNEXPECTED_CALL,
    UNKNOWN_TOOL_KIND,
    INVALID_JSON,
    SCHEMA_VIOLATION,
    WRONG_VALUE,
    MISSING_CALL,
    EXTRA_CALL,
    WRONG_ORDER,
    TRUNCATED,
    TOOL_MARKUP_IN_TEXT,
    WRONG_FINAL,
    STEP_LIMIT,
    REASONING_ONLY,
    UNEXPECTED_STATUS,
    STREAM_PROTOCOL,
    STREAM_MISMATCH,
)


# Call syntax of common chat templates, which a serving stack that failed to parse it leaves in the text.
_MARKUP = re.compile(
    r"<tool_call>|</tool_call>|<tool_calls>|<function=|<\|tool_call|<\|python_tag\|>|\[TOOL_CALLS\]"
    r"|<invoke name=|<｜tool▁call|<\|tool_calls_section_begin\|>|\bfunctions\.\w+:\d+"
    r"|\"name\"\s*:\s*\"[^\"]+\"\s*,\s*\"(?:arguments|parameters)\"\s*:",
)


def has_tool_markup(content: str | None, tool_names: list[str]) -> bool:
    """Whether the text looks like it holds a tool call: template markup, a JSON call object, or an
    expected tool written as a function call (``get_weather(city="Paris")``)."""
    if not content:
        return False
    if _MARKUP.search(content):
        return True
    return any(re.search(rf"\b{re.escape(name)}\s*\(", content) for name in tool_names)


def failure_kind_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How often each failure kind occurs among failed records, most frequent first."""
    counts = Counter(r["failure_kind"] for r in records if r.get("failure_kind"))
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def failure_kind_line(counts: dict[str, int]) -> str | None:
    """The summary line of a block's failure kinds, or None when nothing failed."""
    return ("failure kinds: " + ", ".join(f"{k} {n}" for k, n in counts.items())) if counts else None
