"""calc's export format (``pytest-toolcall export --format calc-csv REPORT -o verdicts.csv``): hook
implementations, found because ``Calc.hooks`` names this module; plain functions, no import needed."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any


def pytest_toolcall_export_formats() -> dict[str, str]:
    return {"calc-csv": "one CSV line per question: id, operation, outcome"}


def pytest_toolcall_export(format: str, document: dict[str, Any], path: Path) -> list[Path] | None:
    if format != "calc-csv":
        return None  # another plugin's format
    rows = [(s["id"], s["category"], s["outcome"]) for s in document["samples"] if s.get("benchmark") == "calc"]
    if not rows:
        raise ValueError("the report holds no calc sample")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("id", "operation", "outcome"), *rows])
    return [path]
