"""Machine-readable outputs: the JSON report (written atomically) and JUnit properties."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

SCHEMA = "pytest-toolcall/report/1"


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write to a temporary file beside ``path`` and rename: readers never see half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            # ASCII escapes: model text may hold lone surrogates, which UTF-8 cannot encode.
            json.dump(data, handle, ensure_ascii=True, indent=1)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def testcase_properties(record: dict[str, Any]) -> list[tuple[str, str]]:
    """JUnit ``<properties>`` of one testcase."""
    keys = ("benchmark", "lang", "category", "id", "score", "process", "failure_kind")
    return [(key, _text(record.get(key))) for key in keys if record.get(key) is not None]


def junit_value(value: Any) -> str:
    """A suite property's value: the same text for the same number everywhere."""
    return _text(value)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:.6g}" if isinstance(value, float) else str(value)
