"""Baseline comparison: McNemar, the sign-flip test, unit weights, regressed and fixed units.

References are independent of the code under test: the binomial tail by enumerating every outcome of
b + c fair coins, the sign-flip distribution by enumerating every sign vector, the normal tail with
``statistics.NormalDist``, and values scipy printed outside the repository (pasted with a comment).
"""

from __future__ import annotations

import itertools
import math
import random
from statistics import NormalDist

import pytest

from pytest_toolcall.core.stats.comparison import (
    ALPHA,
    EXACT_LIMIT,
    changed_units,
    compare_f1,
    compare_grouped,
    compare_metric,
    compare_units,
    mcnemar_exact,
    paired_p_value,
    sign_flip_test,
    significant_regression,
    unit_weights,
)


def mcnemar_by_enumeration(b: int, c: int) -> float:
    """2·P(X ≤ min(b, c)), X the heads of b + c fair coins, counted over all 2^(b+c) outcomes."""
    m = b + c
    if m == 0:
        return 1.0
    low = sum(1 for flips in itertools.product((0, 1), repeat=m) if sum(flips) <= min(b, c))
    return min(1.0, 2 * low / 2**m)


def sign_flip_by_enumeration(terms: list[float]) -> float:
    """P(|Σ ±|tᵢ|| ≥ |Σ tᵢ|) over every sign vector of the terms (zeros included: they do not move it)."""
    observed = abs(sum(terms))
    vectors = list(itertools.product((1, -1), repeat=len(terms)))
    sums = [sum(s * abs(t) for s, t in zip(signs, terms, strict=True)) for signs in vectors]
    extreme = sum(1 for total in sums if abs(total) >= observed - 1e-9)
    return extreme / len(vectors)


def normal_two_sided(z: float) -> float:
    return 2 * (1 - NormalDist().cdf(z))


# McNemar -----------------------------------------------------------------------------------------


def test_mcnemar_by_hand() -> None:
    # b = 3, c = 10, m = 13: P(X ≤ 3) = (1 + 13 + 78 + 286)/8192 = 378/8192; p = 756/8192 = 0.09228515625
    assert mcnemar_exact(3, 10) == 756 / 8192
    assert mcnemar_exact(10, 3) == 756 / 8192
    # b = 0, c = 7: p = 2·(1/128) = 0.015625
    assert mcnemar_exact(0, 7) == 0.015625


