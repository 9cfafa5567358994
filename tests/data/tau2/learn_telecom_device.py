"""How the telecom user-device data here was learned: run with the official tau2 1.0.1 (a2c0247) in a
virtualenv of its own (see ``learn_official.py``), never in the test suite. ``TAU2_DATA_DIR`` points
at a copy of tau2-bench's ``data/``.

    TAU2_DATA_DIR=... python learn_telecom_device.py tools TOOLS_JSON
    TAU2_DATA_DIR=... python learn_telecom_device.py sequences OUT.json.gz PER_TASK PROBE_EVERY
    TAU2_DATA_DIR=... python learn_telecom_device.py syncs telecom/results_telecom.json.gz OUT.json.gz

``tools`` adds the user tools (``"telecom_user"``: ``Tool.openai_schema``, ``tool_type``,
``mutates_state`` of the official ``TelecomUserTools``) to the package's ``data/tools.json``.

``sequences`` records, for every telecom task (all 2285, not only ``base``), the official start of
a simulation: each initialization action run by the official environment (with its ``sync_tools``),
the user-side ones as steps with their results, the agent-side ones as the surroundings the sync
left (``line_active``, ``roaming_allowed``, ``mobile_data_usage_exceeded``, ``payment_request``).
Then, for ``PER_TASK`` seeded random sequences per task, steps on the user's device
alone: every user tool with right and wrong arguments (unknown apps, permissions, modes, APN
settings of every kind, unexpected or missing arguments, arguments of the wrong type), the
initialization functions, and changes of the surroundings and of device fields no tool sets (Wi-Fi
connected, SIM locked, signal where the user is), so every branch is reached. Each step records
its result (or the exception's type and text) and the first 16 hex digits of the official user-DB
hash after it; each sequence ends with every assertion function's result.

Probes reach the hidden rules more systematically: for every ``PROBE_EVERY``-th task (and as many
times from the shipped device itself, where more works than after a task's initialization), a state
with many fields set at once (Wi-Fi joined, data saver, a VPN fast or slow, airplane mode, a network
mode, Wi-Fi calling with MMS, a locked SIM, an APN to reset, the surroundings), its assertions, and
each of ``PROBE_CALLS`` on its own fresh copy of that state.

The official ``default_vpn_details`` is one object of the class, shared by every device of the
process and degraded by ``break_vpn``: it is made anew before each sequence, as in a process that
runs one simulation.
"""

import gzip
import json
import random
import sys
from pathlib import Path

import tau2.environment.db as db_module
from tau2.data_model.message import ToolCall
from tau2.data_model.tasks import EnvFunctionCall
from tau2.domains.telecom.environment import get_environment, get_tasks
from tau2.domains.telecom.user_data_model import (
    APNSettings,
    NetworkModePreference,
    NetworkTechnology,
    PaymentRequest,
    PerformanceLevel,
    SignalStrength,
    SimStatus,
    VpnDetails,
)
from tau2.domains.telecom.user_tools import TelecomUserTools

# Loading the agent's database is the slow part: parse each file once (validation still builds fresh models).
_RAW = {}
_load_file = db_module.load_file


def cached_load(cls, path):
    if path not in _RAW:
        _RAW[path] = _load_file(path)
    return cls.model_validate(_RAW[path])


db_module.DB.load = classmethod(cached_load)

