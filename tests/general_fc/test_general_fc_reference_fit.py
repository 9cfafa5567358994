"""A ``--toolcall-reference`` report that does not fit the run is a usage error at start-up naming the
file and the difference (issue 21, "references that fit"): a run of another benchmark, or of other
general_fc files."""

from __future__ import annotations

import pytest

from tests.support.general_fc_files import line, write_lines

CASES = """
cases:
  - id: c0
    prompt: "Weather in Paris?"
    tools:
      - type: function
        function:
          name: get_weather
          parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
"""


def oracle(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider", *args)


def general_fc(pytester: pytest.Pytester, name: str, *args: str) -> pytest.RunResult:
    path = write_lines(pytester.path / name, [line("Weather in Paris?"), line("Hello", should_call_tool=False)])
    return oracle(pytester, "--toolcall-bench=general_fc", f"--toolcall-general-fc={path}", *args)


def test_a_reference_of_another_benchmark_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toolcall.yaml", weather=CASES)
    oracle(pytester, "--toolcall-report=cases.json", ".").assert_outcomes(passed=1)
    result = general_fc(pytester, "a.jsonl", "--toolcall-reference=cases.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "cases.json holds no general_fc sample (a run of cases)" in err, err
    assert "passed" not in result.stdout.str()


def test_a_reference_of_another_file_is_refused_and_of_the_same_file_accepted(pytester: pytest.Pytester) -> None:
    general_fc(pytester, "a.jsonl", "--toolcall-report=a.json").assert_outcomes(passed=2)
    general_fc(pytester, "b.jsonl", "--toolcall-report=b.json").assert_outcomes(passed=2)
    wrong = general_fc(pytester, "a.jsonl", "--toolcall-reference=b.json")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    assert "b.json is a run of general_fc file(s) b.jsonl, this run of a.jsonl" in wrong.stderr.str()
    right = general_fc(pytester, "a.jsonl", "--toolcall-reference=a.json")
    right.assert_outcomes(passed=2)
