"""Shared by the tests of user cases: tools, answers and a case file written to a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_toolcall.core.protocol.types import ChatResponse

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
TOOLS = [WEATHER, TIME]


def answer(*calls: tuple[str, Any], content: str | None = None, finish: str | None = None) -> ChatResponse:
    """A response with these (name, arguments) calls; a non-string argument is sent as its JSON."""
    tool_calls = [
        {
            "id": f"c{i}",
            "name": name,
            "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False),
        }
        for i, (name, args) in enumerate(calls)
    ]
    return ChatResponse(content, finish or ("tool_calls" if calls else "stop"), tool_calls)


def text(content: str, finish: str = "stop") -> ChatResponse:
    return ChatResponse(content, finish, [])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path
