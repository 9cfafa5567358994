"""A capped interpreter for Python expressions made only of literals (``2*3``, ``'a'+'b'``, ``[1]*2``).

The official ACEBench and BFCL decoders ``eval`` the arithmetic found in a model's call list. We
never evaluate model text: this walk over the parsed tree gives Python's value for every expression
whose operands are literals (numbers, strings, bytes, containers, f-strings, comparisons, boolean
operators, conditional expressions, subscripts) and refuses everything that would need a namespace
(names, calls, attributes, lambdas, comprehensions) with :class:`LiteralError`.

Bounded by size and by operation count, never by time: whatever expression a model writes, the
interpreter does a bounded amount of work and builds bounded values.

* every built value has a *size* — one per element, character, byte and 32 bits of an integer,
  counted over nested containers as if shared parts were copies (``[[0]*100]*100`` has 10,101); no
  value larger than :data:`MAX_SIZE` is built;
* the sizes of everything built in one expression add up to at most :data:`MAX_WORK`, and one
  expression evaluates at most :data:`MAX_OPERATIONS` nodes;
* integers are capped at :data:`MAX_INT_BITS` bits and the digit work of multiplying and dividing
  them at :data:`MAX_INT_WORK` (CPython's division is quadratic: a 4-million-bit quotient takes
  seconds in one uninterruptible C call);
* the caps the ACEBench decoder always had: exponents above :data:`MAX_POW_EXPONENT` (base other
  than 0, 1, -1), shifts above :data:`MAX_SHIFT`, a repetition giving more than :data:`MAX_REPEAT`
  items, format widths above :data:`MAX_FORMAT_WIDTH`.

The work beyond a cap is never done: the evaluation goes on with a small stand-in (see
:class:`Interpreter`) and :func:`evaluate` then raises :class:`TooLarge` (a :class:`LiteralError`), as
it does for an expression nested more deeply than the interpreter's recursion allows. That is where
our result differs from the official ``eval``: there, the same expression takes minutes or exhausts
memory (``10**10**10``, ``[[0]*100000]*100000`` printed or compared), or—for the ACEBench caps and
the nesting—gives a value no dataset answer comes near.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from typing import Any

MAX_POW_EXPONENT = 1000
MAX_INT_BITS = 4_000_000
MAX_INT_WORK = 300_000_000  # products of 30-bit digits; about a tenth of a second of C
MAX_SHIFT = 10_000
MAX_REPEAT = 10_000
MAX_FORMAT_WIDTH = 10_000
MAX_SIZE = 1_000_000
MAX_WORK = 10_000_000
MAX_OPERATIONS = 100_000

#: How much longer than its operand's size the text of a value can be (``'\x00'`` prints as 6 chars,
#: an astral character as ``'\U0001f600'``): a format's cost is charged at this factor before it runs.
_TEXT_FACTOR = 12


class LiteralError(ValueError):
    """The expression has no value without evaluating code, or its operation fails."""


class TooLarge(LiteralError):
    """The expression's value or work is beyond a cap (the official ``eval`` would hang or swamp)."""


def evaluate(node: ast.AST) -> Any:
    """Python's value of ``node``, an expression made of literals; :class:`LiteralError` otherwise."""
    interpreter = Interpreter()
    try:
        value = interpreter.value(node)[0]
    except LiteralError:
        raise
    except (RecursionError, MemoryError):
        raise TooLarge("expression nested too deeply") from None
    except Exception as exc:  # the operation itself failed, as it would under the official eval
        raise LiteralError(f"{type(exc).__name__}: {exc}") from None
    if interpreter.refused:
        raise TooLarge(interpreter.refused)
    return value


