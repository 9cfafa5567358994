"""τ²-bench results files (what ``tau2 run`` writes, a ``Results`` JSON): their simulations, to be
graded again as ``tau2 evaluate-trajs`` does (against the task definitions embedded in the file)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.api import DataError
from pytest_toolcall.benchmarks.tau2.environment import DOMAINS
from pytest_toolcall.benchmarks.tau2.evaluation import TERMINATION_REASONS


@dataclass(frozen=True)
class SavedSimulation:
    file: str
    domain: str
    task: dict[str, Any]
    simulation_id: str
    trial: int
    termination_reason: str
    messages: list[dict[str, Any]]


def load_results(path: Path) -> list[SavedSimulation]:
    """Every simulation of a results file, with its task; a file that is not one is a ``DataError``
    naming it (and the simulation at fault)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: not a readable τ²-bench results JSON file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        raise DataError(f"{path}: not a τ²-bench results file (no 'simulations' list)")
    try:
        domain = data["info"]["environment_info"]["domain_name"]
    except (KeyError, TypeError):
        raise DataError(f"{path}: no info.environment_info.domain_name") from None
    if domain not in DOMAINS:
        raise DataError(f"{path}: domain {domain!r} is not one of {', '.join(DOMAINS)}")
    tasks = {str(task.get("id")): task for task in data.get("tasks") or [] if isinstance(task, dict)}
    found = []
    for index, sim in enumerate(data["simulations"]):
        where = f"{path}: simulation {index}"
        if not isinstance(sim, dict):
            raise DataError(f"{where} is not an object")
        task_id = str(sim.get("task_id"))
        if task_id not in tasks:
            raise DataError(f"{where} ({sim.get('id')}): task {task_id!r} is not among the file's tasks")
        reason = sim.get("termination_reason")
        if reason not in TERMINATION_REASONS:
            raise DataError(f"{where} ({sim.get('id')}): unknown termination_reason {reason!r}")
        messages = sim.get("messages") or []
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise DataError(f"{where} ({sim.get('id')}): 'messages' is not a list of objects")
        found.append(
            SavedSimulation(
                file=str(path),
                domain=str(domain),
                task=tasks[task_id],
                simulation_id=str(sim.get("id")),
                trial=int(sim.get("trial") or 0),
                termination_reason=str(reason),
                messages=messages,
            )
        )
    return found
