"""Reading Java/JavaScript calls. The expected readings were observed with the official tree-sitter
reader (tree_sitter 0.21.3, tree-sitter-java 0.21.0, tree-sitter-javascript 0.21.4)."""

from __future__ import annotations

import pytest

from pytest_toolcall.benchmarks.bfcl import source_calls
from pytest_toolcall.benchmarks.bfcl.source_calls import parse_java_call, parse_javascript_call

JAVA = [
    (
        'A.b(x="s", y=new int[]{1, 2}, z=new HashMap<String, String>() {{ put("a", "b"); }})',
        [{"A.b": {"x": "s", "y": "new int[]{1,2}", "z": "new HashMap<String,String>()"}}],
    ),
    ("f(a=1, b=2)", [{"f": {"a": "1", "b": "2"}}]),
    ('ab(a="x", b=1)', [{"ab": {"a": "x", "b": "1"}}]),
    ('A.b(a="x"); C.d(b=1)', [{"A.b": {"a": "x"}}]),
    ('x.y.z(a="s")', [{"x.y.z": {"a": "s"}}]),
    ('f(a="x" + y)', [{"f": {"a": '"x"+y'}}]),
    (
        'f(a = 1 + 2, b=true, h=new ArrayList<>(Arrays.asList("a", "b")))',
        [{"f": {"a": "1+2", "b": "true", "h": 'new ArrayList<>(Arrays.asList("a", "b"))'}}],
    ),
    ("", {}),
]
JS = [
    ("f(a=1)", [{"f": {"a": "1"}}]),
    ('f(a="x", b=[1, 2], c={k: 1})', [{"f": {"a": "x", "b": "[1, 2]", "c": "{k: 1}"}}]),
    ("f(a=1); g(b=2)", [{"f": {"a": "1"}}]),
    ("a.b.c(a=1)", [{"a.b.c": {"a": "1"}}]),
    ("f(a=1,)", [{"f": {"a": "1"}}]),
    ("f(true)", [{"f": {None: "true"}}]),
    ("f(1, 2)", [{"f": {}}]),
    ("", None),
]


@pytest.mark.parametrize(("source", "expected"), JAVA)
def test_java(source: str, expected: object) -> None:
    assert parse_java_call(source) == expected


@pytest.mark.parametrize(("source", "expected"), JS)
def test_javascript(source: str, expected: object) -> None:
    assert parse_javascript_call(source) == expected


@pytest.mark.parametrize("source", ["f(a=)", "f(a=1) junk", "f(a=1,a=2)", "hello world"])
def test_javascript_failures(source: str) -> None:
    with pytest.raises((SyntaxError, ValueError)):
        parse_javascript_call(source)


@pytest.mark.parametrize("source", ["f(a=1,a=2)", "A.b(x=user:online)", "A.b(x=new String[]{/p, 6}, y=1)"])
def test_java_failures(source: str) -> None:
    with pytest.raises((SyntaxError, ValueError)):
        parse_java_call(source)


@pytest.mark.skipif(not source_calls.EXACT, reason="only tree-sitter reproduces its error recovery")
@pytest.mark.parametrize("source", ["f(a=1)", "A.b(a=1.5)", "A.b()"])
def test_java_short_call_without_semicolon_fails_with_tree_sitter(source: str) -> None:
    with pytest.raises(SyntaxError):
        parse_java_call(source)
