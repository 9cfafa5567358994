"""calc's own tests, with ``pytest_toolcall.testing``: the oracle passes every question (the scorer
accepts the references), a scripted model is scored as it answered, plain and streamed, and the
export format writes what the report holds. Run with the benchmark installed: ``pytest`` here."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_toolcall.testing import ChatServer, Reply, ScriptResponder, run_benchmark, run_oracle

QUESTIONS = ("add_small", "add_large", "mul_small", "mul_negative", "add_decimal")


def test_the_oracle_passes_every_question(tmp_path: Path) -> None:
    run = run_oracle("calc", cwd=tmp_path)
    assert run.returncode == 0, run.output
    assert run.report is not None
    assert run.report.outcomes() == dict.fromkeys(QUESTIONS, "passed")
    block = run.report.block("calc")
    assert (block["n"], block["passed"], block["overall"]) == (5, 5, 1.0)


def model() -> ScriptResponder:
    """Right on 2 plus 3 and on 6 times 7; a multiplication for every other question."""
    return ScriptResponder(
        rules=[
            ("2 plus 3", Reply(tool_calls=[{"name": "add", "arguments": {"a": 2, "b": 3}}])),
            ("6 times 7", Reply(tool_calls=[{"name": "multiply", "arguments": {"a": 6, "b": 7}}])),
        ],
        default=Reply(tool_calls=[{"name": "multiply", "arguments": {"a": 1, "b": 1}}]),
    )


@pytest.mark.parametrize("stream", ["off", "on"])
def test_a_scripted_model_is_scored_as_it_answered(tmp_path: Path, stream: str) -> None:
    with ChatServer(model()) as server:
        run = run_benchmark(
            "calc", f"--toolcall-stream={stream}", cwd=tmp_path, model="scripted", base_url=server.base_url
        )
    assert server.count == 5 and all(bool(body.get("stream")) == (stream == "on") for body in server.requests)
    assert run.returncode == 1, run.output  # three questions failed
    assert run.report is not None
    assert run.report.outcomes() == {
        "add_small": "passed",
        "add_large": "failed",
        "mul_small": "passed",
        "mul_negative": "failed",
        "add_decimal": "failed",
    }
    assert run.report.block("calc")["categories"]["multiply"]["accuracy"] == 1 / 2
    assert "expected add({'a': 1250, 'b': 4375})" in run.report.sample("add_large")["explanation"]


def test_the_export_format_lists_every_question(tmp_path: Path) -> None:
    run = run_oracle("calc", cwd=tmp_path)
    assert run.report is not None
    out = tmp_path / "verdicts.csv"
    report = str(tmp_path / "toolcall-report.json")
    command = [sys.executable, "-m", "pytest_toolcall", "export", "--format", "calc-csv", report, "-o", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows[0] == ["id", "operation", "outcome"]
    assert sorted(rows[1:]) == sorted([q, q.split("_")[0].replace("mul", "multiply"), "passed"] for q in QUESTIONS)
