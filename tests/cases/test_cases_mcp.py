"""Case files whose tools come from real MCP servers, run as multi-step dialogues: ``mcp-server-time``
(installed from the package index) and a notebook server written with the ``mcp`` SDK
(``mcp_notes_server.py``, over stdio and streamable HTTP). The model is the tests' local chat server,
scripted turn by turn, behind the real ``openai`` client. Checked: the server's tools reach the model,
its calls are executed by the server and their results (errors too) reach the next request; the
trajectory and the final answer are judged; the budget spent is a verdict, not a crash; one server per
file, stopped at the end; start-up failures are collection errors naming file and line; the oracle
answers what it can and says what it cannot; a replay with the servers stopped gives the same verdicts
and transcripts without asking anything.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow

NOTES_SERVER = Path(__file__).with_name("mcp_notes_server.py")


def scripted(turns: dict[str, list[Reply]]) -> Any:
    """Replies by the conversation's first user message and its step (assistant messages so far)."""

    def respond(body: dict[str, Any]) -> Reply:
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        replies = turns[prompt]
        return replies[min(step, len(replies) - 1)]

    return respond


def calls(*pairs: tuple[str, dict[str, Any]]) -> Reply:
    return Reply(tool_calls=[{"name": name, "arguments": arguments} for name, arguments in pairs])


def run(pytester: pytest.Pytester, base_url: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={base_url}",
        f"--toolcall-cache={pytester.path / 'store'}",
        "--toolcall-report=report.json",
        "--toolcall-max-retries=0",
        "-p",
        "no:randomly",
        ".",
        *args,
    )


def samples(pytester: pytest.Pytester, name: str = "report.json") -> dict[str, dict[str, Any]]:
    report = json.loads((pytester.path / name).read_text())
    return {s["nodeid"].partition("::")[2]: s for s in report["samples"]}


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


# ---- a real server from the package index ---------------------------------------------------------

TIME_CASES = """
defaults:
  mcp: {command: [mcp-server-time, --local-timezone, UTC]}
  steps: 3
cases:
  - id: tokyo
    prompt: What time is it in Tokyo?
    expect:
      calls: [{name: get_current_time, arguments: {timezone: Asia/Tokyo}}]
      trajectory: {calls: [{name: get_current_time, arguments: {timezone: Asia/Tokyo}}]}
      final: {$regex: "(?s).*Asia/Tokyo.*"}
  - id: atlantis
    prompt: What time is it in Atlantis?
    expect:
      trajectory: {calls: [{name: get_current_time}], args: ignore}
      final: {$regex: "(?s)I cannot tell.*"}
  - id: wrong_zone
    prompt: What time is it in Paris?
    expect:
      trajectory: {calls: [{name: get_current_time, arguments: {timezone: Europe/Paris}}]}
"""


def time_turns() -> dict[str, list[Reply]]:
    return {
        "What time is it in Tokyo?": [calls(("get_current_time", {"timezone": "Asia/Tokyo"})), Reply(content="")],
        "What time is it in Atlantis?": [calls(("get_current_time", {"timezone": "Atlantis/Nowhere"}))],
        "What time is it in Paris?": [calls(("get_current_time", {"timezone": "Europe/Berlin"})), Reply(content="ok")],
    }


