"""The uncertainty fields of a metrics block, for every benchmark's ``aggregate`` to call.

A benchmark hands its records (JSON report samples: ``score``/``outcome``, ``repeat``, identity) to
these helpers and puts what they return into its block, beside the values they belong to:

* ``category_fields(records)`` → ``{"ci95": [lo, hi]}`` for an accuracy over these records (Wilson
  when every unit ran once, else the seeded bootstrap of per-unit means); under repeats also
  ``units``, ``pass_hat_k`` (``{"1": .., "2": ..}``) and ``flaky`` (how many units disagree).
* ``repeat_fields(records)`` → a block's ``pass_hat_k`` and ``flaky`` (node ids without ``@k``) under
  repeats; empty without them.
* ``unit_means_by(records, key)`` → per-unit mean scores grouped by a field (``category``), the input of
  ``statistics.grouped_intervals`` and of the baseline comparison.

Bootstrap, fast. ``statistics.bootstrap_interval`` redraws every unit of every resample, which costs
about 1.5 ms per unit and per block at 2,000 resamples (a second for an ACEBench language, minutes for a
100,000-line general_fc file). Resampling n units with replacement is the same as drawing how many
copies each distinct value gets, a multinomial over the distinct values with their frequencies; the
statistics here (means, means of means, F1) depend only on those counts. So ``resampled_counts`` draws
the multinomial as successive binomials (Hörmann's BTRS sampler, as Python 3.12's
``random.binomialvariate``, written out so every Python version draws the same numbers): the same
bootstrap distribution at a cost independent of the number of units. Strata (categories) are drawn
jointly, one resample serving every group and OVERALL, from ``random.Random(seed)`` with a fixed seed,
strata and values in sorted order: the interval depends only on the multiset of unit values per stratum,
never on the run's order, so a merged report of shards and a single run give the same numbers. The
interval is the 2.5th and 97.5th percentile (``statistics.percentile``) of 2,000 resampled values.

Naming convention that the gate (``results.gate``) and the summaries rely on: the interval of a block's
number ``x`` is ``x_ci95``, of a category's ``accuracy`` the category's ``ci95``, of a dict of numbers
(``groups``) ``groups_ci95`` with the same keys; the official value of ``x`` (missing units and failed
requests counted against the model), where it differs from ``x``, is ``x_official`` (``groups_official``,
a category's ``accuracy_official``). A benchmark that follows it gets ``--toolcall-gate-on lower`` and
``--toolcall-gate-value strict`` for free.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_toolcall.core.stats.estimates import (
    RESAMPLES,
    attempt_scores,
    percentile,
    repeat_summary,
    unit_key,
    unit_means,
    weighted_groups,
    wilson,
)
from pytest_toolcall.core.stats.repeats import effective_units, hull, unit_floor

Interval = tuple[float, float]


def as_list(interval: tuple[float, float] | None) -> list[float] | None:
    """An interval as the report writes it: ``[lo, hi]``, or None when nothing was measured."""
    return None if interval is None else [interval[0], interval[1]]


def repeated(records: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any unit of these records ran more than once."""
    return any((r.get("repeat") or 1) > 1 for r in records)


