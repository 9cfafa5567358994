"""The telecom user's device against the official ``TelecomUserTools`` (tau2 1.0.1).

``telecom/device_sequences.json.gz`` was learned by ``learn_telecom_device.py`` from the official
code: for every telecom task, its initialization as the official environment runs it, then a
seeded random sequence of user tool calls (right and wrong arguments), initialization functions
and changes of the surroundings, each step with its official result or exception and the official
user-DB hash after it, and every assertion function's result at the end; and probes: states with
many fields set at once, each probe call on its own copy. Replaying them on ``UserDevice`` must
give the same results, the same exceptions (type and text) and the same hashes. The user tool calls
of the 788 learned dual-control simulations (``results_telecom.json.gz``) are replayed too.
"""

from __future__ import annotations

import copy
import gzip
import inspect
import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.environment import DATA, tool_specs
from pytest_toolcall.benchmarks.tau2.telecom_device import (
    FUNCTIONS,
    USER_TOOLS,
    APNSettings,
    NetworkModePreference,
    NetworkTechnology,
    PaymentRequest,
    SignalStrength,
    SimStatus,
    TelecomUserTools,
    UserDevice,
    VpnDetails,
)

pytestmark = pytest.mark.slow  # every telecom simulation or task: a whole data set

TELECOM = Path(__file__).parents[1] / "data" / "tau2" / "telecom"


@cache
def learned_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((TELECOM / "device_sequences.json.gz").read_bytes()))
    assert data["tau2"] == "a2c0247"
    return data


def learned() -> list[dict[str, Any]]:
    sequences: list[dict[str, Any]] = learned_data()["sequences"]
    return sequences


def unversioned(text: Any) -> Any:
    """A validation error's text quotes the pydantic version installed (learned with 2.14)."""
    return re.sub(r"errors\.pydantic\.dev/[0-9.]+/", "errors.pydantic.dev/*/", text) if isinstance(text, str) else text


def outcome(run: Any, **arguments: Any) -> dict[str, Any]:
    try:
        result = run(**copy.deepcopy(arguments))
    except Exception as exc:  # the official environment answers every exception as its text
        return {"error": type(exc).__name__, "message": unversioned(str(exc))}
    return {"result": list(result) if isinstance(result, tuple) else result}


def official(step: dict[str, Any]) -> dict[str, Any]:
    return {k: unversioned(step[k]) for k in ("result", "error", "message") if k in step}


def set_surroundings(device: UserDevice, values: dict[str, Any]) -> None:
    """What the environment's sync (or the learning script) set on the surroundings."""
    for key, value in values.items():
        if key == "payment_request":
            value = None if value is None else PaymentRequest(**value)
        elif key == "signal_strength":
            value = {NetworkTechnology(t): SignalStrength(s) for t, s in value.items()}
        setattr(device.surroundings, key, value)


def set_device_fields(device: UserDevice, values: dict[str, Any]) -> None:
    """Device fields no user tool sets, set as the learning script set them."""
    enums: dict[str, Any] = {
        "wifi_signal_strength": SignalStrength,
        "sim_card_status": SimStatus,
        "network_mode_preference": NetworkModePreference,
    }
    for key, value in values.items():
        if key in enums:
            value = enums[key](value)
        elif key == "vpn_details" and value is not None:
            value = VpnDetails(**value)
        elif key == "active_apn_settings":
            value = APNSettings(**value)
        setattr(device.db.device, key, value)


def run_step(device: UserDevice, step: dict[str, Any], where: str) -> list[str]:
    """Apply one recorded step; the differences from its official outcome and hash."""
    kind, differences = step["kind"], []
    if kind == "surroundings":
        set_surroundings(device, step["values"])
    elif kind == "device":
        set_device_fields(device, step["values"])
    else:
        run = device.call if kind == "tool" else device.run_function
        got = outcome(run, name=step["name"], arguments=step["arguments"])
        want = official(step)
        if got != want:
            differences.append(f"{where} {step['name']}({step['arguments']}): {got!r} != {want!r}")
    if "hash" in step and device.db_hash()[:16] != step["hash"]:
        differences.append(f"{where} {step.get('name', kind)}: the user DB hash differs")
    return differences