def test_a_real_server_runs_the_dialogue_and_replay_reproduces_it(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toolcall.yaml", time=TIME_CASES)
    turns = time_turns()

    def respond(body: dict[str, Any]) -> Reply:
        results = tool_messages(body)
        if results:  # the model's second step reads the server's result back to the user
            prompt = body["messages"][0]["content"]
            if "Atlantis" in prompt:
                return Reply(content="I cannot tell: " + results[-1])
            return Reply(content="It is " + results[-1])
        return scripted(turns)(body)

    server = ChatServer(respond).start()
    try:
        result = run(pytester, server.base_url, "-n", "0")
        result.assert_outcomes(passed=2, failed=1)
        requests = list(server.requests)
    finally:
        server.stop()
    offered = {t["function"]["name"] for t in requests[0]["tools"]}
    assert offered == {"get_current_time", "convert_time"}  # the server's own tools
    by_prompt = {r["messages"][0]["content"]: r for r in requests if tool_messages(r)}
    tokyo = json.loads(tool_messages(by_prompt["What time is it in Tokyo?"])[0])
    assert tokyo["timezone"] == "Asia/Tokyo" and tokyo["datetime"].endswith("+09:00")  # computed by the server
    error = tool_messages(by_prompt["What time is it in Atlantis?"])[0]
    assert "Invalid timezone" in error  # the server's error is a result the model sees
    first = samples(pytester)
    assert first["atlantis"]["trajectory"][0]["is_error"] is True
    assert first["atlantis"]["final"].startswith("I cannot tell: ") and first["atlantis"]["outcome"] == "passed"
    wrong = first["wrong_zone"]
    assert wrong["failure_kind"] == "wrong_value"
    assert "get_current_time.timezone: expected 'Europe/Paris', got 'Europe/Berlin'" in wrong["reason"]
    assert [m["role"] for m in first["tokyo"]["transcript"]] == ["user", "assistant", "tool", "assistant"]
    assert first["tokyo"]["mcp_server"] == "mcp-server-time --local-timezone UTC"

    # Replay: the chat server is gone, the MCP server is not started; everything comes from the store.
    replay = run(pytester, server.base_url, "-n", "0", "--toolcall-cache-mode=replay", "--toolcall-report=replay.json")
    replay.assert_outcomes(passed=2, failed=1)
    again = samples(pytester, "replay.json")
    for key in ("outcome", "failure_kind", "reason", "transcript", "trajectory", "final"):
        assert {k: s[key] for k, s in again.items()} == {k: s[key] for k, s in first.items()}, key
    assert all(s["from_store"] for s in again.values())

    # --lf: the failed case again, its answers and the server's results from the store (the server's
    # clock has moved on since, so a fresh call would give another result and another request).
    last_failed = run(pytester, server.base_url, "-n", "0", "--lf", "--toolcall-report=lf.json")
    last_failed.assert_outcomes(failed=1)
    rerun = samples(pytester, "lf.json")
    assert set(rerun) == {"wrong_zone"} and rerun["wrong_zone"]["transcript"] == first["wrong_zone"]["transcript"]
    assert rerun["wrong_zone"]["reason"] == first["wrong_zone"]["reason"]


# ---- a server written with the SDK ------------------------------------------------------------------


def notes_cases(log: Path, server: str | None = None) -> str:
    mcp = server or f"{{command: [{sys.executable}, {NOTES_SERVER}], env: {{NOTES_LOG: {log}}}}}"
    return f"""
defaults:
  mcp: {mcp}
  steps: 4
cases:
  - id: remember
    prompt: Remember milk, then tell me my notes.
    expect:
      trajectory:
        calls: [{{name: add_note, arguments: {{text: milk}}}}, {{name: list_notes}}]
      final: {{$regex: "(?s).*1[.] milk.*"}}
  - id: count_by_its_mcp_name
    prompt: How many notes?
    expect:
      calls: [{{name: notes.count}}]
      final: "There is 1 note."
  - id: delete_missing
    prompt: Delete note 5.
    expect:
      trajectory: {{calls: [{{name: delete_note, arguments: {{number: 5}}}}]}}
      final: {{$regex: "(?s).*no note 5.*"}}
  - id: loops
    prompt: Keep listing.
    steps: 2
    expect:
      trajectory: {{calls: [{{name: list_notes}}], match: superset}}
      final: done
"""


def notes_turns(results_seen: list[list[str]]) -> Any:
    turns = {
        "Remember milk, then tell me my notes.": [
            calls(("add_note", {"text": "milk"})),
            calls(("list_notes", {})),
            None,  # reads back the list
        ],
        "How many notes?": [calls(("notes_count", {})), Reply(content="There is 1 note.")],
        "Delete note 5.": [calls(("delete_note", {"number": 5})), None],
        "Keep listing.": [calls(("list_notes", {}))],
    }

    def respond(body: dict[str, Any]) -> Reply:
        results_seen.append(tool_messages(body))
        reply = scripted(turns)(body)
        return reply if reply is not None else Reply(content="Your notes: " + tool_messages(body)[-1])

    return respond


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_sdk_server_keeps_state_maps_names_and_reports_errors(
    pytester: pytest.Pytester, tmp_path: Path, transport: str
) -> None:
    log = tmp_path / "starts.log"
    http = None
    if transport == "http":
        port = _free_port()
        http = subprocess.Popen([sys.executable, str(NOTES_SERVER), "--http", str(port)], stderr=subprocess.DEVNULL)
        _wait_for_port(port)
    try:
        url = None if http is None else f"{{url: 'http://127.0.0.1:{port}/mcp'}}"
        pytester.makefile(".toolcall.yaml", notes=notes_cases(log, url))
        seen: list[list[str]] = []
        with ChatServer(notes_turns(seen)) as chat:
            # The cases share one server, and one notebook: one process, one dialogue at a time, in order.
            result = run(pytester, chat.base_url, "-p", "no:xdist", "--toolcall-concurrency=1")
            offered = {t["function"]["name"] for t in chat.requests[0]["tools"]}
    finally:
        if http is not None:
            http.terminate()
            http.wait(timeout=30)
    result.assert_outcomes(passed=3, failed=1)
    assert offered == {"add_note", "list_notes", "notes_count", "delete_note", "crash"}  # notes.count mapped
    got = samples(pytester)
    assert got["remember"]["final"] == "Your notes: 1. milk"  # what add_note wrote, list_notes read
    assert got["count_by_its_mcp_name"]["mcp_tools"] == {"notes_count": "notes.count"}
    assert got["count_by_its_mcp_name"]["trajectory"][0]["result"] == "1"  # the same notebook, one server
    deleted = got["delete_missing"]["trajectory"][0]
    assert deleted["is_error"] is True and "there is no note 5" in deleted["result"]
    loops = got["loops"]
    assert (loops["outcome"], loops["failure_kind"], loops["step_limit"], loops["steps_used"]) == (
        "failed",
        "step_limit",
        True,
        2,
    )
    assert "the step budget (2) was spent before a text answer" in loops["reason"]
    assert loops["trajectory"][-1]["result"] is None  # the last step's call: not executed, no step left
    if transport == "stdio":
        assert log.read_text().splitlines() == ["started"]  # one server for the file, started once


def test_server_failures_are_collection_errors_naming_file_and_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".toolcall.yaml",
        broken="""
cases:
  - id: ok
    prompt: Hi
    expect: {no_call: true}
  - id: dead
    prompt: Hi
    mcp: {command: [python, -c, "import sys; print('no config', file=sys.stderr); sys.exit(2)"]}
    expect: {no_call: true}
""",
        unknown_tool=f"""
defaults:
  mcp: {{command: [{sys.executable}, {NOTES_SERVER}], tools: [add_note, frobnicate]}}
cases:
  - id: a
    prompt: Hi
    expect: {{no_call: true}}
""",
        undeclared=f"""
defaults:
  mcp: {{command: [{sys.executable}, {NOTES_SERVER}], tools: [add_note]}}
cases:
  - id: a
    prompt: Hi
    expect: {{trajectory: {{calls: [{{name: list_notes}}]}}}}
""",
    )
    result = pytester.runpytest("--toolcall-model=oracle", "-p", "no:randomly", "--co", ".")
    out = result.stdout.str()
    assert "broken.toolcall.yaml:5: case 'dead': MCP server python -c" in out  # the case's line
    assert "did not start" in out and "its stderr ends: no config" in out
    # defaults.mcp: the line of the defaults
    assert "unknown_tool.toolcall.yaml:2: case 'a': MCP server" in out and "has no tool 'frobnicate'" in out
    assert "undeclared.toolcall.yaml:4: case 'a': tool 'list_notes' is not declared (declared: add_note)" in out
    assert result.ret != 0


