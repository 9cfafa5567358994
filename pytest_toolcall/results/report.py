"""Machine-readable outputs: the JSON report (written atomically) and JUnit properties."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pytest_toolcall.core.safety.text import inert


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write to a temporary file beside ``path`` and rename: readers never see half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            # ASCII escapes: model text may hold lone surrogates, which UTF-8 cannot encode.
            json.dump(data, handle, ensure_ascii=True, indent=1)
        # mkstemp makes the file private (0600); a report is shared like any file pytest writes.
        os.chmod(tmp, 0o666 & ~process_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def process_umask() -> int:
    """The process umask, read without changing it (``os.umask`` sets it, racing other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022  # the usual default where /proc is not available


def output_problem(path: Path) -> str | None:
    """Why a file cannot be written at ``path`` (checked before the run, so that a run of hours
    never ends without its outputs), or None. A missing folder is fine if it can be created."""
    if path.is_dir():
        return "is a directory"
    folder = path.parent
    while not folder.exists():  # the first existing ancestor is where creation will start
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable"
    if path.exists() and not os.access(path, os.W_OK) and not os.access(path.parent, os.W_OK):
        return "is not writable"
    # Permission bits are not the whole story (root passes every check, and a folder of /proc, /sys
    # or a read-only mount refuses files anyway): a file is made there and removed.
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".toolcall-probe-")
    except OSError as exc:
        return f"folder {folder} is not writable ({exc.strerror or exc})"
    os.close(handle)
    os.unlink(probe)
    return None


def testcase_properties(record: dict[str, Any]) -> list[tuple[str, str]]:
    """JUnit ``<properties>`` of one testcase."""
    keys = ("benchmark", "lang", "category", "id", "score", "process", "failure_kind")
    return [(key, inert(_text(record.get(key)), 1000)) for key in keys if record.get(key) is not None]


def junit_value(value: Any) -> str:
    """A suite property's value: the same text for the same number everywhere."""
    return _text(value)


def _text(value: Any) -> str:
    if value is None:
        return "not measured"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:.6g}" if isinstance(value, float) else str(value)