def check_assertions(device: UserDevice, recorded: list[dict[str, Any]]) -> list[str]:
    differences = []
    for assertion in recorded:
        got = outcome(device.run_function, name=assertion["name"], arguments=assertion["arguments"])
        want = official(assertion)
        if got != want:
            differences.append(f"{assertion['name']}({assertion['arguments']}): {got!r} != {want!r}")
    return differences


def replay(sequence: dict[str, Any]) -> list[str]:
    """The differences between the device and the official record of one sequence."""
    device = UserDevice()
    for index, step in enumerate(sequence["steps"]):
        differences = run_step(device, step, f"step {index}")
        if differences:
            return differences  # the rest would only repeat the first difference
    differences = check_assertions(device, sequence["assertions"])
    if device.db_hash() != sequence["hash"]:
        differences.append("the final user DB hash differs")
    return differences


def replay_probe(probe: dict[str, Any]) -> list[str]:
    """The probe's state, its assertions, then each probe call on its own fresh copy of the state."""

    def state(check: bool) -> tuple[UserDevice, list[str]]:
        device, differences = UserDevice(), []
        for index, step in enumerate(probe["steps"]):
            if check:
                differences += run_step(device, step, f"setup step {index}")
            else:  # checked once already
                run_step(device, {k: v for k, v in step.items() if k != "hash"}, "")
        return device, differences

    device, differences = state(check=True)
    differences += check_assertions(device, probe["assertions"])
    for call in probe["calls"]:
        device, _ = state(check=False)
        differences += run_step(device, call, "probe")
    return differences


def test_the_interface_the_environment_uses() -> None:
    first, second = UserDevice(), UserDevice()
    assert first.db_hash() == second.db_hash()
    assert first.call("toggle_airplane_mode", {}).startswith("Airplane Mode is now ON.\nStatus Bar: ")
    assert first.db_hash() != second.db_hash()  # each device has its own copy of the shipped DB
    assert (
        second.call("check_status_bar", {})
        == "Status Bar: \U0001f4f6\u00b3 Good | 5G | \U0001f4f1 Data Enabled | \U0001f50b 80%"
    )
    assert outcome(second.call, name="remove_app_permission", arguments={"app_name": "messaging"}) == {
        "error": "ValueError",
        "message": "Tool 'remove_app_permission' not found.",
    }
    assert outcome(second.call, name="toggle_data", arguments={"on": True}) == {
        "error": "TypeError",
        "message": "TelecomUserTools.toggle_data() got an unexpected keyword argument 'on'",
    }
    assert outcome(second.run_function, name="db", arguments={}) == {
        "error": "AttributeError",
        "message": "'TelecomUserTools' object has no attribute 'db'",
    }
    assert second.run_function("remove_app_permission", {"app_name": "messaging", "permission": "sms"}) == (
        True,
        "Permission 'sms' removed from app 'messaging'.",
    )
    assert second.run_function("assert_can_send_mms", {"expected_status": False}) is True
    # the sync's side: a payment request (its amount validated to a float), paid by the user
    assert second.call("make_payment", {}) == "You do not have a payment request."
    second.surroundings.payment_request = PaymentRequest(bill_id="B1002", amount_due=45)
    assert second.call("check_payment_request", {}) == "You have a payment request for bill B1002 of 45.0 USD."
    assert second.call("make_payment", {}) == "Payment of 45.0 USD has been made for bill B1002."
    assert second.surroundings.payment_request.paid is True
    second.surroundings.line_active = False  # a suspended line: no service after the next search
    assert second.call("reboot_device", {}).startswith(
        "Restarting network services...\nStatus Bar: \U0001f4f5 No Signal"
    )


def test_the_learned_sequences_reach_every_tool_function_and_error_kind() -> None:
    sequences = learned()
    tasks = json.loads((DATA / "telecom" / "tasks.json").read_text(encoding="utf-8"))
    assert [s["task_id"] for s in sequences] == [t["id"] for t in tasks]
    steps = [step for s in sequences for step in s["steps"]]
    called = Counter(step["name"] for step in steps if step["kind"] in ("tool", "function"))
    assertions = {name for name in FUNCTIONS if name.startswith("assert_")}
    assert set(tool_specs(USER_TOOLS)) | (set(FUNCTIONS) - assertions) <= set(called)
    assert {a["name"] for s in sequences for a in s["assertions"]} == assertions
    errors = {step["error"] for step in steps if "error" in step}
    assert {"TypeError", "AttributeError", "ValidationError"} <= errors
    assert sum(len(s["steps"]) for s in sequences) > 40_000


