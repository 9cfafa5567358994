"""What being installed costs a pytest run that does not use the plugin: a tiny test folder run with
the plugin installed and no model, against the same run without it (``-p no:toolcall``), side by side.

    python benchmarks/startup.py [--runs 15] [--tests 2] [--xdist N]

Each run is a separate ``python -m pytest`` process, as a user starts it; the two commands alternate
(A B A B ...) so that a machine whose speed drifts slows both alike, and each pair gives a ratio. The
CPU time is the child's own (user + system, from ``os.wait4``), which the other sessions of a shared
machine disturb less than wall time. Prints the median CPU and wall time of each command, the median
of the pair ratios and their spread. The goal: at most 1.05x the CPU of bare pytest.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``command``, which must pass."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = process.stdout.read() if process.stdout is not None else b""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{output.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="pairs of runs (after one warm-up pair)")
    parser.add_argument("--tests", type=int, default=2, help="trivial tests in the folder")
    parser.add_argument("--xdist", type=int, default=0, help="run with -n N (the workers' CPU counts too)")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="toolcall-startup-"))
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    tests = "".join(f"def test_{n}():\n    assert {n} == {n}\n\n" for n in range(args.tests))
    (folder / "test_tiny.py").write_text(tests, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TOOLCALL_"))}
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    if args.xdist:
        base += ["-n", str(args.xdist)]
    installed, bare = base, [*base, "-p", "no:toolcall"]

    # Installed from a wheel, the package's modules are byte-compiled by pip; an environment that sets
    # PYTHONDONTWRITEBYTECODE never writes them for a source checkout, and each run would compile the
    # plugin's modules anew (a third of its start-up) while pytest's own come compiled.
    import pytest_toolcall

    compileall.compile_dir(Path(pytest_toolcall.__file__).parent, quiet=1)
    timed(installed, folder, env), timed(bare, folder, env)  # warm-up: file caches
    pairs = []
    for _ in range(args.runs):
        pairs.append((timed(installed, folder, env), timed(bare, folder, env)))
    ratios = [a[0] / b[0] for a, b in pairs]
    print(f"# {args.runs} pairs, {args.tests} tests{f', -n {args.xdist}' if args.xdist else ''}; cwd {folder}")
    print(f"{'':24}{'CPU s':>8}{'wall s':>9}")
    sides = (("installed, no model", [a for a, _ in pairs]), ("bare (-p no:toolcall)", [b for _, b in pairs]))
    for label, runs in sides:
        cpu, wall = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{label:24}{cpu:8.3f}{wall:9.3f}")
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    spread = f"quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f}"
    print(f"CPU ratio, median of pairs: {statistics.median(ratios):.3f} ({spread})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
