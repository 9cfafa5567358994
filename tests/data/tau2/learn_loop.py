"""How ``loop/results_loop-<domain>.json.gz`` and their verdicts were learned: the official loop
itself (tau2 1.0.1 ``Orchestrator``, a2c0247) with the official ``LLMAgent`` and ``UserSimulator``
whose model is a script, on a sample of airline and retail tasks, then the official
``evaluate_simulation`` (type ALL, as ``tau2 run`` grades) of each run, the NL judge replaced by the
stand-in of ``learn_official.py``. Run outside the test suite, with the official code installed
(see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_loop.py OUT_DIR airline|retail

The user opens with ``simulation <id>``, the agent plays its script (one tool call a message, then
a text saying the task's ``communicate_info``), the user stops with ``###STOP###``. Kinds: the
reference actions; the first with a wrong argument; a hallucinated tool before the reference; the
first action's first argument of the wrong type; a transfer to a human after the first action (the
user answers ``###TRANSFER###``); the user stopping after the first action; the reference cut by
``max_steps`` (4). The simulations are written as an official results file, the verdicts beside it.
"""

import copy
import gzip
import json
import sys
from pathlib import Path

import tau2.agent.llm_agent as agent_module
import tau2.environment.db as db_module
import tau2.evaluator.evaluator_nl_assertions as nl_module
import tau2.user.user_simulator as user_module
from tau2.agent.llm_agent import LLMAgent
from tau2.data_model.message import AssistantMessage, ToolCall
from tau2.data_model.simulation import AgentInfo, Info, Results, UserInfo
from tau2.environment.environment import EnvironmentInfo
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.orchestrator.orchestrator import Orchestrator
from tau2.registry import registry
from tau2.user.user_simulator import UserSimulator

SCRIPTS = {}
MAX_STEPS, SHORT_STEPS, MAX_ERRORS = 200, 4, 10


def fake_generate(model, messages, tools=None, **kwargs):
    reply = SCRIPTS[model].pop(0)
    calls = [
        ToolCall(id=f"{model}_{len(SCRIPTS[model])}_{i}", name=c["name"], arguments=c["arguments"])
        for i, c in enumerate(reply.get("tool_calls") or [])
    ]
    return AssistantMessage(role="assistant", content=reply.get("content"), tool_calls=calls or None)


def fake_judge(model, messages, **kwargs):
    """The stand-in of ``learn_official.py``: every assertion met unless ``JUDGE-FAIL`` is said."""
    user_prompt = messages[-1].content
    met = "JUDGE-FAIL" not in user_prompt
    assertions = eval(user_prompt.rsplit("expectedOutcomes:", 1)[1].strip())  # our own prompt text
    results = [{"expectedOutcome": a, "reasoning": "stand-in", "metExpectation": met} for a in assertions]
    return AssistantMessage(role="assistant", content=json.dumps({"results": results}))


agent_module.generate = fake_generate
user_module.generate = fake_generate
nl_module.generate = fake_judge

_RAW = {}
_load_file = db_module.load_file


def cached_load(cls, path):
    if path not in _RAW:
        _RAW[path] = _load_file(path)
    return cls.model_validate(_RAW[path])


db_module.DB.load = classmethod(cached_load)


def wrong(arguments):
    arguments = copy.deepcopy(arguments)
    for key, value in arguments.items():
        if isinstance(value, str):
            arguments[key] = value + "X"
            return arguments
    return arguments


def mistyped(arguments):
    """The first argument of another JSON type."""
    arguments = copy.deepcopy(arguments)
    for key, value in arguments.items():
        if isinstance(value, bool):
            arguments[key] = "maybe"
        elif isinstance(value, str):
            arguments[key] = 12345
        elif isinstance(value, (int, float)):
            arguments[key] = "seven"
        else:
            arguments[key] = "none"
        return arguments
    return arguments


def scripts(sim_id, calls, *, user_text="###STOP###", agent_text="Your request is done."):
    agent = [{"tool_calls": [c]} for c in calls] + [{"content": agent_text}]
    user = [{"content": f"simulation {sim_id}"}, {"content": user_text}]
    return agent, user


