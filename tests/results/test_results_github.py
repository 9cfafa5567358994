"""The GitHub step summary: every table of the terminal summary as a GitHub markdown table, with the
same cells, and model text in a cell inert."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from pytest_toolcall.core.protocol.tables import Table
from pytest_toolcall.results.github import markdown_table

ORACLE = ["--toolcall-model=oracle", "-p", "no:randomly", "-m", "not agent", "-k", "user_adjust or special_incomplete"]
SEPARATOR = re.compile(r"^\|( :?---:? \|)+$")


def markdown_tables(text: str) -> list[list[str]]:
    """The runs of consecutive ``|`` lines of a markdown text."""
    tables: list[list[str]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|"):
            if previous.startswith("|"):
                tables[-1].append(line)
            else:
                tables.append([line])
        previous = line
    return tables


def cells(line: str) -> list[str]:
    """The cells of a markdown row as GitHub shows them (``\\|`` is ``|``, ``&lt;`` is ``<``)."""
    assert line.startswith("| ") and line.endswith(" |"), line
    return [html.unescape(c.strip().replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", line[1:-1])]


@pytest.mark.slow
def test_the_step_summary_of_an_oracle_run_is_markdown_tables_of_the_terminal_cells(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.runpytest(*ORACLE, "--toolcall-report=base.json")
    step_summary = pytester.path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    result = pytester.runpytest(*ORACLE, "--toolcall-baseline=base.json")
    text = step_summary.read_text(encoding="utf-8")
    tables = markdown_tables(text)
    # ACEBench's categories, its groups and OVERALL, the comparison with the baseline.
    assert len(tables) == 3
    assert "### Against the baseline `" in text
    terminal = [line.split() for line in result.outlines]
    for table in tables:
        assert len(table) >= 3  # a header, the separator, at least one row
        assert SEPARATOR.match(table[1]), table[1]
        width = len(cells(table[0]))
        assert width >= 3 and all(len(cells(line)) == width for line in table)
        for line in [table[0], *table[2:]]:
            # The same cells, in the same order, as a line of the terminal's table.
            assert " ".join(cells(line)).split() in terminal, line
    headers = [cells(table[0])[0] for table in tables]
    assert headers == ["category", "group", "metric"]
    overall = next(cells(line) for line in tables[1] if line.startswith("| OVERALL "))
    assert re.fullmatch(r"\d\.\d{3}", overall[1])


def test_a_cell_is_inert_on_one_line_with_its_bars_escaped() -> None:
    reply = "a|b\x1b[31m red\nsecond <img src=x> line"
    table = Table(["name", "value"], [[reply, 1], ["short"]], colalign=("left", "right"))
    lines = markdown_table(table).splitlines()
    assert lines[:2] == ["| name | value |", "| --- | ---: |"]
    assert len(lines) == 4  # the reply's newline did not break its row
    row: Any = cells(lines[2])
    assert row[1] == "1" and "\x1b" not in lines[2] and "<img" not in lines[2]
    assert row[0].startswith("a|b") and "<img src=x>" in row[0]
    assert cells(lines[3]) == ["short", ""]  # a short row is filled to the header's width
