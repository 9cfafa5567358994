"""The verdicts learned from the official tau2 1.0.1 (``tests/data/tau2/learn_official.py``): results
files of scripted simulations and, per simulation, the official reward, breakdown and DB match."""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_toolcall.benchmarks.tau2.judge import judge_messages

DATA = Path(__file__).parents[1] / "data" / "tau2"
#: The official judge was replaced by a stand-in while learning: every assertion is met unless
#: the conversation holds this marker. The same stand-in grades here, through our judge prompt.
FAIL_MARK = "JUDGE-FAIL"


def results_files() -> list[Path]:
    """Airline and retail here, telecom's (dual control) in ``telecom/``, the runs of the official
    loop on airline and retail (``learn_loop.py``) in ``loop/``."""
    return [p for folder in ("", "telecom/", "loop/") for p in sorted(DATA.glob(f"{folder}results_*.json.gz"))]


def expected_files() -> list[Path]:
    gzipped = sorted(DATA.glob("telecom/expected_*.json.gz")) + sorted(DATA.glob("loop/expected_*.json.gz"))
    return sorted(DATA.glob("expected_*.json")) + gzipped


def read_json(path: Path) -> Any:
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)


def domain_files(domain: str) -> list[Path]:
    """The learned files of a domain's tasks (in parts, learned side by side), floats apart."""
    return [p for p in results_files() if p.name.startswith(f"results_{domain}") and "floats" not in p.name]


def unpack(path: Path, folder: Path) -> Path:
    out = folder / path.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(path.read_bytes()))
    return out


@functools.cache
def expected() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in expected_files():
        merged.update(read_json(path))
    return merged


@functools.cache
def official_prompts() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path in sorted(DATA.glob("prompts_*.json")) + sorted(DATA.glob("telecom/prompts_*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def stand_in_judge(messages: Sequence[dict[str, Any]], assertions: list[str]) -> list[tuple[str, bool, str]]:
    met = FAIL_MARK not in judge_messages(messages, assertions)[1]["content"]
    return [(assertion, met, "stand-in") for assertion in assertions]


class Replies:
    """One side's replies of an official simulation, in order; records what it was offered."""

    def __init__(self, messages: list[dict[str, Any]], role: str) -> None:
        self.replies = [m for m in messages[1:] if m["role"] == role]
        self.tools: list[Any] = []

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> tuple[str | None, list[dict[str, Any]]]:
        self.tools.append(tools)
        reply = self.replies.pop(0)
        calls = [{"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in reply.get("tool_calls") or []]
        return reply.get("content"), calls


def shape(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out = []
    for m in messages:
        calls = tuple(
            (c["id"], c["name"], json.dumps(c["arguments"]), c["requestor"]) for c in m.get("tool_calls") or ()
        )
        out.append((m["role"], m.get("content"), tuple(calls), m.get("requestor"), m.get("error")))
    return out