def test_the_oracle_answers_what_is_well_defined_and_says_what_it_cannot(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".toolcall.yaml",
        mocked="""
defaults:
  tools:
    - type: function
      function: {name: lookup, parameters: {type: object, properties: {q: {type: string}}, required: [q]}}
  tool_results: {lookup: [first, second]}
  steps: 3
cases:
  - id: strict
    prompt: Look up a then b.
    expect:
      trajectory: {calls: [{name: lookup, arguments: {q: a}}, {name: lookup, arguments: {q: b}}]}
      final: {$one_of: [done, finished]}
  - id: unordered_after_a_first_call
    prompt: Look up a, then b.
    expect:
      calls: [{name: lookup, arguments: {q: a}}]
      trajectory: {calls: [{name: lookup, arguments: {q: a}}, {name: lookup, arguments: {q: b}}], match: unordered}
  - id: subset
    prompt: Look up whatever.
    expect:
      trajectory: {calls: [{name: lookup, arguments: {q: a}}], match: subset}
""",
    )
    result = pytester.runpytest("--toolcall-model=oracle", "-p", "no:randomly", "-rs", "--toolcall-report=r.json", ".")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED*the oracle cannot answer this case: a trajectory with match 'subset'*"])
    got = samples(pytester, "r.json")
    assert [c["result"] for c in got["strict"]["trajectory"]] == ["first", "second"]  # the mocks, in order
    assert got["strict"]["final"] == "done"
    assert [c["step"] for c in got["unordered_after_a_first_call"]["trajectory"]] == [1, 2]