def kinds(task):
    """(kind, the agent's calls, options)."""
    calls = [{"name": a.name, "arguments": a.arguments} for a in task.evaluation_criteria.actions or []]
    said = " ".join(["Your request is done.", *(task.evaluation_criteria.communicate_info or [])])
    yield "gold", calls, {"agent_text": said}
    if calls:
        first = calls[0]["arguments"]
        yield "wrong_args", [{**calls[0], "arguments": wrong(first)}, *calls[1:]], {"agent_text": said}
        yield "wrong_type", [{**calls[0], "arguments": mistyped(first)}, *calls[1:]], {"agent_text": said}
        yield "user_stop_early", calls[:1], {}
    hallucinated = {"name": "lookup_everything", "arguments": {"query": "all"}}
    yield "hallucinated_tool", [hallucinated, *calls], {"agent_text": said}
    transfer = {"name": "transfer_to_human_agents", "arguments": {"summary": "The user needs a human."}}
    yield (
        "transfer",
        [*calls[:1], transfer],
        {"agent_text": "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", "user_text": "###TRANSFER###"},
    )
    yield "max_steps", calls, {"max_steps": SHORT_STEPS, "agent_text": said}


def chosen(tasks, count=20):
    step = max(1, len(tasks) // count)
    return tasks[::step][:count]


def main():
    out, domain = Path(sys.argv[1]), sys.argv[2]
    out.mkdir(parents=True, exist_ok=True)
    tasks = chosen(registry.get_tasks_loader(domain)(None))
    simulations, expected = [], {}
    for task in tasks:
        for kind, calls, options in kinds(task):
            sim_id = f"loop-{domain}-{task.id}-{kind}"
            max_steps = options.pop("max_steps", MAX_STEPS)
            env = registry.get_env_constructor(domain)()
            agent_script, user_script = scripts(sim_id, calls, **options)
            SCRIPTS["scripted-agent"], SCRIPTS["scripted-user"] = agent_script, user_script
            agent = LLMAgent(tools=env.get_tools(), domain_policy=env.get_policy(), llm="scripted-agent")
            user = UserSimulator(llm="scripted-user", instructions=str(task.user_scenario), tools=None)
            orchestrator = Orchestrator(
                domain=domain,
                agent=agent,
                user=user,
                environment=env,
                task=task,
                max_steps=max_steps,
                max_errors=MAX_ERRORS,
            )
            sim = orchestrator.run()
            if kind != "max_steps":
                assert not SCRIPTS["scripted-agent"] and not SCRIPTS["scripted-user"], sim_id
            sim.id = sim_id
            sim.start_time, sim.end_time, sim.duration = "2026-01-01T00:00:00", "2026-01-01T00:00:01", 1.0
            for message in sim.messages:
                message.timestamp = None
            reward = evaluate_simulation(
                simulation=sim, task=task, evaluation_type=EvaluationType.ALL, solo_mode=False, domain=domain
            )
            expected[sim_id] = {
                "domain": domain,
                "task_id": task.id,
                "kind": kind,
                "max_steps": max_steps,
                "reward": reward.reward,
                "breakdown": {k.value: v for k, v in (reward.reward_breakdown or {}).items()},
                "db_match": reward.db_check.db_match if reward.db_check else None,
                "termination_reason": sim.termination_reason.value,
                "steps": len(sim.messages),
            }
            simulations.append(sim)
            print(sim_id, reward.reward, sim.termination_reason.value, flush=True)
    env = registry.get_env_constructor(domain)()
    info = Info(
        git_commit="a2c0247",
        num_trials=1,
        max_steps=MAX_STEPS,
        max_errors=MAX_ERRORS,
        user_info=UserInfo(implementation="user_simulator", llm="scripted-user"),
        agent_info=AgentInfo(implementation="llm_agent", llm="scripted-agent"),
        environment_info=EnvironmentInfo(domain_name=domain, policy=env.policy),
    )
    results = Results(info=info, tasks=tasks, simulations=simulations)
    with gzip.open(out / f"results_loop-{domain}.json.gz", "wt", encoding="utf-8") as fh:
        fh.write(results.model_dump_json())
    with gzip.open(out / f"expected_loop-{domain}.json.gz", "wt", encoding="utf-8") as fh:
        json.dump(expected, fh, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
