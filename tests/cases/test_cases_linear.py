"""Case scoring is linear in the number of calls of an answer, also when every call is invalid
(a set rebuilt per call made it quadratic: 40,000 invalid calls took minutes). The bound is on
operations: the Python lines executed, counted by a trace function, not on time."""

from __future__ import annotations

import sys
from typing import Any

from pytest_toolcall.benchmarks.cases.matching import judge, parse_call

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def _lines_executed(n: int, name: str, arguments: str) -> int:
    calls = [parse_call(i + 1, name, arguments) for i in range(n)]
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        verdict = judge(expect, calls, None, "tool_calls", TOOLS)
    finally:
        sys.settrace(None)
    assert not verdict.passed and len(verdict.calls) == n
    return count


def test_every_call_invalid_is_scored_in_linear_operations() -> None:
    for name, arguments in [("no_such_tool", "{}"), ("get_weather", "{not json"), ("get_weather", '{"city": 5}')]:
        small, large = _lines_executed(200, name, arguments), _lines_executed(800, name, arguments)
        # Four times the calls: four times the work (plus a constant), never sixteen.
        assert large < 4.6 * small, (name, arguments, small, large)
