"""Repeats: how the attempts of a unit become the unit's value (named reducers), and how wide the
interval of a value over repeated units must at least be.

Under ``--toolcall-repeat N`` a unit runs as N attempts, each scored 1.0 (pass) or 0.0. A benchmark
chooses in its declaration (``core.protocol.metrics.Metrics.reducer``) how a unit's attempts reduce
to the unit's value, which the comparison with a baseline pairs and the intervals resample:

* ``mean`` (the default): the share of its attempts that passed, c/n; the block's accuracy is then
  the share of every attempt that passed, and pass^k (k = 1 … N) is reported beside it.
* ``pass^k``: τ-bench's C(c, k)/C(n, k), the chance that k attempts drawn without replacement all
  pass; the headline is pass^1 (the mean of the units' pass rates), the curve k = 1 … N beside it.
* ``majority``: 1.0 when at least half of the attempts passed (a tie passes), else 0.0; what a
  benchmark whose unit is a decision uses (general_fc's decision to call: a tie counts as a call).

Intervals never narrower than the units justify. A unit's attempts are not independent evidence: a
model that passes a unit once will likely pass it again. The bootstrap over units (attempts resampled
with their unit, ``intervals.accuracy_interval``) shows the spread between units, but collapses to a
point when every unit has the same value: 5 units passing both of their 2 attempts would give
[1, 1], and a lower-bound gate of 0.95 would pass where the same 5 units run once (Wilson(5, 5) =
[0.566, 1]) fail. So the interval of a value over repeated units is the hull of that bootstrap
interval and ``unit_floor``: the Wilson interval of the units' mean value v̄ over the number of units
m (v̄·m successes in m trials), the interval the same m units would have if each had run once with
its mean as its outcome. For a weighted value (a group: a mean of category means) m is the effective
number of units (Kish): (Σw)²/Σw² over the units' weights, which is m for equal weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Interval = tuple[float, float]


@dataclass(frozen=True)
class Reducer:
    """How the attempts of a unit reduce to the unit's value (module docstring)."""

    name: str

    def value(self, scores: Sequence[float]) -> float:
        """The unit's value from its attempts' scores (1.0 pass, 0.0 fail)."""
        if not scores:
            raise ValueError("a unit has at least one attempt")
        if self.name == "majority":
            return 1.0 if 2 * sum(1 for s in scores if s == 1.0) >= len(scores) else 0.0
        # mean and pass^k: the unit's pass rate (pass^1); the pass^k curve is reported beside it.
        return sum(scores) / len(scores)

    def values(self, attempts: Mapping[str, Sequence[float]]) -> dict[str, float]:
        """Each unit's value (units without attempts left out)."""
        return {key: self.value(scores) for key, scores in attempts.items() if scores}


MEAN = Reducer("mean")
PASS_HAT_K = Reducer("pass^k")
MAJORITY = Reducer("majority")
REDUCERS = {reducer.name: reducer for reducer in (MEAN, PASS_HAT_K, MAJORITY)}


def effective_units(weights: Sequence[float]) -> float:
    """Kish's effective number of units of a weighted mean: (Σw)²/Σw² (m for m equal weights)."""
    total = sum(weights)
    squares = sum(w * w for w in weights)
    return total * total / squares if squares else 0.0


def unit_floor(value: float | None, units: float) -> Interval | None:
    """The narrowest interval ``units`` units justify around ``value``: Wilson of value·units
    successes in ``units`` trials (module docstring); None without a value or a unit."""
    if value is None or units <= 0:
        return None
    value = min(1.0, max(0.0, value))
    return wilson_fraction(value * units, units)


def wilson_fraction(successes: float, n: float) -> Interval:
    """Wilson's interval for a (possibly fractional) number of successes in n trials: the formula of
    ``estimates.wilson`` with p = successes/n, exact at 0 and at n."""
    z = 1.96  # (``estimates.Z95``)
    p = successes / n
    shrink = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / shrink
    # (For whole numbers, the very numbers of ``estimates.wilson``: the same operations.)
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def hull(first: Interval | None, second: Interval | None) -> Interval | None:
    """The smallest interval holding both (either may be None)."""
    if first is None:
        return second
    if second is None:
        return first
    return min(first[0], second[0]), max(first[1], second[1])
