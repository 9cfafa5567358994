"""The environments: tool answers and error texts, the state comparison against the official hash,
int versus float, replay rules, the calculator without eval."""

from __future__ import annotations

import inspect
import json

import pytest

from pytest_toolcall.benchmarks.tau2.airline import AirlineTools
from pytest_toolcall.benchmarks.tau2.calculator import calculate
from pytest_toolcall.benchmarks.tau2.environment import Environment, ReplayError, to_json_str, tool_specs
from pytest_toolcall.benchmarks.tau2.retail import RetailTools
from pytest_toolcall.benchmarks.tau2.telecom import TelecomTools


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"id": "c1", "name": name, "arguments": arguments, "requestor": "assistant"}


@pytest.mark.parametrize(
    ("domain", "toolkit"), [("airline", AirlineTools), ("retail", RetailTools), ("telecom", TelecomTools)]
)
def test_every_tool_has_the_official_parameters(domain: str, toolkit: type) -> None:
    for name, spec in tool_specs(domain).items():
        parameters = spec.schema["function"]["parameters"]
        signature = inspect.signature(getattr(toolkit, name))
        assert list(signature.parameters)[1:] == list(parameters.get("properties", {})), name
        assert set(parameters.get("required", [])) == {
            p for p, v in signature.parameters.items() if p != "self" and v.default is inspect.Parameter.empty
        }, name


def test_answers_and_errors() -> None:
    env = Environment("airline")
    assert (
        env.get_response(call("get_flight_status", flight_number="HAT001", date="2024-05-16"))["content"] == "available"
    )
    missing = env.get_response(call("get_user_details", user_id="nobody"))
    assert missing == {
        "role": "tool",
        "id": "c1",
        "content": "Error: User nobody not found",
        "requestor": "assistant",
        "error": True,
    }
    unknown = env.get_response(call("refund_everything"))
    assert unknown["content"] == "Error: Tool 'refund_everything' not found." and unknown["error"]
    wrong = env.get_response(call("get_user_details", id="x"))
    assert wrong["content"] == "Error: AirlineTools.get_user_details() got an unexpected keyword argument 'id'"
    user = env.get_response({**call("get_user_details", user_id="x"), "requestor": "user"})
    assert user["content"] == "Error: User tools not available"
    airports = json.loads(env.get_response(call("list_all_airports"))["content"])
    assert airports[0] == {"iata": "SFO", "city": "San Francisco"} and len(airports) == 20
    assert to_json_str(5) == '"5"' and to_json_str("text") == "text" and to_json_str([1.5]) == '["1.5"]'


@pytest.mark.slow
def test_state_comparison_is_the_official_hash() -> None:
    """``same_state`` (entries that were looked up) decides as the full hash of the database."""
    a, b = Environment("airline"), Environment("airline")
    assert a.same_state(b) and a.db_hash() == b.db_hash()
    a.get_response(call("get_user_details", user_id="mia_li_3668"))  # a read copies, changes nothing
    assert a.same_state(b) and a.db_hash() == b.db_hash()
    a.get_response(call("send_certificate", user_id="mia_li_3668", amount=100))
    assert not a.same_state(b) and a.db_hash() != b.db_hash()
    b.get_response(call("send_certificate", user_id="mia_li_3668", amount=100.0))  # validated: float field
    assert a.same_state(b) and a.db_hash() == b.db_hash()


def test_int_and_float_as_officially() -> None:
    """A count assigned unvalidated keeps its float and changes the hash (tau2-bench #397); one that
    goes through a model is coerced."""
    a, b = Environment("airline"), Environment("airline")
    args = {"reservation_id": "4WQ150", "nonfree_baggages": 0, "payment_id": "gift_card_3576581"}
    a.get_response(call("update_reservation_baggages", total_baggages=1, **args))
    answer = b.get_response(call("update_reservation_baggages", total_baggages=1.0, **args))
    assert not answer["error"] and json.loads(answer["content"])["total_baggages"] == 1.0
    assert not a.same_state(b) and a.db_hash() != b.db_hash()
    retail = Environment("retail")
    answer = retail.get_response(call("calculate", expression="2 ** 3 / 3"))
    assert answer["content"] == "2.67"


def test_replay_skips_unknown_tools_and_reads_and_checks_pairs() -> None:
    env, fresh = Environment("airline"), Environment("airline")
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call("made_up"), {**call("get_user_details", user_id="x"), "id": "c2"}],
        },
        {"role": "tool", "id": "c1", "content": "Error", "requestor": "assistant", "error": True},
        {"role": "tool", "id": "c2", "content": "Error", "requestor": "assistant", "error": True},
    ]
    env.replay(messages, strict=True)
    assert env.same_state(fresh) and not env.tools.db.users.owned  # the read was not even run
    with pytest.raises(ReplayError, match="Tool call id mismatch"):
        env.replay([messages[0], messages[2], messages[1]])
    with pytest.raises(ReplayError, match="Tool message expected"):
        env.replay(messages[:1])


def test_strict_replay_compares_the_recorded_result() -> None:
    env = Environment("airline")
    sent = call("send_certificate", user_id="mia_li_3668", amount=50)
    recorded = {"role": "tool", "id": "c1", "content": "something else", "requestor": "assistant", "error": False}
    env.replay([{"role": "assistant", "content": None, "tool_calls": [sent]}, recorded], strict=False)
    with pytest.raises(ReplayError):
        Environment("airline").replay(
            [{"role": "assistant", "content": None, "tool_calls": [sent]}, recorded], strict=True
        )


@pytest.mark.parametrize(
    ("expression", "result"),
    [("2 + 2", "4.0"), ("10 / 4", "2.5"), ("7 // 2", "3.0"), ("-(3 - 5) * 1.005", "2.01"), ("2**10", "1024.0")],
)
def test_calculator(expression: str, result: str) -> None:
    assert calculate(expression) == result


@pytest.mark.parametrize(
    ("expression", "error", "text"),
    [
        ("__import__('os')", ValueError, "Invalid characters in expression"),
        ("1 / 0", ZeroDivisionError, "division by zero"),
        ("1 +", SyntaxError, "invalid syntax"),
        ("9 ** 9 ** 9", OverflowError, "exponent too large"),
    ],
)
def test_calculator_refuses(expression: str, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text.replace("(", r"\(")):
        calculate(expression)
