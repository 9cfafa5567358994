"""Case files and Python tests as pytest collects them: node ids, markers, the selection rules of
docs/contract.md "Activation and collection", the ini option, broken files, and the plugin left inert."""

from __future__ import annotations

import re
import textwrap

import pytest

WEATHER_TOOL = """
    - type: function
      function:
        name: get_weather
        parameters:
          type: object
          properties: {city: {type: string}}
          required: [city]
          additionalProperties: false
"""
CASE_FILE = (
    """
defaults:
  tags: [weather]
  tools:"""
    + WEATHER_TOOL
    + """
cases:
  - id: paris
    prompt: "Weather in Paris?"
    tags: [smoke]
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: hello
    prompt: "Hi!"
    expect: {no_call: true}
"""
)
PYTHON_TEST = """
import pytest
from pytest_toolcall import assert_tool_calls

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]

@pytest.mark.smoke
def test_asks(toolcall_chat):
    response = toolcall_chat("Weather in Oslo?", tools=TOOLS)
    assert_tool_calls(response, {"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}, tools=TOOLS)

def test_plain():
    assert True
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with a case file, a Python test using toolcall_chat and a plain test, under tests/."""
    pytester.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    smoke: quick ones\n")
    tests = pytester.mkdir("tests")
    (tests / "weather.toolcall.yaml").write_text(CASE_FILE, encoding="utf-8")
    (tests / "test_agent.py").write_text(PYTHON_TEST, encoding="utf-8")
    return pytester


def collected(result: pytest.RunResult) -> list[str]:
    return sorted(line for line in result.stdout.lines if "::" in line and " " not in line)


ORACLE = ("--toolcall-model=oracle", "-p", "no:randomly")


@pytest.mark.slow
def test_each_case_is_one_item_named_file_and_id(project: pytest.Pytester) -> None:
    result = project.runpytest(*ORACLE, "tests", "--collect-only", "-q")
    assert collected(result) == [
        "tests/test_agent.py::test_asks",
        "tests/test_agent.py::test_plain",
        "tests/weather.toolcall.yaml::hello",
        "tests/weather.toolcall.yaml::paris",
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        # tags are markers, usable under --strict-markers (the project's pytest.ini is strict here)
        (["-m", "smoke"], ["tests/test_agent.py::test_asks", "tests/weather.toolcall.yaml::paris"]),
        (["-m", "weather"], ["tests/weather.toolcall.yaml::hello", "tests/weather.toolcall.yaml::paris"]),
        # cases: the case files and the Python tests that ask through toolcall_chat
        (
            ["-m", "cases"],
            ["tests/test_agent.py::test_asks", *(f"tests/weather.toolcall.yaml::{i}" for i in ("hello", "paris"))],
        ),
        (["-k", "hello or plain"], ["tests/test_agent.py::test_plain", "tests/weather.toolcall.yaml::hello"]),
    ],
)
def test_markers_and_keywords(project: pytest.Pytester, selection: list[str], expected: list[str]) -> None:
    result = project.runpytest(*ORACLE, "--strict-markers", "tests", "--collect-only", "-q", *selection)
    assert result.ret == 0, result.stdout.str()
    assert collected(result) == expected


@pytest.mark.slow
def test_with_paths_only_those_paths_and_named_benchmarks(project: pytest.Pytester) -> None:
    result = project.runpytest(*ORACLE, "tests/weather.toolcall.yaml", "--collect-only", "-q")
    assert collected(result) == ["tests/weather.toolcall.yaml::hello", "tests/weather.toolcall.yaml::paris"]
    named = ("--toolcall-bench=acebench", "--toolcall-limit=1")
    result = project.runpytest(*ORACLE, "tests/weather.toolcall.yaml", *named, "--collect-only", "-q")
    items = collected(result)
    assert len(items) == 2 + 17  # and one ACEBench item per en category (agents included)
    assert all(i.startswith(("tests/weather.toolcall.yaml::", "toolcall::acebench[en/")) for i in items)


