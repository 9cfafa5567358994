"""Cost of very large runs: a general_fc file of N lines run with the oracle, against bare pytest
running N trivial parametrized tests, measured in the same benchmark run.

    python benchmarks/scale.py [--items 100000] [--small 10000] [--repeat 1]

For each size (``--small`` and ``--items``) it prints the wall time and the peak memory (max RSS)
of both runs, the ratios toolcall/bare at ``--items`` (target: <= 1.5 for both), and how each grows
from ``--small`` to ``--items`` (target for toolcall: time <= 1.1 x the ratio of the sizes). Every
run is a separate ``python -m pytest`` process with the same flags (``-q -p no:randomly -p
no:cacheprovider``) in a folder with an empty ``pytest.ini``; the general_fc lines are the shipped
set repeated.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "pytest_toolcall" / "benchmarks" / "general_fc" / "data" / "k2vv_zh_511.jsonl"
COMMON = ["-q", "-p", "no:randomly", "-p", "no:cacheprovider"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000, help="the smaller size, for the growth (0: skip)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measurement (the fastest counts)")
    parser.add_argument("--work", type=Path, help="folder for the generated files (default: a new temporary one)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="scale-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    # An ini file of its own: the runs never pick up a project's configuration or conftest.py.
    (work / "pytest.ini").write_text("[pytest]\n")
    sizes = [n for n in (args.small, args.items) if n]
    results: dict[tuple[str, int], tuple[float, float, float]] = {}
    print(f"# cwd {work}, python {sys.version.split()[0]}, {os.cpu_count()} CPU(s)")
    print(f"{'run':<10}{'items':>10}{'time (s)':>12}{'CPU (s)':>10}{'peak RSS (MB)':>16}")
    for size in sizes:
        data, bare = prepare(work, size)
        for name, command in (
            ("bare", [bare.name]),
            ("toolcall", ["--toolcall-model=oracle", f"--toolcall-general-fc={data.name}", "--toolcall-cache=off"]),
        ):
            best = min((measure(work, command) for _ in range(args.repeat)), key=lambda r: r[0])
            results[(name, size)] = best
            print(f"{name:<10}{size:>10}{best[0]:>12.1f}{best[2]:>10.1f}{best[1]:>16.0f}", flush=True)
    time_ratio = results[("toolcall", args.items)][0] / results[("bare", args.items)][0]
    memory_ratio = results[("toolcall", args.items)][1] / results[("bare", args.items)][1]
    cpu_ratio = results[("toolcall", args.items)][2] / results[("bare", args.items)][2]
    print(
        f"toolcall / bare at {args.items}: time {time_ratio:.2f}x (CPU {cpu_ratio:.2f}x), "
        f"peak memory {memory_ratio:.2f}x (target <= 1.5)"
    )
    if args.small:
        factor = args.items / args.small
        for name in ("bare", "toolcall"):
            grow_time = results[(name, args.items)][0] / results[(name, args.small)][0]
            grow_memory = results[(name, args.items)][1] / results[(name, args.small)][1]
            grow_cpu = results[(name, args.items)][2] / results[(name, args.small)][2]
            print(
                f"{name}: {factor:g}x the items, {grow_time:.2f}x the time (CPU {grow_cpu:.2f}x), "
                f"{grow_memory:.2f}x the peak memory"
            )
    return 0


def prepare(work: Path, size: int) -> tuple[Path, Path]:
    """A general_fc file of ``size`` lines and a test file of ``size`` trivial parametrized tests."""
    data = work / f"scale_{size}.jsonl"
    if not data.exists():
        lines = SHIPPED.read_text(encoding="utf-8").splitlines()
        with open(data, "w", encoding="utf-8") as handle:
            for line in itertools.islice(itertools.cycle(lines), size):
                handle.write(line + "\n")
    bare = work / f"test_bare_{size}.py"
    bare.write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('i', range({size}))\ndef test_trivial(i):\n    assert i >= 0\n"
    )
    return data, bare


def measure(work: Path, args: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds) of one pytest process. CPU time is what the
    process itself spent: on a shared machine it moves far less than the wall time."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *COMMON, *args],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode not in (0, 1):
        raise SystemExit(f"pytest {' '.join(args)} exited {process.returncode}:\n{stderr[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # ru_maxrss: kilobytes on Linux


if __name__ == "__main__":
    sys.exit(main())