def test_python_tests_run_steps_against_a_server_and_assert_the_trajectory(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_agent=f"""
import sys
from pytest_toolcall import McpServer, assert_trajectory

def test_notes(toolcall_chat):
    with McpServer({{"command": [sys.executable, {str(NOTES_SERVER)!r}]}}) as server:
        run = toolcall_chat.run("Remember milk, then tell me my notes.", mcp=server, steps=4)
    assert run.calls[1]["result"] == "1. milk"
    assert_trajectory(run, [{{"name": "add_note", "arguments": {{"text": "milk"}}}}, {{"name": "list_notes"}}])
    assert_trajectory(run, final="Your notes: 1. milk")

def test_mocked(toolcall_chat):
    run = toolcall_chat.run("Remember milk, then tell me my notes.", tools={TOOLS!r},
                            tool_results={{"add_note": "saved", "list_notes": "1. eggs"}})
    assert_trajectory(run, [{{"name": "list_notes"}}], match="superset", final="Your notes: 1. milk")
""",
    )
    seen: list[list[str]] = []
    with ChatServer(notes_turns(seen)) as chat:
        result = run(pytester, chat.base_url, "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "wrong_final: final answer failed" in out
    assert "final: expected 'Your notes: 1. milk', got 'Your notes: 1. eggs'" in out
    got = samples(pytester)
    assert got["test_mocked"]["failure_kind"] == "wrong_final"
    roles = [m["role"] for m in got["test_notes"]["transcript"]]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


TOOLS = [
    {
        "type": "function",
        "function": {"name": "add_note", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
    },
    {"type": "function", "function": {"name": "list_notes", "parameters": {"type": "object", "properties": {}}}},
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, attempts: int = 600) -> None:
    for _ in range(attempts):  # bounded by count: the server process imports the SDK first
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"the MCP server on port {port} did not listen")


def test_the_documented_example_runs_against_the_real_server(pytester: pytest.Pytester) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "multi-step.md").read_text(encoding="utf-8")
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    pytester.makefile(".toolcall.yaml", time=example)

    def respond(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][0]["content"]
        results = tool_messages(body)
        if results:
            answer = json.loads(results[-1])
            when = answer.get("datetime") or answer["target"]["datetime"]
            return Reply(content=f"In {prompt.split()[-1].rstrip('?')} it is {when[11:16]}.")
        if "New York" in prompt:
            arguments = {"source_timezone": "Asia/Tokyo", "time": "16:30", "target_timezone": "America/New_York"}
            return calls(("convert_time", arguments))
        return calls(("get_current_time", {"timezone": "Asia/Tokyo"}))

    with ChatServer(respond) as chat:
        run(pytester, chat.base_url, "-p", "no:xdist").assert_outcomes(passed=2)
    got = samples(pytester)
    assert got["tokyo_in_new_york"]["final"] in ("In York it is 02:30.", "In York it is 03:30.")  # EST or EDT
    oracle = pytester.runpytest("--toolcall-model=oracle", "-p", "no:randomly", ".")
    oracle.assert_outcomes(passed=1, skipped=1)  # superset: the oracle says it cannot answer


