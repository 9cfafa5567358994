"""calc: an example pytest-toolcall benchmark in one file.

Each sample is an arithmetic question; the model is given two tools (``add``, ``multiply``) and
passes when it calls the right one with the right operands. Everything a benchmark implements is
here: options, loading (with problems naming file and line), the plan of a unit, scoring, the
metrics block, its summary rows and its gate names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.core.benchmark import Benchmark, Loaded, Models, Plan, Requests, Unit, Verdict
from pytest_toolcall.core.settings import Option
from pytest_toolcall.core.types import ChatRequest

SAMPLES = Path(__file__).with_name("samples.jsonl")
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
    for name in ("add", "multiply")
]


class Calc(Benchmark):
    name = "calc"
    markers: ClassVar[dict[str, str]] = {"add": "calc: an addition", "multiply": "calc: a multiplication"}
    options = (Option("calc-file", "calc: JSONL file of questions (default: the shipped samples)", metavar="PATH"),)

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        self.file = Path(settings.option("calc-file") or SAMPLES)

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
        answer = {
            "tool_calls": [
                {"id": "c1", "name": sample["op"], "arguments": json.dumps({"a": sample["a"], "b": sample["b"]})}
            ]
        }
        messages = [{"role": "user", "content": sample["question"]}]
        return Requests([ChatRequest(messages, tools=TOOLS, reference=answer if models.oracle else None)])

    def score(self, unit: Unit, answer: Any) -> Verdict:
        (response,) = answer
        sample = unit.sample
        calls = [(c["name"], _arguments(c["arguments"])) for c in response.tool_calls]
        expected = (sample["op"], {"a": sample["a"], "b": sample["b"]})
        passed = calls == [expected]
        message = "" if passed else f"expected {expected[0]}({expected[1]}), got {calls or response.content!r}"
        return Verdict(passed, message, {"output": response.content, "tool_calls": response.tool_calls})

    def aggregate(self, records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        scored = [r for r in records if r.get("outcome") != "skipped"]
        passed = sum(1 for r in scored if r.get("score") == 1.0)
        by_op = {op: [r for r in scored if r["category"] == op] for op in ("add", "multiply")}
        return {
            self.name: {
                "n": len(scored),
                "passed": passed,
                "accuracy": passed / len(scored) if scored else None,
                **{f"{op}_accuracy": _mean(rs) for op, rs in by_op.items()},
            }
        }

    def summary(self, name: str, block: dict[str, Any]) -> list[str]:
        lines = [f"{'metric':<20}{'value':>8}"]
        for key in ("n", "passed", "accuracy", "add_accuracy", "multiply_accuracy"):
            value = block[key]
            lines.append(
                f"{key:<20}{'-' if value is None else format(value, '.3f' if isinstance(value, float) else 'd'):>8}"
            )
        return lines

    @classmethod
    def claims_metric(cls, name: str) -> bool:
        if not name.startswith("calc."):
            return False
        if name not in ("calc.accuracy", "calc.add_accuracy", "calc.multiply_accuracy"):
            raise ValueError(f"unknown calc metric {name!r}")
        return True

    @classmethod
    def gate_values(cls, name: str, metrics: dict[str, dict[str, Any]]) -> list[tuple[str, float | None]]:
        block = metrics.get(cls.name)
        return [(name, block.get(name.removeprefix("calc.")) if block else None)]


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw


def _mean(records: list[dict[str, Any]]) -> float | None:
    return sum(r.get("score") == 1.0 for r in records) / len(records) if records else None
