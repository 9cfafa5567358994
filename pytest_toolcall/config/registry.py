"""The benchmarks of this installation, found through two entry-point groups without importing their
code (the built-in ones are registered there the same way):

- ``pytest_toolcall.benchmarks``: name -> the benchmark class. It is imported only when a run needs it:
  the run selects the benchmark, or it collects users' files or offers fixtures (``FILE_SUFFIXES``,
  ``FIXTURES`` below) and a model is given.
- ``pytest_toolcall.options``: name -> a light declaration module, read in every pytest run (the
  options must be known before the command line is parsed): ``OPTIONS``, the benchmark's own options
  (a sequence of ``Option``), and, when it has them, ``FIXTURES`` (the module of its fixtures for users'
  tests) and ``FILE_SUFFIXES`` (the endings of the users' files it collects). A benchmark without a
  declaration has its class imported in every run instead, for the class's ``options``.

A benchmark's options live in its namespace: its ``Option("lang")`` is ``--toolcall-<name>-lang``
(``_`` in the name written ``-``). Aliases (a built-in's names from before) may clash; a benchmark
whose names clash with the run options or with a benchmark registered before it (built-in ones
first) is broken. So is one whose declaration or class cannot be imported. A broken benchmark is one
warning line naming it in every run (``problems``), and a usage error only when a run selects it.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, distributions
from typing import TYPE_CHECKING, Any

import pytest

from pytest_toolcall.config.run_options import OPTIONS
from pytest_toolcall.core.protocol.nodeids import is_module_nodeid
from pytest_toolcall.core.protocol.options import Option, dest_of

if TYPE_CHECKING:
    from pytest_toolcall.core.protocol.benchmark import Benchmark

GROUP = "pytest_toolcall.benchmarks"
DECLARATIONS = "pytest_toolcall.options"
BUILT_IN = "pytest_toolcall."


@dataclass(frozen=True)
class Declared:
    """What is known of an installed benchmark before its class is imported."""

    name: str
    #: The entry point's value (``package.module:Class``), for messages.
    value: str
    #: Its options under their full names (``acebench-lang``), aliases kept.
    options: tuple[Option, ...]
    fixtures: str | None = None
    file_suffixes: tuple[str, ...] = ()

    @property
    def built_in(self) -> bool:
        return self.value.startswith(BUILT_IN)

    @property
    def prefix(self) -> str:
        return namespace(self.name)


def namespace(benchmark: str) -> str:
    """The prefix of a benchmark's options: its name, ``_`` written ``-`` (``general-fc``)."""
    return benchmark.replace("_", "-")


@dataclass
class Installation:
    declared: dict[str, Declared]
    #: Name -> one line saying why the benchmark cannot be used.
    broken: dict[str, str]
    #: Classes imported so far (those read for their options, and those a run asked for).
    classes: dict[str, type[Benchmark]]
    points: dict[str, EntryPoint]


def _reserved() -> dict[str, str]:
    """The run options' ini names (the form two spellings of a name share) -> who owns them."""
    return {dest_of(name): "the run options" for option in OPTIONS for name in (option.name, *option.aliases)}


def entry_points() -> dict[str, dict[str, EntryPoint]]:
    """Group -> name -> entry point, of the two groups, from every installed distribution: the first
    on the path wins a name. One pass that parses only the entry points of distributions that have
    ours (``importlib.metadata.entry_points`` parses every distribution's, for each group asked): this
    runs in every pytest process."""
    found: dict[str, dict[str, EntryPoint]] = {GROUP: {}, DECLARATIONS: {}}
    for distribution in distributions():
        text = distribution.read_text("entry_points.txt")
        if not text or "[pytest_toolcall." not in text:
            continue
        for point in distribution.entry_points:
            if point.group in found:
                found[point.group].setdefault(point.name, point)
    return found


@functools.cache
def installation() -> Installation:
    groups = entry_points()
    points = sorted(groups[GROUP].values(), key=lambda p: (not p.value.startswith(BUILT_IN), p.name))
    declarations = groups[DECLARATIONS]
    found = Installation({}, {}, {}, {})
    taken = _reserved()
    for point in points:
        if point.name in found.points:
            continue  # (the same name twice: the first, a built-in before a third party's)
        found.points[point.name] = point
        try:
            declared = _declare(point, declarations.get(point.name), found)
            clash = next((name for name in _names(declared) if name in taken), None)
            if clash is not None:
                raise _Broken(f"its option {_flag(clash)} is also {taken[clash]}'s")
        except _Broken as exc:
            found.broken[point.name] = f"benchmark {point.name} ({point.value}): {exc}"
            continue
        taken.update(dict.fromkeys(_names(declared), f"benchmark {point.name}"))
        found.declared[point.name] = declared
    return found


