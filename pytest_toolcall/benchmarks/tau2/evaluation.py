"""The official reward of a simulation (tau2 1.0.1 ``evaluator/evaluate_simulation``, type ALL).

* A simulation that did not end by a stop (``user_stop``, ``agent_stop``) gets 0.
* DB: the trajectory's state-changing calls are replayed onto a fresh environment set to the
  task's initial state, the task's reference actions onto another (a failing reference call is
  skipped); the hashes of both databases (telecom: also the user's phone) must be equal.
* ENV_ASSERTION: the task's assertions on the predicted environment, on the side each names
  (none in airline and retail).
* COMMUNICATE: each ``communicate_info`` text, lower-cased, is a substring of an assistant text with
  its commas removed.
* ACTION: each reference action is matched by some tool call (``compare_args`` or all arguments).
* NL_ASSERTION: an LLM judge grades the assertions (``judge.py``); without a judge the component is
  not measured and neither is the reward, unless another component already made it 0.

The reward is the product of the components in the task's ``reward_basis``. Components the basis
does not name are still computed and kept in ``checks`` (as the official ``RewardInfo``), but not in
``breakdown``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.benchmarks.tau2.dual_control import new_environment
from pytest_toolcall.benchmarks.tau2.names import COMPONENTS as COMPONENTS
from pytest_toolcall.benchmarks.tau2.names import INFRASTRUCTURE_ERROR as INFRASTRUCTURE_ERROR

STOPS = ("user_stop", "agent_stop")
TERMINATION_REASONS = (
    "user_stop",
    "agent_stop",
    "max_steps",
    "timeout",
    "too_many_errors",
    "agent_error",
    "user_error",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
)

#: ``judge(messages, assertions) -> [(assertion, met, justification)]``.
Judge = Callable[[Sequence[dict[str, Any]], list[str]], list[tuple[str, bool, str]]]


@dataclass
class Reward:
    #: The task's reward; None when a component it needs was not measured (no judge).
    reward: float | None
    #: Component -> 0.0 / 1.0 for the components of the basis (None: not measured).
    breakdown: dict[str, float | None] = field(default_factory=dict)
    note: str = ""
    checks: dict[str, Any] = field(default_factory=dict)


def evaluate(
    domain: str,
    task: dict[str, Any],
    messages: Sequence[dict[str, Any]],
    termination_reason: str,
    judge: Judge | None = None,
    strict_replay: bool = False,
) -> Reward:
    if termination_reason not in STOPS:
        return Reward(0.0, note=f"Simulation terminated prematurely. Termination reason: {termination_reason}")
    criteria = task.get("evaluation_criteria")
    if criteria is None:
        return Reward(1.0, note="No evaluation criteria")
    basis = list(criteria.get("reward_basis") or ["DB", "COMMUNICATE"])
    checks: dict[str, Any] = {}
    parts: dict[str, float | None] = {}

    parts.update(_environment(domain, task, basis, messages, strict_replay, checks))
    if "ACTION" in basis:
        parts["ACTION"] = _actions(criteria, messages, checks)
    if "NL_ASSERTION" in basis:
        parts["NL_ASSERTION"] = _nl_assertions(criteria, messages, judge, checks)
    if "COMMUNICATE" in basis:
        parts["COMMUNICATE"] = _communicate(criteria, messages, checks)

    unknown = [key for key, value in parts.items() if value is None]
    reward: float | None = math.prod(value for value in parts.values() if value is not None)
    note = ""
    if unknown and reward != 0.0:
        reward = None
        note = f"{', '.join(unknown)} not measured: grading it needs --toolcall-judge-model"
    return Reward(reward, parts, note, checks)


def _environment(
    domain: str,
    task: dict[str, Any],
    basis: list[str],
    messages: Sequence[dict[str, Any]],
    strict: bool,
    checks: dict[str, Any],
) -> dict[str, float]:
    """DB and ENV_ASSERTION of the basis as the official ``EnvironmentEvaluator``; with neither
    reference actions nor assertions it reports neither (officially reward 1, no breakdown)."""
    criteria = task["evaluation_criteria"]
    actions = criteria.get("actions")
    assertions = criteria.get("env_assertions")
    if actions is None and assertions is None:
        checks["db_match"] = True
        return {}
    initial_state = task.get("initial_state") or {}
    predicted = new_environment(domain, task)
    predicted.set_state(initial_state, messages, strict=strict)
    gold = new_environment(domain, task)
    gold.set_state(initial_state, initial_state.get("message_history") or [], strict=strict)
    for action in actions or []:
        try:  # without the sync, as officially (so telecom's gold phone may lag behind its line)
            gold.make_tool_call(action["name"], requestor=action.get("requestor", "assistant"), **action["arguments"])
        except Exception:  # the official evaluator logs and skips a failing reference call
            pass
    match = predicted.same_state(gold)
    checks["db_match"] = match
    if not match:
        checks["db_differences"] = predicted.state_differences(gold)
    met = [predicted.run_assertion(assertion) for assertion in assertions or []]
    if assertions:
        checks["env_assertions"] = [
            {
                "func_name": a["func_name"],
                "env_type": a.get("env_type"),
                "arguments": a.get("arguments") or {},
                "expected": a.get("assert_value", True),
                "met": m,
            }
            for a, m in zip(assertions, met, strict=True)
        ]
    result: dict[str, float] = {}
    if "DB" in basis:
        result["DB"] = 1.0 if match else 0.0
    if "ENV_ASSERTION" in basis:
        result["ENV_ASSERTION"] = 1.0 if all(met) else 0.0
    return result


def tool_calls(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call of the assistant and the user, in order."""
    return [
        call
        for message in messages
        if message.get("role") in ("assistant", "user")
        for call in message.get("tool_calls") or ()
    ]


