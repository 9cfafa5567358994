"""Model and server text is data in every output (issue: a hostile world, round two, items 1, 2, 7).

A model (or the endpoint) answers through the real ``openai`` client with text built to act on
whoever reads the run's output: ANSI and OSC escapes, carriage returns, GitHub Actions workflow
commands at the start of a line (``::error::``, ``::add-mask::``, ``::stop-commands::``), look-alike
and invisible characters in tool names, ten thousand calls, and the API key echoed in fields of every
JSON type. The terminal output, the JUnit file, the GitHub step summary, the JSON report, the HTML
report and the store must hold none of it raw.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.core.safety.text import MESSAGE_LINES, inert, name
from pytest_toolcall.testing.server import ChatServer, Reply, message_text
from tests.support.scripted_runs import load_report, warm_up_client

warm_up_client()

KEY = "sk-echoed-0123456789abcdef"
FORGED = "\n::error title=forged::the model wrote this\n::add-mask::0.91\n::stop-commands::T0KEN\n"
ESCAPES = "\x1b[2J\x1b]0;pwned title\x07\rOVERWRITTEN\x1b[31m"
CYRILLIC = "get_we\u0430ther"  # a Cyrillic а
INVISIBLE = "get_weather\u200b\u202e"  # a zero-width space, a right-to-left override

CASES = """
defaults:
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
""" + "".join(
    f"""  - id: {case}
    prompt: "{case}"
    expect: {{calls: [{{name: get_weather, arguments: {{city: Paris}}}}]}}
