"""The CPU of streamed requests against plain ones, side by side, on the same workload.

    python benchmarks/stream_cpu.py [--requests 700] [--latency 0.05] [--api chat] [--rounds 5]

Starts the tests' local server (``pytest_toolcall/testing/server.py``) answering every request with text
and a tool call, streamed as servers stream them (``--pieces`` deltas for the text and as many for
the arguments, 80 events an answer by default), writes a general_fc file of
``--requests`` lines, and runs the same pytest command with ``--toolcall-stream=off`` and ``=on`` in
turn, A B A B, ``--rounds`` times. Each run is a separate ``python -m pytest`` process; its CPU
(user + system, of pytest and of the model client process it starts, which it waits for) is read
from the operating system's accounting of the finished process. Prints each command's median CPU and
wall time and the median of the round-by-round ratios streamed / plain (the machine is shared: a
ratio taken pair by pair holds when its speed drifts). The server runs in its own process: its CPU
is not counted (a real endpoint's is not the client's either).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / "pytest_toolcall" / "testing" / "server.py"
TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"],
        },
    },
}
REPLY = {
    "content": "Let me look that up for you: I will check the current weather in Paris, in degrees Celsius, "
    "and tell you whether you need an umbrella or sunglasses this afternoon.",
    "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=700)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the server waits before each answer")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--api", default="chat", choices=("chat", "responses", "messages"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--pieces", type=int, default=40, help="pieces of the streamed text and arguments each (servers: a token each)"
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="toolcall-stream-cpu-"))
    lines = work / "calls.jsonl"
    lines.write_text(
        "".join(
            json.dumps({"messages": [{"role": "user", "content": f"Weather {n}?"}], "tools": [TOOL]}) + "\n"
            for n in range(args.requests)
        ),
        encoding="utf-8",
    )
    script = work / "answers.json"
    script.write_text(json.dumps({"default": {**REPLY, "stream_pieces": args.pieces}}), encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", "0", "--latency", str(args.latency), "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        ready = server.stdout.readline().split()
        base_url = ready[1]
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            f"--rootdir={work}",
            "--toolcall-model=bench-model",
            f"--toolcall-base-url={base_url}",
            "--toolcall-api-key-env=",
            "--toolcall-cache=off",
            "--toolcall-bench=general_fc",
            f"--toolcall-general-fc={lines}",
            f"--toolcall-concurrency={args.concurrency}",
            f"--toolcall-api={args.api}",
        ]
        plain = [*command, "--toolcall-stream=off"]
        streamed = [*command, "--toolcall-stream=on"]
        run(plain, work)  # warm-up: the file system's caches, bytecode
        rows: list[tuple[float, float, float, float]] = []
        for _ in range(args.rounds):
            cpu_a, wall_a = run(plain, work)
            cpu_b, wall_b = run(streamed, work)
            rows.append((cpu_a, wall_a, cpu_b, wall_b))
    finally:
        server.terminate()
        server.wait()
    what = f"{args.requests} requests through --toolcall-api {args.api}"
    print(f"# {what}, latency {args.latency}s, {args.rounds} rounds")
    print(f"plain    cpu {median(r[0] for r in rows):.2f} s   wall {median(r[1] for r in rows):.2f} s")
    print(f"streamed cpu {median(r[2] for r in rows):.2f} s   wall {median(r[3] for r in rows):.2f} s")
    ratios = [r[2] / r[0] for r in rows]
    print(f"streamed / plain cpu: median {median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")
    return 0


def run(command: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds of the process and the children it waited for, wall seconds)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode not in (0, 1):  # 1: some items failed (the answers are not all right)
        raise SystemExit(f"pytest exited {process.returncode}: {' '.join(command)}")
    return usage.ru_utime + usage.ru_stime, wall


def median(values: object) -> float:
    return statistics.median(list(values))  # type: ignore[call-overload]


if __name__ == "__main__":
    raise SystemExit(main())
