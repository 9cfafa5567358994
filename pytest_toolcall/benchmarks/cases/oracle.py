"""The ``oracle`` model's answer to a case: its expectation, made concrete.

The first ``any_of`` alternative is answered; ``no_call`` and ``should_call_tool: false`` get text;
``should_call_tool: true`` gets a call whose arguments are generated from a tool's JSON Schema (the
shared generator of ``native/instances.py``). Matchers become a value that satisfies them: the first
``$one_of``, the ``$approx`` value, a schema-valid value for ``$any`` and, for ``$regex``, a simple string built from
the pattern that full-matches it. With ``allow_extra`` the required properties the case does not list
are generated too, so that the answer stays valid against the tool's schema.

The loader checks every case with it (``loading.check_oracle``): an expectation the oracle cannot
answer, or whose answer fails the case (a listed value the schema forbids, a required argument the
case forbids), is reported at load time, because a real model could not pass it either.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pytest_toolcall.api.native import Generator, Unsatisfiable, compile_schema, pattern_strings, validate_tool_calls
from pytest_toolcall.benchmarks.cases.format import Case
from pytest_toolcall.benchmarks.cases.matching import is_matcher

NO_TOOL_ANSWER = "No tool is needed for this request."


class OracleError(Exception):
    """The oracle cannot build an answer that passes the case."""


class NotAnswerable(OracleError):
    """The case asks for something the oracle does not answer (a trajectory it cannot pin down): the
    case is fine, but the oracle's run skips it, saying why."""


def oracle_answer(case: Case) -> dict[str, Any]:
    """The reference the oracle model answers with (``ChatRequest.reference``):
    ``{"content": text}`` or ``{"content": None, "tool_calls": [{"id", "name", "arguments"}]}``, with
    ``usage`` when the case expects counts."""
    return _beside(_answer(case.expect, case.tools), case.expect, case.settings)


def _beside(answer: dict[str, Any], expect: dict[str, Any], settings: dict[str, Any] | None) -> dict[str, Any]:
    """The answer made to hold the expectations beside the calls: JSON text for ``json_output``, a
    greeting in the ``language``, the ``usage`` counts expected."""
    answer = dict(answer)
    if answer.get("tool_calls") or "status" in answer:
        return {**answer, "usage": expect["usage"]} if "usage" in expect else answer
    if expect.get("json_output"):
        form = (settings or {}).get("response_format") or {}
        schema = (form.get("json_schema") or {}).get("schema") if form.get("type") == "json_schema" else None
        try:
            value = _generator(schema).value(schema) if schema is not None else {"answer": NO_TOOL_ANSWER}
        except (Unsatisfiable, RecursionError) as exc:
            raise OracleError(f"cannot build JSON valid against the response_format schema: {exc}") from None
        answer["content"] = json.dumps(value, ensure_ascii=False)
    elif "language" in expect:
        from pytest_toolcall.benchmarks.cases.checks import LANGUAGES

        answer["content"] = LANGUAGES[expect["language"]][2]
    if "usage" in expect:
        answer["usage"] = dict(expect["usage"])
    return answer


