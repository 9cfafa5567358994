"""How the τ²-bench fidelity data here was learned: run with the official tau2 1.0.1 (a2c0247) in
a virtualenv of its own (Python 3.12, ``pip install -e <tau2-bench checkout>``), never in the test
suite. ``TAU2_DATA_DIR`` points at a copy of tau2-bench's ``data/``.

    TAU2_DATA_DIR=... python learn_official.py OUT_DIR airline|retail|telecom

For every airline and retail task it builds trajectories of many kinds (the reference actions
executed by the official environment, and variants: wrong arguments, missing, repeated, reordered
writes, floats for integers, a hallucinated tool, nothing communicated, every termination reason),
writes them as official ``Results`` files and grades each simulation with the official
``evaluate_simulation`` (type ALL, ``strict_replay=False``, as ``tau2 evaluate-trajs``). The NL
judge is replaced by a stand-in (every assertion met unless the conversation holds ``JUDGE-FAIL``)
whose prompt is captured, so that the combination of every component is learned too. It also
records the official system prompts and pass^k of a two-trial file.

Telecom (the ``base`` tasks): each simulation starts from the task's initial state as the official
orchestrator sets it, the user's reference actions are tool calls of the user simulator on its
device, and the variants are those of ``telecom_kinds``. ``assemble:telecom`` writes its files;
they live in ``telecom/`` here (the expected verdicts gzipped), beside the runs of the official
loop (``learn_telecom_loop.py``) and the answers of the agent's tools (``learn_telecom_tools.py``).
"""

import copy
import gzip
import json
import sys
from pathlib import Path

import tau2.environment.db as db_module
import tau2.evaluator.evaluator_nl_assertions as nl_module
from tau2.agent.llm_agent import LLMAgent
from tau2.data_model.message import AssistantMessage, UserMessage
from tau2.data_model.simulation import AgentInfo, Info, Results, SimulationRun, UserInfo
from tau2.environment.environment import EnvironmentInfo
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.metrics.agent_metrics import compute_metrics
from tau2.registry import registry
from tau2.user.user_simulator import UserSimulator

OUT = Path(sys.argv[1])
# ``airline``, ``retail``, or ``<domain>-floats``: only the trajectories that send floats for integers.
DOMAIN, _, FLOATS = sys.argv[2].partition("-")
FLOATS_ONLY = FLOATS == "floats"
# An optional third argument ``K/N`` grades only tasks K, K+N, K+2N... (to run in parallel).
PART, _, PARTS = (sys.argv[3] if len(sys.argv) > 3 and "/" in sys.argv[3] else "0/1").partition("/")
NAME = sys.argv[2] + (f"-{PART}of{PARTS}" if PARTS != "1" else "")
CAPTURED = []


def fake_generate(model, messages, **kwargs):
    CAPTURED.append([{"role": m.role, "content": m.content} for m in messages])
    user_prompt = messages[-1].content
    met = "JUDGE-FAIL" not in user_prompt
    assertions = eval(user_prompt.rsplit("expectedOutcomes:", 1)[1].strip())  # our own prompt text
    results = [{"expectedOutcome": a, "reasoning": "stand-in", "metExpectation": met} for a in assertions]
    return AssistantMessage(role="assistant", content=json.dumps({"results": results}))


nl_module.generate = fake_generate

# Loading a database is the slow part: parse each file once (validation still builds fresh models).
_RAW = {}
_load_file = db_module.load_file


def cached_load(cls, path):
    if path not in _RAW:
        _RAW[path] = _load_file(path)
    return cls.model_validate(_RAW[path])


db_module.DB.load = classmethod(cached_load)


