"""End to end through the real ``openai`` client against a real local chat-completions server:
aggregates under xdist, the response store (resume, replay, concurrent workers), ``-x``."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.dataset import NORMAL, SPECIAL, load_category
from pytest_toolcall.benchmarks.acebench.prompts import Prompts, acebench_requests
from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

API_KEY = "sk-test-KEY-1234567890-never-leak"
LIMIT = 3
WRONG = {"normal_atom_enum_1", "special_irrelevant_0", "normal_multi_turn_user_switch_2"}


def answers(root: Path, langs: tuple[str, ...] = ("en",)) -> tuple[dict[str, str], int]:
    """The oracle answer of every selected request, keyed by its user message; and the number of
    requests. Samples in WRONG are answered with a wrong call instead."""
    prompts = Prompts.load(root)
    table: dict[str, str] = {}
    count = 0
    for lang in langs:
        for category in NORMAL + SPECIAL:
            for sample in load_category(root, lang, category)[:LIMIT]:
                for request in acebench_requests(prompts, sample):
                    key = request.messages[0]["content"] + request.messages[1]["content"]
                    table[key] = "[wrong_call(x=1)]" if sample.id in WRONG else request.reference
                    count += 1
    return table, count


@pytest.fixture(scope="module")
def answer_table(acebench_root: Path) -> tuple[dict[str, str], int]:
    return answers(acebench_root)


@pytest.fixture
def server(answer_table: tuple[dict[str, str], int]) -> Iterator[ChatServer]:
    table, _ = answer_table

    def respond(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        return Reply(content=table.get(messages[0]["content"] + messages[1]["content"], "no idea"))

    with ChatServer(respond, latency=0.01) as srv:
        yield srv


@pytest.fixture
def model_args(acebench_root: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    return [
        "--toolcall-model=test-model",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-data-dir={acebench_root}",
        f"--toolcall-limit={LIMIT}",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
        "-m",
        "not agent",
    ]


def metrics(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "report.json").read_text())["metrics"]


EXPECTED: dict[str, Any] = {}


@pytest.mark.parametrize("dist", [[], ["-n", "0"], ["-n", "2"]], ids=["no-xdist", "n0", "n2"])
def test_real_client_same_numbers_under_xdist(
    pytester: pytest.Pytester, model_args: list[str], server: ChatServer, answer_table: Any, dist: list[str]
) -> None:
    result = pytester.runpytest(*model_args, "--toolcall-cache=off", *dist)
    result.assert_outcomes(passed=15 * LIMIT - len(WRONG), failed=len(WRONG))
    _, requests = answer_table
    assert server.count == requests  # every step asked once, nothing more
    assert set(server.auth_headers) == {f"Bearer {API_KEY}"}
    sent = server.requests[0]
    assert (sent["model"], sent["temperature"], sent["max_tokens"]) == ("test-model", 0.7, 1200)
    en = metrics(pytester)["acebench/en"]
    assert en["categories"]["normal_atom_enum"]["accuracy"] == round(2 / 3, 3)
    assert en["categories"]["special_irrelevant"]["accuracy"] == 2 / 3
    assert metrics(pytester) == EXPECTED.setdefault("metrics", metrics(pytester))


def test_store_serves_reruns_and_replay(pytester: pytest.Pytester, model_args: list[str], server: ChatServer) -> None:
    store = pytester.path / "store"
    first = pytester.runpytest(*model_args, f"--toolcall-cache={store}")
    first.assert_outcomes(passed=15 * LIMIT - len(WRONG), failed=len(WRONG))
    sent = server.count
    rows = sqlite3.connect(store / "responses.sqlite3").execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    assert rows == sent
    again = pytester.runpytest(*model_args, f"--toolcall-cache={store}", "--lf")
    again.assert_outcomes(failed=len(WRONG))
    assert server.count == sent  # answered from the store
    server.stop()
    replay = pytester.runpytest(*model_args, f"--toolcall-cache={store}", "--toolcall-cache-mode=replay")
    replay.assert_outcomes(passed=15 * LIMIT - len(WRONG), failed=len(WRONG))
    assert metrics(pytester)["acebench/en"]["overall"] > 0
    assert API_KEY.encode() not in (store / "responses.sqlite3").read_bytes()


def test_replay_without_a_stored_response_is_an_error(
    pytester: pytest.Pytester, model_args: list[str], server: ChatServer
) -> None:
    store = pytester.path / "empty-store"
    result = pytester.runpytest(*model_args, f"--toolcall-cache={store}", "--toolcall-cache-mode=replay", "-k", "bool")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # no store at all: one line, not an error per item
    assert f"--toolcall-cache-mode=replay: no response store at {store}" in result.stderr.str()
    pytester.runpytest(*model_args, f"--toolcall-cache={store}", "-k", "enum")
    sent = server.count
    result = pytester.runpytest(*model_args, f"--toolcall-cache={store}", "--toolcall-cache-mode=replay", "-k", "bool")
    result.assert_outcomes(errors=LIMIT)
    assert server.count == sent
    assert "replay mode: no stored response" in result.stdout.str()


def test_a_new_run_asks_the_changed_endpoint_again(
    pytester: pytest.Pytester, model_args: list[str], server: ChatServer, answer_table: Any
) -> None:
    """Same model name, same URL, a worse server behind it: with the default options the second run
    asks the model again (the store never hides the change) and the gate fails on the regression;
    only ``--toolcall-cache-mode=reuse`` takes the completed run's answers, within its maximum age."""
    _, requests = answer_table
    store = pytester.path / "store"
    args = [*model_args, f"--toolcall-cache={store}", "-n", "2"]
    pytester.runpytest(*args).assert_outcomes(passed=15 * LIMIT - len(WRONG), failed=len(WRONG))
    assert server.count == requests
    (pytester.path / "report.json").rename(pytester.path / "before.json")
    server.responder = lambda body: Reply(content="no idea")  # the same name, a worse model behind it
    gated = [*args, "--toolcall-baseline=before.json", "--toolcall-fail-on-regression"]
    worse = pytester.runpytest(*gated)
    assert server.count == 2 * requests  # every request asked again
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    out = worse.stdout.str()
    assert "toolcall gate FAILED: " in out and "regressed" in out and "0 from the store" in out
    usage = json.loads((pytester.path / "report.json").read_text())["usage"]
    assert (usage["fresh"], usage["from_store"], usage["oldest_stored_at"]) == (requests, 0, None)
    # reuse: the completed run's answers (the worse ones), nothing sent, and the run says so
    reused = pytester.runpytest(*model_args, f"--toolcall-cache={store}", "--toolcall-cache-mode=reuse")
    assert server.count == 2 * requests
    usage = json.loads((pytester.path / "report.json").read_text())["usage"]
    assert usage["from_store"] == requests and usage["oldest_stored_at"].endswith("Z")
    assert f"{requests} from the store, the oldest stored {usage['oldest_stored_at']}" in reused.stdout.str()
    # ... no older than the maximum age: here none is young enough
    pytester.runpytest(
        *model_args, f"--toolcall-cache={store}", "--toolcall-cache-mode=reuse", "--toolcall-cache-max-age=0s"
    )
    assert server.count == 3 * requests