@pytest.mark.parametrize(("b", "c"), [(0, 2), (1, 3), (2, 9), (4, 4), (6, 1), (0, 12), (5, 9)])
def test_mcnemar_matches_enumeration_of_the_binomial(b: int, c: int) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(mcnemar_by_enumeration(b, c), abs=1e-15)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    # scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue, scipy 1.17.1
    [(10, 20, 0.09873714670538905), (40, 62, 0.037066767438560584), (2, 0, 0.5), (5, 5, 1.0)],
)
def test_mcnemar_matches_scipy(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_boundaries() -> None:
    assert mcnemar_exact(0, 0) == 1.0  # nothing changed
    assert mcnemar_exact(1, 0) == 1.0  # one change: 2·P(X ≤ 0) = 2·1/2 = 1
    assert mcnemar_exact(0, 1) == 1.0
    assert mcnemar_exact(1, 1) == 1.0
    # large m stays exact (integers) and does not overflow: 2·P(X ≤ 400) of 1000 coins is tiny but > 0
    assert 0 < mcnemar_exact(400, 600) < 1e-9
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar_exact(-1, 2)


# Sign-flip test ----------------------------------------------------------------------------------


def test_sign_flip_by_hand() -> None:
    # terms 1, -0.5, -0.5, -0.5: T = -0.5; sums ±1 ± 0.5 ± 0.5 ± 0.5:
    # +1 with (1.5, 0.5×3, -0.5×3, -1.5) → 2.5, 1.5, 0.5, -0.5: all 8 have |S| ≥ 0.5; -1 the same → p = 1
    assert sign_flip_test([1, -0.5, -0.5, -0.5]) == 1.0
    # terms -1, -0.5, -0.5, -0.5: T = -2.5, only the all-minus and all-plus vectors reach it → 2/16
    assert sign_flip_test([-1, -0.5, -0.5, -0.5]) == 2 / 16


def test_sign_flip_matches_enumeration() -> None:
    rng = random.Random(4)
    for _ in range(30):
        terms = [round(rng.uniform(-1, 1), 3) * rng.choice((0, 1, 1, 1)) for _ in range(rng.randint(1, 11))]
        assert sign_flip_test(terms) == pytest.approx(sign_flip_by_enumeration(terms), abs=1e-12)


def test_sign_flip_on_binary_differences_is_mcnemar() -> None:
    for b, c in [(0, 0), (1, 0), (3, 10), (7, 2), (8, 8), (0, 16)]:
        assert b + c <= EXACT_LIMIT
        assert sign_flip_test([-1.0] * b + [1.0] * c + [0.0] * 5) == pytest.approx(mcnemar_exact(b, c), abs=1e-12)


def test_sign_flip_is_scale_invariant() -> None:
    terms = [0.3, -0.1, 0.7, 0.2, -0.4, 0.9]
    assert sign_flip_test([t / 137 for t in terms]) == pytest.approx(sign_flip_test(terms), abs=1e-12)


def test_sign_flip_normal_approximation_on_a_lattice() -> None:
    # 10 regressions and 20 fixes (m = 30 > 16): T = 10 on a lattice of step 2, sd = √30,
    # z = (10 - 1)/√30 = 1.6432; scipy: 2·norm.sf(9/√30) = 0.10034824646229075
    assert EXACT_LIMIT < 30
    p = sign_flip_test([-1.0] * 10 + [1.0] * 20)
    assert p == pytest.approx(0.10034824646229075, rel=1e-9)
    assert p == pytest.approx(normal_two_sided(9 / math.sqrt(30)), rel=1e-9)
    # and within 0.002 of the exact answer, McNemar's 0.0987
    assert p == pytest.approx(mcnemar_exact(10, 20), abs=0.002)


def test_sign_flip_normal_approximation_under_repeats() -> None:
    # Means of 3 attempts: 15 units up by 1/3, 6 down by 2/3 (m = 21 > 16). Scaled by the largest term:
    # 15 × 0.5 and 6 × 1, T = 7.5 - 6 = 1.5, lattice step 1 (half-step 0.5), sd = √(15·0.25 + 6) = √9.75.
    terms = [1 / 3] * 15 + [-2 / 3] * 6
    p = sign_flip_test(terms)
    assert p == pytest.approx(normal_two_sided((1.5 - 0.5) / math.sqrt(9.75)), rel=1e-9)
    # The exact answer: S = 0.5·(2A - 15) + (2B - 6), A ~ Bin(15, ½), B ~ Bin(6, ½), P(|S| ≥ 1.5).
    exact = (
        sum(
            math.comb(15, a) * math.comb(6, b)
            for a in range(16)
            for b in range(7)
            if abs(0.5 * (2 * a - 15) + (2 * b - 6)) >= 1.5 - 1e-9
        )
        / 2**21
    )
    assert p == pytest.approx(exact, abs=0.02)


def test_sign_flip_normal_approximation_off_the_lattice() -> None:
    # Irrational terms have no common step: no continuity correction, z = |Σt| / √Σt².
    terms = [math.sqrt(2) / k * (1 if k % 3 else -1) for k in range(1, 26)]
    z = abs(sum(terms)) / math.sqrt(sum(t * t for t in terms))
    assert sign_flip_test(terms) == pytest.approx(normal_two_sided(z), rel=1e-9)


def test_sign_flip_without_changes() -> None:
    assert sign_flip_test([]) == 1.0
    assert sign_flip_test([0.0, 0.0]) == 1.0


# Units and weights -------------------------------------------------------------------------------


def test_changed_units() -> None:
    baseline = {"a": 1.0, "b": 0.0, "c": 1.0, "d": 2 / 3, "e": 1 / 3, "only_before": 1.0}
    now = {"a": 0.0, "b": 1.0, "c": 1.0, "d": 1 / 3, "e": 2 / 3, "only_now": 0.0}
    # a and d went from passing (≥ 0.5) to not; b and e the other way; c stayed
    assert changed_units(baseline, now) == (["a", "d"], ["b", "e"])


def test_unit_weights_by_hand() -> None:
    units = {"a": ["a1", "a2"], "b": ["b1", "b2", "b3", "b4"], "c": ["c1", "c2"], "empty": []}
    # one category: 1/n
    assert unit_weights({"b": units["b"]}) == pytest.approx(dict.fromkeys(units["b"], 0.25))
    # a group of a and b: a units ½·½ = 1/4, b units ½·¼ = 1/8
    group = unit_weights({"a": units["a"], "b": units["b"]})
    assert group == pytest.approx({"a1": 0.25, "a2": 0.25, "b1": 0.125, "b2": 0.125, "b3": 0.125, "b4": 0.125})
    # OVERALL with g1 = {a, b} at 0.6 and g2 = {c, d} at 0.4 (d has no units): a 0.6/4, b 0.6/8, c 0.4/2
    overall = unit_weights(units, {"g1": ["a", "b"], "g2": ["c", "d"]}, {"g1": 0.6, "g2": 0.4})
    assert overall == pytest.approx({"a1": 0.15, "a2": 0.15, "b1": 0.075, "b2": 0.075, "b3": 0.075,
                                     "b4": 0.075, "c1": 0.2, "c2": 0.2})  # fmt: skip
    # without g2's units the weights renormalise over g1 alone
    assert unit_weights({"a": ["a1"], "c": []}, {"g1": ["a"], "g2": ["c"]}, {"g1": 0.6, "g2": 0.4}) == {"a1": 1.0}
    assert sum(overall.values()) == pytest.approx(1.0)


# Metric comparisons ------------------------------------------------------------------------------


def test_compare_metric_once_uses_mcnemar() -> None:
    baseline = {"u1": 1.0, "u2": 1.0, "u3": 0.0, "u4": 0.0, "u5": 1.0}
    now = {"u1": 0.0, "u2": 1.0, "u3": 1.0, "u4": 0.0, "u6": 1.0}
    # paired u1..u4: 2/4 before and after; u1 regressed, u3 fixed; McNemar(1, 1) = 1
    result = compare_metric(baseline, now)
    assert result == {"baseline": 0.5, "now": 0.5, "diff": 0.0, "p_value": 1.0, "regressed": 1, "fixed": 1,
                      "paired": 4}  # fmt: skip


def test_a_significant_regression() -> None:
    baseline = {f"u{i}": 1.0 for i in range(20)}
    now = {f"u{i}": 0.0 if i < 10 else 1.0 for i in range(20)}
    result = compare_metric(baseline, now)
    # 10 pass→fail, 0 fail→pass: p = 2·(1/1024) = 0.001953125; 1.0 → 0.5
    assert result["p_value"] == 2 / 1024
    assert result["diff"] == -0.5 and result["regressed"] == 10 and result["fixed"] == 0
    assert ALPHA == 0.05
    assert significant_regression(result)
    assert not significant_regression(result, alpha=0.001)
    # the same p-value for an improvement is not a regression
    assert not significant_regression(compare_metric(now, baseline))


def test_significant_regression_needs_both_numbers() -> None:
    assert not significant_regression({"diff": None, "p_value": 0.0})
    assert not significant_regression({"diff": -0.1, "p_value": None})
    assert not significant_regression({"diff": -0.1, "p_value": 0.05})  # p < alpha, strictly
    assert significant_regression({"diff": -0.1, "p_value": 0.049})


def test_compare_metric_under_repeats_uses_the_sign_flip_test() -> None:
    baseline = {"u1": 1.0, "u2": 2 / 3, "u3": 1 / 3, "u4": 1.0, "u5": 0.0}
    now = {"u1": 1 / 3, "u2": 2 / 3, "u3": 0.0, "u4": 2 / 3, "u5": 1 / 3}
    result = compare_metric(baseline, now)
    # differences -2/3, 0, -1/3, -1/3, +1/3; scaled: 1, .5, .5, .5 with T = -1.5.
    # ±1 + (±.5 ±.5 ±.5 ∈ {1.5, .5 ×3, -.5 ×3, -1.5}): |S| ≥ 1.5 for 4 of 8 with +1 and 4 of 8 with -1 → p = 0.5
    assert result["p_value"] == pytest.approx(0.5)
    # means: now (1/3 + 2/3 + 0 + 2/3 + 1/3)/5 = 0.4, baseline (1 + 2/3 + 1/3 + 1 + 0)/5 = 0.6
    assert result["diff"] == pytest.approx(-0.2)
    assert (result["regressed"], result["fixed"]) == (1, 0)  # u1 fell below 0.5, nothing rose above it


def test_compare_metric_takes_the_reported_values() -> None:
    result = compare_metric({"u": 1.0}, {"u": 1.0}, baseline_value=0.812, now_value=0.8)
    assert result["baseline"] == 0.812 and result["now"] == 0.8
    assert result["diff"] == pytest.approx(-0.012)
    assert result["p_value"] == 1.0  # nothing changed in the units: no evidence of anything


def test_compare_metric_without_shared_units() -> None:
    result = compare_metric({"a": 1.0}, {"b": 0.0})
    assert result == {"baseline": None, "now": None, "diff": None, "p_value": None, "regressed": 0, "fixed": 0,
                      "paired": 0}  # fmt: skip
    assert not significant_regression(result)


def test_weighted_p_value_is_mcnemar_only_for_equal_weights() -> None:
    baseline = {"a1": 1.0, "b1": 0.0, "b2": 1.0}
    now = {"a1": 0.0, "b1": 1.0, "b2": 0.0}
    # equal weights, binary: McNemar(b = 2, c = 1) = 1
    assert paired_p_value(baseline, now, dict.fromkeys(baseline, 1 / 3)) == 1.0
    # weights 0.5, 0.25, 0.25: terms -0.5, +0.25, -0.25, T = -0.5; sums ±.5 ±.25 ±.25 reach |S| ≥ .5
    # for (.5, .25, .25), (.5, .25, -.25), (.5, -.25, .25) and mirrors: 6 of 8
    assert paired_p_value(baseline, now, {"a1": 0.5, "b1": 0.25, "b2": 0.25}) == pytest.approx(0.75)


def test_compare_grouped_by_hand() -> None:
    groups = {"g1": ["a", "b"], "g2": ["c"]}
    weights = {"g1": 0.6, "g2": 0.4}
    baseline = {"a": {"a1": 1.0, "a2": 1.0}, "b": {"b1": 1.0, "b2": 0.0, "b3": 1.0, "b4": 1.0},
                "c": {"c1": 0.0, "c2": 1.0}}  # fmt: skip
    now = {"a": {"a1": 0.0, "a2": 1.0}, "b": {"b1": 1.0, "b2": 1.0, "b3": 1.0, "b4": 0.0, "b5": 1.0},
           "c": {"c1": 1.0, "c2": 1.0}, "d": {"d1": 1.0}}  # fmt: skip
    result = compare_grouped(baseline, now, groups, weights, baseline_values={"overall": 0.73})
    assert set(result) == {"a", "b", "c", "g1", "g2", "overall"}  # d has no shared unit
    # a: 1.0 → 0.5, a1 regressed, McNemar(1, 0) = 1
    assert (result["a"]["diff"], result["a"]["regressed"], result["a"]["p_value"]) == (-0.5, 1, 1.0)
    # b (b5 is new): 0.75 → 0.75, b4 regressed, b2 fixed
    assert (result["b"]["diff"], result["b"]["regressed"], result["b"]["fixed"]) == (0.0, 1, 1)
    # g1: a units 1/4, b units 1/8: 0.5 + 3/8 = 0.875 → 0.25 + 3/8 = 0.625
    assert (result["g1"]["baseline"], result["g1"]["now"]) == pytest.approx((0.875, 0.625))
    # g1's terms -1/4 (a1), +1/8 (b2), -1/8 (b4), T = -1/4: sums ±.25 ±.125 ±.125 ∈ {.5, .25, .25, 0, 0, -.25,
    # -.25, -.5}: 6 of 8 reach .25
    assert result["g1"]["p_value"] == pytest.approx(0.75)
    assert (result["g1"]["regressed"], result["g1"]["fixed"]) == (2, 1)
    # overall: 0.6·0.875 + 0.4·0.5 = 0.725 → 0.6·0.625 + 0.4·1 = 0.775; the reported baseline wins
    assert result["overall"]["now"] == pytest.approx(0.775)
    assert result["overall"]["baseline"] == 0.73
    assert result["overall"]["diff"] == pytest.approx(0.045)
    # terms -0.15, +0.075, -0.075, +0.2: T = 0.05, and no sign vector gives |S| < 0.05 → p = 1
    assert result["overall"]["p_value"] == pytest.approx(1.0)


def test_compare_units_from_report_samples() -> None:
    def s(id_: str, repeat: int, score: float) -> dict:
        return {"benchmark": "acebench", "lang": "en", "category": "special_incomplete", "id": id_,
                "repeat": repeat, "score": score, "outcome": "passed" if score == 1.0 else "failed",
                "nodeid": f"toolcall::acebench[en/{id_}]@{repeat}"}  # fmt: skip

    baseline = [s("x", 1, 1.0), s("x", 2, 1.0), s("y", 1, 0.0), s("y", 2, 0.0), s("z", 1, 1.0), s("z", 2, 0.0)]
    now = [s("x", 2, 0.0), s("x", 1, 0.0), s("y", 1, 1.0), s("y", 2, 0.0), s("z", 1, 0.0), s("z", 2, 0.0)]
    # x: 1 → 0 regressed; y: 0 → 0.5 fixed (passes at ≥ 0.5); z: 0.5 → 0 regressed; named without "@k"
    assert compare_units(baseline, now) == {
        "regressed": ["toolcall::acebench[en/x]", "toolcall::acebench[en/z]"],
        "fixed": ["toolcall::acebench[en/y]"],
    }
    for sample in baseline + now:
        del sample["nodeid"]
    assert compare_units(iter(baseline), iter(now))["fixed"] == ["acebench/en/special_incomplete/y"]


# F1 ----------------------------------------------------------------------------------------------

TP, FP, FN, TN = (True, True), (True, False), (False, True), (False, False)


def f1_of(units: list[tuple[bool, bool]]) -> float:
    tp = units.count(TP)
    return 2 * tp / (2 * tp + units.count(FP) + units.count(FN)) if tp else 0.0


def test_compare_f1_against_an_exact_permutation_test() -> None:
    shared = {f"c{i}": TP for i in range(10)} | {f"n{i}": TN for i in range(10)}
    baseline = shared | {f"d{i}": TP for i in range(6)} | {f"e{i}": TN for i in range(2)}
    now = shared | {f"d{i}": FN for i in range(6)} | {f"e{i}": FP for i in range(2)}
    keys = sorted(baseline)
    result = compare_f1(baseline, now, seed=1)
    # baseline: TP 16, no errors → F1 1; now: TP 10, FN 6, FP 2 → 20/28
    assert result["baseline"] == 1.0 and result["now"] == pytest.approx(20 / 28)
    assert (result["regressed"], result["fixed"], result["paired"]) == (8, 0, 28)
    # The exact p over all 2^8 swaps of the discordant units.
    observed = abs(f1_of([now[k] for k in keys]) - f1_of([baseline[k] for k in keys]))
    discordant = [k for k in keys if baseline[k] != now[k]]
    extreme = 0
    for swaps in itertools.product((False, True), repeat=len(discordant)):
        before, after = dict(baseline), dict(now)
        for key, swap in zip(discordant, swaps, strict=True):
            if swap:
                before[key], after[key] = now[key], baseline[key]
        extreme += abs(f1_of(list(after.values())) - f1_of(list(before.values()))) >= observed - 1e-12
    exact = extreme / 2 ** len(discordant)
    assert result["p_value"] == pytest.approx(exact, abs=0.02)
    assert compare_f1(baseline, now, seed=1) == result  # seeded: the same again


def test_compare_f1_without_change_or_units() -> None:
    same = {f"u{i}": (TP, FP, FN, TN)[i % 4] for i in range(12)}
    result = compare_f1(same, same)
    assert result["diff"] == 0.0 and result["p_value"] == 1.0
    assert compare_f1({"a": TP}, {"b": TP})["p_value"] is None
