"""Strict options, credentials in URLs, leftover socket folders (issue 11, items 6 and 7).

Before: ``--toolcall-timeout=nan`` and ``--toolcall-temperature=nan`` were accepted and every item
then failed obscurely; a key written in ``--toolcall-base-url`` (``http://user:KEY@host/v1``) was
printed in the header and stored in the report; kill -9 left ``toolcall-*`` socket folders behind.
"""

from __future__ import annotations

import os
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_toolcall.model import sdk_process
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.general_fc_files import general_fc_args, line, write_lines

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("timeout", "nan", "expected a finite number, got 'nan'"),
        ("timeout", "inf", "expected a finite number, got 'inf'"),
        ("timeout", "-1", "must be at least"),
        ("temperature", "nan", "expected a finite number, got 'nan'"),
        ("temperature", "-inf", "expected a finite number"),
        ("temperature", "3", "must be at most 2.0"),
        ("concurrency", "0", "must be at least 1"),
        ("max-retries", "1.5", "expected an integer"),
        ("max-tokens", "inf", "expected an integer"),
    ],
)
def test_numbers_are_parsed_strictly(pytester: pytest.Pytester, option: str, value: str, message: str) -> None:
    result = pytester.runpytest("--toolcall-model=oracle", f"--toolcall-{option}={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--toolcall-{option}: {message}" in result.stderr.str(), result.stderr.str()


SECRET = "sk-in-the-url-0123456789"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    replies = {
        "ok": Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}]),
        "fails": Reply(status=500, content="upstream failed"),
    }
    with ChatServer(lambda body: replies[body["messages"][-1]["content"]]) as srv:
        yield srv


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_credentials_in_the_base_url_appear_nowhere(
    pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch, dist: list[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-real-key-0123456789")
    url = server.base_url.replace("http://", f"http://user:{SECRET}@")
    path = write_lines(pytester.path / "calls.jsonl", [line("ok"), line("fails")])
    result = pytester.runpytest(
        *general_fc_args(url, path, "--toolcall-report=report.json", "--toolcall-html=report.html"),
        "--junitxml=junit.xml",
        "-rA",
        "-v",
        *dist,
    )
    result.assert_outcomes(passed=1, errors=1)
    assert server.count == 2  # the URL was used as given
    assert "endpoint=http://***@127.0.0.1" in result.stdout.str()
    texts = {
        "stdout": result.stdout.str(),
        "stderr": result.stderr.str(),
        **{name: (pytester.path / name).read_text() for name in ("report.json", "report.html", "junit.xml")},
    }
    leaks = [name for name, text in texts.items() if SECRET in text]
    assert not leaks, f"the URL's password is in {leaks}"


def _dead_folder(root: Path, age: float) -> Path:
    """A socket folder as a run killed with -9 leaves it: its socket bound, nobody listening."""
    folder = Path(tempfile.mkdtemp(prefix="toolcall-", dir=root))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(folder / "client.sock"))
    listener.close()
    past = time.time() - age
    os.utime(folder, (past, past))
    return folder


def test_socket_folders_of_dead_runs_are_removed_on_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = _dead_folder(tmp_path, age=600)
    young = _dead_folder(tmp_path, age=0)  # perhaps a run between bind() and listen(): left alone
    other = tmp_path / "something-else"
    other.mkdir()
    lookalike = tmp_path / "toolcall-notes"  # a user's folder that only shares the prefix
    (lookalike / "data").mkdir(parents=True)
    os.utime(lookalike, (time.time() - 600, time.time() - 600))
    client = sdk_process.ClientProcess()  # a live run's folder, made after the sweep
    try:
        past = time.time() - 600
        os.utime(client.folder, (past, past))
        sdk_process.remove_dead_folders()  # as the next run's start does
        assert not dead.exists()
        assert young.exists() and other.exists() and lookalike.exists()
        assert client.folder.exists()  # its socket answers: a live run's
    finally:
        client.stop()
    assert not client.folder.exists()
