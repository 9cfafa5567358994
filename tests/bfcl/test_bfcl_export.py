"""The official BFCL score files from a run's report (``bfcl``).

``tests/data/bfcl/export_official.json`` (``tests/data/bfcl/learn_export.py``): the leaderboard tables
gorilla@6ea5797's ``generate_leaderboard_csv`` writes for made-up per-category counts. The same counts
as a run's records, through the plugin's metrics block and :func:`score_files`, must give the same
CSV files, byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.export import pytest_toolcall_export, pytest_toolcall_export_formats, score_files
from pytest_toolcall.benchmarks.bfcl.metrics import bfcl_metrics

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "export_official.json"
CASES = json.loads(DATA.read_text(encoding="utf-8"))


def document(case: dict[str, Any]) -> dict[str, Any]:
    records = []
    for category, count in case["counts"].items():
        for n in range(count["total_count"]):
            passed = n < count["correct_count"]
            records.append(
                {
                    "category": category,
                    "id": f"{category}_{n}",
                    "benchmark": "bfcl",
                    "score": 1.0 if passed else 0.0,
                    "outcome": "passed" if passed else "failed",
                    "error_type": None if passed else "value_error:string",
                    "reason": None if passed else "value_error:string: 'x' is not one of ['y']",
                    "output": "[f(x='x')]",
                }
            )
    sizes = {category: count["total_count"] for category, count in case["counts"].items()}
    block = bfcl_metrics(records, sizes, "fc")
    if case["format_sensitivity"]:
        header = case["format_sensitivity"]
        block["format_sensitivity"] = {
            "accuracy_max_delta": header["accuracy_max_delta"],
            "accuracy_std": header["accuracy_std"],
            "accuracy_variance": 0.0,
            "by_format": {k: v for k, v in header.items() if k.startswith("ret_fmt")},
        }
    return {"run": {"model": "model"}, "metrics": {"bfcl": block}, "samples": records, "usage": None}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_tables_as_official(case: dict[str, Any]) -> None:
    files = score_files({**document(case), "samples": []})  # no latencies: as the learned tables
    for name, text in case["csv"].items():
        assert files[name] == text, name


def test_score_files_per_category() -> None:
    case = CASES[1]
    files = score_files(document(case))
    kv = [json.loads(line) for line in files["model/agentic/memory/kv/BFCL_v4_memory_kv_score.json"].splitlines()]
    count = case["counts"]["memory_kv"]
    assert kv[0] == {
        "accuracy": count["correct_count"] / count["total_count"],
        "correct_count": count["correct_count"],
        "total_count": count["total_count"],
    }
    assert len(kv) - 1 == count["total_count"] - count["correct_count"]
    assert all(line["valid"] is False and line["error_type"] == "value_error:string" for line in kv[1:])
    assert "model/agentic/memory/rec_sum/BFCL_v4_memory_rec_sum_score.json" in files


def test_export_hook_writes_the_files(tmp_path: Path) -> None:
    assert "bfcl" in pytest_toolcall_export_formats()
    assert pytest_toolcall_export("html", document(CASES[2]), tmp_path) is None
    written = pytest_toolcall_export("bfcl", document(CASES[2]), tmp_path)
    assert written and all(path.is_file() for path in written)
    assert (tmp_path / "data_overall.csv").read_text(encoding="utf-8") == CASES[2]["csv"]["data_overall.csv"]
    with pytest.raises(ValueError, match="no bfcl metrics block"):
        score_files({"metrics": {}})