@pytest.mark.parametrize(("scope", "counts", "starts"), [("file", ["1", "2"], 1), ("case", ["1", "1"], 3)])
def test_scope_case_gives_each_case_a_fresh_server(
    pytester: pytest.Pytester, tmp_path: Path, scope: str, counts: list[str], starts: int
) -> None:
    log = tmp_path / "starts.log"
    mcp = f"{{command: [{sys.executable}, {NOTES_SERVER}], env: {{NOTES_LOG: {log}}}, scope: {scope}}}"
    case = "  - id: {0}\n    prompt: Add {0}, then count.\n    expect: {{trajectory: {{calls: [], match: superset}}}}\n"
    text = f"defaults:\n  mcp: {mcp}\n  steps: 3\ncases:\n" + case.format("a") + case.format("b")
    pytester.makefile(".toolcall.yaml", s=text)

    def respond(body: dict[str, Any]) -> Reply:
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        word = body["messages"][0]["content"].split()[1].rstrip(",")
        return [calls(("add_note", {"text": word})), calls(("notes_count", {})), Reply(content="done")][step]

    with ChatServer(respond) as chat:
        run(pytester, chat.base_url, "-p", "no:xdist", "--toolcall-concurrency=1").assert_outcomes(passed=2)
    got = samples(pytester)
    assert [got[k]["trajectory"][1]["result"] for k in ("a", "b")] == counts
    # file: one server from collection on; case: one for the tool list at collection, then one per case
    assert log.read_text().splitlines() == ["started"] * starts


def test_a_server_that_dies_is_an_error_of_that_case_and_is_started_again(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    log = tmp_path / "starts.log"
    mcp = f"{{command: [{sys.executable}, {NOTES_SERVER}], env: {{NOTES_LOG: {log}}}}}"
    case = "  - id: {0}\n    prompt: {0}\n    expect: {{trajectory: {{calls: [{{name: {0}}}]}}}}\n"
    pytester.makefile(
        ".toolcall.yaml",
        s=f"defaults:\n  mcp: {mcp}\n  steps: 2\ncases:\n" + case.format("crash") + case.format("list_notes"),
    )

    def respond(body: dict[str, Any]) -> Reply:
        if tool_messages(body):
            return Reply(content="done")
        return calls((body["messages"][0]["content"], {}))

    with ChatServer(respond) as chat:
        result = run(pytester, chat.base_url, "-p", "no:xdist", "--toolcall-concurrency=1")
    result.assert_outcomes(passed=1, errors=1)
    got = samples(pytester)
    assert "has stopped" in got["crash"]["error"]
    assert got["list_notes"]["trajectory"][0]["result"] == "(no notes)"  # a new server answered
    assert log.read_text().splitlines() == ["started", "started"]
