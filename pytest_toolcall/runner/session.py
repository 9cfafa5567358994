"""One active run: the plugin objects registered for it, each for one concern and only where it
has work.

- ``collecting.Collection``: the benchmark items, selection (-k, -m, node ids), shards, the header;
- ``distributing.XdistController``: on the xdist controller only, what workers get and send back;
- ``recording.ItemProtocol``: where items run, the model's answers and each item's record;
- ``junit.JUnit``: with ``--junitxml`` only, classnames, properties and the file written whole;
- ``last_failed.LastFailedByModel``: with pytest's cache only, ``--lf`` per model;
- ``ending.RunEnd``: not on xdist workers, the end of the run: one ``RunResult``
  (``results/run_result.py``), its outputs, the gate and the terminal summary.

They share one ``Run`` (``runner/run.py``, in the config's stash under ``RUN``); what they touch of pytest and xdist
beyond the public API is in ``runner/compat.py``. Benchmarks are reached only through their protocol.
"""

from __future__ import annotations

import pytest

from pytest_toolcall.config.settings import Settings
from pytest_toolcall.runner import compat
from pytest_toolcall.runner.collecting import Collection
from pytest_toolcall.runner.keys import RUN
from pytest_toolcall.runner.recording import ItemProtocol
from pytest_toolcall.runner.run import Run


def start(config: pytest.Config, settings: Settings) -> Run:
    """Make the run's state and register the plugin objects this process needs."""
    run = Run(config, settings)
    config.stash[RUN] = run
    plugins: list[tuple[object, str]] = [
        (Collection(run), "toolcall-collection"),
        (ItemProtocol(run), "toolcall-items"),
    ]
    if compat.is_xdist_controller(config):
        from pytest_toolcall.runner.distributing import XdistController

        plugins.append((XdistController(run), "toolcall-xdist"))
    if config.option.xmlpath:  # (also on xdist workers: their reports carry classnames)
        from pytest_toolcall.runner.junit import JUnit

        plugins.append((JUnit(run), "toolcall-junit"))
    lf = compat.last_failed_plugin(config)
    if lf is not None:  # (xdist workers too: they collect, and --lf deselects there)
        from pytest_toolcall.runner.last_failed import LastFailedByModel

        plugins.append((LastFailedByModel(config, settings, lf, keep=not run.is_worker), "toolcall-last-failed"))
    if not run.is_worker:
        from pytest_toolcall.runner.ending import RunEnd

        # Registered last: its end-of-session wrapper is the outermost of the run's (the one order
        # the outputs were written in before the split: JSON and HTML, then JUnit).
        plugins.append((RunEnd(run), "toolcall-end"))
    for plugin, name in plugins:
        config.pluginmanager.register(plugin, name)
    # Connect now where items will run (the client process was started by the earliest hook,
    # or is the xdist controller's), so that neither waits for the other after collection.
    if not compat.is_xdist_controller(config) and not config.option.collectonly:
        run.work.connect()
    return run
