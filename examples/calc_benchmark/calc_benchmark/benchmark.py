"""calc: an example pytest-toolcall benchmark in one file (its options declared in ``options.py``), using
only ``pytest_toolcall.api``.

Each sample is an arithmetic question; the model is given two tools (``add``, ``multiply``) and
passes when it calls the right one with the right operands. A benchmark implements loading (with
problems naming file and line), the plan of a unit and its scoring, and declares its rows (the two
operations); ``--toolcall-limit``, the metrics block (accuracy per operation with its interval,
OVERALL, repeats), the summary table, the gate names (``calc.overall``, ``calc.add``,
``calc.multiply``), JUnit properties, the comparison with a baseline, merge and the HTML report are
derived from that declaration. Its own export format (``calc-csv``) is in ``export.py``, and its
tests (``tests/``) use ``pytest_toolcall.testing``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.api import (
    Benchmark,
    ChatRequest,
    Loaded,
    Metrics,
    Models,
    Plan,
    Requests,
    Rows,
    Unit,
    Verdict,
)

from .options import OPTIONS

SAMPLES = Path(__file__).with_name("samples.jsonl")
OPERATIONS = ("add", "multiply")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name.capitalize()} two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        },
    }
    for name in OPERATIONS
]


class Calc(Benchmark):
    name = "calc"
    options = OPTIONS  # declared in options.py, which pytest reads without importing this module
    metrics = Metrics(rows=(Rows(names=OPERATIONS),))
    hooks: ClassVar[str | None] = "calc_benchmark.export"  # its export format

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self.file = Path(settings.option("file") or SAMPLES)

    def load(self) -> Loaded:
        loaded = Loaded(units=[])
        for number, line in enumerate(self.file.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                sample = json.loads(line)
                unit = Unit(self.name, sample["id"], sample["op"], sample["id"], markers=(sample["op"],), sample=sample)
            except (ValueError, KeyError, TypeError) as exc:
                loaded.problems.append((f"calc[line {number}]", f"{self.file}:{number}: not a sample ({exc})"))
                continue
            loaded.units.append(unit)
        return loaded

    def plan(self, unit: Unit, models: Models) -> Plan:
        sample = unit.sample
        call = {"id": "c1", "name": sample["op"], "arguments": json.dumps({"a": sample["a"], "b": sample["b"]})}
        messages = [{"role": "user", "content": sample["question"]}]
        reference = {"content": None, "tool_calls": [call]} if models.oracle else None
        return Requests([ChatRequest(messages, tools=TOOLS, reference=reference)])

    def score(self, unit: Unit, answer: Any) -> Verdict:
        (response,) = answer
        sample = unit.sample
        calls = [(c["name"], _arguments(c["arguments"])) for c in response.tool_calls]
        expected = (sample["op"], {"a": sample["a"], "b": sample["b"]})
        passed = calls == [expected]
        message = "" if passed else f"expected {expected[0]}({expected[1]}), got {calls or response.content!r}"
        return Verdict(passed, message, {"output": response.content, "tool_calls": response.tool_calls})


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw
