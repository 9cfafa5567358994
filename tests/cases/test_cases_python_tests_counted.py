"""A Python test asking through ``toolcall_chat`` is an item like any other: a request that got no
answer makes it an error (not a failure: in JUnit too), counted and gated as a case's; every request it sends is in
its record's ``usage`` and the run's usage, with ``from_store`` under replay; the numbers are the same
with and without xdist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.cli import main
from pytest_toolcall.testing.server import ChatServer, Reply

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
PYTHON = f"""
from pytest_toolcall import assert_tool_calls

TOOLS = {TOOLS!r}


def test_twice(toolcall_chat):
    toolcall_chat("hello")
    toolcall_chat("hello again")


def test_weather(toolcall_chat):
    expect = {{"calls": [{{"name": "get_weather", "arguments": {{"city": "Paris"}}}}]}}
    assert_tool_calls(toolcall_chat("Weather in Paris?", tools=TOOLS), expect)


def test_steps(toolcall_chat):
    run = toolcall_chat.run("Weather in Rome?", TOOLS, tool_results={{"get_weather": "sunny"}}, steps=3)
    assert run.final == "It is sunny."
"""
UNANSWERED = """
def test_unanswered(toolcall_chat):
    toolcall_chat("break me")
"""
CASE = """
cases:
  - id: answered
    prompt: "hello"
    expect: {no_call: true}
  - id: unanswered
    prompt: "break me"
    expect: {no_call: true}
"""
#: The tokens the server reports for each kind of answer: (prompt, completion).
TEXT, CALL, AFTER_TOOL = (11, 2), (13, 5), (17, 3)


def usage(tokens: tuple[int, int]) -> dict[str, int]:
    return {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}


@pytest.fixture
def server() -> Iterator[ChatServer]:
    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last.get("content") == "break me":
            return Reply(status=503, body=json.dumps({"error": {"message": "overloaded"}}))
        if last["role"] == "tool":
            return Reply(content=f"It is {last['content']}.", usage=usage(AFTER_TOOL))
        if body.get("tools"):
            return Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}], usage=usage(CALL))
        return Reply(content="Hi.", usage=usage(TEXT))

    with ChatServer(respond) as srv:
        yield srv


@pytest.fixture
def run(pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")

    def run(*args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
        result = pytester.runpytest(
            "--toolcall-model=m",
            f"--toolcall-base-url={server.base_url}",
            f"--toolcall-cache={pytester.path / 'store'}",
            "--toolcall-report=report.json",
            "--toolcall-max-retries=0",
            "-p",
            "no:randomly",
            "-rE",
            *args,
        )
        return result, json.loads((pytester.path / "report.json").read_text())

    return run


@pytest.fixture(params=[[], ["-n", "2"]], ids=["no-xdist", "n2"])
def dist(request: pytest.FixtureRequest) -> list[str]:
    return request.param


@pytest.mark.slow
def test_an_unanswered_request_makes_a_python_test_an_error_as_it_makes_a_case_one(
    pytester: pytest.Pytester, run: Any, dist: list[str]
) -> None:
    pytester.makepyfile(test_chat=PYTHON + UNANSWERED)
    pytester.makefile(".toolcall.yaml", unanswered=CASE)
    result, report = run("test_chat.py", "--junitxml=junit.xml", *dist)
    result.assert_outcomes(passed=3, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    suite = ET.parse(pytester.path / "junit.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("errors"), suite.get("failures"), suite.get("tests")) == ("1", "0", "4")
    (testcase,) = [t for t in suite.iter("testcase") if t.get("name") == "test_unanswered"]
    assert [child.tag for child in testcase if child.tag != "properties"] == ["error"]
    error = testcase.find("error")
    assert error is not None and "HTTP 503" in (error.get("message") or "")
    # Its traceback ends at the test's line, with why the request got no answer.
    result.stdout.fnmatch_lines(
        [
            "*ERROR at call of test_unanswered*",
            '>       toolcall_chat("break me")',
            "E       *RequestError: HTTP 503*overloaded*",
            "test_chat.py:*: RequestError",
            "ERROR test_chat.py::test_unanswered - *",
        ]
    )
    sample = next(s for s in report["samples"] if s["nodeid"] == "test_chat.py::test_unanswered")
    assert (sample["outcome"], sample["score"], sample["reason"]) == ("error", None, "")
    assert "HTTP 503" in sample["error"] and "overloaded" in sample["error"]
    block = report["metrics"]["cases"]
    assert (block["n"], block["passed"], block["errors"]) == (3, 3, 1)

    # A case whose request got no answer: the same outcome, the same exit status.
    case_result, case_report = run("unanswered.toolcall.yaml", *dist)
    case_result.assert_outcomes(passed=1, errors=1)
    assert case_result.ret == result.ret
    assert sorted(s["outcome"] for s in case_report["samples"]) == ["error", "passed"]
    # And the same under a gate: within the error budget the run passes, beyond it, it fails.
    for budget, status in (("1", pytest.ExitCode.OK), ("0", pytest.ExitCode.TESTS_FAILED)):
        gate = ["--toolcall-fail-under=cases.overall=0.5", f"--toolcall-max-errors={budget}", *dist]
        assert run("test_chat.py", *gate)[0].ret == run("unanswered.toolcall.yaml", *gate)[0].ret == status


#: The timing fields of a usage block: measured, so they differ from run to run.
TIMING = ("latency_", "ttft_", "queue_", "output_tokens_per_s")


def without_timing(usage: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in usage.items() if not k.startswith(TIMING)}


def sample_usage(report: dict[str, Any]) -> dict[str, Any]:
    """Per sample: its tokens, how many requests and whether the store answered them all."""
    counts = {}
    for sample in report["samples"]:
        used = sample["usage"]
        counts[sample["nodeid"]] = (used["prompt_tokens"], used["completion_tokens"], len(used["requests"]))
        counts[sample["nodeid"]] += (sample["from_store"],)
    return counts


@pytest.mark.slow
def test_every_request_of_a_python_test_is_counted_fresh_and_replayed(
    pytester: pytest.Pytester, server: ChatServer, run: Any
) -> None:
    pytester.makepyfile(test_chat=PYTHON)
    result, report = run("test_chat.py")
    result.assert_outcomes(passed=3)
    assert server.count == 5  # twice: 2, weather: 1, steps: the call and the answer after its result
    prompt = 2 * TEXT[0] + CALL[0] + CALL[0] + AFTER_TOOL[0]
    completion = 2 * TEXT[1] + CALL[1] + CALL[1] + AFTER_TOOL[1]
    assert (prompt, completion) == (65, 17)
    assert without_timing(report["usage"]) == {
        "requests": 5,
        "fresh": 5,
        "from_store": 0,
        "oldest_stored_at": None,
        "retries": 0,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cached_tokens": 0,
        "reasoning_tokens": 0,
        "cost_usd": None,
    }
    assert report["usage"]["latency_p50_s"] is not None
    assert sample_usage(report) == {
        "test_chat.py::test_twice": (22, 4, 2, False),
        "test_chat.py::test_weather": (13, 5, 1, False),
        "test_chat.py::test_steps": (30, 8, 2, False),
    }
    result.stdout.fnmatch_lines(["requests * 5 (5 sent, 0 from the store)"])

    replayed, again = run("test_chat.py", "--toolcall-cache-mode=replay")
    replayed.assert_outcomes(passed=3)
    assert server.count == 5  # nothing sent
    assert again["usage"]["requests"] == again["usage"]["from_store"] == 5 and again["usage"]["fresh"] == 0
    assert (again["usage"]["prompt_tokens"], again["usage"]["completion_tokens"]) == (prompt, completion)
    assert sample_usage(again) == {nodeid: (*counts[:3], True) for nodeid, counts in sample_usage(report).items()}
    replayed.stdout.fnmatch_lines(["requests * 5 (0 sent, 5 from the store, the oldest stored *)"])

    # With xdist loaded but not distributing, and under xdist: the same numbers, replayed and fresh.
    for dist in (["-n", "0"], ["-n", "2"]):
        distributed, spread = run("test_chat.py", "--toolcall-cache-mode=replay", *dist)
        distributed.assert_outcomes(passed=3)
        assert spread["usage"] == again["usage"] and spread["metrics"] == again["metrics"]
        assert sample_usage(spread) == sample_usage(again)
    fresh, sent = run("test_chat.py", "-n", "2")
    fresh.assert_outcomes(passed=3)
    assert server.count == 10
    assert without_timing(sent["usage"]) == without_timing(report["usage"]) and sent["metrics"] == report["metrics"]
    assert sample_usage(sent) == sample_usage(report)


@pytest.mark.slow
def test_an_answer_no_retry_can_fix_stops_python_tests_as_it_stops_items(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    refused = Reply(status=401, body=json.dumps({"error": {"message": "Incorrect API key provided"}}))
    pytester.makepyfile(
        test_chat="".join(f"\ndef test_{i}(toolcall_chat):\n    toolcall_chat('hi {i}')\n" for i in range(3))
    )
    pytester.makefile(".toolcall.yaml", later="cases:\n  - {id: later, prompt: hello, expect: {no_call: true}}\n")
    with ChatServer(lambda body: refused) as server:
        result = pytester.runpytest(
            "--toolcall-model=m", f"--toolcall-base-url={server.base_url}", "--toolcall-report=report.json",
            "-p", "no:randomly", "test_chat.py", "later.toolcall.yaml",
        )  # fmt: skip
    result.assert_outcomes(errors=1, skipped=3)
    # The first answer stops the sending: the other tests sent nothing (the case may have been
    # fetched ahead while the first test ran, as items are).
    assert [b["messages"][-1]["content"] for b in server.requests if "hi" in b["messages"][-1]["content"]] == ["hi 0"]
    samples = {s["nodeid"]: s for s in json.loads((pytester.path / "report.json").read_text())["samples"]}
    assert (
        samples["test_chat.py::test_0"]["outcome"] == "error" and "HTTP 401" in samples["test_chat.py::test_0"]["error"]
    )
    assert all(
        samples[n]["outcome"] == "skipped" and samples[n]["stopped"] for n in samples if n != "test_chat.py::test_0"
    )
    (line,) = [text for text in result.stdout.lines if text.startswith("toolcall: HTTP 401")]
    assert "(3 item(s) not sent, skipped)" in line


@pytest.mark.slow
def test_a_spent_budget_skips_python_tests_as_it_skips_items(
    pytester: pytest.Pytester, server: ChatServer, run: Any, dist: list[str]
) -> None:
    """Each answer costs (11 prompt + 2 completion tokens) at 1,000,000 USD per million: 13 USD, past
    the budget of 5 (each xdist worker spends from its half): the first test a process runs is sent,
    every later one is skipped with the reason and ``not_run: "budget"``, counted as an item is."""
    pytester.makepyfile(
        test_chat="".join(f"\ndef test_{i}(toolcall_chat):\n    toolcall_chat('hi {i}')\n" for i in range(4))
    )
    budget = ["--toolcall-price=1000000,1000000", "--toolcall-budget=5", "--toolcall-cache=off", "-rs"]
    result, report = run("test_chat.py", *budget, *dist)
    sent = server.count
    assert 1 <= sent <= (2 if dist else 1)
    result.assert_outcomes(passed=sent, skipped=4 - sent)
    assert result.ret == pytest.ExitCode.OK  # skips fail no run; a gate does (below)
    # One reason for every test not sent: -rs folds them into one line.
    result.stdout.fnmatch_lines(
        [f"SKIPPED [[]{4 - sent}[]] *: not sent: the estimated cost passed --toolcall-budget=5 USD*"]
    )
    skipped = [s for s in report["samples"] if s["outcome"] == "skipped"]
    assert len(skipped) == 4 - sent and len(report["samples"]) == 4
    assert all((s["not_run"], s["score"], s["usage"]) == ("budget", None, None) for s in skipped)
    assert (report["run"]["selected"], report["run"]["not_asked"], report["run"]["not_run"]) == (4, 4 - sent, 0)
    block = report["metrics"]["cases"]
    assert (block["n"], block["passed"], block["skipped"]) == (sent, sent, 4 - sent)
    assert report["usage"]["requests"] == sent
    line = f"partial: {4 - sent} of 4 selected item(s) were not asked: --toolcall-budget=5 USD was spent"
    assert line in result.stdout.lines
    gated, _ = run("test_chat.py", *budget, "--toolcall-fail-under=cases.overall=0.5", *dist)
    assert gated.ret == pytest.ExitCode.TESTS_FAILED
    assert "were not asked: --toolcall-budget was spent; the run is partial" in gated.stdout.str()


DIRECT = """
from pytest_toolcall.api import ChatRequest


def test_direct(toolcall_model):
    answer = toolcall_model.submit(ChatRequest([{"role": "user", "content": "hello directly"}])).result()
    assert answer.content == "Hi."
"""


@pytest.mark.slow
def test_what_a_test_asks_through_toolcall_model_is_in_the_run_usage(
    pytester: pytest.Pytester, server: ChatServer, run: Any
) -> None:
    """The session fixture's requests belong to no unit: in the run's usage (terminal and JSON), in
    ``run.other_requests``, in no sample; the same under xdist and after merging shards."""
    pytester.makepyfile(test_chat=PYTHON, test_direct=DIRECT)
    result, report = run("test_chat.py", "test_direct.py", "--toolcall-cache=off")
    result.assert_outcomes(passed=4)
    assert server.count == 6  # the 5 of the counted tests, and the direct one
    (entry,) = report["run"]["other_requests"]
    assert (entry["prompt_tokens"], entry["completion_tokens"], entry["from_store"]) == (*TEXT, False)
    assert {s["nodeid"] for s in report["samples"]} == {
        f"test_chat.py::test_{n}" for n in ("twice", "weather", "steps")
    }
    prompt = 3 * TEXT[0] + CALL[0] + CALL[0] + AFTER_TOOL[0]
    completion = 3 * TEXT[1] + CALL[1] + CALL[1] + AFTER_TOOL[1]
    assert (report["usage"]["requests"], report["usage"]["fresh"]) == (6, 6)
    assert (report["usage"]["prompt_tokens"], report["usage"]["completion_tokens"]) == (prompt, completion)
    result.stdout.fnmatch_lines(
        ["requests * 6 (6 sent, 0 from the store)", f"tokens * {prompt} prompt + {completion} *"]
    )

    spread_result, spread = run("test_chat.py", "test_direct.py", "--toolcall-cache=off", "-n", "2")
    spread_result.assert_outcomes(passed=4)
    assert without_timing(spread["usage"]) == without_timing(report["usage"])
    assert [without_timing(e) for e in spread["run"]["other_requests"]] == [without_timing(entry)]

    for k in (1, 2):
        run(
            "test_chat.py",
            "test_direct.py",
            "--toolcall-cache=off",
            f"--toolcall-shard={k}/2",
            f"--toolcall-report=s{k}.json",
        )
    merged = pytester.path / "merged.json"
    assert main(["merge", str(pytester.path / "s1.json"), str(pytester.path / "s2.json"), "-o", str(merged)]) == 0
    assert without_timing(json.loads(merged.read_text())["usage"]) == without_timing(report["usage"])