def oracle_reply(expect: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The oracle's answer to an expectation of a Python test (``assert_tool_calls``), in the shape of
    ``oracle_answer``; ``OracleError`` when it cannot build one (a call to a tool not offered)."""
    offered = {t["function"]["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("function"), dict)}
    missing = sorted({call["name"] for call in _all_calls(expect)} - offered)
    if missing:
        raise OracleError(f"it expects a call to {', '.join(map(repr, missing))}, which the request does not offer")
    return _beside(_answer(expect, tools), expect, None)


def _all_calls(expect: dict[str, Any]) -> list[dict[str, Any]]:
    return [*(expect.get("calls") or []), *(c for a in expect.get("any_of") or [] for c in _all_calls(a))]


def oracle_steps(case: Case) -> list[dict[str, Any]]:
    """The oracle's answers to a multi-step case, one per step: the first-answer expectation's calls
    (or the whole trajectory) first, the rest of the trajectory next, then the final text. Only a
    ``strict`` or ``unordered`` trajectory with ``exact`` arguments pins the calls down;
    ``NotAnswerable`` otherwise."""
    expect = case.expect
    trajectory = expect.get("trajectory")
    has_first = any(k in expect for k in ("no_call", "should_call_tool", "calls", "any_of"))
    first: list[dict[str, Any]] = []
    if has_first:
        first = _answer(expect, case.tools).get("tool_calls") or []
    batches = [first] if first else []
    if trajectory is not None:
        match, args = trajectory.get("match", "strict"), trajectory.get("args", "exact")
        if match not in ("strict", "unordered") or args != "exact":
            raise NotAnswerable(
                f"a trajectory with match {match!r} and args {args!r} leaves the calls open "
                "(the oracle answers strict or unordered trajectories with exact arguments)"
            )
        listed = _answer({"calls": trajectory["calls"]}, case.tools)["tool_calls"] if trajectory["calls"] else []
        if not has_first:
            batches = [listed] if listed else []
        elif _same_calls(listed[: len(first)], first):
            if listed[len(first) :]:
                batches.append(listed[len(first) :])
        else:
            raise NotAnswerable("the first answer's expectation is not how the trajectory begins")
    final = expect.get("final")
    text = _resolve(final, {"type": "string"}, {"type": "string"}, "final") if final is not None else NO_TOOL_ANSWER
    answers: list[dict[str, Any]] = [
        {"content": None, "tool_calls": [{**call, "id": f"call_{step}_{n}"} for n, call in enumerate(batch, start=1)]}
        for step, batch in enumerate(batches, start=1)
    ]
    answers.append({"content": text})
    if len(answers) > case.steps and final is None:
        answers.pop()  # the budget is spent by the calls; no final answer is expected
    if len(answers) > case.steps:
        raise OracleError(f"the expected run takes {len(answers)} steps, the case allows {case.steps} (steps)")
    return answers


def _same_calls(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    return [(c["name"], c["arguments"]) for c in a] == [(c["name"], c["arguments"]) for c in b]


def _answer(expect: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any]:
    if "status" in expect:
        return {"status": expect["status"], "content": "refused (the oracle's answer to expect.status)"}
    if "any_of" in expect:
        return _answer(expect["any_of"][0], tools)
    if expect.get("no_call") or expect.get("should_call_tool") is False:
        return {"content": NO_TOOL_ANSWER}
    if "calls" not in expect:
        return {"content": None, "tool_calls": [_any_valid_call(tools)]}
    calls = []
    for number, expected in enumerate(expect["calls"]):
        parameters = _parameters(tools, expected["name"])
        arguments = _resolve(expected.get("arguments") or {}, parameters, parameters, expected["name"])
        if expect.get("allow_extra"):
            arguments = _with_required(arguments, parameters)
        calls.append(_call(number, expected["name"], arguments))
    return {"content": None, "tool_calls": calls}


def _any_valid_call(tools: list[dict[str, Any]]) -> dict[str, Any]:
    for tool in tools:
        parameters = tool["function"]["parameters"]
        try:
            arguments = _generator(parameters).value(parameters)
        except (Unsatisfiable, RecursionError):
            continue
        call = _call(0, tool["function"]["name"], arguments)
        if validate_tool_calls(tools, [call]) is None:
            return call
    raise OracleError("no declared tool can be called with arguments valid against its parameters")


def _resolve(expected: Any, schema: Any, root: Any, path: str) -> Any:
    """A value that ``expected`` (plain or matcher) accepts; ``schema`` is the part of the tool's
    parameters that describes it, when known (``None`` otherwise)."""
    if is_matcher(expected):
        if "$one_of" in expected:
            return expected["$one_of"][0]
        if "$approx" in expected:
            return expected["$approx"]
        if "$regex" in expected:
            return _regex_string(expected["$regex"], schema, path)
        try:  # $any: whatever the schema allows
            return _generator(root).value(schema if schema is not None else {"type": "string"})
        except (Unsatisfiable, RecursionError) as exc:
            raise OracleError(f"{path}: cannot build a value for $any: {exc}") from None
    if isinstance(expected, dict):
        properties = schema.get("properties") if isinstance(schema, dict) else None
        return {
            key: _resolve(value, (properties or {}).get(key), root, f"{path}.{key}") for key, value in expected.items()
        }
    if isinstance(expected, list):
        items = schema.get("items") if isinstance(schema, dict) else None
        return [_resolve(value, items, root, f"{path}[{i}]") for i, value in enumerate(expected)]
    return expected


def _regex_string(pattern: str, schema: Any, path: str) -> str:
    """A short string that full-matches ``pattern``: one of the schema's enum values when one does,
    else one built from the pattern itself."""
    candidates = [v for v in (schema or {}).get("enum", []) if isinstance(v, str)] if isinstance(schema, dict) else []
    candidates += pattern_strings(pattern, 0)
    for candidate in candidates:
        if re.fullmatch(pattern, candidate):
            return candidate
    raise OracleError(
        f"{path}: cannot produce a string that fully matches $regex {pattern!r} "
        "(the oracle needs one: simplify the pattern, or use $one_of)"
    )


def _with_required(arguments: dict[str, Any], parameters: dict[str, Any]) -> dict[str, Any]:
    """The arguments plus generated values for required properties the case leaves out."""
    properties = parameters.get("properties") or {}
    missing = [name for name in parameters.get("required") or [] if name not in arguments]
    if not missing:
        return arguments
    generator = _generator(parameters)
    extra = {}
    for name in missing:
        try:
            extra[name] = generator.value(properties.get(name, {"type": "string"}))
        except (Unsatisfiable, RecursionError) as exc:
            raise OracleError(f"cannot build the required argument {name!r}: {exc}") from None
    return {**arguments, **extra}


def _parameters(tools: list[dict[str, Any]], name: str) -> dict[str, Any]:
    # The first tool of that name, as validation uses (the loader rejects two anyway).
    return next(t["function"]["parameters"] for t in tools if t["function"]["name"] == name)


def _generator(parameters: dict[str, Any]) -> Generator:
    compiled = compile_schema(parameters)
    if compiled.validator is None:
        raise OracleError(f"the tool's parameters are not a valid JSON Schema: {compiled.problem}")
    return Generator(parameters, compiled.validator)


def _call(number: int, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": f"call_{number}", "name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