def convert_ints(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [convert_ints(v) for v in value]
    if isinstance(value, dict):
        return {k: convert_ints(v) for k, v in value.items()}
    return value


def has_int(value):
    return json.dumps(convert_ints(value)) != json.dumps(value)


def wrong(arguments):
    arguments = copy.deepcopy(arguments)
    for key, value in arguments.items():
        if isinstance(value, str):
            arguments[key] = value + "X"
            return arguments
        if isinstance(value, list) and value and isinstance(value[0], str):
            arguments[key] = [*value[:-1], value[-1] + "X"]
            return arguments
    for key, value in arguments.items():
        if isinstance(value, int) and not isinstance(value, bool):
            arguments[key] = value + 1
            return arguments
    return arguments


def trajectory(domain, actions, final_text, *, user_text="###STOP###", extra=(), task=None):
    env = registry.get_env_constructor(domain)()
    if task is not None and task.initial_state is not None:  # telecom: as the orchestrator starts
        env.set_state(
            initialization_data=task.initial_state.initialization_data,
            initialization_actions=task.initial_state.initialization_actions,
            message_history=[],
        )
    messages = [
        AssistantMessage(role="assistant", content="Hi! How can I help you today?"),
        UserMessage(role="user", content="I need help with my request."),
    ]
    counter = 0
    for action in [*extra, *actions]:
        counter += 1
        requestor = action.get("requestor") or "assistant"
        call = {
            "id": f"call_{counter}",
            "name": action["name"],
            "arguments": action["arguments"],
            "requestor": requestor,
        }
        # telecom's dual control: a user action is a tool call of the user simulator on its device
        message_type = UserMessage if requestor == "user" else AssistantMessage
        caller = message_type(role=requestor, content=None, tool_calls=[call])
        messages.append(caller)
        messages.append(env.get_response(caller.tool_calls[0]))
    messages.append(AssistantMessage(role="assistant", content=final_text))
    if user_text is not None:
        messages.append(UserMessage(role="user", content=user_text))
    for i, m in enumerate(messages):
        m.turn_idx = i
    return messages


def telecom_kinds(domain, task, index):
    """Telecom: the reference (agent and user actions), and the wrong ones a dual-control run makes:
    a user action missing, the agent's first action with a wrong argument, no user actions, no
    actions at all, a premature stop."""
    actions = [a.model_dump() for a in (task.evaluation_criteria.actions or [])]
    user = [i for i, a in enumerate(actions) if a["requestor"] == "user"]
    agent = [i for i, a in enumerate(actions) if a["requestor"] == "assistant"]
    said = "Your issue should be resolved now."

    def build(acts):
        return lambda: trajectory(domain, acts, said, task=task)

    yield "gold", build(actions), "user_stop"
    if user:
        yield "missing_user_action", build([a for i, a in enumerate(actions) if i != user[-1]]), "user_stop"
        yield "no_user_actions", build([a for a in actions if a["requestor"] != "user"]), "user_stop"
    if agent:
        wrong_first = [{**a, "arguments": wrong(a["arguments"])} if i == agent[0] else a for i, a in enumerate(actions)]
        yield "wrong_args", build(wrong_first), "user_stop"
        yield "missing_agent_action", build([a for i, a in enumerate(actions) if i != agent[0]]), "user_stop"
    yield "no_actions", build([]), "user_stop"
    stopped = said + " ###STOP###"
    yield "agent_stop", lambda: trajectory(domain, actions, stopped, user_text=None, task=task), "agent_stop"
    if index % 3 == 0:
        yield "max_steps", build(actions), "max_steps"
        yield "too_many_errors", build(actions), "too_many_errors"


def kinds(domain, task, index):
    """(kind, a function building the trajectory, termination reason): built only when wanted."""
    if domain == "telecom":
        yield from telecom_kinds(domain, task, index)
        return
    criteria = task.evaluation_criteria
    actions = [a.model_dump() for a in (criteria.actions or [])]
    tools = registry.get_env_constructor(domain)().tools
    writes = [a for a in actions if tools.has_tool(a["name"]) and tools.tool_mutates_state(a["name"])]
    said = " ".join(criteria.communicate_info or []) or "Your request is complete."
    if FLOATS_ONLY:
        if any(has_int(w["arguments"]) for w in writes):
            floats = [{**w, "arguments": convert_ints(w["arguments"])} for w in writes]
            yield "float_args", lambda: trajectory(domain, floats, said), "user_stop"
        return
    yield "gold", lambda: trajectory(domain, actions, said), "user_stop"
    yield "writes_only", lambda: trajectory(domain, writes, said), "user_stop"
    yield "no_actions", lambda: trajectory(domain, [], said), "user_stop"
    if criteria.communicate_info:
        yield "no_communicate", lambda: trajectory(domain, writes, "Done."), "user_stop"
        yield (
            "communicate_commas",
            lambda: trajectory(domain, writes, ", ".join(criteria.communicate_info).upper()),
            "user_stop",
        )
    if writes:
        first = {**writes[0], "arguments": wrong(writes[0]["arguments"])}
        yield "wrong_args", lambda: trajectory(domain, [first, *writes[1:]], said), "user_stop"
        yield "missing_write", lambda: trajectory(domain, writes[:-1], said), "user_stop"
        yield "repeated_write", lambda: trajectory(domain, [*writes, writes[0]], said), "user_stop"
        if any(has_int(w["arguments"]) for w in writes):
            floats = [{**w, "arguments": convert_ints(w["arguments"])} for w in writes]
            yield "float_args", lambda: trajectory(domain, floats, said), "user_stop"
    if len(writes) >= 2:
        yield "reordered", lambda: trajectory(domain, writes[::-1], said), "user_stop"
    hallucinated = {"name": "issue_full_refund_now", "arguments": {"order_id": "x"}}
    yield "hallucinated_tool", lambda: trajectory(domain, writes, said, extra=[hallucinated]), "user_stop"
    yield "transfer", lambda: trajectory(domain, writes, said, user_text="###TRANSFER###"), "user_stop"
    if criteria.nl_assertions:
        yield "judge_fail", lambda: trajectory(domain, writes, said + " JUDGE-FAIL"), "user_stop"
    if index % 5 == 0:
        yield "agent_stop", lambda: trajectory(domain, writes, said + " ###STOP###", user_text=None), "agent_stop"
        for reason in ("max_steps", "too_many_errors", "agent_error", "user_error", "timeout", "infrastructure_error"):
            yield reason, lambda: trajectory(domain, writes, said), reason


def info(domain, trials=1):
    env = registry.get_env_constructor(domain)()
    return Info(
        git_commit="a2c0247",
        num_trials=trials,
        max_steps=200,
        max_errors=10,
        user_info=UserInfo(implementation="user_simulator", llm="scripted"),
        agent_info=AgentInfo(implementation="llm_agent", llm="scripted"),
        environment_info=EnvironmentInfo(domain_name=domain, policy=env.policy),
    )


def main():
    """Simulations in phases (every task's reference first, then the variants), one JSON line per
    graded simulation, so that a run cut short still leaves what it graded; ``assemble`` turns the
    lines into results files."""
    OUT.mkdir(parents=True, exist_ok=True)
    domain = DOMAIN
    # telecom: the leaderboard's split (base); the others: every task
    tasks = registry.get_tasks_loader(domain)("base" if domain == "telecom" else None)
    env = registry.get_env_constructor(domain)()
    user_tools = env.get_user_tools() if domain == "telecom" else None
    prompts = {
        f"{domain}/agent": LLMAgent(tools=env.get_tools(), domain_policy=env.policy, llm="x").system_prompt,
        f"{domain}/user/{tasks[0].id}": UserSimulator(
            llm="x", instructions=str(tasks[0].user_scenario), tools=user_tools
        ).system_prompt,
    }
    if user_tools:
        prompts[f"{domain}/user_tools"] = [t.openai_schema for t in user_tools]
    (OUT / f"info_{domain}.json").write_text(info(domain).model_dump_json())
    lines = open(OUT / f"sims_{NAME}.jsonl", "a", encoding="utf-8")
    mine = [(index, task) for index, task in enumerate(tasks) if index % int(PARTS) == int(PART)]
    done = set()
    if (OUT / f"sims_{NAME}.jsonl").exists():  # a run resumed: what it graded stays
        done = {json.loads(line)["simulation"]["id"] for line in (OUT / f"sims_{NAME}.jsonl").open(encoding="utf-8")}
    phases = [("gold",), ("writes_only",), None] if domain != "telecom" else [("gold",), None]
    for phase in phases:
        for index, task in mine:
            for kind, build, reason in kinds(domain, task, index):
                if (phase is not None and kind not in phase) or (phase is None and kind in ("gold", "writes_only")):
                    continue
                if f"{domain}-{task.id}-{kind}" in done:
                    continue
                messages = build()
                sim = SimulationRun(
                    id=f"{domain}-{task.id}-{kind}",
                    task_id=task.id,
                    start_time="2026-01-01T00:00:00",
                    end_time="2026-01-01T00:00:01",
                    duration=1.0,
                    termination_reason=reason,
                    messages=messages,
                    trial=0,
                    seed=300,
                )
                CAPTURED.clear()
                reward = evaluate_simulation(
                    simulation=sim,
                    task=task,
                    evaluation_type=EvaluationType.ALL,
                    solo_mode=False,
                    domain=domain,
                    strict_replay=False,
                )
                expected = {
                    "domain": domain,
                    "task_id": task.id,
                    "kind": kind,
                    "reward": reward.reward,
                    "breakdown": {k.value: v for k, v in (reward.reward_breakdown or {}).items()},
                    "db_match": reward.db_check.db_match if reward.db_check else None,
                }
                if CAPTURED and "judge_prompt" not in prompts:
                    prompts["judge_prompt"] = {"simulation": sim.id, "messages": CAPTURED[0]}
                    (OUT / f"prompts_{NAME}.json").write_text(json.dumps(prompts, indent=1, sort_keys=True))
                row = {
                    "task": json.loads(task.model_dump_json()),
                    "simulation": json.loads(sim.model_dump_json()),
                    "expected": expected,
                }
                lines.write(json.dumps(row) + "\n")
                lines.flush()
    (OUT / f"prompts_{NAME}.json").write_text(json.dumps(prompts, indent=1, sort_keys=True))


def assemble(folder, domain, out):
    """The lines of a domain as one official results file (``Results`` validates it), the expected
    verdicts beside it, and the official pass^k of a two-trial file over the tasks that have both
    the reference's writes and the variant missing its last write (telecom: the reference and the
    variant missing its last user action)."""
    rows = [
        json.loads(line)
        for path in sorted(folder.glob(f"sims_{domain}*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    tasks = {row["task"]["id"]: row["task"] for row in rows}
    info_data = json.loads((folder / f"info_{domain}.json").read_text())
    data = {"info": info_data, "tasks": list(tasks.values()), "simulations": [row["simulation"] for row in rows]}
    results = Results.model_validate(data)
    with gzip.open(out / f"results_{domain}.json.gz", "wt", encoding="utf-8") as fh:
        fh.write(results.model_dump_json())
    expected = {row["simulation"]["id"]: row["expected"] for row in rows}
    by_id = {s.id: s for s in results.simulations}
    passing, failing = ("gold", "missing_user_action") if domain == "telecom" else ("writes_only", "missing_write")
    both = [t for t in tasks if f"{domain}-{t}-{passing}" in by_id and f"{domain}-{t}-{failing}" in by_id]
    two = [by_id[f"{domain}-{t}-{passing}"].model_copy(update={"trial": 0}) for t in both]
    two += [
        by_id[f"{domain}-{t}-{failing}"].model_copy(update={"trial": 1, "id": f"{domain}-{t}-{failing}-t1"})
        for t in both
    ]
    task_models = {t.id: t for t in results.tasks}
    for s in two:
        s.reward_info = evaluate_simulation(
            simulation=s,
            task=task_models[s.task_id],
            evaluation_type=EvaluationType.ALL,
            solo_mode=False,
            domain=domain,
            strict_replay=False,
        )
    metrics = compute_metrics(Results(info=info(domain, 2), tasks=results.tasks, simulations=two))
    expected[f"{domain}/pass_hat_k"] = {
        "avg_reward": metrics.avg_reward,
        "pass_hat_ks": metrics.pass_hat_ks,
        "simulations": [s.id for s in two],
    }
    (out / f"expected_{domain}.json").write_text(json.dumps(expected, indent=0, sort_keys=True))


if __name__ == "__main__":
    if sys.argv[2].startswith("assemble:"):  # learn_official.py FOLDER assemble:<domain> OUT
        assemble(OUT, sys.argv[2].split(":", 1)[1], Path(sys.argv[3]))
    else:
        main()
