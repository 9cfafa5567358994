"""``--toolcall-stream on|both`` end to end: the real openai client (in the plugin's client process)
against the local server speaking SSE, on user cases (one request per unit)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState

from pytest_toolcall import assert_tool_calls
from pytest_toolcall.core.protocol.types import ChatResponse
from pytest_toolcall.testing.server import CHAT_STREAM_BREAKS, MESSAGES_STREAM_BREAKS, ChatServer, Reply
from tests.support.scripted_runs import server_run_args

# Every test here runs pytest against the local server: the integration set, left out of the fast loop.
pytestmark = pytest.mark.slow

CITIES = ("Paris", "Rome", "Oslo", "Kyiv")
HELLO = """  - id: hello
    prompt: "Say hello."
    expect: {no_call: true}
"""
CASES = (
    "cases:\n"
    + HELLO
    + "".join(
        f"""  - id: {city.lower()}
    prompt: "Weather in {city}?"
    expect: {{calls: [{{name: get_weather, arguments: {{city: {city}}}}}]}}
"""
        for city in CITIES
    )
)
TOOLS = """defaults:
  settings: {temperature: 0}
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
"""


def weather(city: str, **reply: Any) -> Reply:
    return Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": city}}], **reply)


def diverging(body: dict[str, Any]) -> Reply:
    """Streams that differ from the plain answers on Rome (other call), Oslo (a broken stream) and
    hello (no call either way, but reasoning alone when streamed: another verdict); Kyiv is wrong both
    ways (no difference)."""
    prompt = body["messages"][-1]["content"]
    streamed = bool(body.get("stream"))
    if prompt == "Say hello.":
        return Reply(content=None, reasoning_content="A greeting.") if streamed else Reply(content="Hello!")
    city = prompt.removeprefix("Weather in ").rstrip("?")
    if city == "Kyiv":
        return weather("Kiev")
    if streamed and city == "Rome":
        return weather("Milan")
    if streamed and city == "Oslo":
        return weather("Oslo", stream_break="no_done")
    return weather(city)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(diverging) as srv:
        yield srv


def run(pytester: pytest.Pytester, server: ChatServer, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    if not list(pytester.path.glob("*.toolcall.yaml")):
        pytester.makefile(".toolcall.yaml", weather=TOOLS + CASES)
    result = pytester.runpytest(
        *server_run_args(server),
        ".",
        *args,
    )
    return result, json.loads((pytester.path / "report.json").read_text())


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in report["samples"]}


def test_both_lists_exactly_the_units_whose_streams_differ(pytester: pytest.Pytester, server: ChatServer) -> None:
    plain_result, plain = run(pytester, server)
    result, report = run(
        pytester, server, "--toolcall-stream=both", "--toolcall-fail-under=stream.parity=0.5", "--toolcall-html=r.html"
    )
    stream = report["stream"]
    kinds = {m["nodeid"].rsplit("::", 1)[1]: m["kind"] for m in stream["mismatched"]}
    assert kinds == {"rome": "tool_calls", "oslo": "stream_protocol", "hello": "verdict"}
    assert "no_done" in next(m["detail"] for m in stream["mismatched"] if m["nodeid"].endswith("oslo"))
    # Parity 2/5 (Paris, Kyiv) with its Wilson interval, computed here by the textbook formula.
    assert (stream["mode"], stream["compared"], stream["parity"]) == ("both", 5, 0.4)
    z, p, n = 1.959963984540054, 0.4, 5
    centre, half = (
        (p + z * z / (2 * n)) / (1 + z * z / n),
        z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n),
    )
    assert stream["parity_ci95"] == pytest.approx([centre - half, centre + half], abs=1e-4)
    # The official numbers are the plain run's; the items that differ fail, with the kind.
    assert report["metrics"]["cases"]["overall"] == plain["metrics"]["cases"]["overall"] == 0.8
    assert result.parseoutcomes()["failed"] == 4 and plain_result.parseoutcomes()["failed"] == 1
    samples = by_id(report)
    assert {i for i, s in samples.items() if s["failure_kind"] == "stream_mismatch"} == {"rome", "oslo", "hello"}
    assert samples["kyiv"]["failure_kind"] == "wrong_value" and samples["paris"]["failure_kind"] is None
    assert samples["rome"]["stream"]["tool_calls"] == [[{"name": "get_weather", "arguments": {"city": "Milan"}}]]
    assert samples["hello"]["stream"]["failure_kind"] == "reasoning_only"
    assert samples["paris"]["stream"] == {
        "outcome": "passed",
        "failure_kind": None,
        "tool_calls": [[{"name": "get_weather", "arguments": {"city": "Paris"}}]],
    }
    text = result.stdout.str()
    assert "streamed vs plain: 2/5 units agree" in text
    assert 'plain:    [[{"name": "get_weather", "arguments": {"city": "Rome"}}]]' in text
    # The gate on stream.parity, in the run and offline; the HTML report's section.
    assert "stream.parity = 0.4000 < 0.5" in text
    gate = subprocess.run(
        [sys.executable, "-m", "pytest_toolcall", "gate", "report.json", "--fail-under", "stream.parity=0.4"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert gate.returncode == 0, gate.stdout + gate.stderr
    html = (pytester.path / "r.html").read_text()
    assert '<section id="stream">' in html and "weather.toolcall.yaml::rome" in html
    # Each request was asked both ways, and the usage counts both.
    assert report["usage"]["requests"] == 2 * plain["usage"]["requests"] == 10
    assert [r.get("streamed", False) for r in samples["paris"]["usage"]["requests"]] == [False, True]
    assert sorted(bool(b.get("stream")) for b in server.requests[-10:]) == [False] * 5 + [True] * 5


def test_on_scores_the_streams_as_an_independent_reassembly(pytester: pytest.Pytester, server: ChatServer) -> None:
    _, report = run(pytester, server, "--toolcall-stream=on")
    assert all(b.get("stream") and b["stream_options"] == {"include_usage": True} for b in server.requests)
    client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
    expected = {}
    asked = [("hello", "Say hello.", {"no_call": True})] + [
        (city.lower(), f"Weather in {city}?", {"calls": [{"name": "get_weather", "arguments": {"city": city}}]})
        for city in CITIES
    ]
    for key, prompt, expect in asked:
        # The SDK's own reader and accumulator, asked the same way.
        state = ChatCompletionStreamState()
        for chunk in client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": prompt}], stream=True
        ):
            state.handle_chunk(chunk)
        choice = state.get_final_completion().choices[0]
        message = choice.message
        calls = [
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments} for c in message.tool_calls or []
        ]
        reasoning = (message.model_extra or {}).get("reasoning_content")
        response = ChatResponse(message.content, choice.finish_reason, calls, reasoning)
        try:
            assert_tool_calls(response, expect)
            expected[key] = "passed"
        except AssertionError:
            expected[key] = "failed"
    expected["oslo"] = "failed"  # the SDK reads a stream without [DONE] silently: the plugin does not
    samples = by_id(report)
    assert {i: s["outcome"] for i, s in samples.items()} == expected
    assert samples["oslo"]["failure_kind"] == "stream_protocol"
    assert samples["hello"]["failure_kind"] == "reasoning_only" and samples["rome"]["failure_kind"] == "wrong_value"
    assert [m["nodeid"].rsplit("::", 1)[1] for m in report["stream"]["mismatched"]] == ["oslo"]


TWO_CALLS = (
    TOOLS
    + """cases:
  - id: two
    prompt: "Weather in Paris and Rome?"
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}, {name: get_weather, arguments: {city: Rome}}]}
"""
)
#: The rules a Responses stream can break (it has no [DONE]; the test server leaves call markup out).
RESPONSES_BREAKS = [r for r in CHAT_STREAM_BREAKS if r not in ("no_done", "tool_markup_in_content")]


@pytest.mark.parametrize(
    ("api", "rule"),
    [("chat", r) for r in CHAT_STREAM_BREAKS]
    + [("responses", r) for r in RESPONSES_BREAKS]
    + [("messages", r) for r in MESSAGES_STREAM_BREAKS],
)
def test_each_stream_rule_is_named_with_its_chunk(pytester: pytest.Pytester, api: str, rule: str) -> None:
    calls = [{"name": "get_weather", "arguments": {"city": c}} for c in ("Paris", "Rome")]

    def respond(body: dict[str, Any]) -> Reply:
        return Reply(tool_calls=calls, stream_break=rule)

    pytester.makefile(".toolcall.yaml", two=TWO_CALLS)
    with ChatServer(respond) as srv:
        result, report = run(pytester, srv, "--toolcall-stream=on", f"--toolcall-api={api}")
    (sample,) = report["samples"]
    assert sample["failure_kind"] == "stream_protocol", sample
    assert sample["stream"]["problems"][0].startswith(f"{rule} at chunk ")
    assert f"stream_protocol: {rule} at chunk" in result.stdout.str()


def test_a_sound_stream_breaks_no_rule(pytester: pytest.Pytester) -> None:
    """The same two calls, streamed by the rules, through every API: no problem, the case passes."""
    calls = [{"name": "get_weather", "arguments": {"city": c}} for c in ("Paris", "Rome")]
    pytester.makefile(".toolcall.yaml", two=TWO_CALLS)
    with ChatServer(lambda body: Reply(tool_calls=calls, reasoning_content="Two lookups.")) as srv:
        for api in ("chat", "responses", "messages"):
            _, report = run(pytester, srv, "--toolcall-stream=on", f"--toolcall-api={api}")
            assert {s["outcome"] for s in report["samples"]} == {"passed"}, api
            assert all("problems" not in s["stream"] for s in report["samples"])
