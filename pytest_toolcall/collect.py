"""Collection: the benchmark items, whatever paths are on the command line.

The items are ordinary ``pytest.Function``s of the test functions in ``items.py``, parametrized from
the catalog, so fixtures, ``-k``/``-m``, ``--lf``, xdist and JUnit all work as for any test. They
live under one module node with the fixed node id ``toolcall``, wherever the package is installed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall import ids, items
from pytest_toolcall.datasets import acebench
from pytest_toolcall.datasets.acebench import DataError, Sample
from pytest_toolcall.datasets.download import ensure_root
from pytest_toolcall.datasets.general_fc import GeneralFCSample, load_file
from pytest_toolcall.options import Settings
from pytest_toolcall.prompts import Prompts

TEST_FUNCTIONS = {"acebench", "general_fc"}


@dataclass
class Catalog:
    """Everything to run in this process, loaded once."""

    root: Path | None = None
    prompts: Prompts | None = None
    samples: list[Sample] = field(default_factory=list)
    general_fc: list[GeneralFCSample] = field(default_factory=list)
    #: Units per (language, category) in the data, before ``--toolcall-limit``.
    sizes: dict[tuple[str, str], int] = field(default_factory=dict)
    #: (collector name, message) for every part of the data that could not be loaded.
    problems: list[tuple[str, str]] = field(default_factory=list)


def data_root(settings: Settings) -> Path:
    """The ACEBench data root: the configured one, or the cached download."""
    if settings.data_dir is not None:
        if not (settings.data_dir / "data_all").is_dir():
            raise pytest.UsageError(
                f"--toolcall-data-dir: {settings.data_dir} has no data_all/ folder (an ACEBench data root "
                "holds data_all/ and prompts.json)"
            )
        return settings.data_dir
    try:
        return ensure_root()
    except DataError as exc:
        raise pytest.UsageError(str(exc)) from None


def load_catalog(settings: Settings, root: Path | None) -> Catalog:
    catalog = Catalog(root=root)
    for path in settings.general_fc:
        try:
            samples, problems = load_file(path)
        except DataError as exc:
            raise pytest.UsageError(f"--toolcall-general-fc: {exc}") from None
        catalog.general_fc.extend(samples[: settings.limit])
        catalog.problems += [(f"general_fc[{path.stem}/{index}]", message) for index, message in problems]
    if "acebench" in settings.benches and root is not None:
        try:
            catalog.prompts = Prompts.load(root)
        except DataError as exc:
            catalog.problems.append(("acebench", str(exc)))
            return catalog
        for lang in settings.langs:
            for category in acebench.CATEGORIES:
                try:
                    samples = acebench.load_category(root, lang, category)
                except DataError as exc:
                    catalog.problems.append((f"acebench[{lang}/{category}]", str(exc)))
                    continue
                catalog.sizes[(lang, category)] = len(samples)
                catalog.samples.extend(samples[: settings.limit])
    return catalog


class BenchmarkModule(pytest.Module):
    """The module node holding every benchmark item (node id ``toolcall``)."""

    def _getobj(self) -> Any:
        return items  # already imported: never import it a second time under another name

    def istestfunction(self, obj: object, name: str) -> bool:
        # Independent of the project's python_functions setting; one test function per benchmark run.
        return name in TEST_FUNCTIONS and name in self.config.stash[SETTINGS].benches

    def istestclass(self, obj: object, name: str) -> bool:
        return False

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        problems = [DataProblem.from_parent(self, name=name, message=msg) for name, msg in self.catalog.problems]
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
SETTINGS = pytest.StashKey[Settings]()


def benchmark_module(session: pytest.Session) -> BenchmarkModule:
    # The node's path is a virtual ``<rootdir>/toolcall`` (the items are never imported from it): it
    # places the items under the project's root, so its conftest.py fixtures and hooks apply to them.
    config = session.config
    path = config.rootpath / ids.MODULE_NODEID
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
    return BenchmarkModule.from_parent(session, path=path, name=ids.MODULE_NODEID, nodeid=ids.MODULE_NODEID)


_MARKS: dict[str, pytest.MarkDecorator] = {}


def _mark(name: str) -> pytest.MarkDecorator:
    if name not in _MARKS:
        _MARKS[name] = getattr(pytest.mark, name)
    return _MARKS[name]


def general_fc_params(catalog: Catalog) -> list[Any]:
    mark = _mark("general_fc")
    return [
        pytest.param(sample, id=ids.ItemId("general_fc", sample.stem, str(sample.index)).param_id, marks=mark)
        for sample in catalog.general_fc
    ]


def acebench_params(catalog: Catalog) -> list[Any]:
    return [
        pytest.param(
            sample,
            id=ids.ItemId("acebench", sample.lang, sample.id).param_id,
            marks=(_mark("acebench"), _mark(acebench.family(sample.category)), _mark(sample.lang)),
        )
        for sample in catalog.samples
    ]
