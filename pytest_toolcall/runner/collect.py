"""Collection: the benchmark items, whatever paths are on the command line.

Each selected benchmark gets one test function (``items.py``), parametrized with its units, so
fixtures, ``-k``/``-m``, ``--lf``, xdist and JUnit all work as for any test. They live under one
module node with the fixed node id ``toolcall``, wherever the package is installed.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_toolcall.core.benchmark import MODULE_NODEID, Benchmark, Loaded, Unit
from pytest_toolcall.core.settings import Settings
from pytest_toolcall.runner import items


@dataclass
class Catalog:
    """Every selected benchmark with its data, loaded once per process."""

    settings: Settings
    benchmarks: dict[str, Benchmark]
    loaded: dict[str, Loaded] = field(default_factory=dict)

    def load(self) -> Catalog:
        for name, benchmark in self.benchmarks.items():
            if name not in self.loaded:
                self.loaded[name] = benchmark.load()
        return self

    def unit(self, nodeid: str) -> Unit | None:
        """The unit of a node id, by lookup in the loaded data (for records of crashed workers)."""
        if not hasattr(self, "_by_nodeid"):
            self._by_nodeid = {u.nodeid: u for loaded in self.loaded.values() for u in loaded.units}
        return self._by_nodeid.get(nodeid)


class BenchmarkModule(pytest.Module):
    """The module node holding every benchmark item (node id ``toolcall``)."""

    def _getobj(self) -> Any:
        # One test function per selected benchmark, named after it (``toolcall::acebench[...]``).
        module = types.ModuleType(items.__name__)
        for name in self.catalog.benchmarks:
            setattr(module, name, items.test_function(name))
        module.__file__ = items.__file__
        return module

    def istestfunction(self, obj: object, name: str) -> bool:
        # Independent of the project's python_functions setting.
        return name in self.catalog.benchmarks

    def istestclass(self, obj: object, name: str) -> bool:
        return False

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        problems = [
            DataProblem.from_parent(self, name=name, message=message)
            for loaded in self.catalog.loaded.values()
            for name, message in loaded.problems
        ]
        return [*problems, *super().collect()]

    @property
    def catalog(self) -> Catalog:
        return self.config.stash[CATALOG]


class DataProblem(pytest.Collector):
    """A part of the data that cannot be loaded: a collection error with a one-line reason."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def collect(self) -> list[pytest.Item]:
        raise self.CollectError(self.message)


CATALOG = pytest.StashKey[Catalog]()


def benchmark_module(session: pytest.Session) -> BenchmarkModule:
    # The node's path is a virtual ``<rootdir>/toolcall`` (the items are never imported from it): it
    # places the items under the project's root, so its conftest.py fixtures and hooks apply to them.
    config = session.config
    path = config.rootpath / MODULE_NODEID
    # pytest finds the conftests of a node by its directory, loaded while collecting directories;
    # this one is never collected as such, so load them as pytest's runner would (private API).
    load = getattr(config.pluginmanager, "_loadconftestmodules", None)
    if load is not None:
        load(
            path,
            config.getoption("importmode"),
            rootpath=config.rootpath,
            consider_namespace_packages=config.getini("consider_namespace_packages"),
        )
    return BenchmarkModule.from_parent(session, path=path, name=MODULE_NODEID, nodeid=MODULE_NODEID)


_MARKS: dict[str, pytest.MarkDecorator] = {}


def _mark(name: str) -> pytest.MarkDecorator:
    if name not in _MARKS:
        _MARKS[name] = getattr(pytest.mark, name)
    return _MARKS[name]


def unit_params(units: list[Unit]) -> list[Any]:
    return [
        pytest.param(unit, id=unit.key, marks=tuple(_mark(m) for m in (unit.benchmark, *unit.markers)))
        for unit in units
    ]


def unit_of(item: pytest.Item) -> Unit | None:
    """The benchmark unit an item scores, or None for any other test."""
    unit = getattr(getattr(item, "callspec", None), "params", {}).get("toolcall_unit")
    return unit if isinstance(unit, Unit) else None