def test_two_workers_write_the_store_at_once(
    pytester: pytest.Pytester, model_args: list[str], server: ChatServer, answer_table: Any
) -> None:
    store = pytester.path / "store"
    pytester.runpytest(*model_args, f"--toolcall-cache={store}", "-n", "2").assert_outcomes(
        passed=15 * LIMIT - len(WRONG), failed=len(WRONG)
    )
    _, requests = answer_table
    db = sqlite3.connect(store / "responses.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == requests == server.count


def test_exitfirst_stops_new_requests(pytester: pytest.Pytester, model_args: list[str], server: ChatServer) -> None:
    server.latency = 0.05
    concurrency = 2
    args = [*model_args, "--toolcall-cache=off", f"--toolcall-concurrency={concurrency}", "-x"]
    result = pytester.runpytest(*args, "-k", "enum or number or list")  # normal_atom_enum_1 fails second
    result.assert_outcomes(passed=1, failed=1)
    time.sleep(0.3)  # anything still in flight would have arrived by now
    # The two items that ran, plus at most the prefetch lookahead (2 × concurrency).
    assert server.count <= 2 + 2 * concurrency


def test_killed_run_resumes_without_resending(
    pytester: pytest.Pytester, model_args: list[str], server: ChatServer, answer_table: Any
) -> None:
    server.latency = 0.2
    store = pytester.path / "store"
    args = [sys.executable, "-m", "pytest", *model_args, f"--toolcall-cache={store}", "--toolcall-concurrency=2"]
    env = {**os.environ, "OPENAI_API_KEY": API_KEY}
    proc = subprocess.Popen(args, cwd=pytester.path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while server.count < 8 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = sqlite3.connect(store / "responses.sqlite3").execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    assert 0 < stored < server.count + 1
    before = server.count
    server.latency = 0.0
    pytester.runpytest(*model_args, f"--toolcall-cache={store}").assert_outcomes(
        passed=15 * LIMIT - len(WRONG), failed=len(WRONG)
    )
    _, requests = answer_table
    assert server.count - before == requests - stored


@pytest.fixture
def clients(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The client processes started in this process: (who asked for it, its socket address)."""
    from pytest_toolcall.model import sdk_process as gateway

    started: list[tuple[str, str]] = []

    class Recorded(gateway.ClientProcess):
        def __init__(self) -> None:
            super().__init__()
            started.append((sys._getframe(2).f_code.co_name, self.address))  # prestart's caller

    monkeypatch.setattr(gateway, "ClientProcess", Recorded)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # these runs are not workers
    return started


def test_the_client_process_starts_before_configuration(
    pytester: pytest.Pytester, model_args: list[str], clients: list[tuple[str, str]]
) -> None:
    """Started by the earliest hook, so that its SDK import overlaps pytest's start-up."""
    from pytest_toolcall.model import sdk_process as gateway

    pytester.runpytest(*model_args, "--toolcall-cache=off", "-k", "bool").assert_outcomes(passed=LIMIT)
    assert [who for who, _ in clients] == ["pytest_load_initial_conftests"]
    assert gateway._client is None  # and stopped at the end


def test_xdist_workers_share_the_controllers_client_process(
    pytester: pytest.Pytester, model_args: list[str], clients: list[tuple[str, str]]
) -> None:
    pytester.makeconftest(
        "from pathlib import Path\n"
        "def pytest_configure(config):\n"
        "    worker = getattr(config, 'workerinput', None)\n"
        "    if worker:\n"
        "        Path(worker['workerid']).write_text(worker.get('toolcall_client', ''))\n"
    )
    result = pytester.runpytest(*model_args, "--toolcall-cache=off", "-k", "bool or enum", "-n", "2")
    result.assert_outcomes(passed=2 * LIMIT - 1, failed=1)
    assert len(clients) == 1  # one SDK import for the run
    assert (pytester.path / "gw0").read_text() == (pytester.path / "gw1").read_text() == clients[0][1]


@pytest.mark.parametrize("extra", [["--collect-only"], ["--toolcall-cache-mode=replay"]], ids=["collect", "replay"])
def test_no_client_process_where_no_request_is_sent(
    pytester: pytest.Pytester, model_args: list[str], clients: list[tuple[str, str]], extra: list[str]
) -> None:
    pytester.runpytest(*model_args, "-k", "bool", *extra)
    assert clients == []


def test_xdist_worker_that_cannot_reach_the_client_starts_its_own(
    pytester: pytest.Pytester, model_args: list[str], server: ChatServer
) -> None:
    """A worker on another host cannot open the controller's socket: it starts a client of its own
    instead of failing (here every worker is handed a socket that does not exist)."""
    pytester.makeconftest(
        "import os, pytest\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_configure(config):\n"
        "    worker = getattr(config, 'workerinput', None)\n"
        "    if worker and 'toolcall_client' in worker:\n"
        "        worker['toolcall_client'] = '/nonexistent/toolcall-elsewhere/client.sock'\n"
        "def pytest_runtest_logfinish(nodeid):\n"
        "    from pytest_toolcall.model import sdk_process\n"
        "    worker = os.environ.get('PYTEST_XDIST_WORKER')\n"
        "    if worker and sdk_process.own_address():\n"
        "        open(worker, 'w').write(sdk_process.own_address())\n"
    )
    before = server.count
    result = pytester.runpytest(*model_args, "--toolcall-cache=off", "-k", "bool or enum", "-n", "2")
    result.assert_outcomes(passed=2 * LIMIT - 1, failed=1)
    assert server.count - before == 2 * LIMIT
    own = [(pytester.path / worker).read_text() for worker in ("gw0", "gw1")]
    assert all(own) and own[0] != own[1]  # each worker its own client process
