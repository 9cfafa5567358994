"""Collection: the benchmark items, whatever paths are on the command line, and the units of the
users' own files among those paths.

Each selected benchmark gets one test function (``items.py``), parametrized with its units, so
fixtures, ``-k``/``-m``, ``--lf``, xdist and JUnit all work as for any test. They live under one
module node with the fixed node id ``toolcall``, wherever the package is installed.

A benchmark with ``file_suffixes`` (user cases) makes a ``BenchmarkFile`` node of each such file
pytest finds, holding one ``UnitItem`` per unit (``<file>::<key>``): the same test function, the unit
in the item's stash instead of a parameter. Everything downstream asks ``unit_of(item)``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.benchmark import MODULE_NODEID, Benchmark, Loaded, Unit
from pytest_toolcall.runner import items
from pytest_toolcall.runner.keys import CATALOG, UNIT


@dataclass
class Catalog:
    """Every selected benchmark with its data, loaded once per process."""

    settings: Settings
    benchmarks: dict[str, Benchmark]
    loaded: dict[str, Loaded] = field(default_factory=dict)

    #: The units of the users' files collected in this process, by node id.
    file_units: dict[str, Unit] = field(default_factory=dict)
    #: Markers of units registered in this process (``register_markers``).
    unit_markers: set[str] = field(default_factory=set)

    def load(self) -> Catalog:
        for name, benchmark in self.benchmarks.items():
            if name not in self.loaded:
                loaded = Loaded(units=[]) if benchmark.file_suffixes else benchmark.load()
                benchmark.count_units(loaded.units)
                self.loaded[name] = repeated(limited(loaded, self.settings.limit), self.settings.repeat)
        return self

    @property
    def module_benchmarks(self) -> list[str]:
        """The benchmarks with items under the ``toolcall`` module: the selected ones, except those
        whose units all live in the users' files."""
        return [n for n, b in self.benchmarks.items() if n in self.settings.benches and not b.file_suffixes]

    def file_benchmark(self, path: Path) -> str | None:
        """The benchmark that collects the file at ``path``, if any."""
        found = (n for n, b in self.benchmarks.items() if b.file_suffixes and path.name.endswith(b.file_suffixes))
        return next(found, None)

    def unit(self, nodeid: str, rootpath: Path | None = None) -> Unit | None:
        """The unit of a node id, by lookup in the loaded data (for records of crashed workers); a
        unit of a user's file is looked up in that file (the xdist controller never collected it)."""
        if not hasattr(self, "_by_nodeid"):
            self._by_nodeid = {u.nodeid: u for loaded in self.loaded.values() for u in loaded.units}
        unit = self._by_nodeid.get(nodeid) or self.file_units.get(nodeid)
        file = nodeid.partition("::")[0]
        name = self.file_benchmark(Path(file))
        if unit is None and name is not None and rootpath is not None:
            try:
                loaded = repeated(self.benchmarks[name].load_file(rootpath / file, file), self.settings.repeat)
            except Exception:  # only for a record's identity: the file may have changed since
                return None
            self.file_units.update((u.nodeid, u) for u in loaded.units)
            unit = self.file_units.get(nodeid)
        return unit


def limited(loaded: Loaded, limit: int | None) -> Loaded:
    """``--toolcall-limit N``: the first N units of each part and category of the data (applied here,
    once, for every benchmark; the users' own files are never cut)."""
    if limit is None:
        return loaded
    taken: dict[tuple[str, str], int] = {}
    units = []
    for unit in loaded.units:
        key = (unit.part, unit.category)
        if taken.get(key, 0) < limit:
            taken[key] = taken.get(key, 0) + 1
            units.append(unit)
    return Loaded(units=units, problems=loaded.problems)


def repeated(loaded: Loaded, repeat: int) -> Loaded:
    """Under ``--toolcall-repeat N`` every unit becomes N units, attempts 1..N side by side (so the
    attempts of a unit run close together and a shard keeps them together)."""
    if repeat <= 1:
        return loaded
    units = [dataclasses.replace(unit, attempt=k) for unit in loaded.units for k in range(1, repeat + 1)]
    return Loaded(units=units, problems=loaded.problems)


