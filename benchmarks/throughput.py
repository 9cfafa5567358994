"""Throughput and overhead of the plugin against the tests' local chat-completions server.

    python benchmarks/throughput.py --data-dir=../shared/acebench [--general-fc=../shared/general_fc/k2vv_zh_511.jsonl]

Prints, for the chosen selection: items, requests, wall time against the limit
``requests × latency / concurrency``, requests per second, xdist (-n 4 × 8) against one process
(× 32) with their metrics compared, the plugin's overhead per item on a fully cached re-run
(against a bare pytest run of as many trivial tests), collection time and peak memory.
Every run is a separate ``python -m pytest`` process, as a user would start it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "tests" / "chat_server.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, help="ACEBench data root")
    parser.add_argument("--general-fc", default=None, help="general_fc JSONL file to include in the cached run")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("-k", default="normal or special", help="selection for the throughput run")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="toolcall-bench-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as on a developer machine
    env["OPENAI_API_KEY"] = "benchmark-key"
    script = work / "answers.json"
    script.write_text(json.dumps(answer_script(Path(args.data_dir))))
    server, base_url = start_server(args.latency, script, env)
    common = [
        f"--toolcall-data-dir={Path(args.data_dir).resolve()}",
        "--toolcall-model=bench-model",
        f"--toolcall-base-url={base_url}",
        "-p",
        "no:randomly",
        "-q",
        "--no-header",
    ]
    try:
        print(f"# latency {args.latency}s, selection -k {args.k!r}, cwd {work}")
        before = requests_seen(base_url)
        started = time.time()
        run = pytest(
            work,
            env,
            [
                *common,
                "--toolcall-cache=off",
                f"--toolcall-concurrency={args.concurrency}",
                "-k",
                args.k,
                "--toolcall-report=single.json",
            ],
        )
        stats = server_stats(base_url)
        sent = int(stats["requests"]) - before
        limit = sent * args.latency / args.concurrency
        busy = stats["last_response_at"] - stats["first_request_at"]
        items = len(json.loads((work / "single.json").read_text())["samples"])
        print(f"items                     {items}")
        print(f"requests                  {sent} (at most {stats['max_in_flight']} in flight)")
        print(f"wall time                 {run['wall']:.2f} s (limit {limit:.2f} s, ratio {run['wall'] / limit:.3f})")
        print(f"  start-up                {stats['first_request_at'] - started:.2f} s before the first request")
        print(f"  endpoint busy           {busy:.2f} s, first request to last answer (ratio {busy / limit:.3f})")
        print(f"requests per second       {sent / run['wall']:.1f}")

        xdist = pytest(
            work,
            env,
            [
                *common,
                "--toolcall-cache=off",
                "-n",
                "4",
                "--toolcall-concurrency=8",
                "-k",
                args.k,
                "--toolcall-report=xdist.json",
            ],
        )
        same = metrics(work / "xdist.json") == metrics(work / "single.json")
        print(
            f"-n 4 x 8 vs -n 0 x {args.concurrency}       {xdist['wall']:.2f} s vs {run['wall']:.2f} s; "
            f"identical metrics: {same}"
        )

        full = [*common, "--toolcall-lang=all", "--toolcall-cache=store"]
        if args.general_fc:
            full += ["--toolcall-bench=acebench,general_fc", f"--toolcall-general-fc={Path(args.general_fc).resolve()}"]
        pytest(work, env, [*full, f"--toolcall-concurrency={args.concurrency}"])  # fill the store
        before = requests_seen(base_url)
        cached = pytest(work, env, [*full, "--toolcall-report=cached.json", "--toolcall-cache-mode=replay"])
        assert requests_seen(base_url) == before, "the cached re-run sent requests"
        samples = json.loads((work / "cached.json").read_text())["samples"]
        n = len(samples)
        bare = bare_run(work, env, n, sum(s["outcome"] == "failed" for s in samples))
        collect = pytest(work, env, [*full, "--collect-only"])
        print(
            f"cached re-run             {n} items in {cached['wall']:.2f} s; bare pytest, {n} trivial tests "
            f"(as many failing): {bare['wall']:.2f} s"
        )
        print(f"plugin overhead per item  {(cached['wall'] - bare['wall']) / n * 1000:.2f} ms")
        print(f"collection (whole run)    {collect['wall']:.2f} s for {n} items")
        print(f"peak memory               {cached['maxrss_mb']:.0f} MB (single process, all items)")
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


def answer_script(root: Path) -> dict[str, object]:
    """The server's answers: the reference for four samples in five, an empty list for the fifth,
    so that the run has failures, as real runs do."""
    sys.path.insert(0, str(REPO))
    from pytest_toolcall.datasets.acebench import LANGUAGES, NORMAL, SPECIAL, load_category
    from pytest_toolcall.prompts import Prompts, acebench_requests
    from tests.chat_server import text_key

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
    command = [sys.executable, str(SERVER), "--port", "0", "--latency", str(latency), "--script", str(script)]
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
