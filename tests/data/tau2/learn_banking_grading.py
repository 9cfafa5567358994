"""How ``banking/results_banking.json.gz`` and ``banking/expected_banking.json.gz`` were learned:
scripted simulations of every ``banking_knowledge`` task, played on the official tau2 1.0.1
(a2c0247) environment (retrieval ``no_knowledge``: its tools only read, so no grade depends on it;
the task's read-log allowlist) and graded by the official
``evaluate_simulation`` (type ALL, with the allowlist, as ``tau2 run`` and ``tau2 evaluate-trajs``
grade; task_102's NL judge the stand-in of ``learn_official.py``). Run outside the test suite, with
the official code installed with its ``knowledge`` extra (see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_banking_grading.py OUT_DIR

Kinds, each a trajectory whose tool answers are the official environment's: ``gold`` (the reference
actions, each side's as its tool calls); ``no_last_write`` (the last state-changing action left
out); ``wrong_arg`` (the first action that has a text argument, that argument changed);
``extra_read`` (the gold, then the agent unlocks and calls a read-only discovered tool the reference
does not call: 1.0.1 no longer counts that against the database); ``int_args`` (the gold with every
whole number of a discovered call's arguments written without its ``.0``: 1.0.1 reads them alike);
``no_actions`` (nothing done). Each ends with the user's ``###STOP###``.
"""

import gzip
import json
import re
import sys
from pathlib import Path

import tau2.evaluator.evaluator_nl_assertions as nl_module
from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
from tau2.data_model.simulation import AgentInfo, Info, Results, SimulationRun, UserInfo
from tau2.domains.banking_knowledge.environment import get_environment, get_tasks
from tau2.environment.environment import EnvironmentInfo
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.runner.build import _derive_read_log_allowlist

OUT = Path(sys.argv[1])
READ_TOOL = "get_all_user_accounts_by_user_id_3847"
# The retrieval tools only read: they change no grade, and no_knowledge builds no index per environment.
RETRIEVAL = "no_knowledge"


def fake_generate(model, messages, **kwargs):
    """The judge stand-in of ``learn_official.py``: every assertion met unless ``JUDGE-FAIL`` is said."""
    user_prompt = messages[-1].content
    met = "JUDGE-FAIL" not in user_prompt
    assertions = eval(user_prompt.rsplit("expectedOutcomes:", 1)[1].strip())  # our own prompt text
    results = [{"expectedOutcome": a, "reasoning": "stand-in", "metExpectation": met} for a in assertions]
    return AssistantMessage(role="assistant", content=json.dumps({"results": results}))


nl_module.generate = fake_generate


def env_for(task):
    env = get_environment(retrieval_variant=RETRIEVAL, task=task, read_log_allowlist=_derive_read_log_allowlist(task))
    state = task.initial_state
    env.set_state(
        initialization_data=state.initialization_data if state else None,
        initialization_actions=state.initialization_actions if state else None,
        message_history=[],
    )
    return env


def play(task, calls):
    """A trajectory of ``(requestor, name, arguments)`` calls on a fresh environment of the task."""
    env = env_for(task)
    messages = [AssistantMessage(role="assistant", content="Hi! How can I help you today?")]
    messages.append(UserMessage(role="user", content="I need help with my account."))
    for index, (requestor, name, arguments) in enumerate(calls):
        call = ToolCall(id=f"call_{index}", name=name, arguments=arguments, requestor=requestor)
        if requestor == "user":
            messages.append(UserMessage(role="user", content=None, tool_calls=[call]))
        else:
            messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[call]))
        messages.append(env.get_response(call))
    messages.append(AssistantMessage(role="assistant", content="Is there anything else?"))
    messages.append(UserMessage(role="user", content="###STOP###"))
    return messages


def gold_calls(task):
    return [(a.requestor, a.name, dict(a.arguments)) for a in task.evaluation_criteria.actions or []]


def mutating(env, name, requestor):
    kit = env.user_tools if requestor == "user" else env.tools
    return kit.has_tool(name) and kit.tool_mutates_state(name)


