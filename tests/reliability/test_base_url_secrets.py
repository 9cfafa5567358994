"""Credentials in the base URL (issue: a hostile world, round two, item 3).

A base URL may carry a password (``http://user:PASSWORD@host``) or a key in its query
(``?api-key=KEY``, as Azure-style gateways take it). The query is sent with every request, after the
path (not mangled into it), and neither the password nor any query value is printed, reported,
written to the HTML report or named in a file name under the cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.core.safety.urls import redact_url, url_secrets
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import load_report, warm_up_client

warm_up_client()

PASSWORD = "Passw0rdInTheUrl77"
QUERY_KEY = "QueryKeyValue0123456789"
CASES = """
defaults:
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: paris
    prompt: "Weather in Paris?"
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: echo
    prompt: "echo"
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
"""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    def respond(body: dict[str, Any]) -> Reply:
        if body["messages"][-1]["content"] == "echo":  # a server that echoes the URL it was asked at
            return Reply(content=f"you asked with api-key={QUERY_KEY} as {PASSWORD}")
        return Reply(tool_calls=[{"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}])

    with ChatServer(respond) as srv:
        yield srv


@pytest.mark.slow
def test_query_is_sent_and_no_credential_is_kept(
    pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    pytester.makefile(".toolcall.yaml", weather=CASES)
    base_url = server.base_url.replace("://", f"://user:{PASSWORD}@") + f"?api-key={QUERY_KEY}&api-version=2024-06-01"
    result = pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={base_url}",
        "--toolcall-report=report.json",
        "--toolcall-html=report.html",
        "--toolcall-max-retries=0",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
        ".",
    )
    result.assert_outcomes(passed=1, failed=1)
    # Sent where it belongs: the path, then the query (the SDK alone would append the path after it).
    assert server.paths == [f"/v1/chat/completions?api-key={QUERY_KEY}&api-version=2024-06-01"] * 2
    report = load_report(pytester.path / "report.json")
    assert report["run"]["base_url"] == redact_url(base_url)
    assert redact_url(base_url).endswith("://***@" + server.base_url.split("://")[1] + "?api-key=***&api-version=***")
    assert "toolcall: model=m endpoint=" + redact_url(base_url) in result.stdout.str()
    places = {"terminal": result.stdout.str() + result.stderr.str()}
    for path in pytester.path.rglob("*"):
        places[f"name {path.relative_to(pytester.path)}"] = str(path)
        if path.is_file():
            places[str(path.relative_to(pytester.path))] = path.read_text(encoding="utf-8", errors="replace")
    assert any("lastfailed" in where for where in places), "the per-model cache file was not written"
    assert [where for where, text in places.items() if PASSWORD in text or QUERY_KEY in text] == []


def test_redaction_of_urls() -> None:
    url = "https://u:pw99@gw.example/openai/v1?api-key=abcdefgh&api-version=2024-06-01&flag"
    assert redact_url(url) == "https://***@gw.example/openai/v1?api-key=***&api-version=***&flag"
    # Masked wherever an answer echoes them: the password and the credential-like query value, not a
    # version number a model may well write.
    assert set(url_secrets(url)) == {"u:pw99", "pw99", "abcdefgh"}
    assert redact_url("http://host/v1") == "http://host/v1" and redact_url(None) is None


@pytest.mark.slow
def test_a_fragment_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toolcall.yaml", weather=CASES)
    result = pytester.runpytest("--toolcall-model=m", "--toolcall-base-url=http://127.0.0.1:9/v1#x", ".")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--toolcall-base-url: a URL fragment" in result.stderr.str()
