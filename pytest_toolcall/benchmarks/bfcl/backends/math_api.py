"""MathAPI: the stateless calculator of BFCL multi-turn (official behaviour at gorilla@6ea5797).

`logarithm` needs `mpmath` (the official class returns an mpmath number, whose repr ends up in the
execution result); without it the call fails with an error string, like any failing official call.

Guards against model arguments that would keep the official code busy for minutes: an integer
`power` whose result is too long to print fails at once with the error the official executor
reports when it prints it; `round_number` of an integer to very many negative places gives its
result (0) without building the power of ten; precisions above 100,000 digits are refused (our own
message: the official mpmath call would run for many minutes; 100,000 digits take seconds, in Python
code that Ctrl-C interrupts).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld

_TO_METRES = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001, "um": 1e-06, "nm": 1e-09}

_IMPERIAL_FACTORS = {
    "cm_to_in": 0.393701, "in_to_cm": 2.54, "m_to_ft": 3.28084, "ft_to_m": 0.3048, "m_to_yd": 1.09361,
    "yd_to_m": 0.9144, "km_to_miles": 0.621371, "miles_to_km": 1.60934, "kg_to_lb": 2.20462,
    "lb_to_kg": 0.453592, "celsius_to_fahrenheit": 1.8, "fahrenheit_to_celsius": 5 / 9,
}  # fmt: skip

_BOTH_NUMBERS = {"error": "Both inputs must be numbers"}
_MAX_PRECISION = 100_000
_ALL_NUMBERS = {"error": "All elements in the list must be numbers"}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _refuse_huge_precision(precision: Any) -> None:
    if isinstance(precision, int) and precision > _MAX_PRECISION:
        raise ValueError(f"precision above {_MAX_PRECISION} digits is not simulated")


def _refuse_unprintable_power(base: Any, exponent: Any) -> None:
    """The official executor computes the integer, then fails to print it; fail before computing."""
    limit = sys.get_int_max_str_digits()
    if type(base) is int and type(exponent) is int and exponent > 0 and abs(base) > 1 and limit:
        if exponent * math.log10(abs(base)) > limit + 10:
            raise ValueError(
                f"Exceeds the limit ({limit} digits) for integer string conversion; "
                "use sys.set_int_max_str_digits() to increase the limit"
            )


def _rounds_to_zero(number: Any, decimal_places: Any) -> bool:
    """``round(int, -k)`` builds ``10**k`` in one uninterruptible C call (``k`` = 30,000,000: most of a
    minute); when ``10**(k-1)`` already exceeds the number the result is 0, so give it at once. Same
    value, same type (``round(True, -5)`` is the int 0 too)."""
    if type(number) not in (int, bool) or type(decimal_places) is not int or decimal_places >= 0:
        return False
    return -decimal_places - 1 > abs(number).bit_length()  # 10**(k-1) >= 2**(k-1) > |number|


class MathAPI:
    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "absolute_value": self.absolute_value, "add": self.add, "divide": self.divide,
            "imperial_si_conversion": self.imperial_si_conversion, "logarithm": self.logarithm,
            "max_value": self.max_value, "mean": self.mean, "min_value": self.min_value,
            "multiply": self.multiply, "percentage": self.percentage, "power": self.power,
            "round_number": self.round_number, "si_unit_conversion": self.si_unit_conversion,
            "square_root": self.square_root, "standard_deviation": self.standard_deviation,
            "subtract": self.subtract, "sum_values": self.sum_values,
        }  # fmt: skip

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Stateless: the official executor never loads a scenario into it."""

    def logarithm(self, value: float, base: float, precision: int) -> dict[str, Any]:
        try:
            import mpmath  # optional dependency, see the module docstring

            _refuse_huge_precision(precision)
            mpmath.mp.dps = precision
            return {"result": mpmath.log(value) / mpmath.log(base)}
        except Exception as exc:
            return {"error": str(exc)}

    def mean(self, numbers: list[float]) -> dict[str, Any]:
        if not numbers:
            return {"error": "Cannot calculate mean of an empty list"}
        try:
            return {"result": sum(numbers) / len(numbers)}
        except TypeError:
            return dict(_ALL_NUMBERS)

    def standard_deviation(self, numbers: list[float]) -> dict[str, Any]:
        if not numbers:
            return {"error": "Cannot calculate standard deviation of an empty list"}
        try:
            average = sum(numbers) / len(numbers)
            variance = sum((x - average) ** 2 for x in numbers) / len(numbers)
            return {"result": math.sqrt(variance)}
        except TypeError:
            return dict(_ALL_NUMBERS)

    def si_unit_conversion(self, value: float, unit_in: str, unit_out: str) -> dict[str, Any]:
        if not _is_number(value):
            return {"error": "Value must be a number"}
        if unit_in not in _TO_METRES or unit_out not in _TO_METRES:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            return {"result": value * _TO_METRES[unit_in] * (1 / _TO_METRES[unit_out])}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def imperial_si_conversion(self, value: float, unit_in: str, unit_out: str) -> dict[str, Any]:
        if not _is_number(value):
            return {"error": "Value must be a number"}
        if unit_in == unit_out:
            return {"result": value}
        key = f"{unit_in}_to_{unit_out}"
        if key not in _IMPERIAL_FACTORS:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            if unit_in == "celsius" and unit_out == "fahrenheit":
                result = value * _IMPERIAL_FACTORS[key] + 32
            elif unit_in == "fahrenheit" and unit_out == "celsius":
                result = (value - 32) * _IMPERIAL_FACTORS[key]
            else:
                result = value * _IMPERIAL_FACTORS[key]
            return {"result": result}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def add(self, a: float, b: float) -> dict[str, Any]:
        try:
            return {"result": a + b}
        except TypeError:
            return dict(_BOTH_NUMBERS)

    def subtract(self, a: float, b: float) -> dict[str, Any]:
        try:
            return {"result": a - b}
        except TypeError:
            return dict(_BOTH_NUMBERS)

    def multiply(self, a: float, b: float) -> dict[str, Any]:
        if not _is_number(a) or not _is_number(b):
            return dict(_BOTH_NUMBERS)
        return {"result": a * b}

    def divide(self, a: float, b: float) -> dict[str, Any]:
        try:
            if b == 0:
                return {"error": "Cannot divide by zero"}
            return {"result": a / b}
        except TypeError:
            return dict(_BOTH_NUMBERS)

    def power(self, base: float, exponent: float) -> dict[str, Any]:
        _refuse_unprintable_power(base, exponent)
        try:
            return {"result": base**exponent}
        except TypeError:
            return dict(_BOTH_NUMBERS)

    def square_root(self, number: float, precision: int) -> dict[str, Any]:
        try:
            if number < 0:
                return {"error": "Cannot calculate square root of a negative number"}
            # The official code sets the global decimal precision; a local context gives the same
            # digits without changing decimal arithmetic elsewhere in this process.
            _refuse_huge_precision(precision)
            with localcontext() as context:
                context.prec = precision
                return {"result": Decimal(number).sqrt()}
        except (TypeError, InvalidOperation):
            return {"error": "Input must be a number or computation resulted in an invalid operation"}

    def absolute_value(self, number: float) -> dict[str, Any]:
        try:
            return {"result": abs(number)}
        except TypeError:
            return {"error": "Input must be a number"}

    def round_number(self, number: float, decimal_places: int = 0) -> dict[str, Any]:
        try:
            if _rounds_to_zero(number, decimal_places):
                return {"result": 0}
            return {"result": round(number, decimal_places)}
        except TypeError:
            return {"error": "First input must be a number, second input must be an integer"}

    def percentage(self, part: float, whole: float) -> dict[str, Any]:
        try:
            if whole == 0:
                return {"error": "Whole value cannot be zero"}
            return {"result": part / whole * 100}
        except TypeError:
            return dict(_BOTH_NUMBERS)

    def min_value(self, numbers: list[float]) -> dict[str, Any]:
        if not numbers:
            return {"error": "Cannot find minimum of an empty list"}
        try:
            return {"result": min(numbers)}
        except TypeError:
            return dict(_ALL_NUMBERS)

    def max_value(self, numbers: list[float]) -> dict[str, Any]:
        if not numbers:
            return {"error": "Cannot find maximum of an empty list"}
        try:
            return {"result": max(numbers)}
        except TypeError:
            return dict(_ALL_NUMBERS)

    def sum_values(self, numbers: list[float]) -> dict[str, Any]:
        if not numbers:
            return {"error": "Cannot calculate sum of an empty list"}
        try:
            return {"result": sum(numbers)}
        except TypeError:
            return dict(_ALL_NUMBERS)
