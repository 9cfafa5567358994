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

from pytest_toolcall.testing.server import Reply, message_text

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
    "accepts_any_sampling": "immutable_parameters",  # serves sampling values the model's documentation forbids
    "invalid_schema_arguments": "tool_call_schemas",  # the walle tool called with {} (its value missing)
    "ignores_response_format": "response_format",  # prose where JSON was asked for
    "stale_tools": "dynamic_tools",  # calls the tool of an earlier turn, not one offered now
    "miscounts_prompt": "prompt_tokens",  # renders another prompt: one token off
    "answers_in_english": "language_following",  # whatever language was asked for
    "repeats_itself": "repetition",  # a decoder stuck in a loop
    "sorts_argument_keys": "key_order",  # arguments (and nested objects) with their keys sorted
}

Calls = list[dict[str, Any]]


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


#: (substring of the request's text, what the model answers: text, or calls). Checked in order: the
#: dynamic-tools probes' last turns come first (their conversations mention other cities' weather).
INTENTS: list[tuple[str, str | Calls]] = [
    ("Then book me a taxi to the Louvre", [_call("book_taxi", destination="the Louvre")]),
    ("what time is it in Rome now", [_call("get_time", city="Rome")]),
    ("Remind me to take gloves", [_call("set_reminder", text="Take gloves")]),
    ("weather of Beijing as JSON following the schema", '{"city": "Beijing", "temperature": 21.5}'),
    (
        "two-day forecast for Oslo",
        '{"city": "Oslo", "days": [{"day": "today", "sky": "snow"}, {"day": "tomorrow", "sky": "clear"}]}',
    ),
    ("population of Rome as JSON", '{"city": "Rome", "population": 2800000}'),
    ("must be a JSON object", '{"city": "Beijing", "sky": "sunny"}'),
    ("Answer in Korean only", "고양이 이름으로는 나비를 추천해요."),
    ("Answer in Japanese only", "朝ごはんには、ご飯と味噌汁がいいです。"),
    ("Answer in Russian only", "Осень приносит золотые листья и прохладный ветер."),
    ("Answer in Thai only", "อรุณสวัสดิ์นะเพื่อน"),
    ("Answer in Greek only", "Η θάλασσα σήμερα είναι ήρεμη και γαλάζια."),
    ("Answer in Arabic only", "أتمنى لك يوما سعيدا."),
    (
        "about the sea",
        "The sea covers most of our planet. Its tides follow the moon, its waves carry storms far from "
        "where they began, and its depths hold creatures no one has seen. Sailors read its colours; "
        "children build castles at its edge.",
    ),
    (
        "List eight different fruits",
        "Apple: crisp.\nBanana: soft.\nCherry: small.\nDate: sweet.\nFig: jammy.\nGrape: juicy.\n"
        "Kiwi: tart.\nMango: fragrant.",
    ),
    (
        "关于春天的短文",
        "春天来了，冰雪融化，小草从地里探出头来。桃花和杏花竞相开放，燕子从南方飞回。农民开始播种，孩子们在田野里放风筝。",
    ),
    (
        "Create an event 'Review'",
        [
            _call(
                "create_event",
                title="Review",
                start="2025-03-04T10:00:00",
                duration_minutes=30,
                attendees=["Ada", "Alan"],
            )
        ],
    ),
    (
        "Ship a 2.5 kg parcel",
        [
            _call(
                "ship_parcel",
                weight_kg=2.5,
                to={"zip": "NW1 6XE", "street": "12 Baker Street", "city": "London"},
                express=True,
            )
        ],
    ),
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


def _refusal(message: str, param: str = "tool_choice") -> Reply:
    return Reply(
        status=400,
        body=json.dumps({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}),
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


#: Kimi K2's documented sampling (the ``immutable_parameters`` probes): anything else is refused.
def _sampling_refusal(body: dict[str, Any]) -> Reply | None:
    temperature = body.get("temperature")
    if isinstance(temperature, (int, float)) and not 0 <= temperature <= 1:
        return _refusal(f"temperature {temperature} is out of range [0, 1]", "temperature")
    fixed = {"top_p": 0.95, "presence_penalty": 0, "frequency_penalty": 0, "n": 1}
    for name, value in fixed.items():
        if name in body and body[name] != value:
            return _refusal(f"{name} must be {value}", name)
    return None


def _tools(body: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    """(name, parameters, strict) of each tool, whichever API's shape."""
    out = []
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        parameters = function.get("parameters") or function.get("input_schema") or {}
        out.append((function.get("name"), parameters, bool(function.get("strict"))))
    return out


def _walle_call(parameters: dict[str, Any]) -> dict[str, Any]:
    """Arguments valid against a walle probe's parameters (the plugin's generator: its validity is
    checked by jsonschema when the probe is scored)."""
    from pytest_toolcall.api.native import Generator, compile_schema

    compiled = compile_schema(parameters)
    assert compiled.validator is not None
    return {"name": "kvv_walle_case", "arguments": Generator(parameters, compiled.validator).value(parameters)}


def _wants_json(body: dict[str, Any]) -> bool:
    form = body.get("response_format") or (body.get("text") or {}).get("format") or body.get("output_config")
    return isinstance(form, dict) and bool(form)


def _history_call(body: dict[str, Any]) -> dict[str, Any] | None:
    """The first tool call of an earlier assistant turn, whichever API's shape."""
    for item in body.get("messages") or body.get("input") or []:
        for call in item.get("tool_calls") or []:
            return {"name": call["function"]["name"], "arguments": json.loads(call["function"]["arguments"])}
        if item.get("type") == "function_call":
            return {"name": item["name"], "arguments": json.loads(item["arguments"])}
        for block in item.get("content") if isinstance(item.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                return {"name": block["name"], "arguments": block["input"]}
    return None


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
        refusal = _sampling_refusal(body)
        if refusal is not None and "accepts_any_sampling" not in breaks:
            return refusal
        declared = _tools(body)
        intent: str | Calls = next((answer for key, answer in INTENTS if key in text), "I do not know.")
        if declared and declared[0][0] == "kvv_walle_case":
            walle = _walle_call(declared[0][1])
            intent = [{**walle, "arguments": {}}] if "invalid_schema_arguments" in breaks else [walle]
        if _wants_json(body) and "ignores_response_format" in breaks:
            intent = "Here is the answer in words."
        if "Answer in" in text and " only" in text and "answers_in_english" in breaks:
            intent = "Here is my answer, in English."
        if ("about the sea" in text or "fruits" in text or "春天" in text) and "repeats_itself" in breaks:
            intent = "the sea is calm and " * 8 if "sea" in text else "春天来了春天来了" * 6
            if "fruits" in text:
                intent = "apple is a fruit, " * 8
        history = _history_call(body)
        if "stale_tools" in breaks and history and not _last_is_tool_result(body):
            intent = [history]
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
        strict = {name for name, _, is_strict in declared if is_strict and name != "kvv_walle_case"}
        if "strict_ignored" in breaks:
            for call in calls:
                if call["name"] in strict:
                    call["arguments"] = {
                        k: str(v) if isinstance(v, (int, float)) else v for k, v in call["arguments"].items()
                    }
        if "sorts_argument_keys" in breaks:
            for call in calls:
                call["arguments"] = json.dumps(call["arguments"], sort_keys=True)
        reasoning = "Let me think about what is asked." if "Think it over" in text else None
        if reasoning and content and "drops_answer_after_reasoning" in breaks:
            content = None
        usage = None
        if text == "你好":  # the prompt-token probe: the count Kimi's template gives
            prompt = 98 if "miscounts_prompt" in breaks else 99
            usage = {"prompt_tokens": prompt, "completion_tokens": 9, "total_tokens": prompt + 9}
            content = "你好！有什么可以帮你的？"
        return Reply(
            content=content,
            tool_calls=calls or None,
            reasoning_content=reasoning,
            omit_usage="no_usage" in breaks,
            usage=usage,
        )

    return respond
