"""A simulation as text, for a failing item's message."""

from __future__ import annotations

import json
from typing import Any

from pytest_toolcall.api.text import one_line

#: A tool result longer than this is cut in the transcript (the JSON report keeps the texts).
RESULT_CHARS = 300


def format_transcript(messages: list[dict[str, Any]]) -> str:
    lines = []
    for m in messages:
        role = m.get("role")
        if role == "tool":
            flag = " (error)" if m.get("error") else ""
            side = " (user's phone)" if m.get("requestor") == "user" else ""  # telecom's dual control
            lines.append(f"  tool{side}{flag}: {one_line(str(m.get('content')), RESULT_CHARS)}")
            continue
        if m.get("content"):
            lines.append(f"{role}: {m['content']}")
        for call in m.get("tool_calls") or ():
            lines.append(f"{role} -> {call.get('name')}({json.dumps(call.get('arguments'), ensure_ascii=False)})")
    return "\n".join(lines)
