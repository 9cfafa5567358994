"""Cells and notes of a metrics block's terminal table, shared by the default table of the protocol
and the benchmarks' own tables."""

from __future__ import annotations

from typing import Any


def interval(ci95: Any, digits: int = 3) -> str:
    """``[lo, hi]`` as ``0.812-0.934``; ``-`` when there is none."""
    if not isinstance(ci95, (list, tuple)) or len(ci95) != 2 or ci95[0] is None:
        return "-"
    return f"{ci95[0]:.{digits}f}-{ci95[1]:.{digits}f}"


def pass_hat(pass_hat_k: dict[str, float] | None) -> str:
    """pass^k as ``0.90 / 0.85 / 0.81`` (k = 1, 2, ...)."""
    if not pass_hat_k:
        return "-"
    return " / ".join(f"{pass_hat_k[k]:.2f}" for k in sorted(pass_hat_k, key=int))


def coverage_notes(block: dict[str, Any]) -> list[str]:
    """What a block of categories is missing: categories that did not run, categories cut short,
    items that errored (for the one-line notes under a benchmark's table)."""
    notes = []
    if block["missing_categories"]:
        notes.append(f"not run: {', '.join(block['missing_categories'])}")
    if block["short_categories"]:
        notes.append(f"not all items: {', '.join(block['short_categories'])}")
    if block["errors"]:
        notes.append(f"{block['errors']} item(s) errored")
    return notes
