"""Test helper: replay lines of `data/verdicts/bfcl_multi_turn_*.jsonl` through our implementation.

Each line holds a call sequence (`model_turns[turn][step]`), the result texts the OFFICIAL checker
got for every model step it executed (`model_results[turn][step]`; texts longer than 160
characters as a truncated sha256), for ground-truth lines also the ground truth's results per turn
(`truth_results`), and the official verdict. The official code was run under Python 3.11 and
3.12 (3.13 gives the 3.12 results); `python_3_12` holds the results that differ. The official
checker executes, per turn, the model's steps and then the ground-truth calls, and stops after the
first failing turn; we replay the same order on our executors and run our checker. Differences
come back as text (none when we agree).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends import SharedWorld
from pytest_toolcall.benchmarks.bfcl.data import DATA_DIR
from pytest_toolcall.benchmarks.bfcl.multi_turn_check import check_multi_turn
from pytest_toolcall.benchmarks.bfcl.multi_turn_execute import MultiTurnExecutor

REPO = Path(__file__).resolve().parents[2]
VERDICTS = REPO / "data" / "verdicts"
# The pinned BFCL data shipped in the package.
BFCL_DATA = DATA_DIR
CATEGORIES = ("base", "long_context", "miss_func", "miss_param")
# The model name the official checker was given when the verdicts were produced.
MODEL_NAME = "model"


# Two official messages print a Python set, whose order depends on the process's string-hash seed
# (PYTHONHASHSEED); both the verdict files and this replay compare them with their items sorted.
_SET_MESSAGES = [
    (re.compile(r"Must be one of \{([^{}]*)\}"), "Must be one of {{{}}}"),
    (re.compile(r"Invalid fields for update: ([^\"']*)"), "Invalid fields for update: {}"),
]


def canonical(text: str) -> str:
    for pattern, template in _SET_MESSAGES:

        def sort_items(match: re.Match[str], form: str = template) -> str:
            return form.format(", ".join(sorted(match.group(1).split(", "))))

        text = pattern.sub(sort_items, text)
    return text


def compact(text: str) -> str:
    """Result texts as stored in the verdict files: canonical, long ones as a truncated sha256."""
    text = canonical(text)
    return text if len(text) <= 160 else "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def verdict_lines(category: str) -> list[dict[str, Any]]:
    path = VERDICTS / f"bfcl_multi_turn_{category}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def entries(category: str) -> dict[str, dict[str, Any]]:
    path = BFCL_DATA / f"BFCL_v4_multi_turn_{category}.json"
    return {entry["id"]: entry for entry in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


@cache
def ground_truths(category: str) -> dict[str, list[list[str]]]:
    path = BFCL_DATA / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json"
    return {item["id"]: item["ground_truth"] for item in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def replay_problems(line: dict[str, Any], category: str) -> list[str]:
    """What our implementation does differently from the official one on this line."""
    entry = entries(category)[line["id"]]
    problems = []
    world = SharedWorld()
    sides = {
        "model": MultiTurnExecutor(
            entry["id"], entry["initial_config"], entry["involved_classes"], model_name=MODEL_NAME, world=world
        ),
        "ground_truth": MultiTurnExecutor(
            entry["id"], entry["initial_config"], entry["involved_classes"],
            model_name=f"{MODEL_NAME}_ground_truth", world=world,
        ),
    }  # fmt: skip
    truth = ground_truths(category)[line["id"]]
    # Python 3.12 changed float `sum` (compensated summation); lines whose official results differ
    # under 3.12 and later (the same in 3.13) carry those results as well.
    if sys.version_info >= (3, 12) and "python_3_12" in line:
        line = {**line, **line["python_3_12"]}
    for turn, step_results in enumerate(line["model_results"]):
        for step, (calls, expected) in enumerate(zip(line["model_turns"][turn], step_results, strict=True)):
            ours = [compact(text) for text in sides["model"].execute(calls)]
            problems += _differences(f"turn {turn} step {step}", calls, ours, expected)
        ours = [compact(text) for text in sides["ground_truth"].execute(truth[turn])]
        if "truth_results" in line:
            problems += _differences(f"turn {turn} ground truth", truth[turn], ours, line["truth_results"][turn])
    verdict = check_multi_turn(line["model_turns"], truth, entry, model_name=MODEL_NAME)
    expected = line["verdict"]
    mine = {"valid": verdict["valid"]}
    if not verdict["valid"]:
        mine["error_type"] = verdict["error_type"]
        mine["error_message"] = verdict["error_message"]
        if verdict["error_type"] == "multi_turn:instance_state_mismatch":
            mine["differing_attributes"] = sorted(verdict["details"]["differences"])
        if verdict["error_type"] == "multi_turn:execution_response_mismatch":
            mine["missing_items"] = [compact(item) for item in verdict["details"]["missing_items"]]
    if mine != expected:
        problems.append(f"verdict: ours {mine} != official {expected}")
    return problems


def _differences(where: str, calls: list[str], ours: list[str], theirs: list[str]) -> list[str]:
    if len(ours) != len(theirs):
        return [f"{where}: {len(ours)} results != official {len(theirs)}"]
    return [
        f"{where} {call!r}: ours {mine!r} != official {official!r}"
        for call, mine, official in zip(calls, ours, theirs, strict=True)
        if mine != official
    ]
