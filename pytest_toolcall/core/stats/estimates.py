"""Uncertainty of the scores: Wilson and bootstrap intervals, pass^k and flaky units under repeats.

Plain functions over plain data (lists and dicts of numbers), standard library only.

Units. A *unit* is one benchmark sample (an ACEBench sample or dialogue, a general_fc line, a case).
Under ``--toolcall-repeat N`` a unit runs as N attempts; ``unit_key`` names the unit without the
attempt, so attempts of one run and units of two runs line up. An attempt's score is the sample's
``score`` (1.0 pass, 0.0 fail; without a score, 1.0 when its outcome is "passed", else 0.0, so an
errored attempt counts 0.0 as in the accuracies); skipped attempts are not part of any unit.

Percentiles (``percentile``) interpolate linearly between order statistics: for sorted values
x[0..n-1] and q in [0, 1], h = (n - 1)·q and the result is x[⌊h⌋] + (h - ⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]),
numpy's default ("linear", Hyndman & Fan type 7). The same rule serves latency p50/p95 and the
bootstrap's percentile interval.

Wilson score interval (``wilson``): for p̂ = passed/n and z = 1.96,
centre = (p̂ + z²/2n) / (1 + z²/n) and half-width = z·√(p̂(1-p̂)/n + z²/4n²) / (1 + z²/n). Unlike the
normal interval it stays inside [0, 1] and is not empty at 0 or n passes. It is the interval of a
category accuracy when each unit ran once.

Bootstrap (``bootstrap_interval``): units are grouped into strata (categories); each resample draws,
in every stratum, as many units as it has, with replacement, so every category keeps its n and a
weighted score keeps its weights. The statistic is recomputed on each resample; the interval is the
2.5th and 97.5th percentile of those values (percentile method, 2,000 resamples by default). The
generator is ``random.Random(seed)`` and each stratum's units are sorted before drawing, with strata
in sorted order: the interval depends only on the seed and the multiset of unit values per stratum,
not on the order the samples arrived in, so a merged report of shards reproduces a single run's
interval exactly. Resamples where the statistic is undefined (None) are dropped. It serves groups,
OVERALL, tool-call F1 (units are (predicted call, should call) pairs) and any accuracy under repeats
(units are per-unit mean scores).

pass^k (``pass_hat_k``, τ-bench): a unit with c passes out of n attempts contributes C(c, k)/C(n, k),
the chance that k attempts drawn without replacement all pass; pass^k is the mean over units. When
units have different attempt counts (an attempt was skipped by the budget or deselected), k runs
from 1 to the smallest count, so every k averages over the same units and the curve never rises.
pass^1 is the mean of per-unit pass rates; it equals the accuracy over attempts when every unit has
the same count. A unit is *flaky* when its attempts disagree (some pass, some fail).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

#: The normal quantile of a two-sided 95 % interval (docs/contract.md, "Intervals").
Z95 = 1.96
#: Bootstrap resamples unless told otherwise.
RESAMPLES = 2000

#: A unit value: orderable, so that each stratum is sorted before it is resampled.
U = TypeVar("U", bound="SupportsRichComparison")
#: A bootstrap statistic: resampled unit values per stratum → a number, or None where undefined.
Statistic = Callable[[dict[str, list[Any]]], float | None]


def wilson(passed: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of passed/n; None when nothing was scored (n = 0)."""
    if n <= 0:
        return None
    if not 0 <= passed <= n:
        raise ValueError(f"passed must lie in [0, {n}], got {passed}")
    p = passed / n
    shrink = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / shrink
    # In exact arithmetic the bounds are 0 at 0 passes and 1 at n passes; say so rather than leave
    # the rounding error (0.9999999999999999) in a report.
    lo = 0.0 if passed == 0 else max(0.0, centre - half)
    hi = 1.0 if passed == n else min(1.0, centre + half)
    return lo, hi


def percentile(values: Iterable[float], q: float) -> float | None:
    """The q-quantile (q in [0, 1]) by linear interpolation; None for no values."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must lie in [0, 1], got {q}")
    ordered = sorted(values)
    if not ordered:
        return None
    h = (len(ordered) - 1) * q
    below = math.floor(h)
    if below == len(ordered) - 1:
        return float(ordered[below])
    return ordered[below] + (h - below) * (ordered[below + 1] - ordered[below])


def bootstrap_interval(
    units_by_stratum: Mapping[str, Sequence[U]],
    statistic: Statistic,
    *,
    seed: int = 0,
    resamples: int = RESAMPLES,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """A stratified percentile bootstrap interval of ``statistic`` over units; None without units or
    when the statistic is undefined on every resample. Unit values must be orderable (numbers, tuples)."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    strata = {name: sorted(units_by_stratum[name]) for name in sorted(units_by_stratum)}
    if not any(strata.values()):
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = {name: rng.choices(units, k=len(units)) if units else [] for name, units in strata.items()}
        value = statistic(sample)
        if value is not None:
            values.append(value)
    tail = (1 - level) / 2
    lo, hi = percentile(values, tail), percentile(values, 1 - tail)
    return None if lo is None or hi is None else (lo, hi)


# Statistics for bootstrap_interval -------------------------------------------------------------


def pooled_mean(sample: dict[str, list[float]]) -> float | None:
    """The mean over every unit of every stratum (a category accuracy under repeats: one stratum)."""
    units = [u for stratum in sample.values() for u in stratum]
    return sum(units) / len(units) if units else None


