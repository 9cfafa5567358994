"""The example suite (``examples/cases``: case files, Python tests with ``toolcall_chat``, an agent loop
on ``acebench_env``) run as users run it: with the oracle, everything passes; against the tests' local
chat server through the real client, right answers pass, and wrong ones fail with messages that say
what differed, in the summary, the JSON report, JUnit and the gate, the same under xdist."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.cases.format import SUFFIXES
from pytest_toolcall.benchmarks.cases.loading import load_case_file
from pytest_toolcall.benchmarks.cases.oracle import oracle_answer
from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "cases"
CASES = [c for p in sorted(EXAMPLES.iterdir()) if p.name.endswith(SUFFIXES) for c in load_case_file(p)]
N_CASES = len(CASES)
N_PYTHON = 8 + 1  # test_weather_agent.py (8 items) and test_phone_agent.py (1)


def test_the_oracle_passes_every_example() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_"))}
    command = [sys.executable, "-m", "pytest", "--toolcall-model", "oracle", "examples/", "-p", "no:cacheprovider"]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # Every case and Python test passes; only the agent loop, which the oracle cannot drive, is skipped.
    assert f"{N_CASES + N_PYTHON - 1} passed, 1 skipped" in result.stdout
    assert "toolcall: cases (oracle)" in result.stdout


def key(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    # The tools too: a Python test may send the very messages of a case with other tools.
    return json.dumps([messages, tools or None], sort_keys=True, ensure_ascii=False)


def reply_of(answer: dict[str, Any]) -> Reply:
    calls = [{"name": c["name"], "arguments": c["arguments"]} for c in answer.get("tool_calls") or []]
    return Reply(content=answer.get("content"), tool_calls=calls or None)


def call(name: str, arguments: dict[str, Any] | str) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


#: case id -> a wrong answer, and what its failure must say.
WRONG_CASES: dict[str, tuple[Reply, list[str]]] = {
    "paris": (
        Reply(tool_calls=[call("get_weather", {"city": "Lyons"})]),
        ["wrong_value: ", "get_weather.city: expected 'Paris', got 'Lyons'"],
    ),
    "greeting": (Reply(tool_calls=[call("get_weather", {"city": "Paris"})]), ["unexpected_call: "]),
    "two_cities_parallel": (
        Reply(tool_calls=[call("get_weather", {"city": "Oslo"})]),
        ["missing_call: ", "get_weather", "Madrid"],
    ),
    "fahrenheit_forecast": (
        Reply(tool_calls=[call("get_weather", {"city": "Chicago", "unit": "kelvin", "days": 3})]),
        ["schema_violation: ", "$.unit"],
    ),
    "add_two": (Reply(tool_calls=[call("calculate", '{"op": "add", "a": 17')]), ["invalid_json: "]),
}
WRONG_KINDS = {
    "paris": "wrong_value",
    "greeting": "unexpected_call",
    "two_cities_parallel": "missing_call",
    "fahrenheit_forecast": "schema_violation",
    "add_two": "invalid_json",
}


def responder(wrong: bool) -> Callable[[dict[str, Any]], Reply]:
    """Right answers to every example request (the oracle's for the cases, scripted for the Python
    tests and the agent loop); with ``wrong``, the answers above, Lyon misspelt, and the agent writing
    to the wrong person."""
    table = {key(c.messages, c.tools): reply_of(oracle_answer(c)) for c in CASES}
    if wrong:
        for case in CASES:
            if case.id in WRONG_CASES:
                table[key(case.messages, case.tools)] = WRONG_CASES[case.id][0]

    def respond(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        if key(messages, body.get("tools")) in table:
            return table[key(messages, body.get("tools"))]
        names = {t["function"]["name"] for t in body.get("tools") or []}
        if "turn_on_wifi" in names:
            return phone_agent(messages, wrong)
        last = messages[-1]
        if last["role"] == "tool":
            return Reply(content="It is 27 °C and clear in Rome: warm.")
        prompt = last["content"]
        if prompt.startswith("What's the weather in "):
            city = prompt[len("What's the weather in ") : -len(" right now?")]
            return Reply(tool_calls=[call("get_weather", {"city": "Lyons" if wrong and city == "Lyon" else city})])
        if prompt.startswith("3-day forecast"):
            return Reply(tool_calls=[call("get_weather", {"city": "Chicago", "unit": "fahrenheit", "days": 3})])
        if prompt.startswith("Compare"):
            return Reply(tool_calls=[call("get_weather", {"city": "Madrid"}), call("get_weather", {"city": "Oslo"})])
        if prompt == "Is it warm in Rome?":
            return Reply(tool_calls=[call("get_weather", {"city": "Rome"})])
        return Reply(content="You're welcome!")

    return respond


def phone_agent(messages: list[dict[str, Any]], wrong: bool) -> Reply:
    """One step of a right (or wrong) agent: wifi on, find the earliest message, delete it, send."""
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    step = len(results)
    if step == 0:
        return Reply(tool_calls=[call("turn_on_wifi", {})])
    if step == 1:
        return Reply(tool_calls=[call("get_earliest_message_id", {})])
    if step == 2:
        return Reply(tool_calls=[call("delete_message", {"message_id": results[1]["message_id"]})])
    if step == 3:
        to = "Grace" if wrong else "Frank"
        message = {"sender_name": "Eve", "receiver_name": to, "message": "Lunch tomorrow at noon?"}
        return Reply(tool_calls=[call("send_message", message)])
    return Reply(content="Done: Frank has your message.")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    for path in EXAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, pytester.path / path.name)
    return pytester


@pytest.fixture(params=[False, True], ids=["right", "wrong"])
def server(request: pytest.FixtureRequest) -> Iterator[ChatServer]:
    with ChatServer(responder(wrong=request.param), latency=0.005) as srv:
        srv.wrong = request.param  # type: ignore[attr-defined]
        yield srv


def run(suite: pytest.Pytester, server: ChatServer, *args: str) -> pytest.RunResult:
    return suite.runpytest(
        "--toolcall-model=test-model",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
        ".",
        *args,
    )


RESULTS: dict[bool, dict[str, Any]] = {}


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_against_the_local_server(
    suite: pytest.Pytester, server: ChatServer, dist: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    wrong: bool = server.wrong  # type: ignore[attr-defined]
    result = run(suite, server, *dist)
    out = result.stdout.str()
    report = json.loads((suite.path / "report.json").read_text())
    samples = {s["nodeid"]: s for s in report["samples"]}
    assert len(samples) == N_CASES + N_PYTHON
    block = report["metrics"]["cases"]
    if not wrong:
        result.assert_outcomes(passed=N_CASES + N_PYTHON)
        assert block["overall"] == 1.0 and block["n"] == N_CASES + N_PYTHON
    else:
        failed = len(WRONG_CASES) + 2  # and test_current_weather[Lyon], the phone agent
        result.assert_outcomes(passed=N_CASES + N_PYTHON - failed, failed=failed)
        for case_id, (_, expected) in WRONG_CASES.items():
            nodeid = next(n for n in samples if n.endswith(f"::{case_id}"))
            sample = samples[nodeid]
            assert (sample["outcome"], sample["failure_kind"]) == ("failed", WRONG_KINDS[case_id])
            for text in expected:
                assert text in sample["reason"] and text in out, (case_id, text)
            assert sample["expect"] and sample["calls"] and sample["tool_calls"] is not None
        python = samples["test_weather_agent.py::test_current_weather[Lyon]"]
        assert (python["outcome"], python["failure_kind"]) == ("failed", "wrong_value")
        assert "get_weather.city: expected 'Lyon', got 'Lyons'" in python["reason"]
        assert python["expect"] == {"calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]}
        assert python["file"] == "test_weather_agent.py" and python["category"] == "test_weather_agent"
        agent = samples["test_phone_agent.py::test_message_is_sent_after_making_room"]
        assert agent["outcome"] == "failed" and agent["failure_kind"] is None
        assert agent["requests"] == 5 and "USR100" in agent["reason"]
        # per file, computed by hand from the wrong answers above
        files = block["files"]
        assert (files["weather.toolcall.yaml"]["n"], files["weather.toolcall.yaml"]["passed"]) == (14, 10)
        assert (files["calculator.toolcall.jsonl"]["n"], files["calculator.toolcall.jsonl"]["passed"]) == (4, 3)
        assert (files["test_weather_agent.py"]["n"], files["test_weather_agent.py"]["passed"]) == (8, 7)
        assert block["passed"] == N_CASES + N_PYTHON - failed
    assert "toolcall: cases (test-model)" in out
    # JUnit: each testcase carries its properties, the suite the block's numbers and gate names
    junit = ET.parse(suite.path / "junit.xml").getroot()
    suite_props = {p.get("name"): p.get("value") for p in junit.find("testsuite").find("properties")}
    assert suite_props["cases.file.test_weather_agent"] == f"{files_accuracy(block, 'test_weather_agent.py'):.6g}"
    case = next(c for c in junit.iter("testcase") if c.get("name") == "test_current_weather[Lyon]")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["benchmark"] == "cases" and props["category"] == "test_weather_agent"
    assert props.get("failure_kind") == ("wrong_value" if wrong else None)
    assert RESULTS.setdefault(wrong, report["metrics"]) == report["metrics"]  # identical under xdist


def files_accuracy(block: dict[str, Any], name: str) -> float:
    return block["files"][name]["accuracy"]


def test_the_gate_reads_the_cases_block(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(responder(wrong=True)) as server:
        result = run(suite, server, "--toolcall-fail-under=cases.file.calendar=1,cases.file.test_weather_agent=0.9")
        assert result.ret == 1
        assert "toolcall gate FAILED: cases.file.test_weather_agent = 0.8750 < 0.9" in result.stdout.str()
        # 29 of 36 passed: the gate holds, and owns the exit status despite the failures
        result = run(suite, server, "--toolcall-fail-under=cases.tag.calendar=1,cases.overall=0.8")
        assert result.ret == 0, result.stdout.str()[-2000:]
        assert "toolcall gate passed (7 item(s) failed" in result.stdout.str()
