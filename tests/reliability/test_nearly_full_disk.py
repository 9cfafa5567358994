"""A store opened on a nearly full disk (a few pages free: the store file can be created but not
its write-ahead log, or its tables but not a run) is one line, never an INTERNALERROR: either the
disk-full usage error, or a run whose answers were scored and counted as not kept. Needs root for
a small tmpfs (skipped without it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_toolcall.testing.server import ChatServer
from tests.reliability.test_full_disk import disk, run, server  # noqa: F401  (fixtures)


def _leave_free(mount: Path, free: int) -> None:
    """Fill the filesystem at ``mount`` until about ``free`` bytes are left."""
    stats = os.statvfs(mount)
    room = stats.f_bavail * stats.f_frsize - free
    if room > 0:
        (mount / "filler").write_bytes(b"x" * room)


@pytest.mark.slow
@pytest.mark.parametrize("free_kb", [4, 12, 24, 40, 60, 90, 100])
def test_a_nearly_full_disk_is_one_line(
    pytester: pytest.Pytester,
    server: ChatServer,  # noqa: F811
    disk: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    free_kb: int,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    _leave_free(disk, free_kb * 1024)
    result = run(pytester, server, disk / "store")
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out and "OperationalError" not in out, out[-3000:]
    if result.ret == pytest.ExitCode.USAGE_ERROR:
        assert "the disk is full" in out
        assert server.count == 0
    else:
        assert "passed" in out
