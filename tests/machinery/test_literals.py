"""The shared capped literal interpreter: Python's values for literal expressions, bounded work on
hostile ones (sizes and counters, never the clock)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from pytest_toolcall.core.safety import literals
from pytest_toolcall.core.safety.literals import Interpreter, LiteralError, TooLarge, evaluate

# Trusted test text: Python's own eval gives the expected value.
SAME_AS_PYTHON = [
    "2*3+1",
    "7//2",
    "-7 % 3",
    "2**10",
    "2**-3",
    "10.0**-2",
    "'a'+'b'",
    "'ab'*3",
    "3*'ab'",
    "[1, 2]*2",
    "[[0]*3]*2",
    "(1, 2)+(3,)",
    "{1, 2}|{3}",
    "{'a': 1} | {'b': 2}",
    "[*[1], 2]+[3]",
    "{**{'a': 1}, 'b': 2}",
    "f'{1}'+'x'",
    "f'{3.14159:.2f}'+''",
    "f'{[1, 2]!r}'+''",
    "'%s-%d' % ('x', 5)",
    "b'ab' * 2",
    "(1<2)+1",
    "(1 if 0 else 2)+0",
    "(0 or 'x') + 'y'",
    "'abc'[1:]+'d'",
    "'abc'[::-1]*2",
    "1 << 100",
    "(10**1000)**3 % 7",
    "(10**900)**4//(3**900)",
    "True + True",
    "[1]*-5 + [2]",
    "(1+2j)*(3-1j)",
    "1e308*10",
]


@pytest.mark.parametrize("text", SAME_AS_PYTHON)
def test_python_values(text: str) -> None:
    expected = eval(text)  # trusted test text (never model output): Python is the oracle
    assert evaluate(ast.parse(text, mode="eval").body) == expected


@pytest.mark.parametrize("text", ["x+1", "len('a')+1", "(lambda: 1)()+1", "().__class__", "[c for c in 'ab']"])
def test_names_and_calls_are_refused(text: str) -> None:
    with pytest.raises(LiteralError) as info:
        evaluate(ast.parse(text, mode="eval").body)
    assert not isinstance(info.value, TooLarge)


@pytest.mark.parametrize("text", ["1/0", "'a'+1", "[1]+(2,)", "'%d' % 'x'", "{}[1]"])
def test_failing_operations_fail_as_under_eval(text: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 - whatever eval raises
        eval(text)  # trusted test text
    with pytest.raises(LiteralError) as info:
        evaluate(ast.parse(text, mode="eval").body)
    assert not isinstance(info.value, TooLarge)


# Each would take minutes or gigabytes under eval (or build a value no dataset answer comes near).
HOSTILE = [
    "((10**1000)**1000)**1000",
    "10**10**10",
    "2**100000",
    "1<<100000",
    "(10**1000)**1000*(10**1000)**1000",
    "(10**1000)**1000//(7**1000)**900",
    "[[0]*100000]*100000",
    "[[0]*10000]*10000",
    "[[[0]*100]*100]*100",
    "f'{[[0]*10000]*10000}'+''",
    "f'{[[[0]*10000]*10000]*2}'+''",
    "'%s' % ([[0]*10000]*10000,)",
    "'%r'%('%r'%('%r'%('%r'%('%r'%('%r'%('%r'%('%r'%('%r'%('%r'%('\\\\'*9000,))))))))))",
    "+".join(["[[0]*100]*90"] * 200),
    "'a'*10**9",
    "'%99999999d'%1",
    "f'{1:>999999999}'+''",
    "[0]*100001",
    "[*[0]*10000, *[0]*10000]",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_expressions_are_refused_with_bounded_work(text: str) -> None:
    node = ast.parse(text, mode="eval").body
    interpreter = Interpreter()
    interpreter.value(node)
    assert interpreter.refused
    assert interpreter.work <= literals.MAX_WORK
    assert interpreter.int_work <= literals.MAX_INT_WORK
    assert interpreter.operations <= literals.MAX_OPERATIONS
    with pytest.raises(TooLarge):
        evaluate(node)


_MEASURE = """
import ast, json, sys
from pytest_toolcall.core.safety.literals import LiteralError, evaluate
for text in json.loads(sys.stdin.read()):
    try:
        evaluate(ast.parse(text, mode="eval").body)
    except LiteralError:
        pass
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


@pytest.mark.slow
def test_hostile_expressions_fit_in_a_few_hundred_mb() -> None:
    # A fresh process evaluates them all; its peak memory (kB on Linux) is the measure, the timeout
    # only a hang guard.
    # VmHWM is this process's own peak: ru_maxrss would carry over the high-water mark of the xdist
    # worker that started it (Linux keeps it across exec).
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE], input=json.dumps(HOSTILE), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) < 300 * 1024


def test_errors_beyond_a_refused_value_still_fail_as_under_eval() -> None:
    # Under eval these build the big value, then fail: the stand-in fails the same way.
    cases = (
        "[[0]*10000]*10000 + 1",
        "(10**1000)**1000**1000 + 'x'",
        "f'{[[0]*10000]*10000}' + 1",
        "'%99999999d' % 'x'",
        "'%99999999d %d' % (1,)",
        "f'{1:>99999999s}' + ''",
    )
    for text in cases:
        with pytest.raises(LiteralError) as info:
            evaluate(ast.parse(text, mode="eval").body)
        assert not isinstance(info.value, TooLarge), text


def test_operation_count_is_capped() -> None:
    node = ast.parse("[" + "1," * (literals.MAX_OPERATIONS + 1) + "]+[]", mode="eval").body
    with pytest.raises(TooLarge, match="operations"):
        evaluate(node)


def test_sizes_count_shared_parts_as_copies() -> None:
    interpreter = Interpreter()
    value, size = interpreter.value(ast.parse("[[0]*100]*100", mode="eval").body)
    assert value == [[0] * 100] * 100
    assert size == 1 + 100 * (1 + 100)
