"""Rows of the response store come in through the door like any other input: a row with a field of
the wrong type or JSON nested too deep is ignored (its unit asked again), counted in one line at the
end, never a traceback; ``merge-store`` refuses a store holding such a row, naming it."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from pytest_toolcall.cli import main
from pytest_toolcall.testing.server import ChatServer
from tests.reliability.test_full_disk import CASES, run, server  # noqa: F401  (fixtures)

BAD_FIELDS = {"usage": {"prompt_tokens": "many"}, "content": 5, "tool_calls": "get_weather"}


def _spoil(store: Path, how: str) -> int:
    """Spoil every other stored answer; returns how many."""
    with closing(sqlite3.connect(store / "responses.sqlite3")) as db:
        rows = db.execute("SELECT key, response FROM responses ORDER BY key").fetchall()
        spoiled = 0
        for key, text in rows[::2]:
            answer = json.loads(text)
            if how == "deep":
                bad = json.dumps(answer)[:-1] + ', "usage": ' + "[" * 50_000 + "]" * 50_000 + "}"
            elif how == "unknown":
                bad = json.dumps({**answer, "surprise": 1})
            else:
                bad = json.dumps({**answer, how: BAD_FIELDS[how]})
            db.execute("UPDATE responses SET response = ? WHERE key = ?", (bad, key))
            spoiled += 1
        db.commit()
    return spoiled


@pytest.mark.slow
@pytest.mark.parametrize("how", ["usage", "content", "tool_calls", "deep", "unknown"])
def test_a_bad_row_is_asked_again_and_counted(
    pytester: pytest.Pytester,
    server: ChatServer,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    how: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    store = tmp_path / "store"
    first = run(pytester, server, store)
    first.assert_outcomes(passed=CASES)
    spoiled = _spoil(store, how)
    asked = server.count
    again = run(pytester, server, store, "--toolcall-cache-mode=reuse")
    out = again.stdout.str() + again.stderr.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out, out[-3000:]
    again.assert_outcomes(passed=CASES)  # every item scored, the spoiled ones asked again
    assert server.count - asked == spoiled
    lines = [line for line in out.splitlines() if "stored row(s) ignored" in line]
    assert len(lines) == 1 and lines[0].startswith(f"toolcall: response store: {spoiled} stored row(s) ignored (")
    # Asked again, the answers replaced the bad rows. Spoiled anew, the store is one merge-store
    # refuses (it validates what it would copy), naming a row.
    _spoil(store, how)
    code = main(["merge-store", str(store), "-o", str(tmp_path / "merged")])
    assert code == 2
    assert not (tmp_path / "merged" / "responses.sqlite3").exists()
