"""How ``telecom/results_telecom-loop.json.gz`` and its verdicts were learned: the official loop
itself (tau2 1.0.1 ``Orchestrator``, a2c0247) with the official ``LLMAgent`` and ``UserSimulator``
whose model is a script, on telecom ``base`` tasks, then the official ``evaluate_simulation`` (type
ALL) of each run. Run outside the test suite, with the official code installed (see
``learn_official.py``):

    TAU2_DATA_DIR=... python learn_telecom_loop.py OUT_DIR

The scripts play a task's reference actions in order across the two sides, as the oracle does:
the user's runs of actions are tool calls on its phone (one per message, or two in one message for
the ``two_calls`` kind), each side hands over with a text, the user opens with ``simulation <id>``
(so that a scripted chat server can tell the runs apart) and stops with ``###STOP###``. Kinds: the
reference, a user action missing, the agent's first action with a wrong argument, a user tool
called with an argument it does not take (an error answer) before the reference, two user calls in
one message. The simulations are written as an official results file, the verdicts beside it.
"""

import copy
import gzip
import json
import sys
from pathlib import Path

import tau2.agent.llm_agent as agent_module
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


def fake_generate(model, messages, tools=None, **kwargs):
    reply = SCRIPTS[model].pop(0)
    calls = [
        ToolCall(id=f"{model}_{len(SCRIPTS[model])}_{i}", name=c["name"], arguments=c["arguments"])
        for i, c in enumerate(reply.get("tool_calls") or [])
    ]
    return AssistantMessage(role="assistant", content=reply.get("content"), tool_calls=calls or None)


agent_module.generate = fake_generate
user_module.generate = fake_generate


def turns(actions):
    """Runs of one side's actions, alternating, the first the user's (maybe empty)."""
    out = [[]]
    for action in actions:
        side = 0 if action["requestor"] == "user" else 1
        if (len(out) - 1) % 2 == side:
            out[-1].append(action)
        else:
            out.append([action])
    return out


def scripts(sim_id, actions, *, two_calls=False, bad_user_call=False):
    agent, user = [], []
    runs = turns(actions)
    for index, run in enumerate(runs):
        calls = [{"name": a["name"], "arguments": a["arguments"]} for a in run]
        if index % 2 == 0:
            if index == 0 and bad_user_call:
                user.append({"tool_calls": [{"name": "toggle_airplane_mode", "arguments": {"now": True}}]})
            if two_calls and len(calls) >= 2:
                user.append({"tool_calls": calls[:2]})
                calls = calls[2:]
            user += [{"tool_calls": [c]} for c in calls]
            user.append({"content": f"simulation {sim_id}" if index == 0 else "I have done that."})
        else:
            agent += [{"tool_calls": [c]} for c in calls]
            agent.append({"content": "Please go ahead." if index + 1 < len(runs) else "Your issue is resolved."})
    if len(runs) % 2 == 1:  # the user's run was last: the agent answers it
        agent.append({"content": "Your issue is resolved."})
    user.append({"content": "###STOP###"})
    return agent, user


def wrong(arguments):
    arguments = copy.deepcopy(arguments)
    for key, value in arguments.items():
        if isinstance(value, str):
            arguments[key] = value + "X"
            return arguments
    return arguments


def kinds(task):
    actions = [a.model_dump() for a in task.evaluation_criteria.actions or []]
    user = [i for i, a in enumerate(actions) if a["requestor"] == "user"]
    agent = [i for i, a in enumerate(actions) if a["requestor"] == "assistant"]
    yield "gold", actions, {}
    if user:
        yield "missing_user_action", [a for i, a in enumerate(actions) if i != user[-1]], {}
        yield "bad_user_call", actions, {"bad_user_call": True}
    if agent:
        first = [{**a, "arguments": wrong(a["arguments"])} if i == agent[0] else a for i, a in enumerate(actions)]
        yield "wrong_args", first, {}
    if len(turns(actions)[0]) >= 2:
        yield "two_calls", actions, {"two_calls": True}


def chosen(tasks):
    """Two tasks of each set of agent actions, and every ninth task."""
    seen = {}
    picked = []
    for index, task in enumerate(tasks):
        names = tuple(sorted({a.name for a in task.evaluation_criteria.actions or [] if a.requestor == "assistant"}))
        seen[names] = seen.get(names, 0) + 1
        if seen[names] <= 2 or index % 9 == 0:
            picked.append(task)
    return picked


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    tasks = chosen(registry.get_tasks_loader("telecom")("base"))
    simulations, expected = [], {}
    for task in tasks:
        for kind, actions, options in kinds(task):
            sim_id = f"telecom-loop-{task.id}-{kind}"
            env = registry.get_env_constructor("telecom")()
            agent_script, user_script = scripts(sim_id, actions, **options)
            SCRIPTS["scripted-agent"], SCRIPTS["scripted-user"] = agent_script, user_script
            agent = LLMAgent(tools=env.get_tools(), domain_policy=env.get_policy(), llm="scripted-agent")
            user = UserSimulator(llm="scripted-user", instructions=str(task.user_scenario), tools=env.get_user_tools())
            orchestrator = Orchestrator(
                domain="telecom", agent=agent, user=user, environment=env, task=task, max_steps=200, max_errors=10
            )
            sim = orchestrator.run()
            assert not SCRIPTS["scripted-agent"] and not SCRIPTS["scripted-user"], sim_id
            sim.id = sim_id
            sim.start_time, sim.end_time, sim.duration = "2026-01-01T00:00:00", "2026-01-01T00:00:01", 1.0
            for message in sim.messages:
                message.timestamp = None
            reward = evaluate_simulation(
                simulation=sim,
                task=task,
                evaluation_type=EvaluationType.ALL,
                solo_mode=False,
                domain="telecom",
            )
            expected[sim_id] = {
                "domain": "telecom",
                "task_id": task.id,
                "kind": kind,
                "reward": reward.reward,
                "breakdown": {k.value: v for k, v in (reward.reward_breakdown or {}).items()},
                "db_match": reward.db_check.db_match if reward.db_check else None,
                "termination_reason": sim.termination_reason.value,
                "steps": len(sim.messages),
            }
            simulations.append(sim)
    env = registry.get_env_constructor("telecom")()
    info = Info(
        git_commit="a2c0247",
        num_trials=1,
        max_steps=200,
        max_errors=10,
        user_info=UserInfo(implementation="user_simulator", llm="scripted-user"),
        agent_info=AgentInfo(implementation="llm_agent", llm="scripted-agent"),
        environment_info=EnvironmentInfo(domain_name="telecom", policy=env.policy),
    )
    results = Results(info=info, tasks=tasks, simulations=simulations)
    with gzip.open(out / "results_telecom-loop.json.gz", "wt", encoding="utf-8") as fh:
        fh.write(results.model_dump_json())
    with gzip.open(out / "expected_telecom-loop.json.gz", "wt", encoding="utf-8") as fh:
        json.dump(expected, fh, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
