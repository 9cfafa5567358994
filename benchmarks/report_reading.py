"""How long the offline tools take to read a report back: ``read_report`` on a report of N items.

    python benchmarks/report_reading.py [--items 9500] [--repeat 5] [--package PATH]

Writes a report shaped like a real one (each sample with its usage, per-request entries, output and
reason; the metrics blocks), then reads it ``--repeat`` times in this process and prints the median
CPU time of a read and its share spent in JSON parsing alone (``json.loads`` with no hooks), so that
what the reader adds on top of parsing is visible. ``--package`` reads with the pytest_toolcall found
at PATH (a checkout of another commit): the same report, side by side.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path


def sample(number: int) -> dict[str, object]:
    category = ("normal_atom_bool", "normal_single_turn", "special_incomplete", "agent_multi_turn")[number % 4]
    requests = [
        {"prompt_tokens": 812 + number % 97, "completion_tokens": 41, "latency_s": 0.8123, "from_store": False}
        for _ in range(1 + number % 3)
    ]
    return {
        "nodeid": f"toolcall::acebench[en/{category}_{number}]",
        "benchmark": "acebench",
        "lang": "en",
        "category": category,
        "id": f"{category}_{number}",
        "repeat": 1,
        "outcome": "passed" if number % 5 else "failed",
        "score": 1.0 if number % 5 else 0.0,
        "process": None if number % 4 else 0.5,
        "error": None,
        "latency_s": 0.8123,
        "failure_kind": None if number % 5 else "wrong_value",
        "reason": "" if number % 5 else "wrong value for 'city': expected 'Paris', got 'Lyon'",
        "output": [{"name": "get_weather", "arguments": {"city": "Lyon", "days": number % 7, "units": "metric"}}],
        "usage": {
            "prompt_tokens": sum(r["prompt_tokens"] for r in requests),
            "completion_tokens": 41 * len(requests),
            "requests": requests,
        },
        "from_store": False,
    }


def report(items: int) -> dict[str, object]:
    categories = {
        f"category_{i}": {"n": 100, "passed": 80, "accuracy": 0.8, "accuracy_ci95": [0.71, 0.87]} for i in range(40)
    }
    return {
        "schema": "pytest-toolcall/report/1",
        "run": {
            "model": "m",
            "selected": items,
            "selection": {"count": items, "digest": "0" * 64},
            "options": {"model": "m"},
            "aggregation": {},
        },
        "metrics": {"acebench/en": {"overall": 0.8, "categories": categories}},
        "samples": [sample(n) for n in range(items)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=9500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--package", help="a folder holding the pytest_toolcall to measure (default: this one)")
    args = parser.parse_args()
    if args.package:
        sys.path.insert(0, str(Path(args.package).resolve()))
    from pytest_toolcall.core.safety import reports

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.json"
        path.write_text(json.dumps(report(args.items), indent=2), encoding="utf-8")
        text = path.read_text(encoding="utf-8")
        reading, parsing = [], []
        for _ in range(args.repeat):
            started = time.process_time()
            reports.read_report(path)
            reading.append(time.process_time() - started)
            started = time.process_time()
            json.loads(text)
            parsing.append(time.process_time() - started)
        size = path.stat().st_size
    read, parse = statistics.median(reading), statistics.median(parsing)
    print(f"# {reports.__file__}")
    print(f"report: {args.items} samples, {size / 1e6:.1f} MB; median of {args.repeat} reads (CPU seconds)")
    print(f"read_report   {read:.3f} s")
    print(f"json.loads    {parse:.3f} s  (parsing alone, no hooks)")
    print(f"reader / json {read / parse:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
