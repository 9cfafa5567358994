"""The literal-only decoder, rule by rule (values the official decoder gives, checked against it at
56dd66c)."""

from __future__ import annotations

import time

import pytest

from pytest_toolcall.benchmarks.acebench.decode import (
    DecodeError,
    decode_multi_turn,
    decode_single_turn,
    outermost_brackets,
    parse_call_list,
)

FAIL = object()


def decoded(text: str, multi: bool = False) -> object:
    try:
        calls = (decode_multi_turn if multi else decode_single_turn)(text)
    except DecodeError:
        return FAIL
    return [call.as_dict() for call in calls]


# (output text, single-turn result, multi-turn result)
CALL_LISTS = [
    ("[f(a=1)]", [{"f": {"a": 1}}], [{"f": {"a": 1}}]),
    ("[f(a=1),]", [{"f": {"a": 1}}], [{"f": {"a": 1}}]),
    ("[f(a=1)]\n", [{"f": {"a": 1}}], [{"f": {"a": 1}}]),
    ("f(a=1)", FAIL, FAIL),
    ("f(a=1), g(b=2)", FAIL, [{"f": {"a": 1}}, {"g": {"b": 2}}]),
    ("{f(a=1), g(b=2)}", FAIL, [{"f": {"a": 1}}, {"g": {"b": 2}}]),
    ("[f(a=1), 5]", FAIL, FAIL),
    ("Sure:\n```python\n[f(a='x y')]\n```", [{"f": {"a": "x y"}}], FAIL),
    ("<think>use [tool]</think>[f(a=1)]", FAIL, FAIL),
    ("[f(s='a]b')]", FAIL, [{"f": {"s": "a]b"}}]),
    ("[f(a=1)] and [g(b=2)]", [{"f": {"a": 1}}], FAIL),
    ("[f(a={'k': ['x y']})]", [{"f": {"a": {"k": ["x y"]}}}], [{"f": {"a": {"k": ["xy"]}}}]),
    ("[]", [], []),
    ("", FAIL, FAIL),
    ("]\n[f(a=1)]", FAIL, FAIL),
    ("[[f(a=1)]]", FAIL, FAIL),
    ("[f(a=1)]\x00", [{"f": {"a": 1}}], FAIL),
    ("[f(1, 2, x=3)]", [{"f": {"x": 3}}], [{"f": {"x": 3}}]),
    ("[a.b.c(x=1)]", [{"a.b.c": {"x": 1}}], [{"a.b.c": {"x": 1}}]),
    ("['s'.f(x=1)]", [{"f": {"x": 1}}], [{"f": {"x": 1}}]),
    ("[f()(x=1)]", [{"": {"x": 1}}], [{"": {"x": 1}}]),
    ("[f(**{'a': 1})]", [{"f": {None: {"a": 1}}}], [{"f": {None: {"a": 1}}}]),
    ("[f(a=1, **k)]", [{"f": {"a": 1, None: "k"}}], [{"f": {"a": 1, None: "k"}}]),
]


@pytest.mark.parametrize(("text", "single", "multi"), CALL_LISTS)
def test_call_lists(text: str, single: object, multi: object) -> None:
    assert decoded(text) == single
    assert decoded(text, multi=True) == multi


# (argument text, decoded value) in single-turn mode
VALUES = [
    ("'s'", "s"),
    ("5", 5),
    ("2.5", 2.5),
    ("True", True),
    ("None", None),
    ("...", "..."),
    ("-5", -5),
    ("-(5)", -5),
    ("-2.5", -2.5),
    ("-True", -1),
    ("+5", -5),
    ("~5", -5),
    ("not True", -1),
    ("--5", FAIL),
    ("+(-5)", FAIL),
    ("-(2*3)", FAIL),
    ("-x", FAIL),
    ("-'s'", FAIL),
    ("[1, (2, 3), {'k': v}]", [1, (2, 3), {"k": "v"}]),
    ("Paris", "Paris"),
    ("true", "true"),
    ("null", "null"),
    ("g()", {"g": {}}),
    ("g(1)", {"g": {}}),
    ("g(b=1)", {"g": {"b": 1}}),
    ("g(1, b=1)", {"g": {"b": 1}}),
    ("2*3", 6),
    ("+5*2", 10),
    ("-5*2", -10),
    ("'a'+'b'", "ab"),
    ("[1]+[2]", [1, 2]),
    ("(1<2)+1", 2),
    ("'abc'[0]+'x'", "ax"),
    ("7//2", 3),
    ("'%s'%'x'", "x"),
    ("x+1", FAIL),
    ("1/0", FAIL),
    ("x[0]", "x[0]"),
    ("x['k']", "x['k']"),
    ("x[1:2]", "x[1:2]"),
    ("lambda: 1", FAIL),
    ("x.y", FAIL),
    ("{1, 2}", FAIL),
    ("f'x'", FAIL),
    ("1<2", FAIL),
    ("a and b", FAIL),
    ("x if c else y", FAIL),
    ("{**k}", FAIL),
    ("[*x]", FAIL),
    ("{[1]: 2}", FAIL),
    ("{1: 'a', True: 'b'}", {1: "b"}),
    ("1e999", float("inf")),
    ("0x10", 16),
    ("1_000", 1000),
    ("'x' 'y'", "xy"),
    ("[1, 2]*2", [1, 2, 1, 2]),
    ("{1, 2}|{3}", {1, 2, 3}),
    ("(1, 2)+(3,)", (1, 2, 3)),
    ("[*[1], 2]+[3]", [1, 2, 3]),
    ("f'{1}'+'x'", "1x"),
    ("(1 if True else 2)+0", 1),
    ("2**10", 1024),
    ("10.0**-2", 0.01),
]


