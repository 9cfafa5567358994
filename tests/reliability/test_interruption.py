"""Interruption loses no completed response and leaves no half-written report (issue: reliability
and security, item 2).

Real ``python -m pytest`` processes are stopped with SIGINT (Ctrl-C) or SIGKILL in the middle of a
run against the local server: every response completed before the signal is in the store, a rerun
sends only the missing requests, and the JSON report and the JUnit file are absent or whole. Then
the worst moments: a process that kills itself the instant a report file appears at its final path,
and one that interrupts itself the instant it starts writing any file.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import AnswerTable, acebench_answers

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

API_KEY = "sk-interrupt-0123456789"
LIMIT = 3
WRONG = frozenset({"normal_atom_enum_1", "special_irrelevant_0", "normal_multi_turn_user_switch_1"})


class CountingResponder:
    """The answer table, counting the replies it has given (each is sent right after)."""

    def __init__(self, table: AnswerTable) -> None:
        self.table = table
        self.answered = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.answered += 1
        return self.table(body)


@pytest.fixture(scope="module")
def table(acebench_root: Path) -> AnswerTable:
    return acebench_answers(acebench_root, LIMIT, WRONG)


@pytest.fixture
def responder(table: AnswerTable) -> CountingResponder:
    return CountingResponder(table)


@pytest.fixture
def server(responder: CountingResponder) -> Iterator[ChatServer]:
    with ChatServer(responder, latency=0.2) as srv:
        yield srv


def model_args(server: ChatServer, root: Path) -> list[str]:
    return [
        "--toolcall-model=interrupted-model",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-data-dir={root}",
        f"--toolcall-limit={LIMIT}",
        "--toolcall-cache=store",
        "--toolcall-concurrency=2",
        "-m",
        "not agent",
        "-p",
        "no:randomly",
    ]


def ctrl_c_default() -> None:
    """Run in the child before it starts: Ctrl-C's default disposition, so that Python turns SIGINT
    into KeyboardInterrupt there. A shell starts a background job (and a CI runner its steps) with
    SIGINT ignored, and an ignored signal stays ignored across exec: without this, the runs here would
    never see the Ctrl-C these tests send whenever the suite itself runs so."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stored(store: Path) -> int:
    with closing(sqlite3.connect(store / "responses.sqlite3")) as db:
        return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


def assert_absent_or_whole(path: Path) -> None:
    """The file does not exist, or it is a complete document of its kind."""
    if not path.exists():
        return
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            pytest.fail(f"{path.name} is half-written ({len(text)} bytes): {exc}")
        assert data["schema"] == "pytest-toolcall/report/1"
        assert isinstance(data["samples"], list) and "metrics" in data
    else:
        try:
            root = ET.fromstring(text)
        except ET.ParseError as exc:
            pytest.fail(f"{path.name} is half-written ({len(text)} bytes): {exc}")
        assert root.tag in ("testsuites", "testsuite")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_stopped_run_keeps_its_responses_and_no_half_report(
    pytester: pytest.Pytester,
    server: ChatServer,
    responder: CountingResponder,
    table: AnswerTable,
    acebench_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    signum: signal.Signals,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    args = [*model_args(server, acebench_root), "--toolcall-report=report.json", "--junitxml=junit.xml"]
    store = pytester.path / "store"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        cwd=pytester.path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=ctrl_c_default,
    )
    try:
        deadline = time.monotonic() + 60
        while responder.answered < 8 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert responder.answered >= 8, "the run never got going"
        completed = responder.answered  # each of these had time to arrive before the signal
        time.sleep(0.3)
        proc.send_signal(signum)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if signum == signal.SIGINT:
        assert proc.returncode == pytest.ExitCode.INTERRUPTED
    assert server.count < table.total, "the signal came too late to test anything"

    kept = stored(store)
    assert kept >= completed, f"{completed} responses were complete before the signal, {kept} kept"
    for name in ("report.json", "junit.xml"):
        assert_absent_or_whole(pytester.path / name)

    sent_before = server.count
    server.latency = 0.0
    rerun = pytester.runpytest(*model_args(server, acebench_root), "--toolcall-report=rerun.json")
    rerun.assert_outcomes(passed=len(table.requests) - len(WRONG), failed=len(WRONG))
    assert server.count - sent_before == table.total - kept  # only what the store did not have