"""
    for case in (
        "tool_name",
        "argument_key",
        "unparseable_arguments",
        "text_reply",
        "server_error",
        "cyrillic_name",
        "invisible_name",
        "ten_thousand_calls",
        "echoed_key",
        "reasoning_list",
    )
)


def completion(message: dict[str, Any], finish_reason: Any = "tool_calls") -> Reply:
    """A completion body written as is (arguments as a JSON object, odd types where strings belong)."""
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}
    return Reply(body=json.dumps({"id": "x", "object": "chat.completion", "choices": [choice]}))


def call(tool: str, arguments: Any) -> dict[str, Any]:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": arguments}}


def respond(body: dict[str, Any]) -> Reply:
    case = message_text(body).strip()
    paris = json.dumps({"city": "Paris"})
    if case == "tool_name":
        return Reply(tool_calls=[{"name": "get_weather" + FORGED + ESCAPES, "arguments": paris}])
    if case == "argument_key":
        return Reply(tool_calls=[{"name": "get_weather", "arguments": json.dumps({"city": "Paris", FORGED: ESCAPES})}])
    if case == "unparseable_arguments":
        return Reply(tool_calls=[{"name": "get_weather", "arguments": "{not json" + FORGED + ESCAPES}])
    if case == "text_reply":
        return Reply(content=FORGED + ESCAPES)
    if case == "server_error":
        return Reply(status=400, body=json.dumps({"error": {"message": "refused" + FORGED + ESCAPES}}))
    if case == "cyrillic_name":
        return Reply(tool_calls=[{"name": CYRILLIC, "arguments": paris}])
    if case == "invisible_name":
        return Reply(tool_calls=[{"name": INVISIBLE, "arguments": paris}])
    if case == "ten_thousand_calls":
        return Reply(tool_calls=[{"name": "get_weather", "arguments": paris}] * 10_000)
    if case == "echoed_key":
        # The key in an arguments *object* (as a value and as a key) and in finish_reason.
        return completion(
            {"content": None, "tool_calls": [call("get_weather", {"city": KEY, KEY: [KEY, {"k": KEY}]})]},
            finish_reason=f"stop:{KEY}",
        )
    if case == "reasoning_list":
        return completion(
            {
                "content": None,
                "reasoning_content": [{"text": "think "}, "more"],
                "tool_calls": [call("get_weather", paris)],
            }
        )
    raise AssertionError(case)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(respond) as srv:
        yield srv


def forged_lines(text: str) -> list[str]:
    """Lines a CI runner would take as a workflow command (leading blanks trimmed, as the runner does)."""
    return [line for line in text.splitlines() if line.lstrip().startswith(("::", "##["))]


def raw_controls(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if c in "\x1b\r\x07\u200b\u202e"})


@pytest.fixture
def run(pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> pytest.RunResult:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "summary.md"))
    pytester.makefile(".toolcall.yaml", weather=CASES)
    return pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-cache={pytester.path / 'store'}",
        "--toolcall-report=report.json",
        "--toolcall-html=report.html",
        "--toolcall-max-retries=0",
        "--junitxml=junit.xml",
        "-rA",
        "-p",
        "no:randomly",
        ".",
    )


@pytest.mark.slow
def test_model_text_is_inert_in_every_output(run: pytest.RunResult, pytester: pytest.Pytester) -> None:
    samples = {s["id"]: s for s in load_report(pytester.path / "report.json")["samples"]}
    # Every hostile answer was scored (a failure) or, the refused request, an error; none crashed.
    assert {i: s["outcome"] for i, s in samples.items()} == {
        **{i: "failed" for i in samples if i not in ("server_error", "echoed_key", "reasoning_list")},
        "server_error": "error",
        "echoed_key": "failed",
        "reasoning_list": "passed",
    }
    out = run.stdout.str() + run.stderr.str()
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    junit_text = "\n".join((e.text or "") + "\n" + "\n".join(e.attrib.values()) for e in ET.fromstring(junit).iter())
    summary = (pytester.path / "summary.md").read_text(encoding="utf-8")
    for where, text in (("terminal", out), ("JUnit", junit_text), ("step summary", summary)):
        assert forged_lines(text) == [], where
        assert raw_controls(text) == [], where
    # The model's text is still there to read, made visible.
    assert "\\::error title=forged::the model wrote this" in out
    assert "\\x1b[2J\\x1b]0;pwned title\\x07\\rOVERWRITTEN" in out
    assert "refused\\n\\::error" in out or "refused\n\\::error" in out  # the server's message
    # Look-alike and invisible names are shown escaped, never as the declared name.
    assert name(CYRILLIC) == "'get_we\\u0430ther'" and name(CYRILLIC) in out
    assert name(INVISIBLE) == "'get_weather\\u200b\\u202e'" and name(INVISIBLE) in out
    # Ten thousand extra calls print a bounded message that says how much was cut. pytest prints a
    # message in the item's failure section and, where CI is set, whole in the short summary too.
    assert out.count("extra call") <= 2 * MESSAGE_LINES + 2
    assert f"[{10_000 - MESSAGE_LINES} more lines]" in out or "more lines]" in out
    assert junit.count("extra call") < 4 * MESSAGE_LINES


@pytest.mark.slow
def test_echoed_key_is_in_no_artefact(run: pytest.RunResult, pytester: pytest.Pytester) -> None:
    samples = {s["id"]: s for s in load_report(pytester.path / "report.json")["samples"]}
    assert samples["echoed_key"]["outcome"] == "failed"  # scored, with the key masked in its answer
    assert samples["reasoning_list"]["outcome"] == "passed"  # a list of reasoning parts is text
    places = {"terminal": (run.stdout.str() + run.stderr.str()).encode()}
    places |= {str(p.relative_to(pytester.path)): p.read_bytes() for p in pytester.path.rglob("*") if p.is_file()}
    assert {"report.json", "report.html", "junit.xml"} <= places.keys()
    assert any(p.startswith("store") for p in places)
    assert [where for where, data in places.items() if KEY.encode() in data or KEY[8:].encode() in data] == []
    assert b"***" in (pytester.path / "report.json").read_bytes()


@pytest.mark.parametrize(
    "text",
    [
        "a\x1bb",
        "\r",
        "::error::x",
        "  ::warning::x",
        "\t##[group]x",
        "x\n::add-mask::y",
        "\u2028::error::x",
        "\x85::error::x",
        "\ud800",
        "\u200b\u202e\u2066",
        "\x00\x7f\x9b",
    ],
)
def test_inert_leaves_nothing_a_terminal_or_runner_acts_on(text: str) -> None:
    shown = inert(text)
    assert forged_lines(shown) == []
    assert all(c == "\n" or c == "\t" or (c.isprintable() and c.isascii()) for c in shown), repr(shown)


def test_inert_keeps_ordinary_text_and_clips_with_counts() -> None:
    assert inert("Köln 中文\n\ttab: a::b") == "Köln 中文\n\ttab: a::b"
    assert inert("x" * 50, limit=10) == "x" * 10 + "... [40 more chars]"
    many = inert("\n".join(f"line {i}" for i in range(1000)))
    assert many.count("\n") == MESSAGE_LINES and many.endswith(f"... [{1000 - MESSAGE_LINES} more lines]")
    assert name("get_weather") == "get_weather"
    assert name("a\nb") == "'a\\nb'"
