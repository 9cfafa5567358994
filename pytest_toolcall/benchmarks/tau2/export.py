"""τ²-bench runs in the official formats: the results file ``tau2 run`` writes (one per domain: the
run's info, the tasks, every simulation with its trajectory and reward) and the leaderboard's
``submission.json`` (tau2's ``docs/leaderboard-submission.md``: pass^1…pass^4 per domain as
percentages, the user simulator, the version), laid out as ``tau2 submit prepare`` lays them out,
so that ``tau2 submit validate`` and ``tau2 submit verify-trajs`` read them.

``submission_files`` is a pure function of a run's JSON report; the hook functions below write its
result (``pytest-toolcall export --format tau2 REPORT -o FOLDER``). The leaderboard's own fields
that no run knows (the model's organization, the submitter, contact) are left empty to fill in.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: tau2-bench's version and commit this port grades as.
VERSION, COMMIT = "1.0.1", "a2c0247"
#: The official run's settings the loop reproduces (``tau2 run`` defaults).
MAX_STEPS, MAX_ERRORS, RUN_SEED = 200, 10, 300
SAMPLING = {"temperature": 0.0}
FORMATS = {
    "tau2": "the official tau2-bench submission folder: submission.json and trajectories/ "
    "(one results file of tau2 run per domain)",
}


def pytest_toolcall_export_formats() -> dict[str, str]:
    return dict(FORMATS)


def pytest_toolcall_export(format: str, document: dict[str, Any], path: Path) -> list[Path] | None:
    if format not in FORMATS:
        return None
    return write_files(submission_files(document), Path(path))


def write_files(files: Mapping[str, Any], folder: Path) -> list[Path]:
    written = []
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(content, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
    return written


def submission_files(document: Mapping[str, Any]) -> dict[str, Any]:
    """``{relative path: JSON document}``: ``submission.json`` and ``trajectories/<file>.json``, one
    results file per domain of the run. Raises ``ValueError`` (one line) when the report cannot
    make them: no τ² samples, a reward not measured, a sample without its trajectory."""
    run = document.get("run") or {}
    options = run.get("options") or {}
    datasets = (run.get("datasets") or {}).get("tau2") or {}
    samples = [s for s in document.get("samples") or [] if s.get("benchmark") == "tau2"]
    if not samples:
        raise ValueError("the report has no τ²-bench samples to export")
    model = str(run.get("model") or "")
    user = options.get("user-model")
    judge = options.get("judge-model")
    started = str(run.get("started_at") or "")
    by_domain: dict[str, list[dict[str, Any]]] = {}
    for sample in samples:
        by_domain.setdefault(str(sample.get("domain")), []).append(sample)
    # banking_knowledge's configuration as its samples record it (a re-graded file's own), else the run's
    stated = sorted({str(s["retrieval"]) for s in by_domain.get("banking_knowledge", []) if s.get("retrieval")})
    if len(stated) > 1:
        raise ValueError(f"banking_knowledge samples of several retrieval configurations ({', '.join(stated)})")
    retrieval = stated[0] if stated else datasets.get("retrieval")
    files: dict[str, Any] = {}
    results: dict[str, Any] = {}
    trajectory_files: dict[str, str] = {}
    trials = 0
    for domain, rows in by_domain.items():
        document_ = results_file(domain, rows, model, user, started, retrieval)
        trials = max(trials, document_["info"]["num_trials"])
        name = _file_name(model, domain, retrieval if domain == "banking_knowledge" else None, user, trials)
        files[f"trajectories/{name}"] = document_
        trajectory_files[domain] = name
        results[domain] = domain_results(document_)
        if domain == "banking_knowledge":
            results[domain]["retrieval_config"] = retrieval
    files["submission.json"] = {
        "model_name": model,
        "model_organization": "",
        "submitting_organization": "",
        "submission_date": started[:10],
        "submission_type": "standard",
        "modality": "text",
        "contact_info": {},
        "results": results,
        "trajectories_available": False,
        "trajectory_files": trajectory_files,
        "methodology": {
            "evaluation_date": started[:10],
            "tau2_bench_version": VERSION,
            "user_simulator": user,
            "notes": _notes(run, judge, retrieval, trials, by_domain),
            "verification": {"modified_prompts": False, "omitted_questions": _omitted(run, by_domain)},
        },
    }
    return files


def results_file(
    domain: str,
    samples: list[dict[str, Any]],
    model: str,
    user: str | None,
    started: str,
    retrieval: str | None,
) -> dict[str, Any]:
    """The results file ``tau2 run`` writes for a domain: info, tasks, simulations."""
    from pytest_toolcall.benchmarks.tau2.benchmark import task_by_id
    from pytest_toolcall.benchmarks.tau2.loop import trial_seed

    simulations = []
    counts: dict[str, int] = {}
    for sample in sorted(samples, key=lambda s: (int(s.get("trial") or 0), str(s.get("task_id")))):
        task_id = str(sample.get("task_id"))
        trial = int(sample.get("trial") or 0)
        counts[task_id] = counts.get(task_id, 0) + 1
        simulations.append(_simulation(domain, sample, task_id, trial, trial_seed(trial), started))
    tasks = [task_by_id(domain, task_id) for task_id in sorted(counts, key=_task_order)]
    info: dict[str, Any] = {
        "git_commit": COMMIT,
        "num_trials": max(counts.values()),
        "max_steps": MAX_STEPS,
        "max_errors": MAX_ERRORS,
        "user_info": {"implementation": "user_simulator", "llm": user, "llm_args": dict(SAMPLING)},
        "agent_info": {"implementation": "llm_agent", "llm": model, "llm_args": dict(SAMPLING)},
        "environment_info": {"domain_name": domain, "policy": _policy(domain, retrieval), "tool_defs": None},
        "seed": RUN_SEED,
    }
    if retrieval is not None and domain == "banking_knowledge":
        info["retrieval_config"] = retrieval
    return {"timestamp": started, "info": info, "tasks": tasks, "simulations": simulations}


def _policy(domain: str, retrieval: str | None) -> str:
    """The policy the official results file records: banking_knowledge's is that of the run's
    retrieval configuration (officially its policy override, written without a task)."""
    if domain == "banking_knowledge":
        from pytest_toolcall.benchmarks.tau2 import knowledge

        retrieval = retrieval or knowledge.DEFAULT_RETRIEVAL
        if retrieval not in knowledge.RETRIEVAL:
            raise ValueError(f"banking_knowledge ran with retrieval {retrieval}, whose policy is not shipped here")
        return knowledge.policy(retrieval)
    from pytest_toolcall.benchmarks.tau2.environment import policy

    return policy(domain)


def _simulation(
    domain: str, sample: dict[str, Any], task_id: str, trial: int, seed: int, started: str
) -> dict[str, Any]:
    where = f"{sample.get('nodeid') or domain + '/' + task_id}"
    reward = sample.get("reward")
    failed_requests = sample.get("outcome") == "error"
    if reward is None and not failed_requests:
        raise ValueError(
            f"{where}: its reward was not measured ({sample.get('not_measured') or 'no reward'}): "
            "the official results file needs every reward (grade NL assertions with --toolcall-judge-model)"
        )
    messages = sample.get("messages")
    if messages is None and not failed_requests:
        raise ValueError(f"{where}: the report holds no trajectory for it (made by an older pytest-toolcall)")
    simulation: dict[str, Any] = {
        "id": str(sample.get("simulation_id") or f"{domain}-{task_id}-{trial}"),
        "task_id": task_id,
        "timestamp": started,
        "start_time": started,
        "end_time": started,
        "duration": float(sample.get("latency_s") or 0.0),
        "termination_reason": "infrastructure_error" if failed_requests else sample.get("termination_reason"),
        "reward_info": None,
        "messages": messages or [],
        "trial": trial,
        "seed": seed,
        "mode": "half_duplex",
    }
    if reward is not None and not failed_requests:
        basis = dict(sample.get("reward_breakdown") or {})
        # A component not measured (NL assertions without a judge, when another one already made
        # the reward 0) is left out of the breakdown: the official file has a number or nothing.
        breakdown = {name: value for name, value in basis.items() if value is not None}
        simulation["reward_info"] = {
            "reward": float(reward),
            "reward_basis": list(basis),
            "reward_breakdown": breakdown,
        }
    return simulation


def domain_results(results: dict[str, Any]) -> dict[str, Any]:
    """pass^1…pass^4 of a results file as the official ``compute_metrics`` (infrastructure errors
    left out; k up to the fewest trials of a task), as percentages, as ``tau2 submit prepare``."""
    outcomes: dict[str, list[bool]] = {}
    for sim in results["simulations"]:
        if sim["termination_reason"] == "infrastructure_error":
            continue
        reward = sim["reward_info"]["reward"]
        outcomes.setdefault(sim["task_id"], []).append(1 - 1e-6 <= reward <= 1 + 1e-6)
    row: dict[str, Any] = {}
    most = min((len(v) for v in outcomes.values()), default=0)
    most = min(most, results["info"]["num_trials"])
    for k in range(1, 5):
        if k > most or not outcomes:
            row[f"pass_{k}"] = None
            continue
        per_task = [math.comb(sum(v), k) / math.comb(len(v), k) for v in outcomes.values()]
        row[f"pass_{k}"] = sum(per_task) / len(per_task) * 100
    row["cost"] = None
    return row


def _notes(
    run: Mapping[str, Any],
    judge: str | None,
    retrieval: str | None,
    trials: int,
    by_domain: Mapping[str, list[dict[str, Any]]],
) -> str:
    parts = [
        f"Run with pytest-toolcall {run.get('plugin_version') or ''} as tau2-bench {VERSION} ({COMMIT}): "
        "the official loop, prompts, tools and evaluator",
        f"{trials} trial(s) per task, seed {RUN_SEED}",
        "reward basis: each task's own (tau2 1.0.1 task data)",
        f"NL assertions judged by {judge}" if judge else "NL assertions: no judge model",
    ]
    if retrieval is not None and "banking_knowledge" in by_domain:
        parts.append(f"banking_knowledge retrieval config: {retrieval}")
    return "; ".join(parts) + "."


def _omitted(run: Mapping[str, Any], by_domain: Mapping[str, list[dict[str, Any]]]) -> bool:
    """Whether a domain ran only in part (a limit, a deselection, another split)."""
    sizes = (((run.get("aggregation") or {}).get("tau2") or {}).get("sizes") or {}).get("tau2") or {}
    split = ((run.get("datasets") or {}).get("tau2") or {}).get("split")
    tasks = {domain: {s.get("task_id") for s in rows} for domain, rows in by_domain.items()}
    return split != "leaderboard" or any(len(tasks[d]) != sizes.get(d) for d in tasks)


def _file_name(model: str, domain: str, retrieval: str | None, user: str | None, trials: int) -> str:
    config = retrieval or "default"
    return f"{_clean(model)}_{domain}_{config}_{_clean(user or 'none')}_{trials}trials.json"


def _clean(name: str) -> str:
    last = [part for part in name.split("/") if part][-1] if name.strip("/") else "model"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", last)


def _task_order(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (1 << 30, task_id)
