"""Where a compared metric stands against the baseline: one decision, made here, that every output
renders (the terminal and GitHub summaries, the JSON report's comparison, the HTML badges, the gate,
``pytest-toolcall compare``), so that no output says more than the gate's own test measured.

- ``regressed``: a metric the gate checks (a block's headline, or one a threshold names) that the
  paired test finds significantly worse at the gate's alpha: exactly what ``--toolcall-fail-on-regression``
  counts;
- ``worse`` / ``better``: a plain difference, significant or not, not counted by the gate;
- ``same``: no difference (or nothing to compare).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pytest_toolcall.core.stats.comparison import ALPHA, significant_regression

REGRESSED, WORSE, BETTER, SAME = "regressed", "worse", "better", "same"


def standing(name: str, change: Mapping[str, Any], alpha: float, named: Iterable[str] = ()) -> str:
    """The standing of one compared metric (``name``: ``<block>.<metric>``; ``named``: the metric
    names the thresholds give)."""
    gated = bool(change.get("gated")) or any(names(metric, name) for metric in named)
    if gated and significant_regression(change, alpha):
        return REGRESSED
    diff = change.get("diff")
    if not isinstance(diff, (int, float)) or diff == 0:
        return SAME
    return WORSE if diff < 0 else BETTER


def names(metric: str, name: str) -> bool:
    """Whether a threshold's metric name (short or full) names this comparison metric."""
    block, _, short = name.rpartition(".")
    return metric in (name, short) or name.endswith(f"/{metric}") or f"{block.rpartition('/')[2]}.{short}" == metric


def run_gate(run: Mapping[str, Any]) -> tuple[float, list[str]]:
    """The alpha and the threshold names a run's gate used, from its recorded options (the default
    alpha when regressions were not gated: the standing still says what the test found)."""
    options = run.get("options") or {}
    alpha = ALPHA
    text = options.get("fail-on-regression")
    try:
        alpha = float(text) if text else ALPHA
    except (TypeError, ValueError):
        pass
    if not 0.0 < alpha < 1.0:
        alpha = ALPHA
    thresholds = options.get("fail-under")
    named = [part.partition("=")[0].strip() for part in str(thresholds).split(",")] if thresholds else []
    return alpha, [n for n in named if n]


def with_standings(comparison: dict[str, Any], alpha: float, named: Iterable[str] = ()) -> dict[str, Any]:
    """The comparison with each metric's ``standing``, the ``alpha`` and the threshold names
    (``gated_by``) they were decided with."""
    named = list(named)
    metrics = {
        name: {**change, "standing": standing(name, change, alpha, named)}
        for name, change in comparison["metrics"].items()
    }
    return {**comparison, "alpha": alpha, "gated_by": named, "metrics": metrics}


def standings(comparison: Mapping[str, Any], alpha: float | None = None) -> dict[str, str]:
    """Each compared metric's standing as an output renders it: as decided with the report (a report
    from before standings were recorded: decided now, at the default alpha), or anew at ``alpha``
    when an output is told another one (``pytest-toolcall gate --fail-on-regression``)."""
    recorded = comparison.get("alpha")
    at = alpha if alpha is not None else recorded if isinstance(recorded, (int, float)) else ALPHA
    named = [str(n) for n in comparison.get("gated_by") or []]
    out = {}
    for name, change in (comparison.get("metrics") or {}).items():
        if not isinstance(change, Mapping):
            continue
        kept = change.get("standing")
        out[name] = kept if kept in _KNOWN and at == recorded else standing(name, change, at, named)
    return out


_KNOWN = frozenset({REGRESSED, WORSE, BETTER, SAME})
