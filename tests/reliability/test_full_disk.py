"""A full disk is said and survived (issue: a hostile world, round two, item 5).

The response store lives on a real, small filesystem (a tmpfs mounted with a size limit: the test
needs root, and is skipped without it). When it fills mid-run, the answers that could not be kept
are counted and said once, every item is still scored, and the run's outputs (summary, JSON report,
JUnit) are written with no traceback. A disk already full when the store opens is named as such,
and the file is left where it is.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import load_report, warm_up_client

warm_up_client()

CASES = 40
DISK = "192k"  # room for the store and a part of the answers below
ANSWER_CHARS = 12_000


def case_file() -> str:
    head = """
defaults:
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
"""
    body = "".join(
        f"""  - id: c{i}
    prompt: "case {i}"
    expect: {{calls: [{{name: get_weather, arguments: {{city: Paris}}}}]}}
"""
        for i in range(CASES)
    )
    return head + body


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs (needs root): {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    def respond(body: dict[str, Any]) -> Reply:
        padding = "x" * ANSWER_CHARS  # every answer takes room in the store
        return Reply(content=padding, tool_calls=[{"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}])

    with ChatServer(respond) as srv:
        yield srv


def run(pytester: pytest.Pytester, server: ChatServer, store: Path, *args: str) -> pytest.RunResult:
    pytester.makefile(".toolcall.yaml", weather=case_file())
    return pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-cache={store}",
        "--toolcall-report=report.json",
        "--toolcall-fail-under=cases.overall=0.5",
        "--toolcall-max-retries=0",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
        ".",
        *args,
    )


@pytest.mark.slow
@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_a_disk_that_fills_loses_no_output_and_says_what_was_not_kept(
    pytester: pytest.Pytester, server: ChatServer, disk: Path, monkeypatch: pytest.MonkeyPatch, dist: list[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = run(pytester, server, disk / "store", *dist)
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "OperationalError" not in out and "INTERNALERROR" not in out
    # Every item scored; every output written; the gate decided.
    result.assert_outcomes(passed=CASES)
    assert len(load_report(pytester.path / "report.json")["samples"]) == CASES
    assert (pytester.path / "junit.xml").is_file()
    assert "toolcall gate passed" in out
    with closing(sqlite3.connect(disk / "store" / "responses.sqlite3")) as db:
        kept = db.execute("SELECT count(*) FROM responses").fetchone()[0]
    assert 0 < kept < CASES, f"the disk should have filled part way ({kept} kept)"
    lines = [line for line in out.splitlines() if "answer(s) not kept" in line]
    assert lines == [
        f"toolcall: response store: {CASES - kept} answer(s) not kept (database or disk is full): "
        "they were scored, but a later run asks for them again"
    ]


@pytest.mark.slow
def test_a_disk_full_at_opening_is_named_and_nothing_is_moved(
    pytester: pytest.Pytester, server: ChatServer, disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    store = disk / "store"
    store.mkdir()
    (store / "responses.sqlite3").touch()  # an empty store, as a run that could write nothing leaves it
    with pytest.raises(OSError):
        (disk / "filler").write_bytes(b"x" * 10**6)  # the disk is now full
    result = run(pytester, server, store)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "the disk is full" in err and "damaged" not in err and "Traceback" not in err
    assert sorted(p.name for p in store.iterdir()) == ["responses.sqlite3"]  # nothing moved aside
    assert server.count == 0