SYNCED = ("line_active", "roaming_allowed", "mobile_data_usage_exceeded", "payment_request")
NO_ARGUMENTS = (
    "check_status_bar",
    "check_network_status",
    "check_network_mode_preference",
    "run_speed_test",
    "toggle_airplane_mode",
    "check_sim_status",
    "reseat_sim_card",
    "toggle_data",
    "toggle_roaming",
    "check_data_restriction_status",
    "toggle_data_saver_mode",
    "check_apn_settings",
    "reset_apn_settings",
    "check_wifi_status",
    "toggle_wifi",
    "check_wifi_calling_status",
    "toggle_wifi_calling",
    "check_vpn_status",
    "connect_vpn",
    "disconnect_vpn",
    "check_installed_apps",
    "can_send_mms",
    "reboot_device",
    "check_payment_request",
    "make_payment",
)
APPS = ("messaging", "browser", "messaging", "browser", "camera", "Messaging")
PERMISSIONS = ("sms", "storage", "phone", "network", "SMS", "Storage", "camera", "location")
MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only", "4g_5g_preferred", "4g_only", "5g", "LTE", "")
APNS = (
    {},
    {"apn_name": "internet"},
    {"apn_name": "broken"},
    {"apn_name": "internet", "mmsc_url": None},
    {"apn_name": "internet", "reset_at_reboot": True},
    {"apn_name": "internet", "mms_proxy": "10.0.0.1", "mms_port": 8080},
    {"apn_name": "internet", "mms_port": "8080"},
    {"apn_name": "fast"},
    {"apn_name": "internet", "mms_port": "eighty"},
    {"apn_name": "internet", "proxy": "x"},
    {"mmsc_url": 5},
)
SIGNALS = ("none", "poor", "fair", "good", "excellent")


def random_call(rng):
    """A user tool call: mostly right, sometimes wrong in one of the ways a model gets it wrong."""
    roll = rng.random()
    if roll < 0.55:
        name = rng.choice(NO_ARGUMENTS)
        return name, ({"verbose": True} if rng.random() < 0.03 else {})
    name = rng.choice(
        (
            "set_network_mode_preference",
            "check_app_status",
            "check_app_permissions",
            "grant_app_permission",
            "set_apn_settings",
        )
    )
    if name == "set_network_mode_preference":
        mode = rng.choice(MODES) if rng.random() < 0.9 else rng.choice((3, None, True, ["4g_only"]))
        return name, ({"mode": mode} if rng.random() < 0.95 else {})
    if name in ("check_app_status", "check_app_permissions"):
        app = rng.choice(APPS) if rng.random() < 0.95 else ["messaging"]
        return name, ({"app_name": app} if rng.random() < 0.95 else {"app": "messaging"})
    if name == "grant_app_permission":
        arguments = {"app_name": rng.choice(APPS), "permission": rng.choice(PERMISSIONS)}
        if rng.random() < 0.05:
            arguments["permission"] = 1
        if rng.random() < 0.05:
            del arguments["permission"]
        return name, arguments
    if rng.random() < 0.95:
        return name, {"apn_settings": dict(rng.choice(APNS))}
    return name, {"apn_settings": rng.choice(("internet", None, ["internet"]))}


def random_function(rng):
    """A non-tool function of the toolkit, as a task's initialization calls them."""
    name = rng.choice(
        (
            "set_user_location",
            "simulate_network_search",
            "turn_airplane_mode_on",
            "turn_airplane_mode_off",
            "unseat_sim_card",
            "lock_sim_card",
            "turn_data_on",
            "turn_data_off",
            "turn_roaming_on",
            "turn_roaming_off",
            "turn_data_saver_mode_on",
            "turn_data_saver_mode_off",
            "break_apn_settings",
            "break_apn_mms_setting",
            "set_wifi_calling",
            "break_vpn",
            "remove_app_permission",
            "set_user_info",
        )
    )
    arguments = {
        "set_user_location": lambda: {"abroad": rng.random() < 0.5},
        "lock_sim_card": lambda: {"mode": rng.choice(("pin", "puk", "pin2"))},
        "set_wifi_calling": lambda: {
            "enabled": rng.random() < 0.5,
            "mms_over_wifi": rng.choice((True, False, None)),
        },
        "remove_app_permission": lambda: {
            "app_name": rng.choice(APPS),
            "permission": rng.choice(("sms", "storage", "phone", "network", "SMS", "camera")),
        },
        "set_user_info": lambda: {"name": "Pat Doe", "phone_number": "555-000-0000"},
    }.get(name, lambda: {})()
    return name, arguments


def random_surroundings(rng):
    values = {}
    for key in ("line_active", "roaming_allowed", "mobile_data_usage_exceeded", "is_abroad"):
        if rng.random() < 0.3:
            values[key] = rng.random() < 0.5
    if rng.random() < 0.25:
        values["payment_request"] = rng.choice((None, {"bill_id": "B1001", "amount_due": rng.choice((45, 12.5, 0))}))
    if rng.random() < 0.2:
        values["signal_strength"] = {t: rng.choice(SIGNALS) for t in ("2G", "3G", "4G", "5G") if rng.random() < 0.8}
    return values or {"line_active": True}


