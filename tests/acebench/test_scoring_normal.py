"""The normal checker on hand-made specs: every parameter type against every kind of value (verdicts
of the official checker at 56dd66c), plus the rules of the call list (names, counts, order)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.decode import decode_single_turn
from pytest_toolcall.benchmarks.acebench.scoring.normal import check_normal, standardize


def spec(name: str, properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties, "required": required or []}}


def verdict(schema: dict[str, Any], truth: Any, model_value: str) -> bool:
    functions = [spec("f", {"p": schema})]
    calls = decode_single_turn(f"[f(p={model_value})]")
    return check_normal(functions, calls, {"f": {"p": truth}}).valid


# (declared schema, ground truth, model value as written, official verdict)
TABLE = [
    ({"type": "integer"}, 5, "6", True),
    ({"type": "integer"}, 5, "5.0", True),
    ({"type": "integer"}, 5, "-5", True),
    ({"type": "integer"}, 5, "7.0", False),  # a float passes only when equal to the truth (5.0)
    ({"type": "integer"}, 5, "'5'", False),
    ({"type": "number"}, 3, "3.7", False),
    ({"type": "number"}, 3.5, "9", True),
    ({"type": "boolean"}, True, "False", True),
    ({"type": "boolean"}, True, "1", True),
    ({"type": "boolean"}, True, "0", False),
    ({"type": "string"}, 5, "'5'", True),
    ({"type": "string"}, "New York", "'New York City!'", True),
    ({"type": "string"}, "New York", "'york'", False),
    ({"type": "string"}, "hello world", "'Hello, World'", True),
    ({"type": "string"}, "", "'anything'", True),
    ({"type": "string"}, "", "5", False),
    ({"type": "string"}, "abc", "['abc']", False),
    ({"type": "string"}, "true", "'true'", False),
    ({"type": "array", "items": {"type": "string"}}, ["a", "b"], "['A', 'B']", True),
    ({"type": "array", "items": {"type": "string"}}, ["a", "b"], "['B', 'A']", False),
    ({"type": "array"}, ["a"], "['a']", False),
    ({"type": "array", "items": {"type": "string"}}, [], "[]", False),
    ({"type": "object"}, {"k": 5}, "{'k': 15}", True),
    ({"type": "object"}, {"k": 5.0}, "{'k': 5}", False),
    ({"type": "object"}, {"k": ["a", "b"]}, "{'k': ['A', 'b']}", False),
    ({"type": "object"}, {"k": "x"}, "{'k': 'x', 'j': 1}", False),
    ({"type": "object"}, {}, "{}", False),
    ({"type": "object"}, {"k": {"d": "New York"}}, "{'k': {'d': 'new-york'}}", True),
    ({"type": "array", "items": {"type": "object"}}, [{"k": 1}], "[{'k': 1}]", True),
    ({"type": "array", "items": {"type": "object"}}, [{"k": 1}, {"k": 2}], "[{'k': 2}, {'k': 1}]", False),
    ({"type": "float"}, 1.5, "2", True),
]


def _row_id(row: tuple[Any, ...]) -> str:
    return f"{row[0]['type']}-{row[1]!r}-{row[2]}"


@pytest.mark.parametrize(("schema", "truth", "model_value", "valid"), TABLE, ids=[_row_id(row) for row in TABLE])
def test_outcome_table(schema: dict[str, Any], truth: Any, model_value: str, valid: bool) -> None:
    assert verdict(schema, truth, model_value) is valid


FUNCS = [
    spec("f", {"s": {"type": "string"}, "n": {"type": "integer"}}, required=["s"]),
    spec("g", {"x": {"type": "string"}}, required=["x"]),
]


@pytest.mark.parametrize(
    ("output", "truth", "valid", "error_type"),
    [
        ("[f(s='a'), g(x='b')]", {"f": {"s": "a"}, "g": {"x": "b"}}, True, ""),
        ("[g(x='b'), f(s='a')]", {"f": {"s": "a"}, "g": {"x": "b"}}, True, ""),  # any order
        ("[f(s='a')]", {"f": {"s": "a"}, "g": {"x": "b"}}, False, "wrong functions number"),
        ("[f(s='a'), f(s='a')]", {"f": {"s": "a"}, "g": {"x": "b"}}, False, "function_mismatch"),
        ("[f(s='xy'), f(s='xy')]", {"f_1": {"s": "x"}, "f_2": {"s": "y"}}, True, ""),  # non-exclusive
        ("[f(n=1)]", {"f": {"s": "a", "n": 1}}, False, "lack_args"),
        ("[f(s='a')]", {"f": {"s": "a", "n": 1}}, True, ""),  # optional omitted
        ("[f(s='a', n=1)]", {"f": {"s": "a"}}, False, "addition_args"),  # optional not in the truth
        ("[f(s='a', z=1)]", {"f": {"s": "a"}}, False, "addition_args"),
        ("[f()]", {"f": {"s": "a"}}, False, "wrong_param"),
        ("[F(s='a')]", {"f": {"s": "a"}}, False, "function_mismatch"),
        ("[f('a', s='a')]", {"f": {"s": "a"}}, True, ""),  # positional dropped
        ("[f(s='b')]", [{"f": {"s": "a"}}, {"f": {"s": "b"}}], True, ""),  # second alternative
        ("[f(s='c')]", [{"f": {"s": "a"}}, {"f": {"s": "b"}}], False, "value_error:string"),
    ],
)
def test_call_list_rules(output: str, truth: Any, valid: bool, error_type: str) -> None:
    result = check_normal(FUNCS, decode_single_turn(output), truth)
    assert (result.valid, result.error_type) == (valid, error_type)


def test_spec_lookup_uses_the_unstripped_key() -> None:
    # The real function is named like the suffix-stripped key; the spec is found by substring.
    functions = [spec("get_2", {"a": {"type": "string"}}, required=["a"])]
    assert not check_normal(functions, decode_single_turn("[get_2(a='x')]"), {"get_2": {"a": "x"}}).valid
    assert not check_normal(functions, decode_single_turn("[get(a='x')]"), {"get_2": {"a": "x"}}).valid


def test_failure_message_names_parameter_and_values() -> None:
    functions = [spec("eclipse", {"eclipseType": {"type": "string"}}, required=["eclipseType"])]
    result = check_normal(
        functions, decode_single_turn("[eclipse(eclipseType='partial')]"), {"eclipse": {"eclipseType": "total"}}
    )
    assert result.message == "param 'eclipseType': expected 'total', got 'partial'"


def test_crash_of_the_official_checker_is_invalid() -> None:
    # A spec without "parameters" (the atom distractor shape) raises KeyError officially.
    functions = [{"name": "f", "arguments": {}}]
    result = check_normal(functions, decode_single_turn("[f(a=1)]"), {"f": {"a": 1}})
    assert (result.valid, result.error_type) == (False, "crash")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("New York", "newyork"),
        ("a,b.c/d-e_f*g^h", "abcdefgh"),
        ("It's", 'it"s'),
        ("tab\tstays", "tab\tstays"),
        ("全角，逗号", "全角，逗号"),
    ],
)
def test_standardize(text: str, expected: str) -> None:
    assert standardize(text) == expected
