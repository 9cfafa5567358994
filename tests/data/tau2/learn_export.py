"""How ``export/accepted.json`` and ``export/accepted-banking.json`` were learned: what the official
tau2 1.0.1 (a2c0247) leaderboard tools say of the submission folder ``pytest-toolcall export
--format tau2`` wrote from ``export/report.json.gz`` (a live run of the plugin through the local
chat server, airline and telecom whole, 4 trials, the user simulator stopping at once: 92 of 656
simulations pass) and from ``export/report-banking.json.gz`` (banking_knowledge whole, ``bm25``, 4
trials, the oracle agent: 192 of 388 pass); ``make_export_report.py``. Run outside
the test suite, with the official code installed (see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_export.py SUBMISSION_FOLDER OUT_JSON

It runs the checks of ``tau2 submit validate`` one by one (the submission loads, the trajectory set
is consistent, each results file passes format, tasks and trial-count verification, the metrics of
``submission.json`` equal the ones the official ``compute_metrics`` makes of the trajectories, the
model and user simulator match), grades every simulation again with the official
``evaluate_simulation`` (replaying it strictly: every tool answer must be the official
environment's; banking_knowledge's with the results' retrieval configuration and the task's
read-log allowlist, as the official runner grades its runs: ``tau2 evaluate-trajs`` would build
the default, embeddings-based, configuration) to compare its reward with the exported one,
and records each file's sha256, so that a test can tell the exporter still writes what was accepted.
"""

import hashlib
import json
import sys
from pathlib import Path

import tau2.environment.db as db_module
import tau2.evaluator.evaluator_nl_assertions as nl_module
from tau2.data_model.message import AssistantMessage
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.runner.build import _derive_read_log_allowlist
from tau2.scripts.leaderboard.prepare_submission import (
    check_and_load_submission_data,
    get_metrics,
    validate_submission_traj_set,
)
from tau2.scripts.leaderboard.verify_trajectories_public import check_format, check_num_trials, check_tasks

# Loading a database is the slow part: parse each file once (validation still builds fresh models).
_RAW = {}
_load_file = db_module.load_file


def cached_load(cls, path):
    if path not in _RAW:
        _RAW[path] = _load_file(path)
    return cls.model_validate(_RAW[path])


db_module.DB.load = classmethod(cached_load)


def stand_in_judge(model, messages, **kwargs):
    """The judge stand-in of ``learn_official.py`` (every assertion met): banking_knowledge's
    task_102 has NL assertions, and no judge ran (its exported rewards are 0 by its database)."""
    assertions = json.loads(messages[-1].content.rsplit("expectedOutcomes:", 1)[1].strip().replace("'", '"'))
    results = [{"expectedOutcome": a, "reasoning": "stand-in", "metExpectation": True} for a in assertions]
    return AssistantMessage(role="assistant", content=json.dumps({"results": results}))


nl_module.generate = stand_in_judge

folder, out = Path(sys.argv[1]), Path(sys.argv[2])
ok, error, data = check_and_load_submission_data(str(folder))
assert ok, error
checks = {"submission_loads": ok}
checks["trajectory_set"], set_error = validate_submission_traj_set(data.results)
per_file = {}
for path in data.trajectory_files:
    results, format_ok, format_error = check_format(path)
    tasks_ok, tasks_error = check_tasks(results)
    trials_ok, trials_error = check_num_trials(results)
    per_file[Path(path).name] = {
        "format": [format_ok, format_error],
        "tasks": [tasks_ok, tasks_error],
        "trials": [trials_ok, trials_error],
    }
_, computed, model, user = get_metrics(data.results)
submission = data.submission
metrics = {}
FIELDS = ("pass_1", "pass_2", "pass_3", "pass_4", "cost")
for domain, official in computed.items():
    ours = submission.results.get_domain_results(domain)
    metrics[domain] = {
        "official": official.model_dump(),
        "equal": all(
            getattr(ours, f) == getattr(official, f) for f in ("pass_1", "pass_2", "pass_3", "pass_4", "cost")
        ),
    }
checks["model_matches"] = submission.model_name == model
checks["user_simulator_matches"] = submission.methodology.user_simulator == user
rewards = {"equal": 0, "different": []}
for results in data.results:
    tasks = {task.id: task for task in results.tasks}
    domain = results.info.environment_info.domain_name
    for sim in results.simulations:
        env_kwargs = None
        if domain == "banking_knowledge":  # as the official runner grades its runs
            allowlist = _derive_read_log_allowlist(tasks[sim.task_id])
            env_kwargs = {"retrieval_variant": results.info.retrieval_config, "read_log_allowlist": allowlist}
        info = evaluate_simulation(
            simulation=sim,
            task=tasks[sim.task_id],
            evaluation_type=EvaluationType.ALL,
            solo_mode=False,
            domain=domain,
            env_kwargs=env_kwargs,
        )
        if info.reward == sim.reward_info.reward:
            rewards["equal"] += 1
        else:
            rewards["different"].append([sim.id, sim.reward_info.reward, info.reward])
files = {
    str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
    for path in sorted(folder.rglob("*.json"))
}
out.write_text(
    json.dumps(
        {"checks": checks, "files": per_file, "metrics": metrics, "rewards": rewards, "sha256": files},
        indent=1,
        sort_keys=True,
    )
    + "\n"
)
print(json.dumps(checks), rewards["equal"], len(rewards["different"]))
