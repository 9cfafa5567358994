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
    keys = ("benchmark", "lang", "category", "id", "score", "process")
    return [(key, _text(record.get(key))) for key in keys if record.get(key) is not None]


def suite_properties(metrics: dict[str, Any]) -> list[tuple[str, str]]:
    """JUnit suite-level properties: the aggregate numbers, flattened."""
    props: list[tuple[str, str]] = []
    for name, block in metrics.items():
        if name.startswith("acebench/"):
            props.append((f"{name}.overall", _text(block["overall"])))
            props.append((f"{name}.partial", _text(block["partial"])))
            props += [(f"{name}.{g}", _text(v)) for g, v in block["groups"].items() if v is not None]
            for category, m in block["categories"].items():
                props.append((f"{name}.{category}.accuracy", _text(m["accuracy"])))
                if m["process_acc"] is not None:
                    props.append((f"{name}.{category}.process_acc", _text(m["process_acc"])))
        else:
            props += [(f"{name}.{k}", _text(v)) for k, v in block.items() if not isinstance(v, (dict, list))]
    return props


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:.6g}" if isinstance(value, float) else str(value)
