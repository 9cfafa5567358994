"""ACEBench aggregates: per-category accuracies, the official groups and OVERALL.

Rounding follows the official code at every level: normal and agent categories are rounded to 3
decimals, special ones are not; groups are unweighted means of category accuracies; the official
OVERALL uses the rounded groups with a missing category counted as 0. When categories are missing
or incomplete (a selection, ``--toolcall-limit``, errors), OVERALL is renormalised over the groups
that ran, unrounded, and the run is marked partial; the official value is kept beside it (a category
run short counts its missing units as failed there: ``accuracy_official``).

Uncertainty (``core.stats.intervals``): every category has its ``ci95``; groups and OVERALL get
``groups_ci95`` and ``overall_ci95`` from the stratified bootstrap over units (the renormalised value's
interval when the block is partial). Under ``--toolcall-repeat`` accuracies are over attempts, and each
category and the block carry ``pass_hat_k`` and their flaky units.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pytest_toolcall.api import failure_kind_counts
from pytest_toolcall.api.statistics import as_list, category_fields, group_intervals, repeat_fields, unit_means_by
from pytest_toolcall.benchmarks.acebench.dataset import CATEGORIES, GROUPS, OVERALL_WEIGHTS, family

#: Outcomes of items that did not run to a verdict on purpose: not part of any denominator.
NOT_SCORED = {"skipped"}


def acebench_metrics(records: list[dict[str, Any]], sizes: dict[tuple[str, str], int]) -> dict[str, dict[str, Any]]:
    """Metrics per language, keyed ``acebench/<lang>``. ``sizes``: units per (lang, category) in the data."""
    by_lang: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record["benchmark"] == "acebench" and record.get("outcome") not in NOT_SCORED:
            by_lang[record["lang"]][record["category"]].append(record)
    return {f"acebench/{lang}": _language(cats, lang, sizes) for lang, cats in sorted(by_lang.items())}


def _language(
    by_category: dict[str, list[dict[str, Any]]], lang: str, sizes: dict[tuple[str, str], int]
) -> dict[str, Any]:
    records = [r for rows in by_category.values() for r in rows]
    attempts = max((r.get("repeat") or 1 for r in records), default=1)
    categories = {
        c: _category(c, by_category[c], sizes.get((lang, c)), attempts) for c in CATEGORIES if by_category.get(c)
    }
    # A category whose every item errored measured nothing: its accuracy is None, never 0.
    accuracy = {c: m["accuracy"] for c, m in categories.items() if m["accuracy"] is not None}
    official_accuracy = {c: m.get("accuracy_official", m["accuracy"]) for c, m in categories.items() if c in accuracy}
    groups = {g: _mean([accuracy[c] for c in members if c in accuracy]) for g, members in GROUPS.items()}
    official_groups: dict[str, float | None] = dict.fromkeys(GROUPS)
    official: float | None = None
    if accuracy:
        rounded = {
            g: round(sum(official_accuracy.get(c, 0.0) for c in members) / len(members), 3)
            for g, members in GROUPS.items()
        }
        official_groups.update(rounded)
        official = round(sum(w * rounded[g] for g, w in OVERALL_WEIGHTS.items()), 3)
    # (weight, value) of the groups that measured something, in the weights' order.
    evaluated = {g: (w, value) for g, w in OVERALL_WEIGHTS.items() if (value := groups[g]) is not None}
    renormalised = (
        sum(w * value for w, value in evaluated.values()) / sum(w for w, _ in evaluated.values()) if evaluated else None
    )
    missing = [c for c in CATEGORIES if c not in categories]
    short = [c for c, m in categories.items() if m["n"] < sizes.get((lang, c), m["n"])]
    incomplete = sum(m["errors"] for m in categories.values())
    partial = bool(missing or short or incomplete)
    intervals = group_intervals(
        {c: list(means.values()) for c, means in unit_means_by(records, "category").items()}, GROUPS, OVERALL_WEIGHTS
    )
    shown_groups = groups if partial else official_groups
    overall = renormalised if partial else official
    return {
        "categories": categories,
        "groups": shown_groups,
        # No interval around a value that nothing measured.
        "groups_ci95": {g: as_list(intervals[g]) if shown_groups[g] is not None else None for g in GROUPS},
        "groups_official": official_groups,
        "overall": overall,
        "overall_ci95": as_list(intervals["overall"]) if overall is not None else None,
        "overall_official": official,
        "partial": partial,
        "missing_categories": missing,
        "short_categories": short,
        "errors": incomplete,
        "failure_kinds": failure_kind_counts(records),
        **repeat_fields(records),
    }


def _category(category: str, records: list[dict[str, Any]], size: int | None, attempts: int) -> dict[str, Any]:
    n = len(records)
    passed = sum(1 for r in records if r.get("score") == 1.0)
    errors = sum(1 for r in records if r.get("outcome") == "error")
    ceilings = [r["ceiling"] for r in records if r.get("ceiling") is not None]
    processes = [r.get("process") or 0.0 for r in records]
    has_process = any(r.get("process") is not None for r in records)
    metrics = {
        "n": n,
        "passed": passed,
        "failed": n - passed - errors,
        "errors": errors,
        "accuracy": _accuracy(category, passed / n) if n > errors else None,
        **category_fields(records),
        "process_acc": round(sum(processes) / n, 3) if has_process else None,
        "ceiling": _accuracy(category, sum(ceilings) / len(ceilings)) if ceilings else None,
    }
    if metrics["accuracy"] is None:  # nothing measured: no interval around a value that does not exist
        metrics["ci95"] = None
    expected = size * attempts if size is not None else n
    if n < expected:  # run short: officially, the units that did not run count as failed
        metrics["accuracy_official"] = _accuracy(category, passed / expected)
    return metrics


def _accuracy(category: str, value: float) -> float:
    """Special categories are the only ones the official code leaves unrounded."""
    return value if family(category) == "special" else round(value, 3)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
