"""Reading a file a user names (a report, a case file, a data file): only a regular file of a sane size.

A FIFO given where a file belongs would block the run forever, ``/dev/zero`` would be read until memory
runs out: both are refused with a message saying what they are.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def check_regular_file(path: Path, limit: int | None = None, what: str = "file") -> None:
    """``OSError`` naming what ``path`` is when it is not a regular file (of at most ``limit`` bytes)."""
    info = os.stat(path)  # (stat never blocks, unlike open on a FIFO)
    if not stat.S_ISREG(info.st_mode):
        mode = info.st_mode
        kind = (
            "a folder"
            if stat.S_ISDIR(mode)
            else "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a regular file"
        )
        if stat.S_ISDIR(mode):  # (as ``open`` says it: callers name a folder their own way)
            raise IsADirectoryError(errno.EISDIR, f"{kind}, not a {what}: refused")
        raise OSError(f"{kind}, not a {what}: refused")
    if limit is not None and info.st_size > limit:
        raise OSError(f"{info.st_size:,} bytes, more than the {limit:,} a {what} may have: refused")


def read_regular_file(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; ``OSError`` otherwise (with
    a message naming what it is instead). Never blocks on a FIFO, never reads a device."""
    check_regular_file(path, limit, what)
    # O_NONBLOCK: had it been swapped for a FIFO since the stat, the open still returns at once.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"more than the {limit:,} bytes a {what} may have: refused")
    return data
