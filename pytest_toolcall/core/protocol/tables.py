"""A metrics block's summary as parts (text lines and tables, ``Table``), its cells and notes, shared
by the default table of the protocol and the benchmarks' own tables. The terminal renders a table
with tabulate (``render``), the GitHub step summary as a markdown table (``results.github``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from pytest_toolcall.core.protocol.failure_kinds import failure_kind_line
from pytest_toolcall.core.safety.text import measured


@dataclass(frozen=True)
class Table:
    """Headers and rows of one table, with how the terminal lays it out (tabulate's options)."""

    headers: list[str]
    rows: list[list[Any]]
    colalign: tuple[str, ...] | None = None
    disable_numparse: bool = True
    tablefmt: str = "simple"
    #: False: the terminal shows no header row (a two-column list); markdown always has one.
    terminal_headers: bool = True

    def lines(self) -> list[str]:
        return tabulate(
            self.rows,
            headers=self.headers if self.terminal_headers else (),
            colalign=self.colalign,
            disable_numparse=self.disable_numparse,
            tablefmt=self.tablefmt,
        ).splitlines()


#: One part of a block's summary: a line of text, or a table.
Part = str | Table


def render(parts: list[Part]) -> list[str]:
    """The terminal lines of a summary's parts."""
    return [line for part in parts for line in (part.lines() if isinstance(part, Table) else [part])]


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


def default_table(block: dict[str, Any]) -> list[str]:
    """The terminal lines of ``default_parts``."""
    return render(default_parts(block))


def default_parts(block: dict[str, Any]) -> list[Part]:
    """The summary of the default block (``core.protocol.blocks.accuracy_block``): a table with a row per
    category and OVERALL, with intervals, pass^k under repeats, then what the block is missing and
    why units failed."""
    repeats = bool(block.get("pass_hat_k"))
    headers = ["category", "n", "passed", "failed", "errors", "accuracy", "95% CI", *(["pass^k"] if repeats else [])]
    rows = []
    for name, row in block["categories"].items():
        cells = [name, row["n"], row["passed"], row["failed"], row["errors"], measured(row["accuracy"])]
        rows.append([*cells, interval(row.get("ci95")), *([pass_hat(row.get("pass_hat_k"))] if repeats else [])])
    overall = ["OVERALL", block["n"], block["passed"], block["failed"], block["errors"], measured(block["overall"])]
    rows.append([*overall, interval(block.get("overall_ci95")), *([pass_hat(block["pass_hat_k"])] if repeats else [])])
    parts: list[Part] = [Table(headers, rows, colalign=("left", *("right",) * (len(headers) - 1)))]
    notes = coverage_notes(block)
    if block.get("overall_official") is not None and block["overall_official"] != block["overall"]:
        notes.append(f"official OVERALL {block['overall_official']:.3f} (units not run and errors count as failed)")
    if block.get("flaky"):
        notes.append(f"{len(block['flaky'])} flaky unit(s)")
    if notes:
        parts.append("; ".join(notes))
    if kinds := failure_kind_line(block.get("failure_kinds", {})):
        parts.append(kinds)
    return parts