class _Broken(Exception):
    pass


def _declare(point: EntryPoint, declaration: EntryPoint | None, found: Installation) -> Declared:
    if declaration is None:  # no light declaration: the class itself says (and is imported now)
        cls = _load_class(point)
        found.classes[point.name] = cls
        own: Any = cls.options
        fixtures, suffixes = cls.fixtures, cls.file_suffixes
    else:
        try:
            module = declaration.load()
        except Exception as exc:
            raise _Broken(f"cannot import its options declaration {declaration.value} ({_one_line(exc)})") from None
        own = getattr(module, "OPTIONS", ())
        fixtures, suffixes = getattr(module, "FIXTURES", None), getattr(module, "FILE_SUFFIXES", ())
    if not isinstance(own, Sequence) or not all(isinstance(o, Option) for o in own):
        raise _Broken("its options are not a sequence of pytest_toolcall.api.Option")
    prefix = namespace(point.name)
    options = tuple(dataclasses.replace(o, name=f"{prefix}-{o.name}") for o in own)
    names = [name for option in options for name in _option_names(option)]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        raise _Broken(f"it declares {_flag(duplicate)} twice")
    return Declared(point.name, point.value, options, fixtures, tuple(suffixes))


def _option_names(option: Option) -> list[str]:
    return [dest_of(name) for name in (option.name, *option.aliases)]


def _names(declared: Declared) -> list[str]:
    return [name for option in declared.options for name in _option_names(option)]


def _flag(dest: str) -> str:
    return "--toolcall-" + dest.removeprefix("toolcall_").replace("_", "-")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _load_class(point: EntryPoint) -> type[Benchmark]:
    from pytest_toolcall.core.protocol.benchmark import Benchmark

    try:
        loaded = point.load()
    except Exception as exc:
        raise _Broken(f"cannot import it ({_one_line(exc)})") from None
    if not (isinstance(loaded, type) and issubclass(loaded, Benchmark)):
        raise _Broken("not a Benchmark subclass")
    if loaded.name != point.name:
        raise _Broken(f"the class is named {loaded.name!r}")
    return loaded


def declared() -> dict[str, Declared]:
    """Name -> declaration of every usable benchmark, built-in ones first."""
    return installation().declared


def names() -> tuple[str, ...]:
    """Every installed benchmark's name, broken ones too (selecting one is then a usage error)."""
    return tuple(installation().points)


def problems() -> list[str]:
    """One line per broken benchmark, naming it and why."""
    return list(installation().broken.values())


def broken(name: str) -> str | None:
    """Why a benchmark cannot be used, or None."""
    return installation().broken.get(name)


def benchmark_class(name: str) -> type[Benchmark]:
    """The class of an installed benchmark, imported now if it was not; ``pytest.UsageError`` naming
    it when it cannot be used."""
    found = installation()
    if name in found.broken:
        raise pytest.UsageError(found.broken[name])
    if name not in found.classes:
        if name not in found.points:
            raise pytest.UsageError(f"benchmark {name!r} is not installed")
        try:
            found.classes[name] = _load_class(found.points[name])
        except _Broken as exc:
            found.broken[name] = f"benchmark {name} ({found.points[name].value}): {exc}"
            raise pytest.UsageError(found.broken[name]) from None
    return found.classes[name]


def benchmark_classes(which: Iterable[str] | None = None) -> dict[str, type[Benchmark]]:
    """Name -> class of the named benchmarks (default: every usable one), imported now if they were
    not."""
    return {name: benchmark_class(name) for name in (declared() if which is None else which)}


def loaded_classes() -> dict[str, type[Benchmark]]:
    """The classes imported so far, in registration order: what can be asked without importing more."""
    found = installation()
    return {name: found.classes[name] for name in found.points if name in found.classes}


def import_fixtures(name: str) -> Any:
    """The module of a benchmark's fixtures for users' tests."""
    module = declared()[name].fixtures
    assert module is not None, f"{name} declares no fixtures"
    return importlib.import_module(module)


@functools.cache
def collected_file_suffixes() -> tuple[str, ...]:
    """The file-name endings that installed benchmarks collect from the paths pytest is given."""
    return tuple(suffix for d in declared().values() for suffix in d.file_suffixes)


def is_benchmark_nodeid(nodeid: str) -> bool:
    """Whether a node id is one of the benchmark items (or a data problem among them): an item of
    the ``toolcall`` module, or of a file that a benchmark collects (``weather.toolcall.yaml::paris``)."""
    return is_module_nodeid(nodeid) or nodeid.partition("::")[0].endswith(collected_file_suffixes())