def identified(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Records as units: one without an ``id`` (hand-made) is a unit of its own."""
    return [
        r if r.get("id") is not None and "benchmark" in r else {"benchmark": None, **r, "id": r.get("id") or f"#{i}"}
        for i, r in enumerate(records)
    ]


def _score(record: Mapping[str, Any]) -> float:
    """An attempt's score as ``statistics.attempt_scores`` reads it."""
    score = record.get("score")
    return float(score) if score is not None else 1.0 if record.get("outcome") == "passed" else 0.0


def _sorted_attempts(records: Iterable[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Attempt scores per unit, units in key order: sums over units then add up in the same order
    whatever order the records arrived in (xdist), to the last bit."""
    return dict(sorted(attempt_scores(identified(records)).items()))


def category_fields(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The interval of the accuracy over these records, and the repeat statistics under repeats."""
    if not repeated(records):
        # Each unit once: Wilson on passed/n, counted straight from the records (a 100,000-line file
        # should not pay for grouping attempts that do not exist).
        scores = [_score(r) for r in records if r.get("outcome") != "skipped"]
        if all(score in (0.0, 1.0) for score in scores):
            return {"ci95": as_list(wilson(sum(1 for score in scores if score == 1.0), len(scores)))}
    attempts = _sorted_attempts(records)
    fields: dict[str, Any] = {"ci95": as_list(accuracy_interval(attempts))}
    if repeated(records):
        summary = repeat_summary(attempts)
        fields.update(
            units=summary["units"],
            pass_hat_k={str(k): v for k, v in summary["pass_hat_k"].items()},
            flaky=len(summary["flaky"]),
        )
    return fields


def repeat_fields(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A block's ``pass_hat_k`` and ``flaky`` (node ids without the attempt) under repeats, else {}."""
    if not repeated(records):
        return {}
    summary = repeat_summary(_sorted_attempts(records))
    names = unit_names(records)
    return {
        "pass_hat_k": {str(k): v for k, v in summary["pass_hat_k"].items()},
        "flaky": [names.get(key, key) for key in summary["flaky"]],
    }


def unit_names(records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Unit key → the unit's node id without the attempt suffix."""
    # The attempt ends a benchmark item's parameter (``...[en/x_1@2]``) or a case's id (``f.toolcall.yaml::c@2``).
    return {
        unit_key(r): re.sub(r"@\d+(?=\]?$)", "", str(r["nodeid"])) for r in records if r.get("nodeid") and r.get("id")
    }


def unit_means_by(records: Iterable[Mapping[str, Any]], field: str) -> dict[str, dict[str, float]]:
    """Per-unit mean scores (over attempts) grouped by a record field, e.g. ``category``."""
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for record in identified(records):
        if record.get("outcome") != "skipped":
            grouped.setdefault(str(record.get(field)), []).append(record)
    return {name: unit_means(attempt_scores(rows)) for name, rows in grouped.items()}


# --- the bootstrap over value counts -----------------------------------------------------------


def binomial(rng: random.Random, n: int, p: float) -> int:
    """One Binomial(n, p) draw from ``rng``: Devroye's geometric method below n·p = 10, else Hörmann's
    BTRS (transformed rejection with squeeze), the methods of CPython 3.12's ``binomialvariate``."""
    if p <= 0.0 or n == 0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - binomial(rng, n, 1.0 - p)
    if n * p < 10.0:
        x = y = 0
        c = math.log(1.0 - p)
        if not c:
            return x
        while True:
            y += math.floor(math.log(1.0 - rng.random()) / c) + 1
            if y > n:
                return x
            x += 1
    spq = math.sqrt(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    setup: tuple[float, float, int, float] | None = None  # only when the squeeze does not decide
    while True:
        u = rng.random() - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        v = rng.random()
        if us >= 0.07 and v <= vr:
            return k
        if setup is None:
            mode = math.floor((n + 1) * p)
            setup = (
                (2.83 + 5.1 / b) * spq,
                math.log(p / (1.0 - p)),
                mode,
                math.lgamma(mode + 1) + math.lgamma(n - mode + 1),
            )
        alpha, lpq, m, h = setup
        v *= alpha / (a / (us * us) + b)
        if v > 0 and math.log(v) <= h - math.lgamma(k + 1) - math.lgamma(n - k + 1) + (k - m) * lpq:
            return k


def resampled_counts(rng: random.Random, counts: Sequence[int]) -> list[int]:
    """How many of n = Σ counts draws with replacement land on each value (frequencies ``counts``):
    a multinomial, drawn as successive binomials."""
    left = total = sum(counts)
    drawn = []
    for i, count in enumerate(counts):
        rest = sum(counts[i:])
        k = left if i == len(counts) - 1 else binomial(rng, left, count / rest if rest else 0.0)
        drawn.append(k)
        left -= k
    assert left == 0 or total == 0
    return drawn


def _values(units: Iterable[Any]) -> tuple[list[Any], list[int]]:
    """Distinct unit values in sorted order, with their frequencies."""
    counter = Counter(units)
    values = sorted(counter)
    return values, [counter[v] for v in values]


def _mean_of(values: Sequence[float], drawn: Sequence[int]) -> float:
    return sum(v * k for v, k in zip(values, drawn, strict=True)) / sum(drawn)


def _interval(values: list[float]) -> Interval | None:
    lo, hi = percentile(values, 0.025), percentile(values, 0.975)
    return None if lo is None or hi is None else (lo, hi)


def accuracy_interval(attempts: Mapping[str, Sequence[float]], *, seed: int = 0) -> Interval | None:
    """A category's 95 % interval: Wilson on passed/n when every unit ran once with a 0/1 score, else
    the bootstrap of the mean of per-unit mean scores, never narrower than the number of units
    justifies (``repeats.unit_floor``: 5 all-pass units repeated twice are not [1, 1])."""
    units = [scores for scores in attempts.values() if scores]
    if all(len(scores) == 1 and scores[0] in (0.0, 1.0) for scores in units):
        return wilson(sum(1 for scores in units if scores[0] == 1.0), len(units))
    means = [sum(scores) / len(scores) for scores in units]
    values, counts = _values(means)
    rng = random.Random(seed)
    spread = _interval([_mean_of(values, resampled_counts(rng, counts)) for _ in range(RESAMPLES)])
    return hull(spread, unit_floor(sum(means) / len(means), len(means)))


def group_intervals(
    units_by_category: Mapping[str, Sequence[float]],
    groups: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    *,
    seed: int = 0,
    repeated: bool = False,
) -> dict[str, Interval | None]:
    """Intervals of every group (the mean of its categories' means) and of ``"overall"`` (Σ weight·group,
    renormalised over the groups with units unless all have some: ``statistics.weighted_groups``), from
    one stratified bootstrap of per-unit mean scores, stratified by category. ``repeated`` (units ran
    more than once): each interval is at least the one its effective number of units justifies
    (``repeats.unit_floor``)."""
    if repeated:
        return _floored(
            units_by_category, groups, weights, group_intervals(units_by_category, groups, weights, seed=seed)
        )
    strata = {c: _values(units) for c, units in sorted(units_by_category.items()) if units}
    overall = weighted_groups(groups, weights)
    # Group members with units, fixed for the run: each resample then only draws and averages.
    members = {g: [c for c in cats if c in strata] for g, cats in groups.items()}
    rng = random.Random(seed)
    series: dict[str, list[float]] = {name: [] for name in (*groups, "overall")}
    for _ in range(RESAMPLES if strata else 0):
        means = {c: _resampled_mean(rng, values, counts) for c, (values, counts) in strata.items()}
        for group, present in members.items():
            if present:
                series[group].append(sum(means[c] for c in present) / len(present))
        value = overall({c: [m] for c, m in means.items()})
        if value is not None:
            series["overall"].append(value)
    return {name: _interval(values) for name, values in series.items()}


def _floored(
    units_by_category: Mapping[str, Sequence[float]],
    groups: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    intervals: dict[str, Interval | None],
) -> dict[str, Interval | None]:
    """Each group's and OVERALL's interval widened to its ``unit_floor``: the statistic's value on the
    units themselves, over the effective number of units of its unit weights."""
    present = {c: list(units) for c, units in units_by_category.items() if units}
    unit_weights: dict[str, dict[str, float]] = {}  # metric -> category -> weight of each of its units
    for group, members in groups.items():
        cats = [c for c in members if c in present]
        unit_weights[group] = {c: 1 / len(cats) / len(present[c]) for c in cats}
    evaluated = {g: w for g, w in weights.items() if unit_weights.get(g)}
    total = sum(evaluated.values())
    overall: dict[str, float] = {}
    for group, weight in evaluated.items():
        for c, w in unit_weights[group].items():
            overall[c] = overall.get(c, 0.0) + weight / total * w
    unit_weights["overall"] = overall
    floored = dict(intervals)
    for name, by_category in unit_weights.items():
        if not by_category:
            continue
        value = sum(w * sum(present[c]) for c, w in by_category.items())
        n = effective_units([w for c, w in by_category.items() for _ in present[c]])
        floored[name] = hull(intervals.get(name), unit_floor(value, n))
    return floored


def _resampled_mean(rng: random.Random, values: Sequence[float], counts: Sequence[int]) -> float:
    """The mean of one resample of a stratum (a 0/1 category: one binomial draw)."""
    if len(values) == 2:
        n = counts[0] + counts[1]
        high = n - binomial(rng, n, counts[0] / n)
        return (values[0] * (n - high) + values[1] * high) / n
    return _mean_of(values, resampled_counts(rng, counts))


def f1_interval(units: Iterable[Any], *, seed: int = 0) -> Interval | None:
    """The 95 % interval of tool-call F1: the bootstrap of 2TP/(2TP+FP+FN) (0 without a true
    positive, as the official scorer reports it) over units. A unit is its (predicted a call,
    should call) decision, or under repeats the tuple of its attempts' decisions: attempts are
    resampled together with their unit, never as units of their own."""
    values, counts = _values(_attempts(unit) for unit in units)
    if not values:
        return None
    rng = random.Random(seed)
    return _interval([_f1_of(values, resampled_counts(rng, counts)) for _ in range(RESAMPLES)])


def _attempts(unit: Any) -> tuple[tuple[bool, bool], ...]:
    """A unit's decisions, one per attempt."""
    return (unit,) if len(unit) == 2 and all(isinstance(x, bool) for x in unit) else tuple(unit)


def _f1_of(values: Sequence[tuple[tuple[bool, bool], ...]], drawn: Sequence[int]) -> float:
    cells: Counter[tuple[bool, bool]] = Counter()
    for attempts, k in zip(values, drawn, strict=True):
        for decision in attempts:
            cells[decision] += k
    tp, fp, fn = cells[(True, True)], cells[(True, False)], cells[(False, True)]
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0
