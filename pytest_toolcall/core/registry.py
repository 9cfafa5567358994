"""The benchmarks of this installation, found through the entry-point group
``pytest_toolcall.benchmarks`` (the built-in ones are registered there the same way)."""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_toolcall.core.benchmark import Benchmark

GROUP = "pytest_toolcall.benchmarks"


@functools.cache
def benchmark_classes() -> dict[str, type[Benchmark]]:
    """Name -> benchmark class, built-in ones first. A broken entry point stops the run with a
    message naming it: silently running fewer benchmarks would change the numbers."""
    from pytest_toolcall.core.benchmark import Benchmark

    found: dict[str, type[Benchmark]] = {}
    points = sorted(entry_points(group=GROUP), key=lambda p: (not p.value.startswith("pytest_toolcall."), p.name))
    for point in points:
        try:
            loaded = point.load()
        except Exception as exc:
            raise pytest.UsageError(
                f"benchmark entry point {point.name} = {point.value}: cannot load it ({exc})"
            ) from None
        if not (isinstance(loaded, type) and issubclass(loaded, Benchmark)):
            raise pytest.UsageError(f"benchmark entry point {point.name} = {point.value}: not a Benchmark subclass")
        if loaded.name != point.name:
            raise pytest.UsageError(
                f"benchmark entry point {point.name} = {point.value}: the class is named {loaded.name!r}"
            )
        found.setdefault(point.name, loaded)
    return found
