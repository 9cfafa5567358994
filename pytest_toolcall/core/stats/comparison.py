"""A run against a baseline: which units changed, by how much each metric moved, and whether it is noise.

Units pair by ``unit_key`` (benchmark, part, category, id), never by node id, and only units that
ran in both runs take part in a test. A unit's score in a run is its mean over attempts (with one
attempt: 1.0 pass, 0.0 fail). A unit *passes* in a run when its mean score is at least 0.5 (with one
attempt: when it passed); it *regressed* when it passed in the baseline and not now, it was *fixed*
in the opposite case.

Paired tests, two-sided, null hypothesis: per unit, the baseline and current scores are exchangeable.

* McNemar's exact test (``mcnemar_exact``) when every paired score is 0 or 1 and the units weigh the
  same (one category, or ``cases`` overall, each unit run once): with b units pass→fail and c units
  fail→pass, p = min(1, 2·P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2), and p = 1 when b + c = 0.
* Otherwise the sign-flip (paired permutation) test on the metric's difference
  (``sign_flip_test``): a metric that is a weighted mean of unit scores moves by T = Σ wᵢ·dᵢ, dᵢ the
  unit's score now minus in the baseline. Under the null each dᵢ is as likely to have the other sign,
  so p = P(|Σ ±wᵢdᵢ| ≥ |T|) over the 2^m sign choices of the m non-zero terms. It is computed exactly
  for m ≤ 16 (at most 65,536 sign vectors). For larger m it uses the normal approximation of the
  same distribution (mean 0, variance Σ(wᵢdᵢ)², exact moments), with a continuity correction of half
  the lattice step when the terms are multiples of a common step (the repeats' means c/n are; step
  denominators up to 120 are tried), without one otherwise. On 0/1 scores with equal weights the
  exact sign-flip test is McNemar's exact test, so the two tests agree where both apply. It covers
  repeats (per-unit mean scores) and weighted metrics: a group weighs each unit by
  1/(categories in the group · units in its category), OVERALL by the group weight on top
  (``unit_weights``), over the units both runs share (the weights then add up to 1).
  A group's or OVERALL's p-value thus tests the very (unrounded) difference over the shared units.

A metric change is a *significant regression* when diff < 0 and p < alpha (default 0.05).
Tool-call F1 is not a weighted mean of unit scores: ``compare_f1`` tests it with a seeded Monte Carlo
paired permutation test (each unit's two outcomes swap runs with probability 1/2; 2,000 resamples;
p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + resamples), which is never 0).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pytest_toolcall.core.stats.estimates import RESAMPLES, attempt_scores, unit_key, unit_means

#: Default significance level of ``--toolcall-fail-on-regression``.
ALPHA = 0.05
#: Up to this many non-zero paired differences the sign-flip distribution is enumerated exactly.
EXACT_LIMIT = 16
#: Largest denominator tried when looking for the lattice of the differences (continuity correction).
LATTICE_LIMIT = 120
#: The attempt suffix of a node id under ``--toolcall-repeat``: ``toolcall::b[key@2]`` or ``file::case@2``.
_ATTEMPT = re.compile(r"@\d+(?=\]$)|@\d+$")


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b (pass→fail) and c (fail→pass)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got {b}, {c}")
    m = b + c
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(b, c) + 1))
    # Exact integers up to the last division: no rounding in the tail sum, however large m is.
    return min(1.0, 2 * tail / 2**m)


def sign_flip_test(terms: Sequence[float]) -> float:
    """Two-sided p-value of the sign-flip test of Σ terms = 0 (terms: weighted paired differences)."""
    nonzero = [abs(t) for t in terms if t != 0]
    if not nonzero:
        return 1.0
    # The test does not change when every term is scaled alike; scaling to a largest term of 1 puts
    # the terms of a category (1/n each) back on the lattice of the unit scores.
    top = max(nonzero)
    observed = abs(sum(terms)) / top
    nonzero = [a / top for a in nonzero]
    if len(nonzero) <= EXACT_LIMIT:
        return _exact_sign_flip(nonzero, observed)
    sd = math.sqrt(sum(t * t for t in nonzero))
    excess = max(0.0, observed - _lattice_step(nonzero) / 2)
    return min(1.0, math.erfc(excess / sd / math.sqrt(2)))


def _exact_sign_flip(magnitudes: list[float], observed: float) -> float:
    # The distribution of Σ ±aᵢ as counts per value, built one term at a time. Sums are rounded to
    # 12 decimals so that equal sums reached in different orders meet in one key.
    counts: dict[float, int] = {0.0: 1}
    for a in magnitudes:
        grown: dict[float, int] = {}
        for total, count in counts.items():
            for step in (a, -a):
                key = round(total + step, 12)
                grown[key] = grown.get(key, 0) + count
        counts = grown
    threshold = observed - 1e-9  # a sum equal to the observed one counts as extreme
    extreme = sum(count for total, count in counts.items() if abs(total) >= threshold)
    return min(1.0, extreme / 2 ** len(magnitudes))


def _lattice_step(magnitudes: list[float]) -> float:
    """The spacing of the possible values of Σ ±aᵢ (2·g, g the largest 1/L·k dividing every aᵢ), or 0."""
    for denominator in range(1, LATTICE_LIMIT + 1):
        scaled = [a * denominator for a in magnitudes]
        integers = [round(s) for s in scaled]
        if all(abs(s - i) < 1e-9 for s, i in zip(scaled, integers, strict=True)):
            return 2 * math.gcd(*integers) / denominator
    return 0.0


def passes(score: float) -> bool:
    """A unit passes in a run when its mean score over attempts is at least 0.5."""
    return score >= 0.5


def changed_units(baseline: Mapping[str, float], now: Mapping[str, float]) -> tuple[list[str], list[str]]:
    """(regressed, fixed) unit keys among the units of both runs, sorted."""
    shared = sorted(baseline.keys() & now.keys())
    regressed = [k for k in shared if passes(baseline[k]) and not passes(now[k])]
    fixed = [k for k in shared if not passes(baseline[k]) and passes(now[k])]
    return regressed, fixed


def unit_weights(
    units_by_category: Mapping[str, Sequence[str]],
    groups: Mapping[str, Sequence[str]] | None = None,
    group_weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Each unit's weight in a metric, summing to 1, so that the metric is Σ weight·score.

    Without ``groups``: the unweighted mean of the categories' accuracies (one category: 1/n each).
    With ``groups`` and no ``group_weights``: the mean of the groups' values. With both: the weighted
    OVERALL, renormalised over the groups that have units. Categories without units are left out."""
    present = {c: list(units) for c, units in units_by_category.items() if units}
    if groups is None:
        groups = {"all": list(present)}
    group_members = {g: [c for c in members if c in present] for g, members in groups.items()}
    group_members = {g: members for g, members in group_members.items() if members}
    if group_weights is None:
        group_weights = dict.fromkeys(group_members, 1.0)
    weight_sum = sum(group_weights[g] for g in group_members if g in group_weights)
    weights: dict[str, float] = {}
    for group, members in group_members.items():
        if group not in group_weights:
            continue
        for category in members:
            share = group_weights[group] / weight_sum / len(members) / len(present[category])
            for key in present[category]:
                weights[key] = weights.get(key, 0.0) + share
    return weights


