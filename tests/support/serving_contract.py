"""A model behind the local server that keeps the serving contract the conformance probes check, or
breaks the parts of it it is told to (``BREAKS``); it speaks Chat Completions, the Responses API and
the Messages API (whose ``tool_choice`` objects are read as their Chat Completions equivalents).

What the "model" wants to answer is looked up from the request's text (``INTENTS``); the serving
layer then applies ``tool_choice``, ``parallel_tool_calls`` and the 400s, as a compliant stack does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.chat_server import Reply, message_text

#: Each break and the probe contract it violates.
BREAKS = {
    "none_ignored": "tool_choice",  # tool_choice none: calls anyway
    "required_ignored": "tool_choice",  # tool_choice required: answers in text
    "named_ignored": "tool_choice",  # a named tool_choice: calls what the model wanted
    "accepts_required_without_tools": "tool_choice",  # 200 instead of 400
    "accepts_invalid_tool_choice": "tool_choice",  # 200 instead of 400
    "parallel_ignored": "parallel_tool_calls",  # parallel_tool_calls false: several calls anyway
    "strict_ignored": "strict_schemas",  # numbers as strings, against the schema
    "ignores_tool_results": "multi_turn",  # after tool results, calls the same tool again
    "drops_answer_after_reasoning": "reasoning",  # the reasoning parser swallows the text
    "no_usage": "usage",  # answers without usage
}

Calls = list[dict[str, Any]]


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


#: (substring of the request's text, what the model answers: text, or calls).
INTENTS: list[tuple[str, str | Calls]] = [
    ("if it is sunny book me a flight", [_call("book_flight", city="Rome")]),
    ("warmer in Paris or in Rome", "Rome is warmer: 22 °C and sunny against 14 °C."),
    ("single word: hello", "hello"),
    ("clear daytime sky", "Blue."),
    ("weather in Oslo", [_call("get_weather", city="Oslo")]),
    ("Paris, in Rome and in Oslo", [_call("get_weather", city=c) for c in ("Paris", "Rome", "Oslo")]),
    ("time is it in Paris and in Rome", [_call("get_time", city=c) for c in ("Paris", "Rome")]),
    ("weather in Paris and in Rome", [_call("get_weather", city=c) for c in ("Paris", "Rome")]),
    ("weather in Paris right now", [_call("get_weather", city="Paris")]),
    ("Book a table for 4", [_call("book_table", name="Ada", people=4, time="19:30")]),
    ("thermostat to 21.5", [_call("set_thermostat", room="living_room", degrees=21.5, unit="celsius")]),
    ("dentist in 2 hours", [_call("set_reminder", text="Dentist", when={"in_minutes": 120})]),
    (
        "Ship parcel to Ada",
        [
            _call(
                "ship_parcel",
                ship_to={"name": "Ada Lovelace", "street": "12 St James's Square", "city": "London"},
                bill_to={"name": "Charles Babbage", "street": "1 Dorset Street", "city": "London"},
            )
        ],
    ),
    (
        "order for 2 apples",
        [
            _call(
                "create_order",
                lines=[
                    {"product": "apples", "quantity": 2, "unit_price": 0.5},
                    {"product": "bread", "quantity": 1, "unit_price": 2.25},
                ],
                delivery={"street": "5 Baker Street", "city": "London"},
            )
        ],
    ),
]


def _tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool.get("function"), dict) else tool  # chat / responses
        names.append(function.get("name"))
    return names


def _named(choice: Any) -> str | None:
    if isinstance(choice, dict):
        function = choice.get("function")
        return function.get("name") if isinstance(function, dict) else choice.get("name")
    return None


def _refusal(message: str) -> Reply:
    return Reply(
        status=400,
        body=json.dumps(
            {"error": {"message": message, "type": "invalid_request_error", "param": "tool_choice", "code": None}}
        ),
    )


def _last_is_tool_result(body: dict[str, Any]) -> bool:
    items = body.get("messages") or body.get("input") or []
    last = items[-1] if isinstance(items, list) and items else {}
    blocks = last.get("content") if isinstance(last.get("content"), list) else []
    tool_result = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
    return last.get("role") == "tool" or last.get("type") == "function_call_output" or tool_result


def _choices(body: dict[str, Any]) -> tuple[Any, Any]:
    """``tool_choice`` and ``parallel_tool_calls`` as Chat Completions states them."""
    choice = body.get("tool_choice")
    if body.get("_api") != "messages" or not isinstance(choice, dict):
        return choice, body.get("parallel_tool_calls")
    parallel = False if choice.get("disable_parallel_tool_use") else None
    kind = choice.get("type")
    if kind == "tool":
        return {"type": "function", "function": {"name": choice.get("name")}}, parallel
    return {"auto": "auto", "any": "required", "none": "none"}.get(kind, choice), parallel


def contract_model(breaks: frozenset[str] = frozenset()) -> Callable[[dict[str, Any]], Reply]:
    """The responder: compliant, except for ``breaks`` (names of ``BREAKS``)."""
    unknown = breaks - set(BREAKS)
    assert not unknown, f"unknown breaks {unknown}"

    def respond(body: dict[str, Any]) -> Reply:
        text = message_text(body)
        tools = _tool_names(body)
        choice, parallel = _choices(body)
        if choice is not None and choice not in ("auto", "none", "required") and _named(choice) is None:
            if "accepts_invalid_tool_choice" not in breaks:
                return _refusal(f"invalid tool_choice {choice!r}")
        if choice == "required" and not tools and "accepts_required_without_tools" not in breaks:
            return _refusal("tool_choice 'required' needs tools")
        intent: str | Calls = next((answer for key, answer in INTENTS if key in text), "I do not know.")
        if _last_is_tool_result(body) and "ignores_tool_results" in breaks:
            intent = [_call("get_weather", city="Rome")]
        calls = [] if isinstance(intent, str) else [dict(c) for c in intent]
        content = intent if isinstance(intent, str) else None
        if choice == "none" and "none_ignored" not in breaks:
            calls, content = [], content or "I would look that up, but I may not call tools now."
        elif choice == "required" and not calls and tools and "required_ignored" not in breaks:
            calls, content = [_call(tools[0], city="Paris")], None
        elif _named(choice) and "named_ignored" not in breaks:
            name = _named(choice)
            kept = [c for c in calls if c["name"] == name]
            calls = kept or [_call(name, **(calls[0]["arguments"] if calls else {"city": "Paris"}))]
            content = None
        if parallel is False and "parallel_ignored" not in breaks:
            calls = calls[:1]
        if "strict_ignored" in breaks:
            for call in calls:
                call["arguments"] = {
                    k: str(v) if isinstance(v, (int, float)) else v for k, v in call["arguments"].items()
                }
        reasoning = "Let me think about what is asked." if "Think it over" in text else None
        if reasoning and content and "drops_answer_after_reasoning" in breaks:
            content = None
        return Reply(
            content=content, tool_calls=calls or None, reasoning_content=reasoning, omit_usage="no_usage" in breaks
        )

    return respond
