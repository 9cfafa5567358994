"""A rollout's dialogue as text for failure output: who said what, each executed call and its result."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.acebench.agents.dispatch import ERROR, UNKNOWN
from pytest_toolcall.benchmarks.acebench.agents.rollout import Rollout
from pytest_toolcall.text import clip


def format_transcript(rollout: Rollout, width: int = 300) -> str:
    lines = []
    for i, message in enumerate(rollout.transcript):
        head = f"{i:>3} {message.sender} -> {message.recipient}:"
        if message.sender != "execution":
            lines.append(f"{head} {_one_line(message.content, width)}")
            continue
        if not message.calls:  # unparseable reply, or a reply with zero calls
            note = " (reply not parseable)" if isinstance(message.content, str) else " (no calls)"
            lines.append(f"{head} {_one_line(message.content, width)}{note}")
            continue
        lines.append(head)
        for call in message.calls:
            args = ", ".join(f"{key}={_show(value)}" for key, value in call.arguments.items())
            mark = {ERROR: "raised", UNKNOWN: "unknown method; result repeats"}.get(call.outcome, "->")
            lines.append(f"      {call.name}({args}) {mark} {_one_line(call.result, width)}")
        content = message.content
        if isinstance(content, list) and len(content) != len(message.calls):
            # multi_turn stopped the batch: the agent gets the official template, one character per item
            sent = "".join(content) if all(isinstance(c, str) and len(c) == 1 for c in content) else content
            lines.append(f"      batch stopped; the agent receives: {_one_line(sent, width)}")
    end = "finish conversation" if rollout.finished else "message cap reached"
    lines.append(f"    [{end}; {len(rollout.process)} replies executed]")
    return "\n".join(lines)


def _show(value: Any) -> str:
    return clip(repr(value) if isinstance(value, str) else value, 80)


def _one_line(value: Any, width: int) -> str:
    return clip(value, width).replace("\n", "\\n")