def random_device_fields(rng):
    """Device fields no user tool sets (a Wi-Fi network joined, a SIM locked, a VPN profile...)."""
    choices = [
        {"wifi_connected": True, "wifi_ssid": rng.choice(("HomeNet", None)), "wifi_signal_strength": "good"},
        {"sim_card_status": rng.choice(("active", "locked_pin", "locked_puk"))},
        {"vpn_enabled_setting": rng.random() < 0.5},
        {"battery_level": rng.choice((5, 50, 100))},
    ]
    return rng.choice(choices)


def apply_surroundings(surroundings, values):
    for key, value in values.items():
        if key == "payment_request":
            value = None if value is None else PaymentRequest(**value)
        elif key == "signal_strength":
            value = {NetworkTechnology(t): SignalStrength(s) for t, s in value.items()}
        setattr(surroundings, key, value)


def random_setup(rng):
    """Many device fields and surroundings at once: the start of a probe."""
    device = {}
    if rng.random() < 0.5:
        device.update(
            wifi_enabled=True,
            wifi_connected=rng.random() < 0.7,
            wifi_ssid=rng.choice(("HomeNet", None)),
            wifi_signal_strength=rng.choice(SIGNALS),
        )
    if rng.random() < 0.4:
        device["data_saver_mode"] = True
    if rng.random() < 0.4:
        performance = rng.choice(("poor", "excellent", "unknown"))
        details = {"server_address": "10.8.0.1", "protocol": "WireGuard", "server_performance": performance}
        device.update(vpn_connected=True, vpn_details=rng.choice((details, details, None)))
    if rng.random() < 0.3:
        device["airplane_mode"] = rng.random() < 0.5
    if rng.random() < 0.3:
        device["network_mode_preference"] = rng.choice(MODES[:4])
    if rng.random() < 0.3:
        device.update(wifi_calling_enabled=rng.random() < 0.5, wifi_calling_mms_over_wifi=rng.random() < 0.5)
    if rng.random() < 0.2:
        device["sim_card_status"] = rng.choice(("locked_pin", "locked_puk"))
    if rng.random() < 0.2:
        device["active_apn_settings"] = {"apn_name": "internet", "reset_at_reboot": True, "mmsc_url": None}
    if rng.random() < 0.2:
        device["data_enabled"] = False
    if rng.random() < 0.2:
        device["roaming_enabled"] = True
    steps = [{"kind": "device", "values": device}, {"kind": "surroundings", "values": random_surroundings(rng)}]
    if rng.random() < 0.5:
        steps.append({"kind": "function", "name": "simulate_network_search", "arguments": {}})
    return steps


#: What each probe calls, each on its own fresh copy of the probe's state.
PROBE_CALLS = (
    [("tool", name, {}) for name in NO_ARGUMENTS]
    + [("tool", "set_network_mode_preference", {"mode": mode}) for mode in MODES[:5]]
    + [
        ("tool", "check_app_status", {"app_name": "messaging"}),
        ("tool", "check_app_permissions", {"app_name": "messaging"}),
        ("tool", "grant_app_permission", {"app_name": "messaging", "permission": "storage"}),
        ("tool", "grant_app_permission", {"app_name": "messaging", "permission": "sms"}),
        ("tool", "set_apn_settings", {"apn_settings": {"apn_name": "internet"}}),
        ("tool", "set_apn_settings", {"apn_settings": {"apn_name": "broken"}}),
        ("function", "turn_airplane_mode_on", {}),
        ("function", "turn_airplane_mode_off", {}),
        ("function", "turn_data_on", {}),
        ("function", "turn_data_off", {}),
        ("function", "turn_roaming_on", {}),
        ("function", "turn_roaming_off", {}),
        ("function", "turn_data_saver_mode_on", {}),
        ("function", "turn_data_saver_mode_off", {}),
        ("function", "break_vpn", {}),
        ("function", "break_apn_settings", {}),
        ("function", "break_apn_mms_setting", {}),
        ("function", "unseat_sim_card", {}),
        ("function", "set_wifi_calling", {"enabled": True, "mms_over_wifi": True}),
    ]
)


