"""A rollout's dialogue as text for failure output: who said what, each executed call and its result."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api.text import one_line, show
from pytest_toolcall.benchmarks.acebench.agents.dispatch import ERROR, UNKNOWN
from pytest_toolcall.benchmarks.acebench.agents.rollout import Rollout

#: A run of at least this many identical messages (or identical pairs of messages) is shown once.
REPEATS_SHOWN_ONCE = 3


def format_transcript(rollout: Rollout, width: int = 300) -> str:
    """Every message with its index; a dialogue stuck in a loop (the same reply and the same result
    again and again until the message cap) shows the loop once and says how often it repeated."""
    blocks = [_message_lines(message, width) for message in rollout.transcript]
    lines: list[str] = []
    i = 0
    while i < len(blocks):
        period, times = _repetition(blocks, i)
        for k in range(period):
            head, *rest = blocks[i + k]
            lines += [f"{i + k:>3} {head}", *rest]
        if times > 1:
            last = i + period * times - 1
            lines.append(f"      ... the same {period} message(s) {times - 1} more time(s), up to message {last}")
        i += period * times
    end = "finish conversation" if rollout.finished else "message cap reached"
    lines.append(f"    [{end}; {len(rollout.process)} replies executed]")
    return "\n".join(lines)


def _repetition(blocks: list[list[str]], start: int) -> tuple[int, int]:
    """(period, times): how the messages from ``start`` repeat (1 message or a pair), else (1, 1)."""
    for period in (1, 2):
        pattern = blocks[start : start + period]
        times = 1
        while blocks[start + times * period : start + (times + 1) * period] == pattern:
            times += 1
        if len(pattern) == period and times >= REPEATS_SHOWN_ONCE:
            return period, times
    return 1, 1


def _message_lines(message: Any, width: int) -> list[str]:
    """A message as lines: ``sender -> recipient: content``, then one line per executed call."""
    head = f"{message.sender} -> {message.recipient}:"
    if message.sender != "execution":
        return [f"{head} {one_line(message.content, width)}"]
    if not message.calls:  # unparseable reply, or a reply with zero calls
        note = " (reply not parseable)" if isinstance(message.content, str) else " (no calls)"
        return [f"{head} {one_line(message.content, width)}{note}"]
    lines = [head]
    for call in message.calls:
        args = ", ".join(f"{key}={show(value, 80)}" for key, value in call.arguments.items())
        mark = {ERROR: "raised", UNKNOWN: "unknown method; result repeats"}.get(call.outcome, "->")
        lines.append(f"      {call.name}({args}) {mark} {one_line(call.result, width)}")
    content = message.content
    if isinstance(content, list) and len(content) != len(message.calls):
        # multi_turn stopped the batch: the agent gets the official template, one character per item
        sent = "".join(content) if all(isinstance(c, str) and len(c) == 1 for c in content) else content
        lines.append(f"      batch stopped; the agent receives: {one_line(sent, width)}")
    return lines
