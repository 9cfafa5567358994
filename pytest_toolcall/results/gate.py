"""``--toolcall-fail-under``: thresholds on the aggregate metrics, and the exit status they decide.

Each metric name belongs to the benchmark that claims it (``overall``, ``zh.atom`` and categories are
ACEBench's, ``general_fc.tool_call_f1`` is general_fc's, ...); a name nobody claims is an error before
anything runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.core import registry
from pytest_toolcall.core.benchmark import Benchmark


@dataclass(frozen=True)
class Threshold:
    metric: str  # as written by the user
    minimum: float
    benchmark: type[Benchmark]


def parse_thresholds(text: str, benchmarks: Iterable[type[Benchmark]] | None = None) -> list[Threshold]:
    """``overall=0.8,atom=0.9``; raises ValueError with a message for the user. Names are looked up
    in ``benchmarks`` (default: every installed one)."""
    candidates = list(registry.benchmark_classes().values() if benchmarks is None else benchmarks)
    thresholds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep:
            raise ValueError(f"{part!r} is not METRIC=VALUE")
        try:
            minimum = float(value)
        except ValueError:
            raise ValueError(f"{part!r}: {value.strip()!r} is not a number") from None
        if not 0.0 <= minimum <= 1.0:
            raise ValueError(f"{part!r}: thresholds are between 0 and 1")
        owner = next((b for b in candidates if b.claims_metric(name)), None)
        if owner is None:
            raise ValueError(f"unknown metric {name!r}")
        thresholds.append(Threshold(name, minimum, owner))
    if not thresholds:
        raise ValueError("no threshold given")
    return thresholds


def evaluate(thresholds: list[Threshold], metrics: dict[str, Any], errors: int, max_errors: int) -> list[str]:
    """One message per threshold (or error budget) that does not hold; empty when the gate passes."""
    shortfalls = []
    for threshold in thresholds:
        for label, value in threshold.benchmark.gate_values(threshold.metric, metrics):
            if value is None:
                shortfalls.append(f"{label} was not measured (required >= {threshold.minimum:g})")
            elif value < threshold.minimum:
                shortfalls.append(f"{label} = {value:.4f} < {threshold.minimum:g}")
    if errors > max_errors:
        shortfalls.append(
            f"{errors} request error(s), more than --toolcall-max-errors={max_errors}: the run is incomplete"
        )
    return shortfalls


def verdict_line(shortfalls: list[str], failed: int) -> str:
    """The line that announces the gate's result (in the terminal summary and offline)."""
    if shortfalls:
        return "toolcall gate FAILED: " + "; ".join(shortfalls)
    return f"toolcall gate passed ({failed} item(s) failed, every threshold holds)"


def failed_items(samples: Iterable[dict[str, Any]]) -> int:
    """Items the gate line counts as failed: expected failures (a reference the scorer rejects)
    failed too, and the metrics count them."""
    return sum(1 for r in samples if r.get("outcome") in ("failed", "xfailed"))


def report_errors(samples: list[dict[str, Any]], data_problems: list[str]) -> int:
    """Request errors as the gate counts them: errored items and parts of the data not loaded."""
    return sum(1 for r in samples if r.get("outcome") == "error") + len(data_problems)