def apply_device_fields(device, values):
    enums = {
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
        setattr(device, key, value)


def short_hash(tools):
    return tools.get_db_hash()[:16]


def outcome(run, *args, **kwargs):
    try:
        return {"result": plain(run(*args, **kwargs))}
    except Exception as exc:  # the official environment answers every exception
        return {"error": type(exc).__name__, "message": str(exc)}


def plain(value):
    return list(value) if isinstance(value, tuple) else value


def synced(surroundings):
    values = {}
    for key in SYNCED:
        value = getattr(surroundings, key)
        values[key] = value.model_dump() if key == "payment_request" and value is not None else value
    return values


ASSERTIONS = (
    [("assert_airplane_mode_status", {"expected_status": True})]
    + [("assert_service_status", {"expected_status": s}) for s in ("connected", "searching", "no_service", "x")]
    + [
        ("assert_mobile_data_status", {"expected_status": True}),
        ("assert_mobile_roaming_status", {"expected_status": True}),
        ("assert_mobile_data_saver_mode_status", {"expected_status": True}),
        ("assert_internet_speed", {"expected_speed": 200, "expected_desc": "excellent"}),
        ("assert_internet_speed", {"expected_speed": 1.5}),
        ("assert_internet_speed", {"expected_speed": 0, "expected_desc": "Fair"}),
        ("assert_internet_not_excellent", {}),
        ("assert_can_send_mms", {"expected_status": True}),
        ("assert_mobile_data_usage_exceeded", {"expected_status": True}),
    ]
)


def start(task):
    """A fresh official environment initialized for the task, and the user-side steps it took."""
    TelecomUserTools.default_vpn_details = VpnDetails(
        server_address="192.168.1.1", protocol="OpenVPN", server_performance=PerformanceLevel.EXCELLENT
    )
    env = get_environment()
    tools = env.user_tools
    steps = []
    for action in (task.initial_state.initialization_actions or []) if task is not None else []:
        call = EnvFunctionCall(**action.model_dump())
        before = synced(tools.db.surroundings)
        result = outcome(env.run_env_function_call, call)
        after = synced(tools.db.surroundings)
        if action.env_type == "user":
            steps.append({"kind": "function", "name": action.func_name, "arguments": action.arguments, **result})
            if after != before:  # the sync after the call changed the surroundings
                steps.append({"kind": "surroundings", "values": after})
        else:
            steps.append({"kind": "surroundings", "values": after})
        steps[-1]["hash"] = short_hash(tools)
    return tools, steps


def run_step(tools, step):
    """Apply a recorded step (without a result) to the official device; the step gets its outcome."""
    if step["kind"] == "tool":
        step.update(outcome(tools.use_tool, step["name"], **json.loads(json.dumps(step["arguments"]))))
    elif step["kind"] == "function":
        step.update(outcome(getattr(tools, step["name"]), **json.loads(json.dumps(step["arguments"]))))
    elif step["kind"] == "surroundings":
        apply_surroundings(tools.db.surroundings, step["values"])
    else:
        apply_device_fields(tools.db.device, step["values"])
    step["hash"] = short_hash(tools)
    return step


def probe(task, seed):
    """One state (the task's initialization, then many fields set at once), and each probe call's
    outcome on its own fresh copy of that state (the state is rebuilt for each)."""
    rng = random.Random(seed)
    setup = random_setup(rng)
    tools, steps = start(task)
    for step in setup:
        run_step(tools, step)
    state_assertions = assertions(tools)
    calls = []
    for kind, name, arguments in PROBE_CALLS:
        tools, _ = start(task)
        for step in setup:
            run_step(tools, dict(step))
        calls.append(run_step(tools, {"kind": kind, "name": name, "arguments": arguments}))
    return {
        "task_id": task.id if task is not None else None,
        "seed": seed,
        "steps": steps + setup,
        "assertions": state_assertions,
        "calls": calls,
    }


def sequence(task, seed, steps_after):
    tools, steps = start(task)
    rng = random.Random(seed)
    for _ in range(steps_after):
        roll = rng.random()
        if roll < 0.75:
            name, arguments = random_call(rng)
            step = {"kind": "tool", "name": name, "arguments": arguments}
        elif roll < 0.87:
            name, arguments = random_function(rng)
            step = {"kind": "function", "name": name, "arguments": arguments}
        elif roll < 0.95:
            step = {"kind": "surroundings", "values": random_surroundings(rng)}
        else:
            step = {"kind": "device", "values": random_device_fields(rng)}
        steps.append(run_step(tools, step))
    return {
        "task_id": task.id,
        "seed": seed,
        "steps": steps,
        "assertions": assertions(tools),
        "hash": tools.get_db_hash(),
    }


def assertions(tools):
    return [
        {"name": name, "arguments": arguments, **outcome(getattr(tools, name), **arguments)}
        for name, arguments in ASSERTIONS
    ]


def learn_syncs(results_path, path):
    """For each simulation of a results file (``telecom/results_telecom.json.gz``), what the agent's
    side did to the user's surroundings: the official environment replays the trajectory's tool
    calls live (``get_response``, which syncs after each), and the surroundings are recorded after
    every call that changed them; the task's initialization is recorded as ``start`` records it.
    Each call's answer is checked against the one in the file."""
    with gzip.open(results_path, "rt", encoding="utf-8") as handle:
        results = json.load(handle)
    tasks = {task.id: task for task in get_tasks(None)}
    starts, simulations = {}, {}
    for sim in results["simulations"]:
        task = tasks[sim["task_id"]]
        tools, steps = start(task)
        starts[task.id] = steps
        env = rebuilt(task)
        assert env.user_tools.get_db_hash() == tools.get_db_hash()
        after = {}
        calls = [c for m in sim["messages"] for c in (m.get("tool_calls") or [])]
        answers = [m for m in sim["messages"] if m["role"] == "tool"]
        for index, (call, answer) in enumerate(zip(calls, answers, strict=True)):
            before = synced(env.user_tools.db.surroundings)
            response = env.get_response(ToolCall(**call))
            assert response.content == answer["content"], (sim["id"], index)
            now = synced(env.user_tools.db.surroundings)
            if now != before:
                after[str(index)] = now
        simulations[sim["id"]] = {"task_id": task.id, "after": after, "hash": env.user_tools.get_db_hash()}
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"tau2": "a2c0247", "starts": starts, "simulations": simulations}, handle, separators=(",", ":"))