def size_of(value: Any) -> int:
    """The size of a literal value (see the module docstring). Recursive: for values parsed from
    text, whose size is bounded by the text."""
    if isinstance(value, (str, bytes)):
        return 1 + len(value)
    if isinstance(value, int):
        return 1 + value.bit_length() // 32
    if isinstance(value, dict):
        return 1 + sum(size_of(k) + size_of(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return 1 + sum(size_of(item) for item in value)
    return 1


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_SEQUENCES = (str, bytes, list, tuple)
_DIGITS = re.compile(r"\d+")

Sized = tuple[Any, int]  # a value and its size


class Interpreter:
    """One expression's evaluation, with its counters (``work``, ``int_work``, ``operations``).

    A cap does not stop the evaluation at once: the first refusal is kept in ``refused``, and the
    expression goes on with a small stand-in of the same type in place of the value beyond the cap
    (``[[0]]`` for ``[[0]*10**5]*10**5``). What the official ``eval`` would then fail on (a type
    error further out, a division by zero elsewhere) fails here too, as it would there; otherwise
    :func:`evaluate` raises :class:`TooLarge`.
    """

    def __init__(self) -> None:
        self.operations = 0
        self.work = 0
        self.int_work = 0
        self.refused = ""

    def _refuse(self, reason: str) -> None:
        self.refused = self.refused or reason

    def _fits(self, size: int) -> bool:
        """Charge a value of ``size`` about to be built; False (and a refusal) beyond the caps."""
        if size > MAX_SIZE:
            self._refuse(f"value too large ({size:,} elements, characters and digits; the cap is {MAX_SIZE:,})")
            return False
        if self.work + size > MAX_WORK:
            self._refuse(f"expression builds too much (over {MAX_WORK:,} elements, characters and digits)")
            return False
        self.work += size
        return True

    def _int_fits(self, cost: int) -> bool:
        if self.int_work + cost > MAX_INT_WORK:
            self._refuse("integer arithmetic too long")
            return False
        self.int_work += cost
        return True

    # -- evaluation ---------------------------------------------------------------------------

    def value(self, node: ast.AST) -> Sized:
        self.operations += 1
        if self.operations > MAX_OPERATIONS:
            raise TooLarge(f"expression too long (over {MAX_OPERATIONS:,} operations)")
        if isinstance(node, ast.Constant):
            return node.value, size_of(node.value)  # bounded by the source text
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.UnaryOp):
            operand, size = self.value(node.operand)
            result = _UNARY[type(node.op)](operand)
            return result, size if isinstance(result, int) and not isinstance(result, bool) else 1
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items, size = self._elements(node.elts)
            container = {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)]
            if not self._fits(size):
                return container(small(item) for item in items[:1]), 1
            return container(items), size
        if isinstance(node, ast.Dict):
            return self._dict(node)
        if isinstance(node, ast.Compare):
            # A comparison walks at most both sides, whose sizes were charged when they were built.
            left, _ = self.value(node.left)
            for op, comparator in zip(node.ops, node.comparators, strict=True):
                right, _ = self.value(comparator)
                if not _COMPARE[type(op)](left, right):
                    return False, 1
                left = right
            return True, 1
        if isinstance(node, ast.BoolOp):
            is_and = isinstance(node.op, ast.And)
            for value_node in node.values:
                value, size = self.value(value_node)
                if bool(value) != is_and:
                    return value, size
            return value, size
        if isinstance(node, ast.IfExp):
            return self.value(node.body) if self.value(node.test)[0] else self.value(node.orelse)
        if isinstance(node, ast.Subscript):
            container, size = self.value(node.value)
            index, _ = self.value(node.slice)
            result = container[index]  # no larger than the container, already charged
            return result, size_of(result) if isinstance(result, (str, bytes, int)) else size
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if p is None else self.value(p)[0] for p in parts)), 1
        if isinstance(node, ast.JoinedStr):
            return self._text("".join([self.value(v)[0] for v in node.values]))
        if isinstance(node, ast.FormattedValue):
            return self._format(node)
        # Names (other than True/False/None, which are constants), calls, attributes, lambdas and
        # comprehensions would need a namespace: refused.
        raise LiteralError(f"non-literal {type(node).__name__} in an expression of literals")

    def _elements(self, nodes: list[ast.expr]) -> tuple[list[Any], int]:
        items: list[Any] = []
        size = 1
        for element in nodes:
            if isinstance(element, ast.Starred):
                starred, starred_size = self.value(element.value)
                if len(items) + len(starred) > MAX_REPEAT:
                    self._refuse("sequence too long")
                    starred = [small(item) for item in list(starred)[:1]]
                size += starred_size
                items.extend(starred)
            else:
                item, item_size = self.value(element)
                size += item_size
                items.append(item)
        return items, size

    def _dict(self, node: ast.Dict) -> Sized:
        result: dict[Any, Any] = {}
        size = 1
        for key, value_node in zip(node.keys, node.values, strict=True):
            value, value_size = self.value(value_node)
            if key is None:
                size += value_size
                result.update(value)
            else:
                key_value, key_size = self.value(key)
                size += key_size + value_size
                result[key_value] = value
        if not self._fits(size):
            return small(result), 1
        return result, size

    def _format(self, node: ast.FormattedValue) -> Sized:
        value, size = self.value(node.value)
        spec = "" if node.format_spec is None else self.value(node.format_spec)[0]
        if not _widths_fit(spec) or not self._fits(min(MAX_SIZE, _TEXT_FACTOR * size + len(spec))):
            self._refuse("format width too large")
            value, spec = small(value), _small_format(spec)
        conversion = {-1: None, 115: str, 114: repr, 97: ascii}[node.conversion]
        if conversion is not None:
            value = conversion(value)
        return self._text(format(value, spec))

    def _text(self, text: Any) -> Sized:
        """A text just formatted (at most ``_TEXT_FACTOR`` times its operands' size): measured."""
        if not self._fits(1 + len(text)):
            return small(text), 1
        return text, 1 + len(text)

    def _binop(self, node: ast.BinOp) -> Sized:
        left, left_size = self.value(node.left)
        right, right_size = self.value(node.right)
        op = type(node.op)
        if type(left) in (int, bool) and type(right) in (int, bool):
            return self._int_binop(op, left, right)
        size = left_size + right_size  # concatenations and unions: at most both sides
        fits = True
        if op is ast.Mult:
            for seq, seq_size, count in ((left, left_size, right), (right, right_size, left)):
                if isinstance(seq, _SEQUENCES) and isinstance(count, int):
                    size = 1 + (seq_size - 1) * max(count, 0)  # shared copies count as copies
                    if len(seq) * count > MAX_REPEAT:
                        self._refuse("sequence too long")
                        fits = False
        elif op is ast.Mod and isinstance(left, (str, bytes)):
            text = left if isinstance(left, str) else left.decode("latin-1")
            size = min(MAX_SIZE, len(text) + _TEXT_FACTOR * right_size)  # the longest the text can be
            if "*" in text or not _widths_fit(text):
                self._refuse("format width too large")
                fits = False
        if not (fits and self._fits(size)):
            if op is ast.Mod and isinstance(left, (str, bytes)):  # the format decides what fails
                return _small_format(left) % _small_arguments(right), 1
            return _BINOPS[op](small(left), small(right)), 1
        result = _BINOPS[op](left, right)
        if isinstance(result, (str, bytes)):
            return self._text(result)
        if isinstance(result, (list, tuple, set, frozenset, dict)):
            return result, size
        return result, 1  # a float, a complex

    def _int_binop(self, op: type[ast.operator], left: int, right: int) -> Sized:
        bits_left, bits_right = abs(left).bit_length(), abs(right).bit_length()
        digits_left, digits_right = 1 + bits_left // 30, 1 + bits_right // 30
        fits = True
        if op is ast.Pow and right > 0 and left not in (0, 1, -1):
            if right > MAX_POW_EXPONENT:
                self._refuse("exponent too large")
                fits = False
            elif bits_left * right > MAX_INT_BITS:
                self._refuse("power too large")
                fits = False
            else:
                fits = self._int_fits(_karatsuba(1 + bits_left * right // 30))
        elif op is ast.LShift and right > 0:
            if right > MAX_SHIFT:
                self._refuse("shift too large")
                fits = False
            elif bits_left + right > MAX_INT_BITS:
                self._refuse("integer too large")
                fits = False
        elif op is ast.Mult:
            if bits_left + bits_right > MAX_INT_BITS:
                self._refuse("integer too large")
                fits = False
            else:
                low, high = sorted((digits_left, digits_right))
                fits = self._int_fits(_karatsuba(low) * (high // low))
        elif op in (ast.FloorDiv, ast.Mod):
            fits = self._int_fits(max(1, digits_left - digits_right + 1) * digits_right)
        if not fits:
            left, right = small(left), small(right)
        result = _BINOPS[op](left, right)
        return result, size_of(result) if isinstance(result, int) else 1


def small(value: Any) -> Any:
    """A stand-in of the same type for a value beyond a cap: at most one (small) element, the sign of
    a number, the first character of a text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return (value > 0) - (value < 0) or 0
    if isinstance(value, (str, bytes)):
        return value[:1]
    if isinstance(value, dict):
        return {small(k): small(v) for k, v in list(value.items())[:1]}
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(small(item) for item in list(value)[:1])
    return value


def _small_format(text: Any) -> Any:
    """A ``%`` or format spec with every number (width, precision) made 1."""
    return re.sub(rb"\d+", b"1", text) if isinstance(text, bytes) else _DIGITS.sub("1", text)


def _small_arguments(arguments: Any) -> Any:
    """Stand-ins for the arguments of a ``%`` format, keeping their number and keys."""
    if isinstance(arguments, tuple):
        return tuple(small(item) for item in arguments)
    if isinstance(arguments, dict):
        return {key: small(value) for key, value in arguments.items()}
    return small(arguments)


def _karatsuba(digits: int) -> int:
    """Digit products of one CPython multiplication of ``digits``-digit integers (Karatsuba above 70)."""
    return digits * digits if digits < 70 else int(digits**1.585)


def _widths_fit(spec: str) -> bool:
    return all(len(n) <= 5 and int(n) <= MAX_FORMAT_WIDTH for n in _DIGITS.findall(spec))
