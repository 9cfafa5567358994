"""Selecting benchmark items from the command line as a person would.

A node id pasted from pytest's own output (``pytest "toolcall::acebench[en/normal_atom_bool_1]"``) is
not a path pytest could open: it is taken off the path arguments and selects that item (a function id
such as ``toolcall::acebench`` selects all of its items). And when ``-m``/``-k`` leave no benchmark
item, the run says which option would have loaded what they name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, is_module_nodeid
from pytest_toolcall.runner import compat
from pytest_toolcall.runner.keys import NODEIDS_INPUT

#: The node ids requested on the command line travel to xdist workers in their ``workerinput``.
_NAME = re.compile(r"[A-Za-z_]\w*")


def take_nodeid_arguments(config: pytest.Config) -> list[str]:
    """Remove benchmark node ids from the path arguments and return them."""
    requested = [arg for arg in config.args if is_module_nodeid(arg)]
    if requested:
        config.args = [arg for arg in config.args if not is_module_nodeid(arg)]
    return requested or list(compat.worker_input(config).get(NODEIDS_INPUT) or [])


def keep_requested(items: list[pytest.Item], requested: list[str], config: pytest.Config) -> None:
    """Deselect the benchmark items that were not requested (other tests, and the items of case
    files, which pytest selects by their own node ids, are not touched). A requested id that matches
    nothing is a usage error; under xdist the controller says so (``check_matched`` on what the
    workers collected), since an error raised in a worker's collection crashes it."""
    wanted = set(requested)
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        if not is_module_nodeid(item.nodeid) or item.nodeid in wanted or item.nodeid.split("[", 1)[0] in wanted:
            keep.append(item)
        else:
            drop.append(item)
    if not compat.is_xdist_worker(config):
        check_matched(requested, [item.nodeid for item in keep])
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def check_matched(requested: list[str], nodeids: list[str]) -> None:
    """A usage error naming the requested node ids that no collected item has."""
    present = set(nodeids) | {nodeid.split("[", 1)[0] for nodeid in nodeids}
    missing = [nodeid for nodeid in requested if nodeid not in present]
    if missing:
        raise pytest.UsageError(
            f"no benchmark item {', '.join(missing)} in this run (is its benchmark or language selected? "
            "see --toolcall-bench and the benchmark's options)"
        )


def empty_selection_hint(
    config: pytest.Config, selected: dict[str, Benchmark], installed: Iterable[type[Benchmark]]
) -> str | None:
    """Why ``-m``/``-k`` may have selected no benchmark item: names of markers that belong to data
    this run did not load, with the option that loads them."""
    given = {"-m": config.getoption("markexpr", ""), "-k": config.getoption("keyword", "")}
    given = {flag: expr for flag, expr in given.items() if expr}
    names = {name for expr in given.values() for name in _NAME.findall(expr)} - {"and", "or", "not"}
    hints: list[str] = []
    for benchmark in installed:
        if benchmark.name in selected:
            hint = selected[benchmark.name].selection_hint(names)
            if hint:
                hints.append(hint)
        elif names & {benchmark.name, *benchmark.markers}:
            hints.append(f"{benchmark.name} items are loaded with --toolcall-bench={benchmark.name}")
    if not hints:
        return None
    shown = " ".join(f"{flag} {expr!r}" for flag, expr in given.items())
    return f"toolcall: {shown} selected no benchmark item: " + "; ".join(hints)
