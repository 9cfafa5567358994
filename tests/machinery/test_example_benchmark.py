"""A benchmark from another package: ``examples/calc_benchmark`` installed with pip, then found
through the entry-point group, selected by name, summarised and gated with no change to the plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

EXAMPLE = Path(__file__).parents[2] / "examples" / "calc_benchmark"
PIP_INSTALL = (sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example installed into a folder of its own (put on PYTHONPATH by the runs below)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [*PIP_INSTALL, "--target", str(target), str(EXAMPLE)],
        check=True,
        timeout=300,
    )
    return target


def run(site: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--toolcall-model=oracle", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_selected_by_name_with_its_summary_and_metrics(installed: Path, tmp_path: Path) -> None:
    result = run(installed, tmp_path, "--toolcall-bench=calc", "--toolcall-report=r.json", "-m", "multiply")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "toolcall: calc (oracle)" in result.stdout
    assert "2 passed, 3 deselected" in result.stdout
    metrics = json.loads((tmp_path / "r.json").read_text())["metrics"]["calc"]
    assert (metrics["n"], metrics["passed"], metrics["multiply_accuracy"]) == (2, 2, 1.0)
    assert metrics["add_accuracy"] is None


def test_its_gate_names_and_options(installed: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "op": "add", "question": "1+1?", "a": 1, "b": 1}\nnot json\n')
    result = run(
        installed,
        tmp_path,
        "--toolcall-bench=calc",
        f"--toolcall-calc-file={bad}",
        "--toolcall-fail-under=calc.accuracy=1",
    )
    assert f"{bad}:2: not a sample" in result.stdout
    assert "1 passed" in result.stdout
    # the data problem makes the run incomplete: the gate fails on it, not on the accuracy
    assert "toolcall gate FAILED: 1 request error(s)" in result.stdout
    result = run(installed, tmp_path, "--toolcall-bench=calc", "--toolcall-fail-under=calc.f1=1")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "unknown calc metric 'calc.f1'" in result.stderr


def test_all_runs_every_benchmark_found(installed: Path, tmp_path: Path) -> None:
    result = run(installed, tmp_path, "--toolcall-bench=all", "--collect-only", "-q")
    out = result.stdout
    assert all(f"toolcall::{name}[" in out for name in ("acebench", "general_fc", "calc")), out[-2000:]
