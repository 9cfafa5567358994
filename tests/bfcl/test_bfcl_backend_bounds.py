"""Simulated backends: arguments whose cost explodes give the official value without the cost."""

from __future__ import annotations

import pytest

from pytest_toolcall.benchmarks.bfcl.backends import math_api
from pytest_toolcall.benchmarks.bfcl.backends.math_api import MathAPI

NUMBERS = [0, 5, -7, 123456, 10**40, -(10**40) + 1, 5 * 10**39, True, False, 2.5, -1e300]


@pytest.mark.parametrize("number", NUMBERS)
def test_round_number_gives_pythons_round(number: object) -> None:
    for places in range(-60, 3):
        expected = round(number, places)  # type: ignore[call-overload]
        result = MathAPI().round_number(number, places)["result"]  # type: ignore[arg-type]
        assert result == expected and type(result) is type(expected), (number, places)


def test_round_number_to_millions_of_places_builds_no_power_of_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, object]] = []
    real_round = round

    def counting_round(number: object, places: object = None) -> object:
        calls.append((number, places))
        return real_round(number, places)  # type: ignore[call-overload]

    monkeypatch.setattr(math_api, "round", counting_round, raising=False)
    assert MathAPI().round_number(5, -30_000_000) == {"result": 0}
    assert MathAPI().round_number(-(10**300), -(10**9)) == {"result": 0}
    assert calls == []  # Python's round (10**30,000,000 in one C call) was never reached
    assert MathAPI().round_number(5, -1) == {"result": 0}
    assert calls == [(5, -1)]


def test_logarithm_precision_is_capped_only_beyond_the_official_range() -> None:
    pytest.importorskip("mpmath")
    assert "result" in MathAPI().logarithm(8, 2, 50)
    refused = MathAPI().logarithm(8, 2, math_api._MAX_PRECISION + 1)
    assert "error" in refused and "not simulated" in refused["error"]
