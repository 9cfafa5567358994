"""The telecom agent's tools and functions against the official ones (``telecom/agent_tools.json``,
learned by ``learn_telecom_tools.py``): every answer text and error flag, every function's value or
error, the agent database's hash after each sequence; the schemas are the official ones."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.environment import Environment, to_json_str, tool_specs
from pytest_toolcall.benchmarks.tau2.models import db_hash
from pytest_toolcall.benchmarks.tau2.telecom import TelecomTools

LEARNED = json.loads((Path(__file__).parents[1] / "data" / "tau2" / "telecom" / "agent_tools.json").read_text())


def test_every_tool_has_the_official_parameters() -> None:
    specs = tool_specs("telecom")
    assert len(specs) == 13
    for name, spec in specs.items():
        parameters = spec.schema["function"]["parameters"]
        signature = inspect.signature(getattr(TelecomTools, name))
        assert list(signature.parameters)[1:] == list(parameters.get("properties", {})), name
        assert set(parameters.get("required", [])) == {
            p for p, v in signature.parameters.items() if p != "self" and v.default is inspect.Parameter.empty
        }, name
    writes = {name for name, spec in specs.items() if spec.mutates_state}
    assert writes == {
        "suspend_line",
        "resume_line",
        "send_payment_request",
        "enable_roaming",
        "disable_roaming",
        "refuel_data",
    }


def run(env: Environment, step: dict[str, Any], index: int) -> dict[str, Any]:
    if "tool" in step:
        message = env.get_response({"id": f"c{index}", "name": step["tool"], "arguments": step["arguments"]})
        return {"content": message["content"], "error": message["error"]}
    try:
        return {"value": to_json_str(getattr(env.tools, step["function"])(**step["arguments"]))}
    except Exception as exc:
        return {"error_text": f"{type(exc).__name__}: {exc}"}


@pytest.mark.parametrize("name", sorted(LEARNED))
def test_answers_and_hash_are_the_official_ones(name: str) -> None:
    learned = LEARNED[name]
    env = Environment("telecom")
    got = [run(env, step, index) for index, step in enumerate(learned["steps"])]
    for step, answer, official in zip(learned["steps"], got, learned["answers"], strict=True):
        assert answer == official, step
    if learned["db_hash"] is not None:
        assert db_hash(env.tools.db) == learned["db_hash"]


def test_a_new_draft_bill_has_a_random_id_as_officially() -> None:
    """So two environments that each make one never hash alike: the official DB check of such a
    run never matches."""
    envs = [Environment("telecom") for _ in range(2)]
    for env in envs:
        env.tools.refuel_data("C1002", "L1005", 1.0)
    assert db_hash(envs[0].tools.db) != db_hash(envs[1].tools.db)
