"""Answers no retry can fix stop the run (issue 11, item 5).

Before: with a bad key (401), a forbidden model (403) or an unknown one (404) the run sent all
~1,000 requests and printed 870 identical errors; with no key set it silently sent ``Bearer unset``.
Now the first such answer stops the sending: that item is an error, every later item is skipped
with the reason, one line says what to check; a missing key is a usage error at start-up unless an
empty ``--toolcall-api-key-env=`` says the endpoint needs none.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.general_fc_files import general_fc_args, line, write_lines
from tests.support.scripted_runs import load_report

ITEMS = 40
CONCURRENCY = 4
KEY = "sk-fail-fast-0123456789"


@pytest.fixture
def data(pytester: pytest.Pytester) -> Path:
    return write_lines(pytester.path / "calls.jsonl", [line(f"weather in city {i}?") for i in range(ITEMS)])


@pytest.fixture
def serve() -> Iterator[Callable[[Reply], ChatServer]]:
    servers: list[ChatServer] = []

    def start(reply: Reply) -> ChatServer:
        servers.append(ChatServer(lambda body: reply).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def _error(status: int, message: str, param: str | None = None, code: str | None = None) -> Reply:
    return Reply(status=status, body=json.dumps({"error": {"message": message, "param": param, "code": code}}))


STOPPING = {
    "401": (_error(401, "Incorrect API key provided"), "check the API key ($OPENAI_API_KEY"),
    "403": (_error(403, "not allowed"), "check that the key ($OPENAI_API_KEY) may use model 'vendor-model'"),
    "404": (_error(404, "The model does not exist", code="model_not_found"), "check the model name 'vendor-model'"),
    "400-model": (_error(400, "Unknown model", param="model"), "check the model name 'vendor-model' and the request"),
    "400-temperature": (_error(400, "temperature out of range", param="temperature"), "request parameters"),
}


def _run(pytester: pytest.Pytester, server: ChatServer, data: Path, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        *general_fc_args(server.base_url, data, f"--toolcall-concurrency={CONCURRENCY}"),
        "--toolcall-report=report.json",
        "--toolcall-max-retries=3",
        *extra,
    )


@pytest.mark.slow
@pytest.mark.parametrize("answer", list(STOPPING))
def test_an_answer_no_retry_can_fix_stops_the_sending(
    pytester: pytest.Pytester,
    serve: Callable[[Reply], ChatServer],
    data: Path,
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    reply, advice = STOPPING[answer]
    server = serve(reply)
    result = _run(pytester, server, data)
    result.assert_outcomes(errors=1, skipped=ITEMS - 1)
    # What was in flight when the first answer came, and nothing after it; none retried.
    assert server.count <= CONCURRENCY
    samples = load_report(pytester.path / "report.json")["samples"]
    (error,) = [s["error"] for s in samples if s["outcome"] == "error"]
    assert advice in error and f"HTTP {answer.split('-')[0]}" in error, error
    lines = [text for text in result.stdout.lines if text.startswith("toolcall: HTTP")]
    assert len(lines) == 1 and advice in lines[0] and f"({ITEMS - 1} item(s) not sent, skipped)" in lines[0]
    assert len(result.stdout.str()) < 20_000  # not a page per item
    assert KEY not in result.stdout.str()


@pytest.mark.slow
def test_under_xdist_every_worker_stops(
    pytester: pytest.Pytester, serve: Callable[[Reply], ChatServer], data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server = serve(STOPPING["401"][0])
    result = _run(pytester, server, data, "-n", "2")
    outcomes = result.parseoutcomes()
    assert 1 <= outcomes.get("errors", 0) <= 2 and outcomes["errors"] + outcomes["skipped"] == ITEMS
    assert server.count <= 2 * CONCURRENCY
    assert len([text for text in result.stdout.lines if text.startswith("toolcall: HTTP 401")]) == 1


@pytest.mark.slow
def test_a_400_about_one_request_does_not_stop_the_run(
    pytester: pytest.Pytester, serve: Callable[[Reply], ChatServer], data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Too long a context is about that request: the others are still asked (and not retried)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server = serve(_error(400, "context too long", param="messages", code="context_length_exceeded"))
    result = _run(pytester, server, data)
    result.assert_outcomes(errors=ITEMS)
    assert server.count == ITEMS


@pytest.mark.slow
def test_no_key_in_the_environment_is_said_at_start_up(
    pytester: pytest.Pytester, serve: Callable[[Reply], ChatServer], data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = serve(Reply(content="sunny"))
    result = _run(pytester, server, data)
    assert result.ret == pytest.ExitCode.USAGE_ERROR and server.count == 0
    error = result.stderr.str()
    assert "--toolcall-api-key-env" in error and "$OPENAI_API_KEY is not set" in error, error
    assert "--toolcall-api-key-env= (empty)" in error


@pytest.mark.slow
@pytest.mark.parametrize("model", ["vendor-model", "oracle"])
def test_no_key_for_the_user_simulator_is_said_at_start_up(
    pytester: pytest.Pytester, serve: Callable[[Reply], ChatServer], monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    """The user simulator is a model of its own: its key is checked as the main model's is, even
    when the model under test is the oracle."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("TOOLCALL_TEST_USER_KEY", raising=False)
    server = serve(Reply(content="sunny"))
    args = [f"--toolcall-model={model}", f"--toolcall-base-url={server.base_url}", "--toolcall-limit=1"]
    user = ["--toolcall-user-model=user-sim", "--toolcall-user-api-key-env=TOOLCALL_TEST_USER_KEY"]
    result = pytester.runpytest(*args, *user, "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and server.count == 0
    error = result.stderr.str()
    assert "--toolcall-user-api-key-env: $TOOLCALL_TEST_USER_KEY is not set" in error, error
    assert "--toolcall-user-api-key-env= (empty)" in error
    # An empty variable name says the user simulator's endpoint needs no key: the run starts.
    started = pytester.runpytest(*args, "--toolcall-user-model=user-sim", "--toolcall-user-api-key-env=", "-k", "none")
    assert started.ret == pytest.ExitCode.NO_TESTS_COLLECTED


@pytest.mark.slow
def test_an_endpoint_that_needs_no_key_gets_no_authorization(
    pytester: pytest.Pytester, serve: Callable[[Reply], ChatServer], data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = serve(Reply(content="sunny"))
    result = _run(pytester, server, data, "--toolcall-api-key-env=")
    result.assert_outcomes(failed=ITEMS)  # answered (with text where a call was expected)
    assert server.auth_headers == [None] * ITEMS  # never "Bearer unset"


@pytest.mark.slow
@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_an_unreachable_endpoint_stops_the_run(
    pytester: pytest.Pytester, data: Path, monkeypatch: pytest.MonkeyPatch, dist: list[str]
) -> None:
    """A closed port: the first failed connection stops the sending (no retry, no item after it),
    one line naming host, port and cause; the other items are skipped with that reason."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with socket.socket() as closed:  # a port that was free a moment ago: nothing listens there
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    result = pytester.runpytest(
        *general_fc_args(base_url, data, f"--toolcall-concurrency={CONCURRENCY}"),
        "--toolcall-report=report.json",
        "--toolcall-max-retries=3",
        *dist,
    )
    outcomes = result.parseoutcomes()
    workers = 2 if dist else 1
    # at most the requests in flight at the first failure are errors (each one attempt); the rest skipped
    assert 1 <= outcomes.get("errors", 0) <= workers and outcomes["errors"] + outcomes["skipped"] == ITEMS
    reason = f"cannot connect to 127.0.0.1:{port}: connection refused; stopped: check --toolcall-base-url"
    lines = [text for text in result.stdout.lines if text.startswith("toolcall: cannot connect")]
    assert len(lines) == 1 and reason in lines[0], result.stdout.str()[-3000:]
    samples = load_report(pytester.path / "report.json")["samples"]
    assert all(reason in (s.get("error") or s.get("reason") or "") for s in samples if s["outcome"] == "error")
    assert len(result.stdout.str()) < 20_000  # not a page per item


@pytest.mark.slow
@pytest.mark.parametrize("failure", ["tls", "dns"])
def test_a_name_that_does_not_resolve_or_a_failed_handshake_stops_the_run(
    pytester: pytest.Pytester,
    data: Path,
    monkeypatch: pytest.MonkeyPatch,
    serve: Callable[[Reply], ChatServer],
    failure: str,
) -> None:
    """The other two ways connecting fails: ``https://`` to a server that speaks plain HTTP (the
    handshake fails), and a host under ``.invalid`` (a name reserved never to resolve)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    if failure == "tls":
        server = serve(Reply(content="never read"))
        base_url, host = server.base_url.replace("http://", "https://"), f"127.0.0.1:{server.port}"
        cause = "TLS failed"
    else:
        base_url, host, cause = "http://no-such-endpoint.invalid:8000/v1", "no-such-endpoint.invalid:8000", "resolve"
    result = pytester.runpytest(
        *general_fc_args(base_url, data, f"--toolcall-concurrency={CONCURRENCY}"),
        "--toolcall-max-retries=3",
    )
    outcomes = result.parseoutcomes()
    assert 1 <= outcomes.get("errors", 0) <= CONCURRENCY and outcomes["errors"] + outcomes["skipped"] == ITEMS
    lines = [text for text in result.stdout.lines if text.startswith("toolcall: cannot connect")]
    assert len(lines) == 1, result.stdout.str()[-3000:]
    assert f"cannot connect to {host}: " in lines[0] and cause in lines[0], lines[0]
    assert "check --toolcall-base-url" in lines[0]
