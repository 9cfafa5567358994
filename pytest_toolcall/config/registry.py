"""The benchmarks of this installation, found through the entry-point group
``pytest_toolcall.benchmarks`` (the built-in ones are registered there the same way)."""

from __future__ import annotations

import functools
from importlib.metadata import entry_points

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, is_module_nodeid

GROUP = "pytest_toolcall.benchmarks"


@functools.cache
def benchmark_classes() -> dict[str, type[Benchmark]]:
    """Name -> benchmark class, built-in ones first. A broken entry point stops the run with a
    message naming it: silently running fewer benchmarks would change the numbers."""
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


@functools.cache
def collected_file_suffixes() -> tuple[str, ...]:
    """The file-name endings that installed benchmarks collect from the paths pytest is given."""
    return tuple(suffix for cls in benchmark_classes().values() for suffix in cls.file_suffixes)


def is_benchmark_nodeid(nodeid: str) -> bool:
    """Whether a node id is one of the benchmark items (or a data problem among them): an item of
    the ``toolcall`` module, or of a file that a benchmark collects (``weather.toolcall.yaml::paris``)."""
    return is_module_nodeid(nodeid) or nodeid.partition("::")[0].endswith(collected_file_suffixes())