def compare_metric(
    baseline: Mapping[str, float],
    now: Mapping[str, float],
    weights: Mapping[str, float] | None = None,
    *,
    baseline_value: float | None = None,
    now_value: float | None = None,
) -> dict[str, Any]:
    """One metric's comparison ``{baseline, now, diff, p_value, regressed, fixed, paired}``.

    ``baseline``/``now``: per-unit mean scores of the metric's units in each run. ``weights``: per-unit
    weights (``unit_weights`` over the units of both runs; default equal). ``baseline_value`` and
    ``now_value`` are the values the reports show (official rounding, all units); without them the
    weighted means over the paired units are used. ``regressed``/``fixed`` are counts of units."""
    shared = sorted(k for k in baseline.keys() & now.keys() if weights is None or k in weights)
    if weights is None:
        weights = dict.fromkeys(shared, 1.0)
    total = sum(weights.get(k, 0.0) for k in shared)
    scale = {k: weights.get(k, 0.0) / total for k in shared} if total else {}
    # Divided once at the end: equal weights then give exactly passed/n.
    if baseline_value is None and scale:
        baseline_value = sum(weights[k] * baseline[k] for k in shared) / total
    if now_value is None and scale:
        now_value = sum(weights[k] * now[k] for k in shared) / total
    regressed, fixed = changed_units({k: baseline[k] for k in shared}, {k: now[k] for k in shared})
    return {
        "baseline": baseline_value,
        "now": now_value,
        "diff": None if baseline_value is None or now_value is None else now_value - baseline_value,
        "p_value": paired_p_value(baseline, now, scale) if scale else None,
        "regressed": len(regressed),
        "fixed": len(fixed),
        "paired": len(shared),
    }


