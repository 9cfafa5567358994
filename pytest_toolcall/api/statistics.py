"""Intervals, repeats and paired comparisons, for benchmarks whose metrics are their own (general_fc's
F1, ACEBench's weighted groups). The defaults of ``Benchmark`` already use them."""

from __future__ import annotations

from pytest_toolcall.core.stats.comparison import (
    compare_f1,
    compare_metric,
    compare_metrics,
    grouped_weights,
    mcnemar_exact,
    unit_weights,
)
from pytest_toolcall.core.stats.estimates import attempt_scores, pass_hat_k, unit_key, unit_means, wilson
from pytest_toolcall.core.stats.intervals import (
    accuracy_interval,
    as_list,
    category_fields,
    f1_interval,
    group_intervals,
    repeat_fields,
    unit_means_by,
)

__all__ = [
    "accuracy_interval",
    "as_list",
    "attempt_scores",
    "category_fields",
    "compare_f1",
    "compare_metric",
    "compare_metrics",
    "f1_interval",
    "group_intervals",
    "grouped_weights",
    "mcnemar_exact",
    "pass_hat_k",
    "repeat_fields",
    "unit_key",
    "unit_means",
    "unit_means_by",
    "unit_weights",
    "wilson",
]
