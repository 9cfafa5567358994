"""What a case and a Python test send: per-file and per-case generation settings reach the endpoint
and are part of the response store's key; a request that fails is an error, not a failure; the
oracle's answer to a Python test; importing the plugin stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall import assert_tool_calls
from pytest_toolcall.benchmarks.cases.response import OracleResponse
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.cases.cases_support import TOOLS

CASES = """
defaults:
  settings: {temperature: 0, max_tokens: 64, extra_body: {top_k: 5}}
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: file_settings
    prompt: "Weather in Paris?"
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: own_settings
    prompt: "Weather in Paris?"
    settings: {temperature: 0.5, tool_choice: required, extra_body: {top_p: 0.9}}
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
"""
PYTHON = """
from pytest_toolcall import assert_tool_calls

def test_cold(toolcall_chat):
    assert_tool_calls(toolcall_chat("Weather in Paris?", temperature=0.2), {"no_call": True})

def test_refused(toolcall_chat):
    toolcall_chat("refuse me")
"""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    def respond(body: dict[str, Any]) -> Reply:
        if body["messages"][-1]["content"] == "refuse me":
            return Reply(status=400, body=json.dumps({"error": {"message": "bad request"}}))
        if body.get("tools"):
            return Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])
        return Reply(content="Mild.")

    with ChatServer(respond) as srv:
        yield srv


def run(pytester: pytest.Pytester, server: ChatServer, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-cache={pytester.path / 'store'}",
        "--toolcall-report=report.json",
        "--toolcall-max-retries=0",
        "-p",
        "no:randomly",
        ".",
        *args,
    )


@pytest.mark.slow
def test_settings_are_sent_and_keyed(pytester: pytest.Pytester, server: ChatServer, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    pytester.makefile(".toolcall.yaml", weather=CASES)
    pytester.makepyfile(test_chat=PYTHON)
    result = run(pytester, server)
    result.assert_outcomes(passed=3, errors=1)
    bodies = {(b["messages"][-1]["content"], b.get("temperature")): b for b in server.requests}
    assert len(server.requests) == 4  # the two cases differ only by settings: two requests
    file_case = bodies[("Weather in Paris?", 0)]
    assert (file_case["max_tokens"], file_case["top_k"]) == (64, 5) and "tool_choice" not in file_case
    own_case = bodies[("Weather in Paris?", 0.5)]
    assert (own_case["max_tokens"], own_case["top_k"], own_case["top_p"], own_case["tool_choice"]) == (
        64,
        5,
        0.9,
        "required",
    )
    python = bodies[("Weather in Paris?", 0.2)]
    # Neither the file's settings nor ACEBench's: the cases benchmark declares no sampling and the run
    # gives none, so only what the test asked for is sent.
    assert "tools" not in python and "max_tokens" not in python
    report = json.loads((pytester.path / "report.json").read_text())
    samples = {s["nodeid"]: s for s in report["samples"]}
    refused = samples["test_chat.py::test_refused"]
    assert refused["outcome"] == "error" and "HTTP 400" in refused["error"]
    assert report["metrics"]["cases"]["errors"] == 1 and report["metrics"]["cases"]["n"] == 3
    # From the store (answers of a completed run are reused only when asked for): nothing asked again,
    # the same verdicts.
    run(pytester, server, "--toolcall-cache-mode=reuse").assert_outcomes(passed=3, errors=1)
    assert len(server.requests) == 5  # only the refused request, which the store never kept
    # Another setting is another request.
    pytester.makefile(".toolcall.yaml", weather=CASES.replace("max_tokens: 64", "max_tokens: 65"))
    run(pytester, server, "--toolcall-cache-mode=reuse", "-k", "settings").assert_outcomes(passed=2)
    assert len(server.requests) == 7


def test_the_oracle_answers_the_expectation_a_test_asserts() -> None:
    expect = {"calls": [{"name": "get_weather", "arguments": {"city": {"$one_of": ["Köln", "Cologne"]}}}]}
    response = OracleResponse(TOOLS)
    assert_tool_calls(response, expect, tools=TOOLS)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("get_weather", {"city": "Köln"})]
    with pytest.raises(AssertionError, match="unexpected_call"):
        assert_tool_calls(response, {"no_call": True})  # settled: a second expectation cannot change it
    read_first = OracleResponse(TOOLS)
    assert read_first.tool_calls == () and read_first.content  # read before asserting: text
    with pytest.raises(AssertionError, match="no_call"):
        assert_tool_calls(read_first, expect, tools=TOOLS)
    not_offered = OracleResponse([TOOLS[1]])
    with pytest.raises(AssertionError, match="which the request does not offer"):
        assert_tool_calls(not_offered, expect)


@pytest.mark.slow
def test_importing_the_plugin_imports_no_yaml_or_jsonschema() -> None:
    code = (
        "import sys, pytest_toolcall.plugin, pytest_toolcall\n"
        "from pytest_toolcall.config import registry\n"
        "registry.benchmark_classes()\n"
        "assert 'yaml' not in sys.modules and 'jsonschema' not in sys.modules, sorted(sys.modules)\n"
        "pytest_toolcall.assert_tool_calls\n"
        "assert 'yaml' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