def paired_p_value(baseline: Mapping[str, float], now: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """McNemar's exact test for equally weighted 0/1 scores, else the sign-flip test (module docstring)."""
    shared = sorted(k for k in weights if k in baseline and k in now)
    binary = all(baseline[k] in (0.0, 1.0) and now[k] in (0.0, 1.0) for k in shared)
    equal = len({round(weights[k], 12) for k in shared}) <= 1
    if binary and equal:
        b = sum(1 for k in shared if baseline[k] == 1.0 and now[k] == 0.0)
        c = sum(1 for k in shared if baseline[k] == 0.0 and now[k] == 1.0)
        return mcnemar_exact(b, c)
    return sign_flip_test([weights[k] * (now[k] - baseline[k]) for k in shared])


def significant_regression(comparison: Mapping[str, Any], alpha: float = ALPHA) -> bool:
    """True when the metric got worse (diff < 0) with p < alpha."""
    diff, p_value = comparison.get("diff"), comparison.get("p_value")
    return diff is not None and p_value is not None and diff < 0 and p_value < alpha


def compare_units(
    baseline_samples: Iterable[Mapping[str, Any]], now_samples: Iterable[Mapping[str, Any]]
) -> dict[str, list[str]]:
    """``{"regressed": [...], "fixed": [...]}`` over every unit two JSON reports' samples share, each
    named by its node id without the attempt suffix ``@k`` (its unit key when a sample has no node id),
    in unit-key order."""
    baseline_samples, now_samples = list(baseline_samples), list(now_samples)
    before, after = unit_means(attempt_scores(baseline_samples)), unit_means(attempt_scores(now_samples))
    regressed, fixed = changed_units(before, after)
    names = {unit_key(s): _ATTEMPT.sub("", s["nodeid"]) for s in baseline_samples + now_samples if s.get("nodeid")}
    return {"regressed": [names.get(k, k) for k in regressed], "fixed": [names.get(k, k) for k in fixed]}


def grouped_weights(
    units_by_category: Mapping[str, Sequence[str]],
    groups: Mapping[str, Sequence[str]],
    group_weights: Mapping[str, float],
) -> dict[str, dict[str, float]]:
    """Unit weights of every category, group and ``"overall"`` of a block with weighted groups
    (ACEBench: ``GROUPS``, ``OVERALL_WEIGHTS``), from the keys of the units both runs share per
    category. Metrics without a shared unit are left out."""
    weights: dict[str, dict[str, float]] = {c: unit_weights({c: keys}) for c, keys in units_by_category.items()}
    for group, members in groups.items():
        weights[group] = unit_weights({c: units_by_category.get(c, []) for c in members})
    weights["overall"] = unit_weights(units_by_category, {g: groups[g] for g in group_weights}, group_weights)
    return {name: weight for name, weight in weights.items() if weight}


def compare_metrics(
    baseline: Mapping[str, float],
    now: Mapping[str, float],
    weights: Mapping[str, Mapping[str, float]],
    *,
    baseline_values: Mapping[str, float] | None = None,
    now_values: Mapping[str, float] | None = None,
) -> dict[str, dict[str, Any]]:
    """``compare_metric`` of every metric of ``weights`` (name -> unit weights) from per-unit mean
    scores in each run. ``baseline_values`` / ``now_values``: the reported values by metric name,
    used when given."""
    baseline_values = baseline_values or {}
    now_values = now_values or {}
    return {
        name: compare_metric(
            baseline, now, unit_weight, baseline_value=baseline_values.get(name), now_value=now_values.get(name)
        )
        for name, unit_weight in weights.items()
        if unit_weight
    }


def compare_grouped(
    baseline: Mapping[str, Mapping[str, float]],
    now: Mapping[str, Mapping[str, float]],
    groups: Mapping[str, Sequence[str]],
    group_weights: Mapping[str, float],
    *,
    baseline_values: Mapping[str, float] | None = None,
    now_values: Mapping[str, float] | None = None,
) -> dict[str, dict[str, Any]]:
    """Comparisons of every category, group and ``"overall"`` from per-unit mean scores per category
    in each run (``grouped_weights``, ``compare_metrics``)."""
    categories = sorted(baseline.keys() | now.keys())
    shared = {c: sorted(baseline.get(c, {}).keys() & now.get(c, {}).keys()) for c in categories}
    flat_baseline = {k: v for c in categories for k, v in baseline.get(c, {}).items()}
    flat_now = {k: v for c in categories for k, v in now.get(c, {}).items()}
    weights = grouped_weights(shared, groups, group_weights)
    return compare_metrics(flat_baseline, flat_now, weights, baseline_values=baseline_values, now_values=now_values)


def compare_f1(
    baseline: Mapping[str, tuple[bool, bool]],
    now: Mapping[str, tuple[bool, bool]],
    *,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> dict[str, Any]:
    """Tool-call F1 against a baseline from (predicted a call, should call) per unit in each run.

    F1 is not a mean of unit scores, so the p-value comes from a seeded Monte Carlo paired
    permutation test: each shared unit's two outcomes swap runs with probability 1/2 and
    p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + resamples) (never 0). A unit regressed when its decision was right
    in the baseline and is wrong now, and was fixed in the opposite case."""
    shared = sorted(baseline.keys() & now.keys())
    base_counts = _confusion(baseline[k] for k in shared)
    now_counts = _confusion(now[k] for k in shared)
    observed = _f1(now_counts) - _f1(base_counts) if shared else None
    # Units with the same outcome in both runs add the same counts whatever the swap: only the
    # discordant units move, which keeps each resample short.
    discordant = [(baseline[k], now[k]) for k in shared if baseline[k] != now[k]]
    p_value = None
    if observed is not None:  # there are shared units
        extreme = 0
        rng = random.Random(seed)
        for _ in range(resamples):
            base_star, now_star = dict(base_counts), dict(now_counts)
            for before, after in discordant:
                if rng.random() < 0.5:
                    for counts, old, new in ((base_star, before, after), (now_star, after, before)):
                        counts[_cell(old)] -= 1
                        counts[_cell(new)] += 1
            if abs(_f1(now_star) - _f1(base_star)) >= abs(observed) - 1e-12:
                extreme += 1
        p_value = (1 + extreme) / (1 + resamples)
    right = {k: baseline[k][0] == baseline[k][1] for k in shared}
    right_now = {k: now[k][0] == now[k][1] for k in shared}
    return {
        "baseline": _f1(base_counts) if shared else None,
        "now": _f1(now_counts) if shared else None,
        "diff": observed,
        "p_value": p_value,
        "regressed": sum(1 for k in shared if right[k] and not right_now[k]),
        "fixed": sum(1 for k in shared if not right[k] and right_now[k]),
        "paired": len(shared),
    }


def _cell(unit: tuple[bool, bool]) -> str:
    predicted, actual = unit
    return ("T" if predicted == actual else "F") + ("P" if predicted else "N")


def _confusion(units: Iterable[tuple[bool, bool]]) -> dict[str, int]:
    counts = {"TP": 0, "FP": 0, "FN": 0, "TN": 0}
    for unit in units:
        counts[_cell(unit)] += 1
    return counts


def _f1(counts: Mapping[str, int]) -> float:
    """2PR/(P+R) = 2TP/(2TP+FP+FN), 0 when there is no true positive (the official 0 for 0/0)."""
    return 2 * counts["TP"] / (2 * counts["TP"] + counts["FP"] + counts["FN"]) if counts["TP"] else 0.0