def kinds(task):
    gold = gold_calls(task)
    out = {"gold": gold, "no_actions": []}
    env = env_for(task)
    writes = [i for i, (r, n, _) in enumerate(gold) if mutating(env, n, r)]
    if writes:
        out["no_last_write"] = [c for i, c in enumerate(gold) if i != writes[-1]]
    for index, (requestor, name, arguments) in enumerate(gold):
        text = [k for k, v in arguments.items() if isinstance(v, str) and k not in ("agent_tool_name",)]
        if text:
            changed = dict(arguments, **{text[0]: arguments[text[0]] + "-x"})
            out["wrong_arg"] = [*gold[:index], (requestor, name, changed), *gold[index + 1 :]]
            break
    users = [a.arguments.get("user_id") for a in task.evaluation_criteria.actions or [] if "user_id" in a.arguments]
    if READ_TOOL not in _derive_read_log_allowlist(task):
        user_id = users[0] if users else "unknown"
        extra = [
            ("assistant", "unlock_discoverable_agent_tool", {"agent_tool_name": READ_TOOL}),
            (
                "assistant",
                "call_discoverable_agent_tool",
                {"agent_tool_name": READ_TOOL, "arguments": json.dumps({"user_id": user_id})},
            ),
        ]
        out["extra_read"] = [*gold, *extra]
    spelled = []
    for requestor, name, arguments in gold:
        if name == "call_discoverable_agent_tool" and re.search(r"\d\.0\b", arguments.get("arguments", "")):
            arguments = dict(arguments, arguments=re.sub(r"(\d)\.0\b", r"\1", arguments["arguments"]))
        spelled.append((requestor, name, arguments))
    if spelled != gold:
        out["int_args"] = spelled
    return out


def main():
    tasks = get_tasks()
    simulations, expected = [], {}
    for task in tasks:
        for kind, calls in kinds(task).items():
            sim_id = f"banking-{task.id}-{kind}"
            messages = play(task, calls)
            sim = SimulationRun(
                id=sim_id,
                task_id=task.id,
                start_time="2026-01-01T00:00:00",
                end_time="2026-01-01T00:00:01",
                duration=1.0,
                termination_reason="user_stop",
                messages=messages,
                trial=0,
            )
            info = evaluate_simulation(
                simulation=sim,
                task=task,
                evaluation_type=EvaluationType.ALL,
                solo_mode=False,
                domain="banking_knowledge",
                env_kwargs={"retrieval_variant": RETRIEVAL, "read_log_allowlist": _derive_read_log_allowlist(task)},
                strict_replay=False,
            )
            sim.reward_info = info
            simulations.append(sim)
            breakdown = {k.value: v for k, v in (info.reward_breakdown or {}).items()}
            expected[sim_id] = {
                "task_id": task.id,
                "kind": kind,
                "reward": info.reward,
                "breakdown": breakdown,
                "db_match": info.db_check.db_match if info.db_check else None,
            }
    env = get_environment(retrieval_variant=RETRIEVAL, task=tasks[0])
    results = Results(
        info=Info(
            git_commit="a2c0247",
            num_trials=1,
            max_steps=200,
            max_errors=10,
            user_info=UserInfo(implementation="user_simulator", llm="scripted-user"),
            agent_info=AgentInfo(implementation="llm_agent", llm="scripted-agent"),
            environment_info=EnvironmentInfo(domain_name="banking_knowledge", policy=env.get_policy()),
            retrieval_config=RETRIEVAL,
        ),
        tasks=tasks,
        simulations=simulations,
    )
    with gzip.open(OUT / "results_banking.json.gz", "wt") as fh:
        fh.write(results.model_dump_json())
    with gzip.open(OUT / "expected_banking.json.gz", "wt") as fh:
        json.dump(expected, fh, indent=1, sort_keys=True)
    rewards = [v["reward"] for v in expected.values()]
    print(len(expected), "simulations", sum(r == 0 for r in rewards), "with reward 0")


main()