def processes_with(mark: str) -> list[int]:
    """The live processes whose environment holds ``mark`` (Linux: read from /proc)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_ctrl_c_under_xdist_leaves_nothing_running(
    pytester: pytest.Pytester, server: ChatServer, responder: CountingResponder, acebench_root: Path
) -> None:
    """The controller, its workers and the client process they share all end with the run."""
    mark = f"TOOLCALL_TEST_RUN={os.getpid()}-{time.monotonic_ns()}"
    env = {**os.environ, "OPENAI_API_KEY": API_KEY, mark.split("=")[0]: mark.split("=")[1]}
    env.pop("PYTEST_XDIST_WORKER", None)  # a run of its own, not one of this session's workers
    args = [sys.executable, "-m", "pytest", *model_args(server, acebench_root), "-n", "2"]
    proc = subprocess.Popen(
        args,
        cwd=pytester.path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=ctrl_c_default,
    )
    try:
        deadline = time.monotonic() + 60
        while responder.answered < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert responder.answered >= 6, "the run never got going"
        assert len(processes_with(mark)) >= 4  # controller, two workers, the client process
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED
    deadline = time.monotonic() + 10
    while processes_with(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(mark) == []


# --- the worst moment ---------------------------------------------------------------------------

WATCHER = """
import os
import signal
import sys
import threading
import time

FOLDER = os.getcwd()
MODE = os.environ["WATCH_MODE"]  # "kill-on-final" or "interrupt-on-any"
NAME = os.environ["WATCH_NAME"]


def watch(before):
    while True:
        names = set(os.listdir(FOLDER))
        if MODE == "kill-on-final" and NAME in names:
            os.kill(os.getpid(), signal.SIGKILL)  # the instant the final file exists
        if MODE == "interrupt-on-any" and names - before:
            os.kill(os.getpid(), signal.SIGINT)  # the instant any file is being written
            return
        time.sleep(0.0001)


def pytest_configure(config):
    sys.setswitchinterval(1e-6)  # let the watcher run between any two steps of a write
    threading.Thread(target=watch, args=(set(os.listdir(FOLDER)),), daemon=True).start()


def pytest_unconfigure(config):
    # The files are in place: on a loaded machine the process could exit before the watcher's next
    # look, so wait for it (it kills the process as soon as it sees the final file).
    if MODE == "kill-on-final":
        time.sleep(30)
"""

REPORT_OPTIONS = {"report.json": "--toolcall-report=report.json", "junit.xml": "--junitxml=junit.xml"}


@pytest.mark.parametrize("mode", ["kill-on-final", "interrupt-on-any"])
@pytest.mark.parametrize("name", list(REPORT_OPTIONS))
def test_a_report_is_whole_the_instant_it_appears(
    pytester: pytest.Pytester, acebench_root: Path, name: str, mode: str
) -> None:
    pytester.makeconftest(WATCHER)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--toolcall-model=oracle",
        f"--toolcall-data-dir={acebench_root}",
        "--toolcall-limit=25",  # a few hundred items: the files take a while to write
        REPORT_OPTIONS[name],
        "-m",
        "not agent",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
    ]
    env = {**os.environ, "WATCH_MODE": mode, "WATCH_NAME": name}
    proc = subprocess.run(
        command, cwd=pytester.path, env=env, capture_output=True, timeout=120, check=False, preexec_fn=ctrl_c_default
    )
    path = pytester.path / name
    if mode == "kill-on-final":
        assert proc.returncode == -signal.SIGKILL, proc.stdout.decode()[-2000:]
        assert path.exists()
    assert_absent_or_whole(path)
