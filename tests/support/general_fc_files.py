"""Small general_fc files for the reliability tests: one tool, a few lines, and the answers of a
scripted model keyed by the user message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.scripted_runs import WEATHER


def line(text: str, should_call_tool: bool = True, tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "messages": [{"role": "user", "content": text}],
        "tools": tools if tools is not None else [WEATHER],
        "should_call_tool": should_call_tool,
    }


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in lines), encoding="utf-8")
    return path


def general_fc_args(base_url: str, path: Path, *extra: str) -> list[str]:
    """A general_fc run against ``base_url``: no store, no retries unless ``extra`` says otherwise."""
    return [
        "--toolcall-model=vendor-model",
        f"--toolcall-base-url={base_url}",
        "--toolcall-bench=general_fc",
        f"--toolcall-general-fc={path}",
        "--toolcall-cache=off",
        "--toolcall-max-retries=0",
        "-p",
        "no:randomly",
        *extra,
    ]
