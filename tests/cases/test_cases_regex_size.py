"""A case file's ``$regex`` is capped in size at collection (issue 31, finding 11): one that expands
to more than ``MAX_EXPANDED_SIZE`` units (each counted repeat counted out, as RE2 compiles it) or is
longer than ``MAX_PATTERN_LENGTH`` is one line naming file and line, found by parsing alone (linear
in the pattern), before anything compiles it or builds a string for it."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from pytest_toolcall.api.patterns import MAX_EXPANDED_SIZE, size_problem
from pytest_toolcall.benchmarks.cases.format import CaseFileError, read_case_file

TOO_LARGE = [
    "((a{1000}){1000}){1000}",
    "(a{1000}){101}",
    "(?:[a-z]{50}){2001}",
    "a{100001}",
    "(x|y{400}){300}",
    "(?=(a{1000}){1000})b",
    "a" * 10_001,
]
FINE = ["a+", r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$", "a{1000}", "(a{10}){1000}", r"\d{4}-\d{2}-\d{2}", "(?s).*"]


@pytest.mark.parametrize("pattern", TOO_LARGE)
def test_too_large(pattern: str) -> None:
    assert size_problem(pattern)


@pytest.mark.parametrize("pattern", FINE)
def test_fine(pattern: str) -> None:
    assert size_problem(pattern) == ""


def test_the_expanded_size_is_counted_as_re2_would() -> None:
    # a{N}: N units and the repeat; under the bound at N = MAX - 1, over it at N = MAX.
    assert size_problem(f"a{{{MAX_EXPANDED_SIZE - 1}}}") == ""
    assert size_problem(f"a{{{MAX_EXPANDED_SIZE}}}")


def case_file(tmp_path: Path, pattern: str, where: str) -> Path:
    value = '{$regex: "' + pattern + '"}'
    expect = {
        "calls": f"{{calls: [{{name: f, arguments: {{x: {value}}}}}]}}",
        "any_of": f"{{any_of: [{{calls: [{{name: f, arguments: {{x: {value}}}}}]}}]}}",
        "final": f"{{calls: [{{name: f}}], final: {value}}}",
    }[where]
    path = tmp_path / "big.toolcall.yaml"
    path.write_text(
        f"""defaults:
  tools:
    - type: function
      function: {{name: f, parameters: {{type: object, properties: {{x: {{type: string}}}}}}}}
cases:
  - id: fine
    prompt: hi
    expect: {{calls: [{{name: f}}]}}
  - id: big
    prompt: hi
    expect: {expect}
""",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("where", ["calls", "any_of", "final"])
def test_a_large_regex_is_one_line_at_collection(tmp_path: Path, where: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(CaseFileError) as caught:
            read_case_file(case_file(tmp_path, "((a{1000}){1000}){1000}", where))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'big.toolcall.yaml'}:9: case 'big': $regex") and "too large" in message
    assert peak < 50 * 2**20  # refused by its size, not after building it (the old path took 2 GB)
