"""Throughput and overhead of the plugin against the tests' local chat-completions server.

    python benchmarks/throughput.py [--data-dir=ACEBENCH_ROOT] [--general-fc=FILE]  (default: the shipped data)

Prints, for the chosen selection: items, requests, wall time against the limit
``requests × latency / concurrency`` and where it goes, requests per second, xdist (-n 4 × 8)
against one process (× 32) with their metrics compared, the plugin's overhead per item on a fully
cached re-run (against a bare pytest run of as many trivial tests), collection time, peak memory,
and the floor no plugin can go below (pytest's and the SDK's start-up, xdist's, the latencies).
Every run is a separate ``python -m pytest`` process, as a user would start it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHIPPED_ROOT = REPO / "pytest_toolcall" / "benchmarks" / "acebench" / "data"
SHIPPED_SET = REPO / "pytest_toolcall" / "benchmarks" / "general_fc" / "data" / "k2vv_zh_511.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=str(SHIPPED_ROOT), help="ACEBench data root (default: the shipped one)")
    parser.add_argument(
        "--general-fc",
        default=str(SHIPPED_SET),
        help="general_fc file of the cached run (default: the shipped set)",
    )
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("-k", default="normal or special", help="selection for the throughput run")
    parser.add_argument("--lang", default="en", help="ACEBench language(s) of the throughput run: en, zh or all")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each cached measurement (the best counts)")
    parser.add_argument(
        "--parts", default="single,xdist,cached,floor", help="comma-separated: single, xdist, cached, floor"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    work = Path(tempfile.mkdtemp(prefix="toolcall-bench-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as on a developer machine
    env["OPENAI_API_KEY"] = "benchmark-key"
    script = work / "answers.json"
    script.write_text(json.dumps(answer_script(Path(args.data_dir))))
    server, base_url = start_server(args.latency, script, env)
    bench = Bench(work, env, base_url, args)
    try:
        print(f"# latency {args.latency}s, selection -k {args.k!r} --toolcall-lang={args.lang}, cwd {work}")
        if "single" in parts or "xdist" in parts:
            single = bench.throughput()
        if "xdist" in parts:
            bench.xdist(single)
        if "cached" in parts:
            bench.cached()
        if "floor" in parts:
            bench.floor()
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


class Bench:
    def __init__(self, work: Path, env: dict[str, str], base_url: str, args: argparse.Namespace) -> None:
        self.work, self.env, self.base_url, self.args = work, env, base_url, args
        self.common = [
            f"--toolcall-data-dir={Path(args.data_dir).resolve()}",
            "--toolcall-model=bench-model",
            f"--toolcall-base-url={base_url}",
            "-p",
            "no:randomly",
            "-q",
            "--no-header",
        ]
        self.selection = ["-k", args.k, f"--toolcall-lang={args.lang}", "--toolcall-cache=off"]

    def throughput(self) -> dict[str, float]:
        """One process at the full concurrency: wall time against the limit, and where it goes."""
        a = self.args
        before = requests_seen(self.base_url)
        started = time.time()
        run = pytest(
            self.work,
            self.env,
            [*self.common, *self.selection, f"--toolcall-concurrency={a.concurrency}", "--toolcall-report=single.json"],
        )
        stats = server_stats(self.base_url)
        sent = int(stats["requests"]) - before
        limit = sent * a.latency / a.concurrency
        busy = stats["last_response_at"] - stats["first_request_at"]
        items = len(json.loads((self.work / "single.json").read_text())["samples"])
        print(f"items                     {items}")
        print(f"requests                  {sent} (at most {stats['max_in_flight']} in flight)")
        print(f"wall time                 {run['wall']:.2f} s (limit {limit:.2f} s, ratio {run['wall'] / limit:.3f})")
        print(f"  start-up                {stats['first_request_at'] - started:.2f} s before the first request")
        print(f"  endpoint busy           {busy:.2f} s, first request to last answer (ratio {busy / limit:.3f})")
        print(f"  in flight when busy     {stats['open_seconds'] / busy:.1f} on average")
        print(f"  after the last answer   {started + run['wall'] - stats['last_response_at']:.2f} s")
        print(f"requests per second       {sent / run['wall']:.1f}")
        self.requests = sent
        return run

    def xdist(self, single: dict[str, float]) -> None:
        """Four workers at a quarter of the concurrency each: same metrics, and how long."""
        workers, per_worker = 4, max(1, self.args.concurrency // 4)
        run = pytest(
            self.work,
            self.env,
            [
                *self.common,
                *self.selection,
                f"-n={workers}",
                f"--toolcall-concurrency={per_worker}",
                "--toolcall-report=xdist.json",
            ],
        )
        same = metrics(self.work / "xdist.json") == metrics(self.work / "single.json")
        print(
            f"-n {workers} x {per_worker} vs -n 0 x {self.args.concurrency}      {run['wall']:.2f} s vs "
            f"{single['wall']:.2f} s; identical metrics: {same}"
        )

    def cached(self) -> None:
        """Everything answered from the store: the plugin's own cost per item, collection, memory."""
        a = self.args
        full = [*self.common, "--toolcall-lang=all", "--toolcall-cache=store"]
        if a.general_fc:
            full += ["--toolcall-bench=acebench,general_fc", f"--toolcall-general-fc={Path(a.general_fc).resolve()}"]
        pytest(self.work, self.env, [*full, f"--toolcall-concurrency={a.concurrency}"])  # fill the store
        before = requests_seen(self.base_url)
        replay = [*full, "--toolcall-report=cached.json", "--toolcall-cache-mode=replay"]
        cached = best(a.repeat, lambda: pytest(self.work, self.env, replay))
        assert requests_seen(self.base_url) == before, "the cached re-run sent requests"
        samples = json.loads((self.work / "cached.json").read_text())["samples"]
        n = len(samples)
        failing = sum(s["outcome"] == "failed" for s in samples)
        bare = best(a.repeat, lambda: bare_run(self.work, self.env, n, failing))
        collect = best(a.repeat, lambda: pytest(self.work, self.env, [*full, "--collect-only"]))
        print(
            f"cached re-run             {n} items in {cached['wall']:.2f} s; bare pytest, {n} trivial tests "
            f"(as many failing): {bare['wall']:.2f} s (best of {a.repeat})"
        )
        print(f"plugin overhead per item  {(cached['wall'] - bare['wall']) / n * 1000:.2f} ms")
        print(f"collection (whole run)    {collect['wall']:.2f} s for {n} items, process start to exit")
        print(f"peak memory               {cached['maxrss_mb']:.0f} MB (single process, all items)")

    def floor(self) -> None:
        """What no plugin can save: the interpreter and pytest, the SDK's import, xdist's start-up,
        and the endpoint's own minimum, ceil(requests / concurrency) latencies in a row."""
        a = self.args
        folder = self.work / "floor"
        folder.mkdir(exist_ok=True)
        (folder / "test_one.py").write_text("def test_one():\n    pass\n")
        interpreter = best(a.repeat, lambda: run_python(self.env, ["-c", "pass"]))
        python = best(a.repeat, lambda: run_python(self.env, ["-m", "pytest", "--version"]))
        sdk = best(a.repeat, lambda: run_python(self.env, ["-c", "import openai"]))
        one = best(a.repeat, lambda: pytest(folder, self.env, ["-p", "no:randomly", "-q", "test_one.py"]))
        four = best(a.repeat, lambda: pytest(folder, self.env, ["-p", "no:randomly", "-q", "-n=4", "test_one.py"]))
        sdk_import = sdk["wall"] - interpreter["wall"]
        print(f"python + pytest           {python['wall']:.2f} s (pytest --version)")
        print(f"openai SDK import         {sdk_import:.2f} s (needed before the first request)")
        print(f"xdist -n 4 start-up       {four['wall'] - one['wall']:.2f} s more than -n 0, for one trivial test")
        requests = getattr(self, "requests", 0)
        if requests:
            # The SDK can start importing only once pytest has loaded the plugin; after that the
            # endpoint needs ceil(requests / concurrency) latencies back to back.
            waves = math.ceil(requests / a.concurrency) * a.latency
            floor = python["wall"] + sdk_import + waves
            limit = requests * a.latency / a.concurrency
            print(
                f"best possible wall time   {floor:.2f} s, ratio {floor / limit:.3f} (start-up, then {waves:.2f} s "
                "of latencies back to back)"
            )