def rebuilt(task):
    """The official environment as the orchestrator initializes it for the task."""
    TelecomUserTools.default_vpn_details = VpnDetails(
        server_address="192.168.1.1", protocol="OpenVPN", server_performance=PerformanceLevel.EXCELLENT
    )
    env = get_environment()
    env.set_state(
        initialization_data=task.initial_state.initialization_data,
        initialization_actions=task.initial_state.initialization_actions,
        message_history=[],
    )
    return env


def learn_tools(path):
    tools = get_environment().user_tools
    entries = [
        {
            "schema": tool.openai_schema,
            "mutates_state": tools.tool_mutates_state(name),
            "tool_type": tools.tool_type(name).value,
        }
        for name, tool in sorted(tools.get_tools().items())
    ]
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    data["telecom_user"] = entries
    Path(path).write_text(json.dumps(data, indent=1), encoding="utf-8")


def learn_sequences(path, per_task, probe_every):
    tasks = get_tasks(None)
    sequences = []
    for index, task in enumerate(tasks):
        for trial in range(per_task):
            sequences.append(sequence(task, seed=index * 100 + trial, steps_after=20))
    probes = [probe(task, seed=index * 100 + 99) for index, task in enumerate(tasks) if index % probe_every == 0]
    # and from the shipped device itself, where more works (the tasks' initializations break it)
    probes += [probe(None, seed=1_000_000 + index) for index in range(len(tasks) // probe_every)]
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"tau2": "a2c0247", "sequences": sequences, "probes": probes}, handle, separators=(",", ":"))


if __name__ == "__main__":
    if sys.argv[1] == "tools":
        learn_tools(sys.argv[2])
    elif sys.argv[1] == "syncs":
        learn_syncs(sys.argv[2], sys.argv[3])
    else:
        learn_sequences(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