def action_matches(action: dict[str, Any], call: dict[str, Any]) -> bool:
    """``Action.compare_with_tool_call``: the name, then the compared arguments (all of the call's
    when ``compare_args`` is None) equal on both sides."""
    if action["name"] != call.get("name"):
        return False
    arguments = call.get("arguments") or {}
    compared = action.get("compare_args")
    names = list(arguments) if compared is None else compared
    if not names:
        return True
    return {k: v for k, v in arguments.items() if k in names} == {
        k: v for k, v in action["arguments"].items() if k in names
    }


def _actions(criteria: dict[str, Any], messages: Sequence[dict[str, Any]], checks: dict[str, Any]) -> float:
    actions = criteria.get("actions") or []
    calls = tool_calls(messages)
    matched = [any(action_matches(action, call) for call in calls) for action in actions]
    checks["actions"] = [
        {"action_id": a.get("action_id"), "met": m} if m else _unmatched(a, calls)
        for a, m in zip(actions, matched, strict=True)
    ]
    return 1.0 if all(matched) else 0.0


def _unmatched(action: dict[str, Any], calls: list[dict[str, Any]]) -> dict[str, Any]:
    """An expected action no call matched, with the call of that name closest to it (fewest compared
    arguments differing) and the arguments that differ; no closest call when none has its name."""
    compared = action.get("compare_args")
    expected = action["arguments"]
    best: tuple[int, dict[str, Any], list[str]] | None = None
    for call in calls:
        if call.get("name") != action["name"]:
            continue
        arguments = call.get("arguments") or {}
        names = sorted(set(arguments) | set(expected)) if compared is None else list(compared)
        differing = [n for n in names if arguments.get(n) != expected.get(n)]
        if best is None or len(differing) < best[0]:
            best = (len(differing), arguments, differing)
    entry: dict[str, Any] = {
        "action_id": action.get("action_id"),
        "met": False,
        "name": action["name"],
        "arguments": expected,
        "closest": None,
    }
    if best is not None:
        entry["closest"] = {"name": action["name"], "arguments": best[1], "differing": best[2]}
    return entry


def _communicate(criteria: dict[str, Any], messages: Sequence[dict[str, Any]], checks: dict[str, Any]) -> float:
    infos = criteria.get("communicate_info") or []
    texts = [
        m["content"].lower().replace(",", "")
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), str) and m["content"].strip()
    ]
    met = [any(info.lower() in text for text in texts) for info in infos]
    checks["communicate"] = [{"info": info, "met": m} for info, m in zip(infos, met, strict=True)]
    return 1.0 if all(met) else 0.0


def _nl_assertions(
    criteria: dict[str, Any], messages: Sequence[dict[str, Any]], judge: Judge | None, checks: dict[str, Any]
) -> float | None:
    assertions = criteria.get("nl_assertions") or []
    if not assertions:
        return 1.0  # officially: nothing to judge is a pass
    if judge is None:
        return None
    results = judge(messages, list(assertions))
    checks["nl_assertions"] = [{"assertion": a, "met": m, "justification": j} for a, m, j in results]
    return 1.0 if all(met for _, met, _ in results) else 0.0


def failures(reward: Reward) -> list[str]:
    """What made each component at 0 fail, one line each, for a person: the failed environment
    assertions, the database entries that differ from the gold replay, the expected actions no call
    matched (with the closest call), the texts not communicated, the judge's verdicts."""
    checks, lines = reward.checks, []
    zero = {name for name, value in reward.breakdown.items() if value == 0.0}
    if "DB" in zero:
        differences = checks.get("db_differences") or []
        for d in differences:
            where = "/".join(str(p) for p in (d["table"], d["key"], d["field"]) if p is not None)
            if d["field"] is None and isinstance(d["ours"], bool):
                lines.append(f"DB: {where} only in {'ours' if d['ours'] else 'the gold replay'}")
            else:
                lines.append(f"DB: {where}: ours {_shown(d['ours'])}, gold {_shown(d['gold'])}")
        if not differences:
            lines.append("DB: the database differs from the gold replay")
    if "ENV_ASSERTION" in zero:
        for a in checks.get("env_assertions") or []:
            if not a["met"]:
                lines.append(
                    f"ENV_ASSERTION: {a['env_type']} {a['func_name']}({_arguments(a['arguments'])}) "
                    f"expected {a['expected']}, was {not a['expected']}"
                )
    if "ACTION" in zero:
        for a in checks.get("actions") or []:
            if a["met"]:
                continue
            line = f"ACTION: expected {a['name']}({_arguments(a['arguments'])}) not matched"
            closest = a.get("closest")
            if closest is None:
                line += f"; no call of {a['name']}"
            else:
                called = f"{a['name']}({_arguments(closest['arguments'])})"
                line += f"; closest {called} differs in {', '.join(closest['differing'])}"
            lines.append(line)
    if "COMMUNICATE" in zero:
        lines += [
            f"COMMUNICATE: {c['info']!r} not found in the agent's messages"
            for c in checks.get("communicate") or []
            if not c["met"]
        ]
    if "NL_ASSERTION" in zero:
        lines += [
            f"NL_ASSERTION: not met: {n['assertion']!r}; judge: {n['justification']}"
            for n in checks.get("nl_assertions") or []
            if not n["met"]
        ]
    return lines


def _arguments(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_shown(v)}" for k, v in arguments.items())


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 80 else f"{text[:80]}..."
