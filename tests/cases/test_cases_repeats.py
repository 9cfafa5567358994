"""Cases under --toolcall-repeat: pass^k, flaky cases and intervals over cases, not attempts."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

CASES = """
defaults:
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: steady
    prompt: "Weather in Paris?"
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: wobbly
    prompt: "Weather in Lyon?"
    expect: {calls: [{name: get_weather, arguments: {city: Lyon}}]}
"""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    """Paris is always answered right; Lyon right the first time it is asked, wrong the second."""
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][-1]["content"]
        with lock:
            asked[prompt] = asked.get(prompt, 0) + 1
            times = asked[prompt]
        city = "Paris" if "Paris" in prompt else ("Lyon" if times == 1 else "Lyons")
        return Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": city}}])

    with ChatServer(respond) as srv:
        yield srv


def test_repeats_give_pass_hat_k_and_flaky_cases(pytester: pytest.Pytester, server: ChatServer, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    pytester.makefile(".toolcall.yaml", weather=CASES)
    result = pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
        "--toolcall-repeat=2",
        "-p",
        "no:randomly",
        ".",
    )
    result.assert_outcomes(passed=3, failed=1)
    block = json.loads((pytester.path / "report.json").read_text())["metrics"]["cases"]
    assert (block["n"], block["passed"], block["overall"]) == (4, 3, 0.75)  # over attempts
    # pass^k per case: C(c, k) / C(2, k) with c = 2 (steady) and 1 (wobbly), averaged.
    assert block["pass_hat_k"] == pytest.approx({"1": (1 + 1 / 2) / 2, "2": (1 + 0) / 2})
    assert [nodeid.rsplit("::", 1)[1] for nodeid in block["flaky"]] == ["wobbly"]
    # Two cases, not four attempts: the bootstrap over the cases' mean scores (1 and 1/2) spans [0.5, 1],
    # and two cases justify no narrower interval than Wilson's for their mean, 1.5 of 2.
    z, p, n = 1.96, 0.75, 2
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert block["overall_ci95"] == pytest.approx([centre - half, 1.0])
