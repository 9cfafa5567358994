"""ACEBench's metrics, declared (``METRICS``): per-category accuracies, the official groups and OVERALL,
derived by the generic layer (``pytest_toolcall.api.derive_block``).

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

from typing import Any

from pytest_toolcall.api import Column, Group, Metrics, Overall, Rows, derive_block
from pytest_toolcall.benchmarks.acebench.dataset import CATEGORIES, GROUPS, LANGUAGES, OVERALL_WEIGHTS, family

#: Other names of the groups in gate names.
ALIASES = {"normal_atom": "atom", "normal_single_turn": "single_turn", "normal_multi_turn": "multi_turn"}


def digits(category: str) -> int | None:
    """Special categories are the only ones the official code leaves unrounded."""
    return None if family(category) == "special" else 3


#: ACEBench's metrics, declared: a block per language, a row per category (with the process score
#: and the ceiling), the official groups and the weighted OVERALL.
METRICS = Metrics(
    rows=(Rows(names=CATEGORIES),),
    columns=(Column("process_acc", "process", digits=3, missing=0.0), Column("ceiling", "ceiling")),
    digits=digits,
    groups={group: Group(members) for group, members in GROUPS.items()},
    overall=Overall(OVERALL_WEIGHTS, divide_official=False),
    official_digits=3,
    per="lang",
    parts=LANGUAGES,
    part_title="language",
    aliases=ALIASES,
    unprefixed=True,
)


def acebench_metrics(records: list[dict[str, Any]], sizes: dict[tuple[str, str], int]) -> dict[str, dict[str, Any]]:
    """Metrics per language, keyed ``acebench/<lang>`` (what the declaration derives).
    ``sizes``: units per (lang, category) in the data."""
    by_lang: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        if record["benchmark"] == "acebench":
            by_lang.setdefault(record["lang"], []).append(record)
    return {
        f"acebench/{lang}": derive_block(METRICS, rows, {c: n for (part, c), n in sizes.items() if part == lang})
        for lang, rows in sorted(by_lang.items())
    }