def test_every_user_function_of_the_tasks_exists() -> None:
    tasks = json.loads((DATA / "telecom" / "tasks.json").read_text(encoding="utf-8"))
    used = {
        call["func_name"]
        for task in tasks
        for call in [
            *((task["initial_state"] or {}).get("initialization_actions") or []),
            *(task["evaluation_criteria"].get("env_assertions") or []),
        ]
        if call["env_type"] == "user"
    }
    assert used <= set(FUNCTIONS) | set(tool_specs(USER_TOOLS))
    assert len(used) == 20


def test_every_user_tool_has_the_official_parameters() -> None:
    specs = tool_specs(USER_TOOLS)
    assert len(specs) == 30
    for name, spec in specs.items():
        parameters = spec.schema["function"]["parameters"]
        signature = inspect.signature(getattr(TelecomUserTools, name))
        assert list(signature.parameters)[1:] == list(parameters.get("properties", {})), name
        assert spec.mutates_state == (spec.tool_type == "write"), name


def assert_all_agree(records: list[dict[str, Any]], replay_one: Any, what: str) -> None:
    failing = {}
    for record in records:
        differences = replay_one(record)
        if differences:
            failing[f"{record['task_id']} (seed {record['seed']})"] = differences
    assert not failing, f"{len(failing)} of {len(records)} {what} differ: " + json.dumps(
        dict(list(failing.items())[:3]), indent=1, ensure_ascii=False
    )


@pytest.mark.parametrize("part", range(4))
def test_the_device_replays_the_official_sequences(part: int) -> None:
    assert_all_agree(learned()[part::4], replay, "sequences")


@pytest.mark.parametrize("part", range(2))
def test_the_device_gives_the_official_outcome_of_every_probe_call(part: int) -> None:
    probes = learned_data()["probes"][part::2]
    assert len(probes) > 100
    assert_all_agree(probes, replay_probe, "probes")


def test_the_user_tool_calls_of_the_learned_simulations_answer_as_officially() -> None:
    """Each of the 788 learned dual-control simulations (``results_telecom.json.gz``): the task's
    initialization, then every user tool call in order on the device, must answer what the official
    environment answered in the file. The agent's calls (refuel data, enable roaming, resume the
    line, send a payment request) change the surroundings through the official sync, which needs
    the agent's database: what the sync left after each call is data here (``device_syncs``,
    learned by replaying the same trajectories on the official environment), set on the device
    where the official sync changed it. The user DB hash at the end must be the official one."""
    results = json.loads(gzip.decompress((TELECOM / "results_telecom.json.gz").read_bytes()))
    syncs = json.loads(gzip.decompress((TELECOM / "device_syncs.json.gz").read_bytes()))
    assert syncs["tau2"] == "a2c0247"
    assert {sim["id"] for sim in results["simulations"]} == set(syncs["simulations"])
    failing, user_calls = {}, Counter[str]()
    for sim in results["simulations"]:
        sync = syncs["simulations"][sim["id"]]
        device, differences = UserDevice(), []
        for index, step in enumerate(syncs["starts"][sim["task_id"]]):
            differences += run_step(device, step, f"initialization step {index}")
        calls = [call for message in sim["messages"] for call in message.get("tool_calls") or []]
        answers = [message for message in sim["messages"] if message["role"] == "tool"]
        for index, (call, answer) in enumerate(zip(calls, answers, strict=True)):
            if call["requestor"] == "user":
                user_calls[sim["id"].rsplit("-", 1)[1]] += 1
                try:
                    content, error = device.call(call["name"], copy.deepcopy(call["arguments"])), False
                except Exception as exc:  # answered as the official environment answers
                    content, error = f"Error: {exc}", True
                if (unversioned(content), error) != (unversioned(answer["content"]), answer["error"]):
                    differences.append(f"call {index} {call['name']}: {content!r} != {answer['content']!r}")
            if str(index) in sync["after"]:
                set_surroundings(device, sync["after"][str(index)])
        if device.db_hash() != sync["hash"]:
            differences.append("the final user DB hash differs")
        if differences:
            failing[sim["id"]] = differences
    assert not failing, f"{len(failing)} simulations differ: " + json.dumps(
        dict(list(failing.items())[:3]), indent=1, ensure_ascii=False
    )
    assert user_calls["gold"] == 393 and sum(user_calls.values()) == 1971