def mean_of_means(sample: dict[str, list[float]]) -> float | None:
    """The unweighted mean of the stratum means (an official group: the mean of its category accuracies)."""
    means = [sum(units) / len(units) for units in sample.values() if units]
    return sum(means) / len(means) if means else None


def weighted_groups(groups: Mapping[str, Sequence[str]], weights: Mapping[str, float]) -> Statistic:
    """Σ weight·group over the weighted groups, a group being the unweighted mean of its categories'
    means: ACEBench OVERALL with ``GROUPS`` and ``OVERALL_WEIGHTS``. When a group has no units the sum
    runs over the others and is divided by their weights' sum, as the partial OVERALL is; with every
    group present it is not divided (the official weights add up to 1.0001, and the interval should
    match the official OVERALL)."""

    def statistic(sample: dict[str, list[float]]) -> float | None:
        total = weight_sum = 0.0
        for group, weight in weights.items():
            value = mean_of_means({c: sample[c] for c in groups[group] if sample.get(c)})
            if value is not None:
                total += weight * value
                weight_sum += weight
        if not weight_sum:
            return None
        return total if weight_sum == sum(weights.values()) else total / weight_sum

    return statistic


def tool_call_f1(sample: dict[str, list[tuple[bool, bool]]]) -> float | None:
    """general_fc's F1 from (predicted a call, should call) units: 2PR/(P+R), 0 on an empty
    denominator as the official scorer reports it; None without units."""
    cells: Counter[tuple[bool, bool]] = Counter()
    for stratum in sample.values():
        cells.update(stratum)
    if not cells:
        return None
    tp, fp, fn = cells[True, True], cells[True, False], cells[False, True]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# Units and repeats ------------------------------------------------------------------------------


def unit_key(sample: Mapping[str, Any]) -> str:
    """``benchmark/part/category/id`` of a JSON report sample: the same for every attempt of a unit and
    for the unit in another run (the node id is not: it ends in ``@k`` under repeats). ``part`` is the
    ACEBench language, or the sample's ``part``/``stem`` (general_fc file, case file) when it has no ``lang``."""
    part = sample.get("lang") or sample.get("part") or sample.get("stem") or ""
    return f"{sample['benchmark']}/{part}/{sample.get('category') or ''}/{sample['id']}"


def attempt_scores(samples: Iterable[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Scores per unit key, attempts in ``repeat`` order. Skipped samples are left out; a sample without a
    score scores 1.0 when it passed, else 0.0 (errors)."""
    attempts: dict[str, list[tuple[int, float]]] = {}
    for sample in samples:
        if sample.get("outcome") == "skipped":
            continue
        score = sample.get("score")
        if score is None:
            score = 1.0 if sample.get("outcome") == "passed" else 0.0
        attempts.setdefault(unit_key(sample), []).append((sample.get("repeat") or 1, float(score)))
    return {key: [score for _, score in sorted(pairs)] for key, pairs in attempts.items()}


def unit_means(attempts: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """The mean score of each unit over its attempts (units without attempts are left out)."""
    return {key: sum(scores) / len(scores) for key, scores in attempts.items() if scores}


def pass_hat_k(counts: Iterable[tuple[int, int]]) -> dict[int, float]:
    """τ-bench pass^k from (passes, attempts) per unit, for k = 1 … the smallest attempt count;
    empty without units. Units with no attempts are ignored."""
    units = [(c, n) for c, n in counts if n > 0]
    for c, n in units:
        if not 0 <= c <= n:
            raise ValueError(f"passes must lie in [0, {n}], got {c}")
    if not units:
        return {}
    largest_k = min(n for _, n in units)
    return {k: sum(math.comb(c, k) / math.comb(n, k) for c, n in units) / len(units) for k in range(1, largest_k + 1)}


def repeat_summary(attempts: Mapping[str, Sequence[float]]) -> dict[str, Any]:
    """Accuracy over attempts, pass^k and flaky units for per-unit attempt scores (1.0 = pass).

    ``accuracy`` is passes / attempts (None without attempts); ``flaky`` lists, sorted, the units whose
    attempts disagree."""
    units = {key: scores for key, scores in attempts.items() if scores}
    passes = {key: sum(1 for s in scores if s == 1.0) for key, scores in units.items()}
    total = sum(len(scores) for scores in units.values())
    passed = sum(passes.values())
    return {
        "units": len(units),
        "attempts": total,
        "passed": passed,
        "accuracy": passed / total if total else None,
        "pass_hat_k": pass_hat_k((passes[key], len(scores)) for key, scores in units.items()),
        "flaky": sorted(key for key, scores in units.items() if 0 < passes[key] < len(scores)),
    }


def grouped_intervals(
    units_by_category: Mapping[str, Sequence[float]],
    groups: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    *,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> dict[str, tuple[float, float] | None]:
    """Bootstrap intervals of every group (mean of its category means) and of ``"overall"``
    (``weighted_groups``), stratified by category; values are per-unit mean scores."""
    intervals = {
        group: bootstrap_interval(
            {c: units_by_category[c] for c in members if units_by_category.get(c)},
            mean_of_means,
            seed=seed,
            resamples=resamples,
        )
        for group, members in groups.items()
    }
    intervals["overall"] = bootstrap_interval(
        {c: units for c, units in units_by_category.items() if units},
        weighted_groups(groups, weights),
        seed=seed,
        resamples=resamples,
    )
    return intervals
