"""``--toolcall-fail-under``: thresholds on the aggregate metrics, and the exit status they decide.

Metric names: ``overall``, a group (``atom``, ``single_turn``, ``multi_turn``, ``normal``, ``special``,
``agent``; also ``normal_atom``, ``normal_single_turn``, ``normal_multi_turn``), or a category, each
optionally prefixed by a language (``zh.overall``); unprefixed ACEBench names must hold in every
language run. ``general_fc.<metric>`` names a general_fc metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_toolcall.datasets.acebench import CATEGORIES, GROUPS, LANGUAGES

ALIASES = {"normal_atom": "atom", "normal_single_turn": "single_turn", "normal_multi_turn": "multi_turn"}
ACEBENCH_NAMES = {"overall", *GROUPS, *ALIASES, *CATEGORIES}
GENERAL_FC_NAMES = {"tool_call_f1", "tool_call_precision", "tool_call_recall", "schema_accuracy"}


@dataclass(frozen=True)
class Threshold:
    metric: str  # as written by the user
    minimum: float


def parse_thresholds(text: str) -> list[Threshold]:
    """``overall=0.8,atom=0.9``; raises ValueError with a message for the user."""
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
        _split(name)  # validates the name
        thresholds.append(Threshold(name, minimum))
    if not thresholds:
        raise ValueError("no threshold given")
    return thresholds


def _split(name: str) -> tuple[str, str | None, str]:
    """(benchmark, language or None, metric)."""
    if name.startswith("general_fc."):
        metric = name.removeprefix("general_fc.")
        if metric not in GENERAL_FC_NAMES:
            raise ValueError(f"unknown general_fc metric {metric!r}; choose from {', '.join(sorted(GENERAL_FC_NAMES))}")
        return "general_fc", None, metric
    lang, _, metric = name.removeprefix("acebench/").rpartition(".")
    if lang and lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r} in {name!r}")
    if metric not in ACEBENCH_NAMES:
        raise ValueError(f"unknown metric {name!r}; use overall, a group ({', '.join(GROUPS)}) or a category")
    return "acebench", lang or None, ALIASES.get(metric, metric)


def evaluate(thresholds: list[Threshold], metrics: dict[str, Any], errors: int, max_errors: int) -> list[str]:
    """One message per threshold (or error budget) that does not hold; empty when the gate passes."""
    shortfalls = []
    for threshold in thresholds:
        for label, value in _values(threshold.metric, metrics):
            if value is None:
                shortfalls.append(f"{label} was not measured (required >= {threshold.minimum:g})")
            elif value < threshold.minimum:
                shortfalls.append(f"{label} = {value:.4f} < {threshold.minimum:g}")
    if errors > max_errors:
        shortfalls.append(
            f"{errors} request error(s), more than --toolcall-max-errors={max_errors}: the run is incomplete"
        )
    return shortfalls


def _values(name: str, metrics: dict[str, Any]) -> list[tuple[str, float | None]]:
    bench, lang, metric = _split(name)
    if bench == "general_fc":
        block = metrics.get("general_fc")
        return [(name, block.get(metric) if block else None)]
    langs = [lang] if lang else sorted(k.removeprefix("acebench/") for k in metrics if k.startswith("acebench/"))
    if not langs:
        return [(name, None)]
    values = []
    for language in langs:
        block = metrics.get(f"acebench/{language}")
        values.append((f"acebench/{language} {metric}", _lookup(block, metric) if block else None))
    return values


def _lookup(block: dict[str, Any], metric: str) -> float | None:
    if metric == "overall":
        return block["overall"]
    if metric in GROUPS:
        return block["groups"].get(metric)
    category = block["categories"].get(metric)
    return category["accuracy"] if category else None