def best(repeat: int, run: Callable[[], dict[str, float]]) -> dict[str, float]:
    return min((run() for _ in range(repeat)), key=lambda result: result["wall"])


def run_python(env: dict[str, str], args: list[str]) -> dict[str, float]:
    started = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, check=True, capture_output=True)
    return {"wall": time.perf_counter() - started}


def answer_script(root: Path) -> dict[str, object]:
    """The server's answers: the reference for four samples in five, an empty list for the fifth,
    so that the run has failures, as real runs do."""
    sys.path.insert(0, str(REPO))
    from pytest_toolcall.benchmarks.acebench.dataset import LANGUAGES, NORMAL, SPECIAL, load_category
    from pytest_toolcall.benchmarks.acebench.prompts import Prompts, acebench_requests
    from pytest_toolcall.testing.server import text_key

    prompts = Prompts.load(root)
    answers = {}
    for lang in LANGUAGES:
        for category in NORMAL + SPECIAL:
            for i, sample in enumerate(load_category(root, lang, category)):
                for request in acebench_requests(prompts, sample):
                    text = "\n".join(m["content"] for m in request.messages)
                    answers[text_key(text)] = {"content": request.reference if i % 5 else "[]"}
    return {"answers": answers, "default": {"content": "[]"}}


def start_server(latency: float, script: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable,
        "-m",
        "pytest_toolcall.testing.server",
        "--port",
        "0",
        "--latency",
        str(latency),
        "--script",
        str(script),
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert server.stdout is not None
    line = server.stdout.readline().strip()
    if not line.startswith("READY "):
        raise SystemExit(f"the chat server did not start: {line!r}")
    return server, line.split(" ", 1)[1]


def server_stats(base_url: str) -> dict[str, float]:
    with urllib.request.urlopen(f"{base_url}/stats", timeout=5) as response:
        return json.loads(response.read())


def requests_seen(base_url: str) -> int:
    return int(server_stats(base_url)["requests"])


def pytest(cwd: Path, env: dict[str, str], args: list[str]) -> dict[str, float]:
    """Run one pytest process; its wall time and peak memory (of it and the workers it waited for)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"pytest {' '.join(args)} exited {code}:\n{output[-4000:]}")
    return {"wall": wall, "maxrss_mb": usage.ru_maxrss / 1024}


def bare_run(cwd: Path, env: dict[str, str], n: int, failing: int) -> dict[str, float]:
    """Pytest's own cost for ``n`` trivial tests of which ``failing`` fail (as the real run's do)."""
    folder = cwd / "bare"
    folder.mkdir(exist_ok=True)
    (folder / "test_bare.py").write_text(
        "import pytest\n\n"
        f"@pytest.mark.parametrize('i', range({n}))\n"
        f"def test_bare(i):\n    if i < {failing}:\n        pytest.fail('wrong answer', pytrace=False)\n"
    )
    return pytest(folder, env, ["-q", "-p", "no:randomly", "test_bare.py"])


def metrics(path: Path) -> dict[str, object]:
    return json.loads(path.read_text())["metrics"]


if __name__ == "__main__":
    sys.exit(main())
