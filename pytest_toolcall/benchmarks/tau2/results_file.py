"""τ²-bench results files (what ``tau2 run`` writes, a ``Results`` JSON): their simulations, to be
graded again as ``tau2 evaluate-trajs`` does (against the task definitions embedded in the file)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.api import DataError, door
from pytest_toolcall.api.files import read_regular_file
from pytest_toolcall.api.text import name as shown_name
from pytest_toolcall.benchmarks.tau2.environment import ALL_DOMAINS
from pytest_toolcall.benchmarks.tau2.evaluation import TERMINATION_REASONS
from pytest_toolcall.benchmarks.tau2.knowledge import DOMAIN as KNOWLEDGE_DOMAIN
from pytest_toolcall.benchmarks.tau2.knowledge import REFUSED, RETRIEVAL

#: The largest results file read (bytes): a run of every task with many trials is a few hundred MB.
MAX_RESULTS_BYTES = 2**30


@dataclass(frozen=True)
class SavedSimulation:
    file: str
    domain: str
    task: dict[str, Any]
    simulation_id: str
    trial: int
    termination_reason: str
    messages: list[dict[str, Any]]
    #: banking_knowledge's retrieval configuration, as the file's ``info.retrieval_config`` says.
    retrieval: str | None = None


def load_results(path: Path) -> list[SavedSimulation]:
    """Every simulation of a results file, with its task; a file that is not one is a ``DataError``
    naming it (and the simulation at fault)."""
    try:  # through the door: a regular file of a sane size, nested at most MAX_DEPTH deep
        data = door.loads(read_regular_file(path, MAX_RESULTS_BYTES, "results file"), str(path))
    except OSError as exc:
        raise DataError(f"{path}: not a readable τ²-bench results JSON file ({exc.strerror or exc})") from None
    except door.Refused as exc:
        raise DataError(f"not a readable τ²-bench results JSON file: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        raise DataError(f"{path}: not a τ²-bench results file (no 'simulations' list)")
    try:
        domain = data["info"]["environment_info"]["domain_name"]
    except (KeyError, TypeError):
        raise DataError(f"{path}: no info.environment_info.domain_name") from None
    if domain not in ALL_DOMAINS:
        raise DataError(f"{path}: domain {domain!r} is not one of {', '.join(ALL_DOMAINS)}")
    retrieval = _retrieval(path, data["info"]) if domain == KNOWLEDGE_DOMAIN else None
    tasks = {str(task.get("id")): task for task in data.get("tasks") or [] if isinstance(task, dict)}
    for task in tasks.values():
        problem = _functions_problem(task)
        if problem:
            raise DataError(f"{path}: task {shown_name(str(task.get('id')))}: {problem}")
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
        if not isinstance(sim.get("trial") or 0, int):
            raise DataError(f"{where} ({sim.get('id')}): 'trial' is not an integer")
        messages = sim.get("messages") or []
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise DataError(f"{where} ({sim.get('id')}): 'messages' is not a list of objects")
        found.append(
            SavedSimulation(
                file=str(path),
                domain=str(domain),
                task=tasks[task_id],
                simulation_id=str(sim.get("id")),
                trial=sim.get("trial") or 0,
                termination_reason=str(reason),
                messages=messages,
                retrieval=retrieval,
            )
        )
    return found


def _retrieval(path: Path, info: dict[str, Any]) -> str | None:
    """The retrieval configuration a banking_knowledge results file was run with (the grade does not
    depend on it, its score is comparable only within it): one of tau2 1.0.1's, or none stated."""
    value = info.get("retrieval_config")
    if value is None:
        return None
    if not isinstance(value, str) or value not in (*RETRIEVAL, *REFUSED):
        shown = shown_name(value) if isinstance(value, str) else type(value).__name__
        raise DataError(f"{path}: info.retrieval_config {shown} is not a retrieval configuration of tau2 1.0.1")
    return value


def _functions_problem(task: dict[str, Any]) -> str:
    """What is wrong with the environment functions a task names ("" when nothing): a function is a
    public name of the tools (``set_data_usage``), never an attribute such as ``__init__`` or
    ``__class__``, which is refused as a name not among the tools is."""
    state = task.get("initial_state") if isinstance(task.get("initial_state"), dict) else {}
    criteria = task.get("evaluation_criteria") if isinstance(task.get("evaluation_criteria"), dict) else {}
    for where, functions in (
        ("initial_state.initialization_actions", (state or {}).get("initialization_actions")),
        ("evaluation_criteria.env_assertions", (criteria or {}).get("env_assertions")),
    ):
        for number, function in enumerate(functions or []):
            name = function.get("func_name") if isinstance(function, dict) else None
            if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
                return f"{where}[{number}]: unknown function {shown_name(ascii(name))}: not among the tools"
    return ""
