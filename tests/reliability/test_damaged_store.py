"""A damaged response store stops nothing (issue 11, item 3).

Before: a truncated or garbage store file, a folder in its place, a store of another schema version
or a wrong-schema table gave an INTERNALERROR traceback (under ``-n 2``, 188 lines of worker
tracebacks), and a store on a read-only file or folder could not even be replayed. Now the damage is
one line naming the file and what to do; in read-write mode the file is moved aside and a new store
started; read-only and replay open the store read-only.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.general_fc_files import general_fc_args, line, write_lines
from tests.support.scripted_runs import load_report

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

CALL = Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])
STORE = "responses.sqlite3"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(lambda body: CALL) as srv:
        yield srv


@pytest.fixture
def args(pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-store-0123456789")
    path = write_lines(pytester.path / "calls.jsonl", [line("weather in Paris?"), line("and in Rome?")])
    base = general_fc_args(server.base_url, path, "--toolcall-report=report.json")
    return [a for a in base if a != "--toolcall-cache=off"] + [f"--toolcall-cache={pytester.path / 'store'}"]


def _good_store(pytester: pytest.Pytester, args: list[str]) -> Path:
    assert pytester.runpytest(*args).ret == pytest.ExitCode.OK
    return pytester.path / "store" / STORE


def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3 or 100])


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(8192))


def _folder(path: Path) -> None:
    path.unlink()
    (path / "inside").mkdir(parents=True)


def _other_version(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version=7")


def _wrong_table(path: Path) -> None:
    path.unlink()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE responses (id INTEGER PRIMARY KEY, body BLOB)")


DAMAGES: dict[str, Callable[[Path], None]] = {
    "truncated": _truncated,
    "garbage": _garbage,
    "folder": _folder,
    "other-version": _other_version,
    "wrong-table": _wrong_table,
}


def _remove_wal(path: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


#: Every damage without xdist; under -n 2 (where each worker used to print its traceback) two of them.
SETUPS = [pytest.param(d, [], id=f"{d}-no-xdist") for d in DAMAGES] + [
    pytest.param(d, ["-n", "2"], id=f"{d}-n2") for d in ("garbage", "folder")
]


@pytest.mark.parametrize(("damage", "dist"), SETUPS)
def test_read_write_moves_a_damaged_store_aside_and_starts_anew(
    pytester: pytest.Pytester, server: ChatServer, args: list[str], damage: str, dist: list[str]
) -> None:
    path = _good_store(pytester, args)
    _remove_wal(path)
    DAMAGES[damage](path)
    sent = server.count
    result = pytester.runpytest(*args, *dist)
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.OK, output
    assert "Traceback" not in output and "INTERNALERROR" not in output
    (notice,) = [text for text in result.stdout.lines if text.startswith("toolcall: response store")]
    assert str(path) in notice and "moved aside to responses.sqlite3.damaged-" in notice
    aside = [p for p in path.parent.iterdir() if p.name.startswith(f"{STORE}.damaged-")]
    assert len(aside) == 1  # kept, not deleted
    assert server.count == sent + 2  # the new store was empty: both asked again
    assert load_report(pytester.path / "report.json")["metrics"]["general_fc"]["TP"] == 2
    # ... and the new store serves the next run that reuses answers.
    reuse = [*args, *dist, "--toolcall-cache-mode=reuse"]
    assert pytester.runpytest(*reuse).ret == pytest.ExitCode.OK and server.count == sent + 2


@pytest.mark.parametrize("mode", ["read-only", "replay"])
@pytest.mark.parametrize(("damage", "dist"), SETUPS)
def test_a_damaged_store_that_may_not_be_written_is_one_line(
    pytester: pytest.Pytester, server: ChatServer, args: list[str], damage: str, dist: list[str], mode: str
) -> None:
    path = _good_store(pytester, args)
    _remove_wal(path)
    DAMAGES[damage](path)
    sent = server.count
    result = pytester.runpytest(*args, *dist, f"--toolcall-cache-mode={mode}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output and "INTERNALERROR" not in output
    (message,) = [text for text in result.stderr.lines if "--toolcall-cache" in text]
    assert str(path) in message and "--toolcall-cache-mode=read-write" in message, message
    assert server.count == sent
    assert not [p for p in path.parent.iterdir() if ".damaged-" in p.name]  # left as it was


@pytest.mark.parametrize("mode", ["read-only", "replay"])
def test_a_read_only_store_can_be_replayed(
    pytester: pytest.Pytester, server: ChatServer, args: list[str], mode: str
) -> None:
    path = _good_store(pytester, args)
    sent = server.count
    expected = load_report(pytester.path / "report.json")["metrics"]["general_fc"]
    folder = path.parent
    before = path.read_bytes(), path.stat().st_mtime_ns
    for file in folder.iterdir():
        file.chmod(stat.S_IRUSR | stat.S_IRGRP)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        result = pytester.runpytest(*args, f"--toolcall-cache-mode={mode}")
    finally:
        folder.chmod(0o755)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()
    assert server.count == sent  # every answer came from the store
    assert load_report(pytester.path / "report.json")["metrics"]["general_fc"] == expected
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before  # the store itself is not written
    # SQLite may make its (empty) log beside a store in WAL mode when the folder lets it; nothing is logged.
    wal = Path(f"{path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_replay_without_a_store_writes_nothing(pytester: pytest.Pytester, server: ChatServer, args: list[str]) -> None:
    result = pytester.runpytest(*args, "--toolcall-cache-mode=replay")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # one line, not an error per item
    assert "--toolcall-cache-mode=replay: no response store at" in result.stderr.str()
    assert server.count == 0
    assert not (pytester.path / "store" / STORE).exists()
