"""Unit behaviour of the agent core, rule by rule of the official runtime (the end-to-end agreement
with the official code is in ``test_agents_official.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import SHIPPED_ROOT
from pytest_toolcall.benchmarks.acebench.agents import (
    AGENT_SAMPLING,
    FINISH,
    format_transcript,
    oracle_agent,
    oracle_user,
    run_multi_step,
    run_multi_turn,
    score_agent,
    score_rollout,
)
from pytest_toolcall.benchmarks.acebench.agents.dispatch import (
    MULTI_STEP,
    MULTI_TURN,
    TURN_ERROR_TEXT,
    UNBOUND_TEXT,
    execute,
)
from pytest_toolcall.benchmarks.acebench.agents.envs import Environment, StateError
from pytest_toolcall.benchmarks.acebench.agents.oracle import first_path
from pytest_toolcall.benchmarks.acebench.agents.parse import ReplyError, parse_reply
from pytest_toolcall.benchmarks.acebench.agents.prompts import strip_speaker, user_seed_messages
from pytest_toolcall.benchmarks.acebench.agents.rollout import UNPARSEABLE_REPLY
from pytest_toolcall.benchmarks.acebench.agents.scoring import check_end_state, process_score
from pytest_toolcall.benchmarks.acebench.dataset import Sample, load_category
from pytest_toolcall.benchmarks.acebench.prompts import Prompts

PHONE = ["BaseApi", "MessageApi", "ReminderApi", "FoodPlatform"]


def run(env: Environment, reply: str, mode: str = MULTI_STEP) -> Any:
    return execute(env, parse_reply(reply), mode).message


# --- parsing ---------------------------------------------------------------------------------------

PARSED = [
    ("[a()]", ["a"]),
    (" [a()]", ["a"]),
    ("[[a()]]", ["a"]),
    ("['a()']", ["a"]),
    ("a(x=1), b(y=2)", ["a", "b"]),
    ("a(x=1)", ["a"]),
    ("Done", []),
    ("42", []),
    ("'text'", []),
    ("{a(), b()}", []),  # a set display is "any other expression": zero calls
    ("[os.system(command='ls')]", ["os.system"]),
]
UNPARSEABLE = [
    *("", "  [a()]", "\n[a()]", "[a()]\n", "[a()] ", "[]", "```\n[a()]\n```", "[a(), 5]", "finish conversation"),
    *("[f(x={'k': 'v'})]", "[f(x={})]", "[f(**{'a': 1})]", "[f(x=lambda: 1)]", "[f(x=y.z)]", "[f(x=10**5000)]"),
]


@pytest.mark.parametrize(("reply", "names"), PARSED)
def test_parse(reply: str, names: list[str]) -> None:
    assert [call.name for call in parse_reply(reply)] == names


@pytest.mark.parametrize("reply", UNPARSEABLE)
def test_unparseable(reply: str) -> None:
    with pytest.raises(ReplyError):
        parse_reply(reply)


@pytest.mark.parametrize(
    ("reply", "arguments"),
    [
        ("[f(1, 2, x=3)]", {"x": 3}),  # positional arguments dropped
        ("[f(x=+4)]", {"x": -4}),  # every unary operator negates
        ("[f(x=2*3)]", {"x": 6}),
        ("[f(x=str(1))]", {"x": "str(1)"}),  # keyword-less call -> source text
        ("[f(x=g(a=1))]", {"x": {"g": {"a": 1}}}),
        ("[f(x=[{'k': 'v'}])]", {"x": [{"k": "v"}]}),  # dicts inside lists are fine
        ("[f(x=Paris)]", {"x": "Paris"}),
        ("[f(x=a[0])]", {"x": "a[0]"}),
        ("[f(**k)]", {None: "k"}),
    ],
)
def test_parse_arguments(reply: str, arguments: dict[Any, Any]) -> None:
    assert parse_reply(reply)[0].arguments == arguments


# --- environments and dispatch ------------------------------------------------------------------


def test_config_twice_base_entry_wins_and_typo_means_defaults() -> None:
    env = Environment("zh", ["BaseApi", "FoodPlatform"], {"FoodPlatform": {"logged_in_users": ["Eve"], "wifi": True}})
    food = env.instances["FoodPlatform"]
    assert (food.wifi, food.logged_in, food.logged_in_users) == (False, True, [])  # reset by the BaseApi load
    typo = Environment("zh", ["BaseApi"], {"Baspi": {"wifi": True, "logged_in": False}})
    assert (typo.instances["BaseApi"].wifi, typo.instances["BaseApi"].logged_in) == (False, True)


def test_broadcast_runs_on_every_owner() -> None:
    env = Environment("en", PHONE, {"BaseApi": {"wifi": False, "logged_in": False}})
    assert run(env, "[turn_on_wifi(), login_device()]") == [
        {"status": True, "message": "Wi-Fi has been turned on"},
        {"status": True, "message": "Device has been logged in"},
    ]
    assert all(i.wifi is True and i.logged_in is True for i in env.instances.values())


def test_unknown_names_stale_result_and_unbound_error() -> None:
    env = Environment("en", ["BaseApi", "FoodPlatform"], {})
    assert run(env, "[nope()]") == [f"Error during execution: {UNBOUND_TEXT}"]
    assert run(env, "[check_balance(user_name='Eve'), nope(), search_reminders(keyword='x')]") == [500.0, 500.0, 500.0]


def test_python_error_texts() -> None:
    env = Environment("en", PHONE, {"BaseApi": {"wifi": True}})
    assert run(env, "[turn_on_wifi(x=1), send_message(sender_name='Eve'), delete_message(message_id=[4])]") == [
        "Error during execution: BaseApi.turn_on_wifi() got an unexpected keyword argument 'x'",
        "Error during execution: MessageApi.send_message() missing 2 required positional arguments: "
        "'receiver_name' and 'message'",
        "Error during execution: unhashable type: 'list'",
    ]
    assert run(env, "[get_products(merchant_name=1e999)]") == ["Error during execution: name 'inf' is not defined"]


def test_multi_turn_error_stops_the_batch_and_keeps_earlier_effects() -> None:
    env = Environment("en", PHONE, {"BaseApi": {"wifi": False}})
    result = execute(env, parse_reply("[turn_on_wifi(), delete_message(4), login_device()]"), MULTI_TURN)
    assert result.aborted and result.message == list(TURN_ERROR_TEXT)
    assert env.instances["BaseApi"].wifi is True
    assert [c.outcome for c in result.calls] == ["ok", "error"]


def test_inbox_full_sent_messages_without_time_and_time_lookups_crash() -> None:
    env = Environment("en", PHONE, {"BaseApi": {"wifi": True}})
    send = "[send_message(sender_name='Eve', receiver_name='Frank', message='hi')]"
    assert run(env, send)[0]["message"].startswith("Inbox capacity is full")
    assert run(env, "[delete_message(message_id=4)]" + "")[0]["status"] is True
    assert run(env, send) == [{"status": True, "message": "Message successfully sent to Frank."}]
    assert env.instances["MessageApi"].inbox[7] == {"sender_id": "USR100", "receiver_id": "USR101", "message": "hi"}
    assert run(env, "[get_latest_message_id()]") == ["Error during execution: 'time'"]
    assert env.capture()[1]["MessageApi"]["inbox"]["7"]["message"] == "hi"  # int keys become strings


def test_zh_order_refuses_a_total_equal_to_the_balance() -> None:
    order = (
        "[add_food_delivery_order(username='Jack', merchant_name='{m}', items=[{{'product': '{p}', 'quantity': 8}}])]"
    )
    for lang, merchant, product, ok in (
        ("en", "Hema Fresh", "Organic Vegetable Pack", True),
        ("zh", "盒马生鲜", "有机蔬菜包", False),
    ):
        env = Environment(lang, ["BaseApi", "FoodPlatform"], {"BaseApi": {"wifi": True}})
        run(env, "[login_food_platform(username='Jack', password='password654')]")
        assert run(env, order.format(m=merchant, p=product))[0]["status"] is ok


def test_travel_quirks() -> None:
    env = Environment("en", ["Travel"], {})
    travel = env.instances["Travel"]
    refund = run(env, "[cancel_reservation(user_id='user1', reservation_id='res_1', reason='x')]")
    assert refund == ["More than 24 hours before departure. Free cancellation successful, 1200 yuan has been refunded."]
    assert travel.users["user1"]["cash_balance"] == 3200.0 and len(travel.reservations) == 4  # kept
    change = (
        "[modify_flight(user_id='user1', reservation_id='res_2', new_flight_no='CZ4352', new_cabin='Economy Class')]"
    )
    assert run(env, change) == [
        "Flight number has been changed. Cabin change successful. Price difference refunded: 1100."
    ]
    bad = (
        "[reserve_flight(user_id='user1', password='x', flight_no='CA1234', cabin='Economy Class', "
        "payment_method='bank', baggage_count=1)]"
    )
    assert run(env, bad) == ["Error during execution: 'membership_level'"]


def test_unserialisable_state() -> None:
    env = Environment("en", PHONE, {"BaseApi": {"wifi": True}})
    run(env, "[delete_message(message_id=4), send_message(sender_name='Eve', receiver_name='Frank', message=b'x')]")
    with pytest.raises(StateError):
        env.capture()


# --- scoring ---------------------------------------------------------------------------------------

GT = [{"BaseApi": {"wifi": True, "logged_in": True}}, {"MessageApi": {"inbox": {"3": {"message": "a", "time": "t"}}}}]


def test_end_state_rules() -> None:
    state = [
        {"BaseApi": {"wifi": True, "logged_in": True}},
        {"MessageApi": {"inbox": {"3": {"message": "b", "time": "t"}, "9": {}}}},
    ]
    valid, error, differences, _ = check_end_state(GT, state)
    assert (valid, error) == (False, "class attributes wrong")
    assert differences == ["MessageApi.inbox['3'].message: expected 'a', got 'b'"]
    state[1]["MessageApi"]["inbox"]["3"]["message"] = "a"
    assert check_end_state(GT, state)[0]  # extra key "9" is not graded
    assert check_end_state(GT, state[:1])[1] == "wrong number of class"
    assert check_end_state(GT, [])[1] == "wrong number of class"
    typo = [GT[0], {"Reminderpi": {"reminder_list": {}}}]
    valid, _, _, ungraded = check_end_state(typo, [GT[0], {"ReminderApi": {"reminder_list": {"1": "anything"}}}])
    assert valid and ungraded == ["Reminderpi"]
    extra_attr = [GT[0], {"MessageApi": {"inbox": GT[1]["MessageApi"]["inbox"], "other": 1}}]
    assert not check_end_state(GT, extra_attr)[0]  # an attribute the ground truth lacks fails
    assert check_end_state([{"X": {"n": 412}}], [{"X": {"n": 412.0}}])[0]


def test_process_score_rules() -> None:
    assert process_score(["[a()]", "[x()]", " [b()] "], ["[a()]", "[b()]", "[c()]"]) == 2 / 3  # not rounded
    assert process_score(["[b()]", "[a()]"], ["[a()]", "[b()]"]) == 0.5  # in order, greedy
    assert process_score(["[a()]"], [["[a()]", "[b()]", "[c()]"], ["[z()]"]]) == 0.333  # per-path rounding, max
    assert process_score([], []) == 1.0
    result = score_agent(GT, ["[a()]"], [], ["[a()]"])
    assert not result.passed and result.process == 1.0 and "wrong number of class" in result.message
    assert score_agent(GT, ["[zzz()]"], GT, []).process == 1.0  # correct end state -> 1.0


# --- loops, prompts, oracle ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def prompts(acebench_root: Path) -> Prompts:
    return Prompts.load(acebench_root)


def sample(lang: str, category: str, n: int) -> Sample:
    return load_category(SHIPPED_ROOT, lang, category)[n]


def test_multi_step_loop(prompts: Prompts) -> None:
    s = sample("en", "agent_multi_step", 3)
    seen: list[list[dict[str, str]]] = []

    def agent(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return ["I will log in.", "[login_food_platform(username='Jack', password='password654')]", FINISH][
            len(seen) - 1
        ]

    rollout = run_multi_step(s, prompts, agent)
    assert [m.content for m in rollout.transcript][2] == UNPARSEABLE_REPLY
    assert rollout.process == ["I will log in.", "[login_food_platform(username='Jack', password='password654')]"]
    assert rollout.finished and rollout.end_state is not None
    assert seen[0][0]["content"].startswith("You are an AI system")  # the sample's language by default
    assert "agent:" not in seen[-1][1]["content"]  # multi_step agents never see their own replies
    assert seen[-1][1]["content"].endswith(f"execution result:{rollout.transcript[4].content}\n\n")
    assert AGENT_SAMPLING == {"temperature": 0.001, "top_p": 1, "max_tokens": 1000}
    merged = run_multi_step(s, prompts, lambda m: seen.append(m) or FINISH, merge_system=True)
    assert len(seen[-1]) == 1 and seen[-1][0]["role"] == "user" and merged.end_state == []


def test_multi_turn_loop_routing_and_user_view(prompts: Prompts) -> None:
    s = sample("en", "agent_multi_turn", 3)
    replies = iter(["agent: Which message?", "Sure [get_earliest_message_id()]", "[get_earliest_message_id()]", FINISH])
    user_view: list[list[dict[str, str]]] = []

    def user(messages: list[dict[str, str]]) -> str:
        user_view.append(messages)
        return "Hi, I need help." if len(user_view) == 1 else "The oldest one."

    rollout = run_multi_turn(s, prompts, lambda m: next(replies), user)
    assert [(m.sender, m.recipient) for m in rollout.transcript] == [
        ("user", "agent"), ("agent", "user"), ("user", "agent"), ("agent", "user"), ("user", "agent"),
        ("agent", "execution"), ("execution", "agent"), ("agent", "user"),
    ]  # fmt: skip
    assert rollout.process == ["[get_earliest_message_id()]"]
    assert user_view[0] == user_seed_messages(prompts, "en", s.first.row["involved_classes"], s.first.row["question"])
    assert user_view[1][-1] == {"role": "user", "content": " Which message?"}  # "agent:" prefix removed
    assert user_view[1][-2] == {"role": "system", "content": "Hi, I need help."}
    assert strip_speaker("user:x") == "x" and strip_speaker("x user:") == "x user:"


def test_message_cap(prompts: Prompts) -> None:
    s = sample("zh", "agent_multi_step", 3)
    rollout = run_multi_step(s, prompts, lambda m: "[check_balance(user_name='Jack')]", max_turns=7)
    assert len(rollout.transcript) == 8 and not rollout.finished and len(rollout.process) == 3


def test_fresh_environment_per_rollout(prompts: Prompts) -> None:
    s = sample("en", "agent_multi_step", 3)
    first = run_multi_step(s, prompts, oracle_agent(s))
    second = run_multi_step(s, prompts, oracle_agent(s))
    assert first.end_state == second.end_state
    assert score_rollout(s, second).passed


def test_oracle_and_transcript(prompts: Prompts) -> None:
    s = sample("en", "agent_multi_turn", 8)
    path = first_path(s.first.answer["mile_stone"])
    agent = oracle_agent(s)
    assert [agent([]) for _ in range(len(path) + 2)] == [*path, FINISH, FINISH]
    user = oracle_user(s)
    assert user([]) == s.first.row["question"] and FINISH not in user([])
    rollout = run_multi_turn(s, prompts, oracle_agent(s), oracle_user(s))
    result = score_rollout(s, rollout)
    assert not result.passed and result.process == 0.75  # "Domino's" milestone never executes
    text = format_transcript(rollout)
    assert "login_food_platform(username='Grace', password='password789') -> " in text
    assert "agent -> user: [add_food_delivery_order(username='Grace', merchant_name='Domino's'" in text
    assert "FoodPlatform.orders: expected 1 item(s)" in result.message


def test_a_dialogue_stuck_in_a_loop_is_shown_once_with_its_count(prompts: Prompts) -> None:
    s = sample("en", "agent_multi_step", 0)
    rollout = run_multi_step(s, prompts, lambda messages: "[turn_on_wifi()]", max_turns=12)
    assert len(rollout.transcript) == 13  # the opening message, then six reply/result pairs
    text = format_transcript(rollout)
    assert text.count("agent -> execution: [turn_on_wifi()]") == 1
    assert "... the same 2 message(s) 5 more time(s), up to message 12" in text
    assert text.endswith("[message cap reached; 6 replies executed]")
