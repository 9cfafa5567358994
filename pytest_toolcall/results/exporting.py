"""``pytest-toolcall export --format FORMAT REPORT -o PATH``: a report written in another form by the
plugin that knows the form, through the export hooks (``pytest_toolcall/hookspecs.py``) called by a
plugin manager of the command's own, with the same specifications as in a run.

Registered there: the built-in formats (``results/exports.py``), the hook module of each benchmark
the report ran (``Benchmark.hooks``: a benchmark brings its official formats, the command names none),
and the plugins installed under the entry-point group ``pytest_toolcall.plugins``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, cast

import pluggy

from pytest_toolcall import hookspecs
from pytest_toolcall.config import registry
from pytest_toolcall.results import exports
from pytest_toolcall.results.run_result import RunResult

#: The entry-point group of plugins that add export formats without being a benchmark.
PLUGINS = "pytest_toolcall.plugins"


class ExportError(Exception):
    """The export cannot be made: the message says why, naming the format or the plugin."""


class Manager(pluggy.PluginManager):
    """Takes a module's functions named ``pytest_toolcall_*`` as hook implementations, marked with
    ``pytest.hookimpl`` or not, as pytest does: a benchmark's hook module needs no import for them."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> pluggy.HookimplOpts | None:
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and name.startswith("pytest_toolcall_") and inspect.isroutine(getattr(plugin, name, None)):
            return cast(pluggy.HookimplOpts, {})
        return opts


def manager(benchmarks: Iterable[str]) -> Manager:
    """The plugin manager of an export of a report of ``benchmarks`` (their names)."""
    pm = Manager("pytest")
    pm.add_hookspecs(hookspecs)
    pm.register(exports, "toolcall-exports")
    classes = registry.benchmark_classes()
    for name in benchmarks:
        hooks = getattr(classes.get(name), "hooks", None)
        if hooks:
            pm.register(importlib.import_module(hooks), f"toolcall-{name}-hooks")
    for entry in entry_points(group=PLUGINS):
        try:
            plugin = entry.load()
        except Exception as exc:  # someone else's package: one line naming it
            raise ExportError(f"the plugin {entry.name} ({entry.value}) cannot be loaded: {exc}") from None
        if not pm.is_registered(plugin):
            pm.register(plugin, entry.name)
    return pm


def formats(pm: pluggy.PluginManager) -> dict[str, tuple[str, str]]:
    """Every format offered: name -> (what it is, the plugin that writes it)."""
    offered: dict[str, tuple[str, str]] = {}
    for impl in pm.hook.pytest_toolcall_export_formats.get_hookimpls():
        answer = cast(dict[str, str], impl.function())
        for name, what in dict(answer).items():
            if name in offered:
                raise ExportError(f"format {name!r} is offered by both {offered[name][1]} and {impl.plugin_name}")
            offered[name] = (str(what), impl.plugin_name)
    return offered


def export(
    pm: pluggy.PluginManager, format: str, document: dict[str, Any], path: Path, result: RunResult
) -> list[Path]:
    """Write ``document`` as ``format`` at ``path``; the files written."""
    offered = formats(pm)
    if format not in offered:
        known = "; ".join(f"{name}: {what}" for name, (what, _) in sorted(offered.items()))
        raise ExportError(f"unknown format {format!r}: the formats for this report are {known}")
    written = pm.hook.pytest_toolcall_export(format=format, document=document, path=path, result=result)
    if written is None:
        raise ExportError(f"{offered[format][1]} offers {format!r} but wrote nothing")
    return [Path(p) for p in written]
