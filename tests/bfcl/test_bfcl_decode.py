"""Decoding replies into the official forms, with the official failure behaviour and no evaluation."""

from __future__ import annotations

import pytest

from pytest_toolcall.benchmarks.bfcl.decode import (
    DecodeError,
    decode_ast,
    decode_execute,
    is_call_list,
    is_empty_decoded,
    is_empty_execute,
    official_result,
)


def test_official_result_per_mode() -> None:
    calls = [{"name": "f", "arguments": '{"a": 1}'}]
    assert official_result("text", calls, "fc") == [{"f": '{"a": 1}'}]
    assert official_result("text", [], "fc") == "text"
    assert official_result(None, None, "fc") is None
    assert official_result("text", calls, "prompting") == "text"


def test_fc_decoding() -> None:
    assert decode_ast([{"f": '{"a": 1, "b": [1.5]}'}, {"g": "{}"}], "fc") == [{"f": {"a": 1, "b": [1.5]}}, {"g": {}}]
    assert decode_ast("", "fc") == []  # an empty text reply iterates to nothing
    assert decode_ast([{"f": "[1]"}], "fc") == [{"f": [1]}]  # decodes; the format check rejects it later
    for bad in (None, "I cannot", [{"f": "{oops"}], [{"f": ""}]):
        with pytest.raises(DecodeError):
            decode_ast(bad, "fc")


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("[f(a=1, b='x')]", [{"f": {"a": 1, "b": "x"}}]),
        ("f(a=1)", [{"f": {"a": 1}}]),  # brackets are added
        ("[m.sub.f(a=True, b=None)]", [{"m.sub.f": {"a": True, "b": None}}]),
        ("[f(a=1), g(b=[1, 2], c={'k': (1, 2)})]", [{"f": {"a": 1}}, {"g": {"b": [1, 2], "c": {"k": (1, 2)}}}]),
        ("```\n[f(a=1)]\n```", [{"f": {"a": 1}}]),  # fences without a language are trimmed
        ("[f(1, 2, a=3)]", [{"f": {"a": 3}}]),  # positional arguments are ignored
        ("[f(a=+5)]", [{"f": {"a": -5}}]),  # any unary operator negates, as officially
        ("[f(a=-2.5)]", [{"f": {"a": -2.5}}]),
        ("[f(a=2 * 3 + 1)]", [{"f": {"a": 7}}]),  # arithmetic is computed without eval
        ("[f(a='ab' + 'c')]", [{"f": {"a": "abc"}}]),
        ("[f(a=x)]", [{"f": {"a": "x"}}]),  # a bare name stays a name
        ("[f(a=g())]", [{"f": {"a": "g()"}}]),  # a call without keywords is kept as text
        ("[f(a=g(b=1))]", [{"f": {"a": {"g": {"b": 1}}}}]),
        ("[f(a=items[0])]", [{"f": {"a": "items[0]"}}]),
        ("[f(a=...)]", [{"f": {"a": "..."}}]),
        ("[]", []),
    ],
)
def test_python_decoding(text: str, decoded: list) -> None:
    assert decode_ast(text, "prompting") == decoded


@pytest.mark.parametrize(
    "text",
    [
        "I cannot help with that.",
        "```python\n[f(a=1)]\n```",  # the language tag is left in front and breaks the list
        "[f(a=1]",
        "[1, 2]",
        "'[f(a=1)]'",  # brackets are added around the quotes, so the list holds a string
        "{}",
        "[f(a=obj.attr)]",  # attributes are not supported officially
        "[f(a=lambda: 1)]",
        "[f(a=-x)]",
        "[f(a=y + 1)]",  # would need evaluation
        "[f(a=__import__('os').system('true') + 1)]",  # never evaluated
        "[f(a=2 ** 100000)]",  # refused rather than computed
        "[f(a=f'{x}')]",
        None,
    ],
)
def test_python_decoding_failures(text: str | None) -> None:
    with pytest.raises(DecodeError):
        decode_ast(text, "prompting")


def test_execute_strings() -> None:
    assert decode_execute([{"f": '{"a": 1, "b": "x"}'}], "fc") == ["f(a=1,b='x')"]
    assert decode_execute("", "fc") == []
    assert decode_execute("[f(a=1, b='x'), g()]", "prompting") == ["f(a=1, b='x')", "g()"]
    assert decode_execute("[f(a=g(b=1), c={'k': 1})]", "prompting") == ["f(a=g(b=1), c={'k': 1})"]
    with pytest.raises(DecodeError):
        decode_execute("[f(a={})]", "prompting")  # an empty dict counts as a nested call officially
    with pytest.raises(DecodeError):
        decode_execute("hello", "fc")


def test_shape_predicates() -> None:
    assert is_call_list([]) and is_call_list([{"f": {}}])
    assert not is_call_list([{"f": [1]}]) and not is_call_list({}) and not is_call_list([{"f": {}, "g": {}}])
    assert is_empty_decoded([]) and is_empty_decoded([{}]) and is_empty_decoded(None)
    assert not is_empty_decoded([{"f": {}}])
    assert is_empty_execute([]) and is_empty_execute([""]) and not is_empty_execute(["f()"])
