"""A real run in which every benchmark fails some items, for the tests of what reports explain.

Not a test module: a chat server that answers every request with a call no sample expects, and a
run of the plugin against it over ACEBench (normal, special, agents), BFCL (single and multi-turn),
general_fc and a case file, writing a JSON report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.benchmark import SHIPPED_ROOT
from pytest_toolcall.benchmarks.general_fc.benchmark import SHIPPED_SET
from pytest_toolcall.testing.server import ChatServer, Reply

#: A call list no ACEBench sample expects, in text (ACEBench, BFCL prompting) and as a tool call.
WRONG_TEXT = "[wrong_call(x=1)]"

CASES = """\
cases:
  - id: paris
    messages:
      - {role: user, content: "What is the weather in Paris?"}
    tools:
      - type: function
        function:
          name: get_weather
          parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    expect:
      calls: [{name: get_weather, arguments: {city: Paris}}]
"""


#: Four cases asking for the weather of city i (``get_weather(city="Ci")``), for runs read back offline.
WEATHER_CASES = """
defaults:
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
""" + "".join(
    f"""  - id: c{i}
    prompt: "Weather in city {i}?"
    expect: {{calls: [{{name: get_weather, arguments: {{city: "C{i}"}}}}]}}
"""
    for i in range(4)
)


def wrong_reply(body: dict[str, Any]) -> Reply:
    if body.get("tools"):
        return Reply(content=None, tool_calls=[{"name": "wrong_call", "arguments": json.dumps({"x": 1})}])
    return Reply(content=WRONG_TEXT)


def paris_reply(body: dict[str, Any]) -> Reply:
    """Another model: right for the weather case, wrong elsewhere in other ways than ``wrong_reply``."""
    if body.get("tools"):
        return Reply(content=None, tool_calls=[{"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}])
    return Reply(content="[wrong_call(x=2)]")


def failing_report(
    directory: Path, *, reply: Any = wrong_reply, name: str = "report.json", model: str = "wrong-model"
) -> dict[str, Any]:
    """The JSON report of a run whose model answers ``reply`` (by default wrongly) to every request."""
    (directory / "weather.toolcall.yaml").write_text(CASES, encoding="utf-8")
    report = directory / name
    with ChatServer(reply) as server:
        command = [
            sys.executable,
            "-m",
            "pytest",
            f"--toolcall-model={model}",
            f"--toolcall-base-url={server.base_url}",
            "--toolcall-user-model=oracle",
            "--toolcall-bench=acebench,bfcl,general_fc,cases",
            f"--toolcall-data-dir={SHIPPED_ROOT}",
            f"--toolcall-general-fc={SHIPPED_SET}",
            "--toolcall-bfcl-categories=simple_python,multi_turn_base",
            "--toolcall-limit=1",
            "--toolcall-cache=off",
            f"--toolcall-report={report}",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-q",
            "-n",
            "0",
        ]
        env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=600, env=env)
    if not report.exists():
        pytest.fail(f"the run wrote no report:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(report.read_text(encoding="utf-8"))
