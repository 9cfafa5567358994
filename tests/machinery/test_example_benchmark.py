"""A benchmark from another package: ``examples/calc_benchmark`` installed with pip, then found
through the entry-point group, selected by name, and given by the protocol's defaults, with no code
of its own for them: its metrics block, summary, gate names, ``--toolcall-limit``, unit markers under
``--strict-markers``, the comparison with a baseline (in a run and offline), merge and HTML.

Expected numbers are computed here from the samples (and McNemar's exact test by hand)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply

EXAMPLE = Path(__file__).parents[2] / "examples" / "calc_benchmark"
PIP_INSTALL = (sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation")
pytestmark = pytest.mark.slow


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


def run(
    site: Path, folder: Path, *args: str, model: str = "--toolcall-model=oracle"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "TOOLCALL_TEST_KEY": "sk-test"}
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", model, *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def cli(site: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    command = [sys.executable, "-m", "pytest_toolcall", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def mcnemar_by_hand(b: int, c: int) -> float:
    m = b + c
    return min(1.0, 2 * sum(math.comb(m, i) for i in range(min(b, c) + 1)) / 2**m)


def write_samples(path: Path, adds: int, multiplies: int) -> Path:
    rows = [{"id": f"add_{i}", "op": "add", "question": f"{i} plus 1?", "a": i, "b": 1} for i in range(adds)]
    rows += [
        {"id": f"mul_{i}", "op": "multiply", "question": f"{i} times 2?", "a": i, "b": 2} for i in range(multiplies)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def refusing() -> Iterator[ChatServer]:
    """An endpoint that answers every question in words, without a call: every unit fails."""
    server = ChatServer(lambda body: Reply(content="I would rather not.")).start()
    yield server
    server.stop()


def test_selected_by_name_with_its_summary_and_metrics(installed: Path, tmp_path: Path) -> None:
    # The example declares no markers: its units' markers are registered for --strict-markers.
    args = (
        "--toolcall-bench=calc",
        "--toolcall-report=r.json",
        "-m",
        "multiply",
        "--strict-markers",
        "--junitxml=j.xml",
    )
    result = run(installed, tmp_path, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "toolcall: calc (oracle)" in result.stdout
    assert "2 passed, 3 deselected" in result.stdout
    block = json.loads((tmp_path / "r.json").read_text())["metrics"]["calc"]
    multiply = block["categories"]["multiply"]
    assert (multiply["n"], multiply["passed"], multiply["accuracy"]) == (2, 2, 1.0)
    assert "add" not in block["categories"] and block["missing_categories"] == ["add"]
    # 2 of the 5 units of the data ran: officially the 3 others count as failed.
    assert (block["overall"], block["overall_official"], block["partial"]) == (1.0, 2 / 5, True)
    assert any(line.split()[:4] == ["multiply", "2", "2", "0"] for line in result.stdout.splitlines())
    assert "not run: add" in result.stdout
    properties = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "j.xml").getroot().iter("property")}
    assert [float(properties[k]) for k in ("calc.overall", "calc.multiply.accuracy", "calc.n")] == [1.0, 1.0, 2]
    assert float(properties["calc.overall_official"]) == pytest.approx(2 / 5)


def test_its_gate_names_and_options(installed: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "op": "add", "question": "1+1?", "a": 1, "b": 1}\nnot json\n')
    result = run(
        installed,
        tmp_path,
        "--toolcall-bench=calc",
        f"--toolcall-calc-file={bad}",
        "--toolcall-fail-under=calc.overall=1",
    )
    assert f"{bad}:2: not a sample" in result.stdout
    assert "1 passed" in result.stdout
    # the data problem makes the run incomplete: the gate fails on it, not on the accuracy
    assert "toolcall gate FAILED: 1 request error(s)" in result.stdout
    result = run(installed, tmp_path, "--toolcall-bench=calc", "--toolcall-fail-under=calc.f1=1")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "unknown metric 'calc.f1'" in result.stderr


def test_strict_gating_reads_the_official_value(installed: Path, tmp_path: Path) -> None:
    # -m add: 3 of 5 units ran and passed; measured 1.0, official 3/5.
    args = ("--toolcall-bench=calc", "-m", "add")
    passed = run(installed, tmp_path, *args, "--toolcall-fail-under=calc.add=0.9", "--toolcall-gate-value=measured")
    assert passed.returncode == 0, passed.stdout
    failed = run(installed, tmp_path, *args, "--toolcall-fail-under=calc.overall=0.9")
    assert failed.returncode == 1
    assert f"calc.overall = {3 / 5:.4f} < 0.9 (official value" in failed.stdout


def test_the_limit_is_applied_by_the_runner(installed: Path, tmp_path: Path) -> None:
    samples = write_samples(tmp_path / "s.jsonl", 4, 3)
    result = run(
        installed,
        tmp_path,
        "--toolcall-bench=calc",
        f"--toolcall-calc-file={samples}",
        "--toolcall-limit=2",
        "--toolcall-report=r.json",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 passed" in result.stdout
    block = json.loads((tmp_path / "r.json").read_text())["metrics"]["calc"]
    assert {c: m["n"] for c, m in block["categories"].items()} == {"add": 2, "multiply": 2}
    assert block["short_categories"] == ["add", "multiply"]
    assert block["categories"]["add"]["accuracy_official"] == 2 / 4
    assert block["overall_official"] == 4 / 7


def test_a_regression_is_found_named_and_gated_in_a_run_and_offline(
    installed: Path, tmp_path: Path, refusing: ChatServer
) -> None:
    samples = write_samples(tmp_path / "s.jsonl", 6, 6)
    common = ("--toolcall-bench=calc", f"--toolcall-calc-file={samples}")
    base = run(installed, tmp_path, *common, "--toolcall-report=base.json")
    assert base.returncode == 0, base.stdout + base.stderr
    now = run(
        installed,
        tmp_path,
        *common,
        f"--toolcall-base-url={refusing.base_url}",
        "--toolcall-api-key-env=TOOLCALL_TEST_KEY",
        "--toolcall-cache=off",
        "--toolcall-baseline=base.json",
        "--toolcall-fail-on-regression",
        "--toolcall-fail-under=calc.add=0",  # naming a metric gates its regression too
        "--toolcall-report=now.json",
        model="--toolcall-model=refuser",
    )
    assert now.returncode == 1
    comparison = json.loads((tmp_path / "now.json").read_text())["comparison"]
    overall = comparison["metrics"]["calc.overall"]
    assert overall["gated"] and (overall["regressed"], overall["fixed"], overall["paired"]) == (12, 0, 12)
    assert overall["p_value"] == pytest.approx(mcnemar_by_hand(12, 0))
    assert comparison["metrics"]["calc.add"]["p_value"] == pytest.approx(mcnemar_by_hand(6, 0))
    assert not comparison["metrics"]["calc.multiply"]["gated"]
    assert len(comparison["regressed"]) == 12 and comparison["fixed"] == []
    expected = f"calc.overall regressed: 1.0000 -> 0.0000 (p = {mcnemar_by_hand(12, 0):.4g} < 0.05; 12 unit(s)"
    assert expected in now.stdout
    assert "calc.add regressed" in now.stdout and "calc.multiply regressed" not in now.stdout
    assert "no metric changed" not in now.stdout
    offline = cli(installed, tmp_path, "gate", "now.json", "--baseline", "base.json", "--fail-on-regression")
    assert offline.returncode == 1, offline.stdout + offline.stderr
    assert expected in offline.stdout


def test_shards_merge_and_render(installed: Path, tmp_path: Path) -> None:
    samples = write_samples(tmp_path / "s.jsonl", 3, 3)
    common = ("--toolcall-bench=calc", f"--toolcall-calc-file={samples}")
    whole = run(installed, tmp_path, *common, "--toolcall-report=whole.json")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    for shard in (1, 2):
        result = run(installed, tmp_path, *common, f"--toolcall-shard={shard}/2", f"--toolcall-report=s{shard}.json")
        assert result.returncode == 0, result.stdout + result.stderr
    merged = cli(installed, tmp_path, "merge", "s1.json", "s2.json", "-o", "m.json", "--html", "m.html")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert (
        json.loads((tmp_path / "m.json").read_text())["metrics"]
        == json.loads((tmp_path / "whole.json").read_text())["metrics"]
    )
    assert "calc" in (tmp_path / "m.html").read_text(encoding="utf-8")


def test_its_own_tests_pass(installed: Path) -> None:
    """The example's tests (``examples/calc_benchmark/tests``, the ones docs/writing-a-benchmark.md
    shows), run as its author runs them: ``pytest`` in its folder, the benchmark installed."""
    env = {**os.environ, "PYTHONPATH": str(installed)}
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q"]
    result = subprocess.run(command, cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "4 passed" in result.stdout


def test_all_runs_every_benchmark_found(installed: Path, tmp_path: Path) -> None:
    result = run(installed, tmp_path, "--toolcall-bench=all", "--collect-only", "-q")
    out = result.stdout
    assert all(f"toolcall::{name}[" in out for name in ("acebench", "general_fc", "calc")), out[-2000:]
