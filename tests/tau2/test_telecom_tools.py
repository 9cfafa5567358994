"""The telecom agent's tools and functions against the official ones (``telecom/agent_tools.json``,
learned by ``learn_telecom_tools.py``): every answer text and error flag, every function's value or
error, the agent database's hash after each sequence; the environment's dual control (a call goes
to its requestor's side, the sync of line and phone, a payment, assertions). The parameters are
checked against the official schemas with the other domains' (``test_environment.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.dual_control import new_environment
from pytest_toolcall.benchmarks.tau2.environment import Environment, to_json_str, tool_specs
from pytest_toolcall.benchmarks.tau2.models import db_hash

LEARNED = json.loads((Path(__file__).parents[1] / "data" / "tau2" / "telecom" / "agent_tools.json").read_text())


def test_the_official_write_tools() -> None:
    """The tools a replay re-runs (the others only read, or transfer)."""
    specs = tool_specs("telecom")
    assert len(specs) == 13
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
    env = new_environment("telecom")
    got = [run(env, step, index) for index, step in enumerate(learned["steps"])]
    for step, answer, official in zip(learned["steps"], got, learned["answers"], strict=True):
        assert answer == official, step
    if learned["db_hash"] is not None:
        assert db_hash(env.tools.db) == learned["db_hash"]


def test_a_new_draft_bill_has_a_random_id_as_officially() -> None:
    """So two environments that each make one never hash alike: the official DB check of such a
    run never matches."""
    envs = [new_environment("telecom") for _ in range(2)]
    for env in envs:
        env.tools.refuel_data("C1002", "L1005", 1.0)
    assert db_hash(envs[0].tools.db) != db_hash(envs[1].tools.db)


def phone_of(number: str) -> Environment:
    """An environment whose phone belongs to the line ``number`` (the tasks' first initialization)."""
    env = new_environment("telecom")
    env.set_state(
        {
            "initialization_actions": [
                {
                    "env_type": "user",
                    "func_name": "set_user_info",
                    "arguments": {"name": "John Smith", "phone_number": number},
                }
            ]
        },
        [],
    )
    return env


def answer(env: Environment, name: str, requestor: str, **arguments: Any) -> dict[str, Any]:
    return env.get_response({"id": "c", "name": name, "arguments": arguments, "requestor": requestor})


def test_a_call_goes_to_the_side_of_its_requestor() -> None:
    env = phone_of("555-123-2002")
    assert (
        answer(env, "toggle_airplane_mode", "assistant")["content"] == "Error: Tool 'toggle_airplane_mode' not found."
    )
    assert answer(env, "get_customer_by_id", "user", customer_id="C1001")["content"] == (
        "Error: Tool 'get_customer_by_id' not found."
    )
    user = answer(env, "check_status_bar", "user")
    assert user["requestor"] == "user" and not user["error"]
    assert answer(env, "get_customer_by_id", "robot", customer_id="C1001")["content"] == (
        "Error: Invalid requestor: robot"
    )
    assert env.has_tool("check_status_bar") and env.has_tool("get_customer_by_id")
    assert env.mutates_state("toggle_airplane_mode") and not env.mutates_state("check_status_bar")


def test_the_phone_learns_from_the_line_after_each_call_but_not_after_a_bare_call() -> None:
    env = phone_of("555-123-2002")  # L1002: active, roaming enabled
    surroundings = env.device.surroundings
    assert surroundings.line_active and surroundings.roaming_allowed and not surroundings.mobile_data_usage_exceeded
    env.make_tool_call("disable_roaming", customer_id="C1001", line_id="L1002")  # the gold replay's way
    assert surroundings.roaming_allowed
    assert answer(env, "suspend_line", "assistant", customer_id="C1001", line_id="L1002", reason="x")["error"] is False
    assert not surroundings.roaming_allowed and not surroundings.line_active
    env.run_function(
        {
            "env_type": "assistant",
            "func_name": "set_data_usage",
            "arguments": {"customer_id": "C1001", "line_id": "L1002", "data_used_gb": 15.0},
        }
    )
    assert surroundings.mobile_data_usage_exceeded  # 15 GB used of the plan's 15


def test_a_payment_request_reaches_the_phone_and_its_payment_the_bill() -> None:
    env = phone_of("555-123-2002")
    assert env.device.surroundings.payment_request is None
    assert answer(env, "send_payment_request", "assistant", customer_id="C1001", bill_id="B1002")["error"] is False
    request = env.device.surroundings.payment_request
    assert (request.bill_id, request.paid) == ("B1002", False)
    assert not answer(env, "make_payment", "user")["error"]
    assert env.device.surroundings.payment_request is None
    assert env.tools._get_bill_by_id("B1002").status == "Paid"


def test_an_assertion_must_return_a_bool() -> None:
    env = phone_of("555-123-2002")
    check = {"env_type": "assistant", "func_name": "assert_no_overdue_bill", "arguments": {"overdue_bill_id": "B1"}}
    assert env.run_assertion(check) is True
    assert env.run_assertion({**check, "assert_value": False}) is False
    with pytest.raises(ValueError, match="returned <class 'str'> instead of bool"):
        env.run_assertion(
            {"env_type": "assistant", "func_name": "transfer_to_human_agents", "arguments": {"summary": "x"}}
        )


def test_a_dual_control_environment_has_its_phone() -> None:
    with pytest.raises(ValueError, match="the telecom environment needs a user's device"):
        Environment("telecom")
    assert new_environment("airline").device is None
