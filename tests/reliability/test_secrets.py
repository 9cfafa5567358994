"""The API keys never leave the request (issue: reliability and security, item 5).

Runs with recognisable keys (the model's and the user simulator's) against a server that answers
some requests normally and echoes the Authorization header and the request into others: 401 and
400 error bodies, a 500 that is retried, a body that is not a completion. Everything the run
writes is then searched for the keys: stdout and stderr (with ``-rA``, ``-l``, live DEBUG logs),
the JSON report, the JUnit XML (with captured logs), the response store, pytest's debug trace and
every other file under the run's folder.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import AnswerTable, acebench_answers, load_report, warm_up_client

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

warm_up_client()

USER_KEY_ENV = "TOOLCALL_TEST_USER_KEY"
WRONG = frozenset({"normal_atom_enum_0"})


def new_key(label: str) -> str:
    return f"sk-{label}-{secrets.token_hex(16)}"


def fragments(key: str) -> list[str]:
    """The key, and each half of its random part: finding any of them is a leak."""
    tail = key.rsplit("-", 1)[1]
    return [key, tail[:16], tail[16:]]


class EchoServer(ChatServer):
    """Gives the responder the Authorization header of the request it answers."""

    _local = threading.local()

    def _record(
        self, raw: bytes, auth: str | None, api_key: str | None = None
    ) -> tuple[dict[str, Any] | None, str | None]:
        self._local.auth = auth
        return super()._record(raw, auth, api_key)

    @property
    def auth(self) -> str:
        return getattr(self._local, "auth", None) or ""


def echo_responder(server_ref: list[EchoServer], table: AnswerTable) -> Any:
    """Per item: an error body echoing the header and the request, or the answer of ``table``."""

    def respond(body: dict[str, Any]) -> Reply:
        auth = server_ref[0].auth
        echo = {"headers": {"Authorization": auth}, "json": body}
        try:
            item = table.item_of(body)
        except KeyError:
            return Reply(content="finish conversation")  # agent and user-simulator turns
        if item.endswith("normal_atom_bool_0]"):
            # 422, not 401: a 401 now stops the whole run (issue 11), and every echo below must be sent.
            return Reply(status=422, content=f"Incorrect API key provided: {auth}. Request was {json.dumps(echo)}")
        if item.endswith("normal_atom_bool_1]"):
            return Reply(status=400, body=json.dumps({"error": {"message": f"bad request with {auth}", "echo": echo}}))
        if item.endswith("normal_atom_number_0]"):
            return Reply(status=500, body=json.dumps({"error": {"message": "upstream failed", "echo": echo}}))
        if item.endswith("normal_atom_number_1]"):
            return Reply(body=f"<html>proxy error for {auth}: {json.dumps(echo)}</html>")
        if item.endswith("special_incomplete_0]"):
            return Reply(body=json.dumps({"error": f"no completion for {auth}", "echo": echo}))
        if item.endswith("normal_atom_list_0]"):
            return Reply(status=409, content=f"key {auth.removeprefix('Bearer ')} may not use this model")
        return table(body)

    return respond


@pytest.fixture(scope="module")
def table(acebench_root: Path) -> AnswerTable:
    return acebench_answers(acebench_root, 2, WRONG)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    model_key, user_key = new_key("LEAKCHECK"), new_key("USERLEAK")
    monkeypatch.setenv("OPENAI_API_KEY", model_key)
    monkeypatch.setenv(USER_KEY_ENV, user_key)
    return model_key, user_key


@pytest.fixture
def server(table: AnswerTable) -> Iterator[EchoServer]:
    ref: list[EchoServer] = []
    with EchoServer(echo_responder(ref, table)) as srv:
        ref.append(srv)
        yield srv


def leaks(pytester: pytest.Pytester, result: pytest.RunResult, secrets_: list[str]) -> list[str]:
    """Where any fragment of a key shows up (the run's output, every file under its folder), one
    place a line."""
    places = {"stdout": result.stdout.str().encode(), "stderr": result.stderr.str().encode()}
    for path in pytester.path.rglob("*"):
        if path.is_file():
            places[str(path.relative_to(pytester.path))] = path.read_bytes()
    found = []
    for name, data in places.items():
        for key in secrets_:
            if any(f.encode() in data or f.encode("utf-16-le") in data for f in fragments(key)):
                found.append(f"{name}: {key.split('-')[1]} key")
    return found


def run_args(server: ChatServer, root: Path) -> list[str]:
    return [
        "--toolcall-model=secret-model",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-data-dir={root}",
        "--toolcall-limit=2",
        "--toolcall-max-retries=1",
        "--toolcall-timeout=10",
        "--toolcall-user-model=secret-user",
        f"--toolcall-user-api-key-env={USER_KEY_ENV}",
        "--toolcall-max-dialog-turns=6",
        "--toolcall-cache=store",
        "--toolcall-report=report.json",
        "--junitxml=junit.xml",
        "-o",
        "junit_logging=all",
        "-o",
        "junit_log_passing_tests=true",
        "-rA",
        "-l",
        "-v",
        "--log-level=DEBUG",
        "-o",
        "log_cli=true",
        "-o",
        "log_cli_level=DEBUG",
        "--debug=pytestdebug.log",
        "-p",
        "no:randomly",
    ]


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_the_keys_appear_nowhere(
    pytester: pytest.Pytester,
    server: EchoServer,
    acebench_root: Path,
    keys: tuple[str, str],
    dist: list[str],
) -> None:
    model_key, user_key = keys
    result = pytester.runpytest(*run_args(server, acebench_root), *dist)
    # The keys were really used: the model's on the model requests, the simulator's on its own.
    assert f"Bearer {model_key}" in server.auth_headers
    assert f"Bearer {user_key}" in server.auth_headers, "the user simulator never called the server"
    # The echoing replies became errors whose messages were kept (redacted), not dropped.
    samples = {s["id"]: s for s in load_report(pytester.path / "report.json")["samples"]}
    for sample_id, status in (("normal_atom_bool_0", "HTTP 422"), ("normal_atom_bool_1", "HTTP 400")):
        assert samples[sample_id]["outcome"] == "error"
        assert status in samples[sample_id]["error"]
    assert "Incorrect API key provided" in samples["normal_atom_bool_0"]["error"]
    assert samples["normal_atom_number_0"]["outcome"] == "error"
    assert samples["normal_atom_list_0"]["outcome"] == "error"
    assert (pytester.path / "store").is_dir() and (pytester.path / "junit.xml").is_file()
    assert (pytester.path / "pytestdebug.log").is_file()
    found = leaks(pytester, result, [model_key, user_key])
    assert not found, "key found in:\n" + "\n".join(found)


def test_showlocals_shows_no_key(
    pytester: pytest.Pytester, server: EchoServer, acebench_root: Path, keys: tuple[str, str]
) -> None:
    """``-l`` prints the locals of every frame of a traceback: the plugin's objects that a traceback
    can show (its settings, the model, the model work) must not hold the key in their repr."""
    model_key, user_key = keys
    pytester.makeconftest(
        """
        import pytest
        from pytest_toolcall.runner.keys import WORK

        @pytest.fixture(autouse=True)
        def broken(request, toolcall_settings, toolcall_model):
            work = request.config.stash[WORK]
            raise RuntimeError("fixture broke")
        """
    )
    result = pytester.runpytest(*run_args(server, acebench_root), "-k", "normal_atom_bool", "--tb=long")
    assert "fixture broke" in result.stdout.str()
    found = leaks(pytester, result, [model_key, user_key])
    assert not found, "key found in:\n" + "\n".join(found)


def test_a_reply_that_echoes_the_key_is_redacted_everywhere(
    pytester: pytest.Pytester, acebench_root: Path, keys: tuple[str, str]
) -> None:
    """A proxy that answers 200 with the request echoed into the content: the output is data and is
    scored, but the key in it is not written to any report, the store or the terminal."""
    model_key, user_key = keys
    ref: list[EchoServer] = []
    with EchoServer(lambda body: Reply(content=f"[echo(auth='{ref[0].auth}')]")) as server:
        ref.append(server)
        result = pytester.runpytest(*run_args(server, acebench_root), "-k", "normal_atom_bool")
    result.assert_outcomes(failed=2, deselected=result.parseoutcomes().get("deselected", 0))
    found = leaks(pytester, result, [model_key, user_key])
    assert not found, "key found in:\n" + "\n".join(found)


@pytest.mark.parametrize("placeholder", ["EMPTY", "x"])
def test_a_placeholder_key_is_not_redacted_out_of_answers(
    pytester: pytest.Pytester, acebench_root: Path, monkeypatch: pytest.MonkeyPatch, placeholder: str
) -> None:
    """Local servers are run with keys like EMPTY: those are not secrets, and the answers that happen
    to contain them must be scored as the model gave them."""
    monkeypatch.setenv("OPENAI_API_KEY", placeholder)
    monkeypatch.setenv(USER_KEY_ENV, placeholder)
    answer = "[EMPTY_check(x='EMPTY')]"
    with ChatServer(lambda body: Reply(content=answer)) as server:
        result = pytester.runpytest(*run_args(server, acebench_root), "-k", "normal_atom_bool_0")
    result.assert_outcomes(failed=1, deselected=result.parseoutcomes().get("deselected", 0))
    assert load_report(pytester.path / "report.json")["samples"][0]["output"] == answer