@pytest.mark.parametrize(("arg", "value"), VALUES)
def test_values(arg: str, value: object) -> None:
    result = decoded(f"[f(a={arg})]")
    assert result == (FAIL if value is FAIL else [{"f": {"a": value}}])


def test_not_becomes_text_in_multi_turn() -> None:
    # Whitespace is deleted first, so ``not True`` is the bare name ``notTrue``.
    assert decoded("[f(a=not True)]", multi=True) == [{"f": {"a": "notTrue"}}]


def test_types_are_kept() -> None:
    (call,) = decode_single_turn("[f(a=1, b=1.0, c=True, d=(1,), e=b'x', g=1j)]")
    assert [type(v) for v in call.args.values()] == [int, float, bool, tuple, bytes, complex]


@pytest.mark.parametrize(
    "arg",
    [
        "10**10**10",
        "2**100000",
        "((10**1000)**1000)**2",
        "1<<100000",
        "'a'*10**9",
        "[1]*100000",
        "'%99999999d'%1",
        "'%*d'%(5,1)",
        "f'{1:>999999999}'+''",
    ],
)
def test_resource_caps_fail_fast(arg: str) -> None:
    # In CPU time with a wide margin (each takes under a second; uncapped, hours or all the memory): a
    # busy machine slows the clock, not the work.
    cpu = time.process_time()
    assert decoded(f"[f(a={arg})]") is FAIL
    assert time.process_time() - cpu < 5.0


HOSTILE = {
    "100k nested brackets": "[" * 100_000 + "]" * 100_000,
    "50k unary minus": "[f(a=" + "-" * 50_000 + "1)]",
    "30k additions": "[f(a=" + "1+" * 30_000 + "1)]",
    "60k calls": "[" + "f(a=1)," * 60_000 + "]",
    "10 MB string": "[f(a='" + "x" * 10_000_000 + "')]",
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_sizes_are_bounded(text: str) -> None:
    cpu = time.process_time()
    decoded(text)
    decoded(text, multi=True)
    assert time.process_time() - cpu < 20.0  # CPU time: under a second each when measured


def test_injection_is_never_executed(tmp_path: pytest.TempPathFactory) -> None:
    marker = tmp_path / "pwned"  # type: ignore[operator]
    attempts = [
        f"__import__('os').system('touch {marker}')",
        f"open('{marker}', 'w').write('x')+''",
        f"(lambda: __import__('os').system('touch {marker}'))()+1",
        "[c for c in ().__class__.__base__.__subclasses__()]+[]",
        f"''.join([__import__('pathlib').Path('{marker}').touch() or 'x'])",
    ]
    for attempt in attempts:
        decoded(f"[f(a={attempt})]")
        decoded(f"[f(a={attempt})]", multi=True)
    assert not marker.exists()  # type: ignore[union-attr]


def test_bracket_scan_is_quote_blind() -> None:
    assert outermost_brackets("x ] [a] [b]") is None
    assert outermost_brackets("say [a, [b]] then [c]") == "[a, [b]]"
    assert outermost_brackets("no brackets") is None


def test_top_level_must_list_calls() -> None:
    with pytest.raises(DecodeError, match="not a list of calls"):
        parse_call_list("f(a=1)")
    with pytest.raises(DecodeError, match="is not a call"):
        parse_call_list("[f(a=1), 'x']")
