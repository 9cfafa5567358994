"""MCP servers come in through the door (issue 31, findings 1-4, 9): a server that attacks the run
(forged workflow commands, escape sequences, the run's key and URL credentials in its stderr, tool
descriptions, results and errors; a 5 MB result; a URL with credentials) leaves no workflow command,
no escape byte, no key and no credential in any artefact (terminal, JSON, HTML, JUnit, step summary,
store); it is started without the run's keys, and its results are cut at the documented size."""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.core.safety.door import MCP_RESULT_LIMIT
from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow

KEY = "sk-door-0123456789abcdefKEY"
SERVER = Path(__file__).parents[1] / "support" / "hostile_mcp_server.py"
# What only the plugin's own gate may print at the start of a line under GitHub Actions.
OWN_COMMAND = "::error title=toolcall gate::"


def assert_clean(name: str, text: str) -> None:
    """No key, no credential, no raw escape byte, no forged workflow command in ``text``."""
    assert KEY not in text and "hunter2secret" not in text and "tok-abcdef1234567890" not in text, name
    for byte in ("\x1b", "\x07", "\x9b"):
        assert byte not in text, (name, byte)
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped.startswith(("::", "##[")):
            assert stripped.startswith(OWN_COMMAND), (name, line)


def case_files(pytester: pytest.Pytester) -> None:
    serve = f"{{command: [{sys.executable}, {SERVER}, serve, {KEY}]}}"
    pytester.makefile(
        ".toolcall.yaml",
        hostile=f"""
defaults:
  mcp: {serve}
  steps: 6
cases:
  - id: every_tool
    prompt: Use every tool.
    expect:
      trajectory: {{calls: [{{name: lookup}}], match: superset}}
      final: done
""",
        dies=f"""
defaults:
  mcp: {serve}
  steps: 2
cases:
  - id: dies
    prompt: Die.
    expect:
      trajectory: {{calls: [{{name: die}}]}}
""",
        dead=f"""
defaults:
  mcp: {{command: [{sys.executable}, {SERVER}, die-at-start, {KEY}]}}
cases:
  - id: never
    prompt: hi
    expect: {{calls: [{{name: lookup}}]}}
""",
        missing=f"""
defaults:
  mcp: {{command: [{sys.executable}, {SERVER}, serve, {KEY}], tools: ["frob\\x1b[2J::error::x", lookup]}}
cases:
  - id: never
    prompt: hi
    expect: {{calls: [{{name: lookup}}]}}
""",
        credentials="""
defaults:
  mcp: {url: "http://user:hunter2secret@127.0.0.1:9/mcp?token=tok-abcdef1234567890"}
cases:
  - id: never
    prompt: hi
    expect: {calls: [{name: lookup}]}
""",
    )


def model(requests: list[dict[str, Any]]) -> Any:
    script = {
        "Use every tool.": [("lookup", {"city": "Paris"}), ("fail", {}), ("huge", {}), ("environment", {})],
        "Die.": [("die", {})],
    }

    def respond(body: dict[str, Any]) -> Reply:
        requests.append(body)
        prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        calls = script[prompt]
        if step < len(calls):
            name, arguments = calls[step]
            return Reply(tool_calls=[{"name": name, "arguments": json.dumps(arguments)}])
        return Reply(content="done")

    return respond


def test_a_hostile_mcp_server_leaves_nothing_in_any_artefact(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("DOOR_OTHER_SECRET", "not-for-children")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    summary = tmp_path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    case_files(pytester)
    requests: list[dict[str, Any]] = []
    with ChatServer(model(requests)) as chat:
        result = pytester.runpytest(
            "--toolcall-model=m",
            f"--toolcall-base-url={chat.base_url}",
            f"--toolcall-cache={pytester.path / 'store'}",
            "--toolcall-report=report.json",
            "--toolcall-html=report.html",
            "--junitxml=junit.xml",
            "--toolcall-max-retries=0",
            "--toolcall-fail-under=cases.overall=0.9",
            "-p",
            "no:randomly",
            "-p",
            "no:xdist",
            ".",
        )
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out, out[-4000:]
    # Each failure one line, naming what failed, quoting the server inert.
    assert "dead.toolcall.yaml:2: case 'never': MCP server" in out and "its stderr ends:" in out
    assert "During handling" not in out
    assert "its stderr ends: ::error title=X::forged\\n\\##[error]forged\\n\\x1b[2J" in out  # one line, escaped
    assert "has no tool 'frob\\x1b[2J::error::x'" in out
    assert "http://***@127.0.0.1:9/mcp?token=***" in out
    artefacts = {
        "terminal": out,
        "report.json": (pytester.path / "report.json").read_text(),
        "report.html": (pytester.path / "report.html").read_text(),
        "junit.xml": (pytester.path / "junit.xml").read_text(),
        "step summary": summary.read_text(),
        "requests to the model": json.dumps(requests),
    }
    with closing(sqlite3.connect(pytester.path / "store" / "responses.sqlite3")) as db:
        rows = (
            db.execute("SELECT value FROM exchanges").fetchall()
            + db.execute("SELECT response FROM responses").fetchall()
        )
    artefacts["store"] = "\n".join(row[0] for row in rows)
    assert rows, "the store kept the exchanges"
    for name, text in artefacts.items():
        assert_clean(name, text)
        # JSON escapes what it holds: decoded, the text must be as clean.
        if name in ("report.json", "requests to the model"):
            assert_clean(f"{name} (decoded)", json.dumps(json.loads(text), ensure_ascii=False))
    # Started with a minimal environment: neither the key's variable nor the others of the run.
    tool_results = [m["content"] for body in requests for m in body["messages"] if m["role"] == "tool"]
    names = next(json.loads(r) for r in tool_results if r.startswith("["))
    assert "OPENAI_API_KEY" not in names and "DOOR_OTHER_SECRET" not in names and "PATH" in names
    # The 5 MB result was cut at the documented size, with a note.
    huge = next(r for r in tool_results if "more characters cut" in r)
    assert len(huge) < MCP_RESULT_LIMIT + 200 and huge.startswith("***")
    assert max(len(json.dumps(body)) for body in requests) < 4 * MCP_RESULT_LIMIT
