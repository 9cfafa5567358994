"""Model output can reach nothing but the declared API methods, and changes nothing else.

The official runtime ``eval``s rebuilt call text in its own namespace, so there a reply can open
files, import modules or reach private attributes. Here every reply below goes through the real
parse -> dispatch path, on every class and in both modes, and we check that (1) a marker file is
never created, (2) no code of the simulated classes runs at all (a profiler watches), (3) every
instance is unchanged, state and non-state attributes alike, and the API tables are intact.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.agents.dispatch import MULTI_STEP, MULTI_TURN, PURE_BUILTINS, execute
from pytest_toolcall.benchmarks.acebench.agents.envs import API, Environment
from pytest_toolcall.benchmarks.acebench.agents.envs import phone as phone_module
from pytest_toolcall.benchmarks.acebench.agents.parse import ReplyError, parse_reply

ENVS_DIR = str(Path(phone_module.__file__).parent)
ALL_CLASSES = ["BaseApi", "MessageApi", "ReminderApi", "FoodPlatform", "Travel"]
MARKER = "MARKER_FILE"

# Each would create the marker file, run a command, or reach a non-API attribute if evaluated.
ATTACKS = [
    # builtins and imports as the called name
    f"[open(file='{MARKER}', mode='w')]",
    "[__import__(name='os')]",
    f"[exec(source=\"open('{MARKER}', 'w')\")]",
    f"[eval(source=\"open('{MARKER}', 'w')\")]",
    "[getattr(o=1, name='x')]",
    "[globals()]",
    "[breakpoint()]",
    # attribute chains
    "[os.system(command='touch MARKER_FILE')]",
    "[os.turn_on_wifi()]",
    "[self.__dict__.clear()]",
    "[self.__dict__.turn_on_wifi()]",
    "[self.inbox.clear()]",
    "[inbox.clear()]",
    "[turn_on_wifi.__globals__.clear()]",
    "[send_message.__self__.inbox.clear()]",
    "[login_device.__call__()]",
    "[BaseApi.turn_on_wifi()]",
    "[__import__('os').system('touch MARKER_FILE')]",
    "[().__class__.__base__.__subclasses__()]",
    "[(lambda: 0)()]",
    "[f()(message_id='turn_on_wifi(')]",
    # dunder and private names, attributes that are not methods, our own helpers
    "[__init__(lang='en')]",
    "[__class__()]",
    "[__dict__()]",
    "[_load(scenario=dict(wifi=True, logged_in=False))]",
    "[_t(key='wifi_on')]",
    "[_extreme(later=True)]",
    "[_first_flight(flight_no='CA1234')]",
    "[_allowance_table()]",
    "[inbox()]",
    "[max_capacity()]",
    "[merchant_list(x=1)]",
    "[flights()]",
    "[api()]",
    "[capture()]",
    "[owners()]",
    # dangerous nested calls inside arguments of real methods
    f"[turn_on_wifi(x=open(file='{MARKER}', mode='w'))]",
    "[login_device(x=__import__(name='os'))]",
    f"[send_message(sender_name='Eve', receiver_name='Frank', message=open(file='{MARKER}', mode='w'))]",
    "[send_message(sender_name='Eve', receiver_name='Frank', "
    f"message={{'open': {{'file': '{MARKER}', 'mode': 'w'}}}})]",
    "[check_balance(user_name=print(sep='x'))]",
    "[reserve_flight(user_id=getattr(o='x', name='y'), password='p', flight_no='CA1234', cabin='Economy Class', "
    "payment_method='bank', baggage_count=1)]",
    "[delete_message(message_id=is_empty_execute_response(input_list=[]))]",
    "[add_reminder(title=execute_agent_func_call(func_call_list=[]), description='d', time='t')]",
    "[modify_flight(user_id=method(user_name='Eve'), reservation_id='res_1')]",
    # arithmetic and lambdas that would run code under eval()
    f"[delete_message(message_id=__import__('os').system('touch {MARKER}') + 1)]",
    f"[delete_message(message_id=len(open('{MARKER}', 'w').name) * 2)]",
    "[delete_message(message_id=lambda: __import__('os'))]",
    "[delete_message(message_id=(1).__class__)]",
    "[delete_message(message_id=[x for x in ().__class__.__mro__])]",
    "[delete_message(**{'message_id': 4, '__class__': 1})]",
]


class Tracer:
    """Records every Python function entered whose code lives in the simulated classes' package."""

    def __init__(self) -> None:
        self.entered: list[str] = []

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(ENVS_DIR):
            self.entered.append(frame.f_code.co_qualname)

    def run(self, fn: Any, *args: Any) -> Any:
        sys.setprofile(self)
        try:
            return fn(*args)
        finally:
            sys.setprofile(None)