class BenchmarkModule(pytest.Module):
    """The module node holding every benchmark item (node id ``toolcall``)."""

    def _getobj(self) -> Any:
        # One test function per selected benchmark, named after it (``toolcall::acebench[...]``).
        module = types.ModuleType(items.__name__)
        for name in self.catalog.module_benchmarks:
            setattr(module, name, items.test_function(name, self.catalog.benchmarks[name], self.config))
        module.__file__ = items.__file__
        return module

    def istestfunction(self, obj: object, name: str) -> bool:
        # Independent of the project's python_functions setting.
        return name in self.catalog.module_benchmarks

    def istestclass(self, obj: object, name: str) -> bool:
        return False

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        for name in self.catalog.module_benchmarks:
            register_markers(self.config, self.catalog, self.catalog.loaded[name].units, f"a marker of {name} units")
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


class BenchmarkFile(pytest.File):
    """A user's file that a benchmark collects (a case file): one item per unit, or, when the file
    cannot be loaded, one collection error naming the file and line (no traceback)."""

    def __init__(self, *, benchmark: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.benchmark = benchmark

    def collect(self) -> list[pytest.Item]:
        catalog = self.config.stash[CATALOG]
        loaded = repeated(catalog.benchmarks[self.benchmark].load_file(self.path, self.nodeid), catalog.settings.repeat)
        if loaded.problems:
            raise self.CollectError("\n".join(message for _, message in loaded.problems))
        function = items.test_function(self.benchmark, catalog.benchmarks[self.benchmark], self.config)
        collected: list[pytest.Item] = []
        register_markers(self.config, catalog, loaded.units, f"a tag in {self.nodeid}")
        for unit in loaded.units:
            catalog.file_units[unit.nodeid] = unit
            collected.append(UnitItem.from_parent(self, name=unit.param_id, callobj=function, unit=unit))
        return collected


class UnitItem(pytest.Function):
    """The item of a unit from a user's file: the benchmark's test function, the unit in the stash."""

    def __init__(self, *, unit: Unit, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stash[UNIT] = unit
        for name in (unit.benchmark, *unit.markers):
            self.add_marker(_mark(name))

    def reportinfo(self) -> tuple[Path, int, str]:
        # Where the unit is written (the case's line), not where the test function is.
        # The header of its failure is its node id: it names the file (two folders may each hold a
        # ``smoke.toolcall.yaml`` with a case ``paris``).
        line = self.stash[UNIT].fields.get("line")
        return self.path, (line - 1 if isinstance(line, int) else 0), self.nodeid


def register_markers(config: pytest.Config, catalog: Catalog, units: list[Unit], description: str) -> None:
    """Register every marker the units carry that is not registered yet, so that ``-m`` works and
    ``--strict-markers`` passes without the benchmark declaring them (case tags, categories)."""
    known = {line.split(":", 1)[0].split("(", 1)[0].strip() for line in config.getini("markers")}
    for marker in dict.fromkeys(m for unit in units for m in unit.markers):
        if marker not in known and marker not in catalog.unit_markers:
            config.addinivalue_line("markers", f"{marker}: {description}")
            catalog.unit_markers.add(marker)


def counted_by(item: pytest.Item, benchmarks: Mapping[str, Benchmark]) -> str | None:
    """The benchmark that counts an ordinary test: the first whose ``counted_fixtures`` it asks for
    (``toolcall_chat``), or None."""
    if UNIT in item.stash:
        return None
    names = getattr(item, "fixturenames", ())
    found = (n for n, b in benchmarks.items() if b.counted_fixtures and not set(b.counted_fixtures).isdisjoint(names))
    return next(found, None)


def unit_of(item: pytest.Item) -> Unit | None:
    """The benchmark unit an item scores (a parameter of a benchmark function, or in a file item's
    stash), or None for any other test."""
    unit = getattr(getattr(item, "callspec", None), "params", {}).get("toolcall_unit")
    if isinstance(unit, Unit):
        return unit
    return item.stash.get(UNIT, None)


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
        pytest.param(unit, id=unit.param_id, marks=tuple(_mark(m) for m in (unit.benchmark, *unit.markers)))
        for unit in units
    ]