@pytest.mark.slow
def test_a_typed_model_without_path_runs_only_the_benchmark(project: pytest.Pytester) -> None:
    result = project.runpytest(*ORACLE, "--toolcall-limit=1", "--collect-only", "-q")
    items = collected(result)
    assert len(items) == 17 and all(i.startswith("toolcall::acebench[en/") for i in items)
    # naming cases keeps pytest's own paths (testpaths), where the project's cases are
    result = project.runpytest(*ORACLE, "--toolcall-bench=cases", "--collect-only", "-q")
    assert len(collected(result)) == 4


@pytest.mark.slow
def test_model_in_the_ini_runs_the_project_and_the_named_benchmarks(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    smoke: quick\ntoolcall_model = oracle\n")
    result = project.runpytest("--collect-only", "-q", "-p", "no:randomly")
    assert len(collected(result)) == 4  # the testpaths' tests and cases, no benchmark
    result = project.runpytest("-q", "-p", "no:randomly")
    result.assert_outcomes(passed=4)
    assert "toolcall: cases (oracle)" in result.stdout.str()
    project.makeini(
        "[pytest]\ntestpaths = tests\nmarkers =\n    smoke: quick\n"
        "toolcall_model = oracle\ntoolcall_bench = cases,acebench\ntoolcall_limit = 1\n"
    )
    result = project.runpytest("--collect-only", "-q", "-p", "no:randomly")
    items = collected(result)
    assert len(items) == 4 + 17


@pytest.mark.slow
def test_a_model_typed_in_a_configured_project_only_replaces_the_model(project: pytest.Pytester) -> None:
    """The ini file decides what a configured project runs: ``--toolcall-model`` on the command line
    (the natural "check my cases offline" with the oracle) collects the same items, no benchmark."""
    project.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    smoke: quick\ntoolcall_model = some-endpoint-model\n")
    result = project.runpytest(*ORACLE, "--collect-only", "-q", "-p", "no:randomly")
    assert len(collected(result)) == 4 and not any("acebench" in i for i in collected(result))
    project.makeini("[pytest]\ntestpaths = tests\nmarkers =\n    smoke: quick\ntoolcall_bench = cases\n")
    result = project.runpytest(*ORACLE, "--collect-only", "-q", "-p", "no:randomly")
    assert len(collected(result)) == 4 and not any("acebench" in i for i in collected(result))


@pytest.mark.slow
def test_inert_without_a_model(project: pytest.Pytester) -> None:
    result = project.runpytest("tests", "-q", "-p", "no:randomly", "-rs")
    result.assert_outcomes(passed=1, skipped=1)  # the case file is not collected at all
    assert "needs a model: --toolcall-model NAME (or toolcall_model in the ini file)" in result.stdout.str()


@pytest.mark.slow
def test_a_broken_file_is_one_collection_error_and_the_rest_runs(project: pytest.Pytester) -> None:
    broken = textwrap.dedent(
        """\
        cases:
          - id: good
            prompt: hi
            expect: {no_call: true}
          - id: bad
            prompt: hi
            expect: {no_call: true, calls: []}
        """
    )
    (project.path / "tests" / "broken.toolcall.yml").write_text(broken, encoding="utf-8")
    jsonl = '{"id": "a", "prompt": "x", "expect": {"no_call": true}}\n{oops\n'
    (project.path / "tests" / "bad.toolcall.jsonl").write_text(jsonl, encoding="utf-8")
    result = project.runpytest(*ORACLE, "tests", "-q", "--toolcall-report=report.json")
    out = result.stdout.str()
    result.assert_outcomes(passed=4, errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "tests/broken.toolcall.yml:5: case 'bad': expect: expect needs exactly one of" in out
    assert "tests/bad.toolcall.jsonl:2: invalid JSON" in out
    assert "Traceback" not in out and "pytest_toolcall/" not in out
    assert len(re.findall(r"^ERROR tests/\w+\.toolcall\.\w+", out, re.M)) == 2
    assert "incomplete: 2 part(s) of the data could not be loaded" in out


@pytest.mark.slow
def test_tags_of_a_case_file_need_no_registration(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(
        ".toolcall.yaml",
        cases="cases:\n  - id: one\n    prompt: hi\n    tags: [brand_new_tag]\n    expect: {no_call: true}\n",
    )
    result = pytester.runpytest(*ORACLE, "--strict-markers", ".", "-m", "brand_new_tag", "-q")
    result.assert_outcomes(passed=1)