def _attempt(env: Environment, reply: str, mode: str) -> Any:
    try:
        calls = parse_reply(reply)
    except ReplyError:
        return "unparseable"
    return execute(env, calls, mode)


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("mode", [MULTI_STEP, MULTI_TURN])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("reply", ATTACKS)
def test_attack_reaches_nothing(reply: str, lang: str, mode: str, in_tmp: Path) -> None:
    env = Environment(lang, ALL_CLASSES, {"BaseApi": {"wifi": True, "logged_in": True}})
    before = {name: copy.deepcopy(vars(instance)) for name, instance in env.instances.items()}
    owners_before = {name: [(id(i), f) for i, f in owners] for name, owners in env.owners.items()}
    api_before = {key: dict(table) for key, table in API.items()}
    builtins_before = dict(PURE_BUILTINS)

    tracer = Tracer()
    outcome = tracer.run(_attempt, env, reply, mode)

    assert not (in_tmp / MARKER).exists()
    assert not any(in_tmp.iterdir()), "the reply created a file"
    assert tracer.entered == [], f"simulated-class code ran: {tracer.entered}"
    assert {name: vars(instance) for name, instance in env.instances.items()} == before
    assert {name: [(id(i), f) for i, f in owners] for name, owners in env.owners.items()} == owners_before
    assert API == api_before and PURE_BUILTINS == builtins_before
    if outcome != "unparseable":  # a reply that parses fails or runs nothing, call by call
        assert all(record.outcome in ("error", "unknown") for record in outcome.calls)


def test_the_tracer_sees_real_api_calls() -> None:
    """Positive control: a legitimate call is seen entering the simulated classes."""
    env = Environment("en", ALL_CLASSES, {})
    tracer = Tracer()
    tracer.run(_attempt, env, "[turn_on_wifi()]", MULTI_STEP)
    assert "BaseApi.turn_on_wifi" in tracer.entered
    assert all(instance.wifi is True for name, instance in env.instances.items() if name != "Travel")


@pytest.mark.parametrize(
    ("argument", "received"),
    [
        ("__import__('os').system('touch MARKER_FILE')", "__import__('os').system('touch MARKER_FILE')"),
        ("open('MARKER_FILE', 'w')", "open('MARKER_FILE', 'w')"),
        ("().__class__.__subclasses__()", "().__class__.__subclasses__()"),
        ("x[__import__('os')]", "x[__import__('os')]"),
    ],
)
def test_code_in_arguments_arrives_as_text(argument: str, received: str, in_tmp: Path) -> None:
    """A keyword-less nested call or a subscript becomes its source text (official quirk): data."""
    env = Environment("en", ALL_CLASSES, {})
    run = execute(env, parse_reply(f"[view_reminder_by_title(title={argument})]"), MULTI_STEP)
    assert run.message == [{"status": False, "message": f"No reminder found with the title '{received}'."}]
    assert not (in_tmp / MARKER).exists()


def test_declared_api_is_the_only_reachable_surface() -> None:
    """The dispatch table holds exactly the methods each class declares, no private names."""
    env = Environment("zh", ALL_CLASSES, {})
    names = set(env.owners)
    assert not any(name.startswith("_") for name in names)
    declared = {name for (cls, lang), table in API.items() if lang == "zh" for name in table}
    assert names == declared
    assert {"capture", "owners", "inbox", "flights", "api"}.isdisjoint(names)
