"""Every key the plugin keeps state under: pytest's stashes (the config's, an item's) and the
dictionaries xdist carries between the controller and its workers. One module, so that what a
plugin object leaves for another is found in one place, and its modules import each other one way.

The types are named under ``TYPE_CHECKING`` only: this module imports nothing of the plugin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_toolcall.core.protocol.benchmark import Unit
    from pytest_toolcall.results.run_result import RunResult
    from pytest_toolcall.runner.collect import Catalog
    from pytest_toolcall.runner.handover import Handed
    from pytest_toolcall.runner.run import Run
    from pytest_toolcall.runner.unit_models import UnitModels
    from pytest_toolcall.runner.work import Work

# --- the config's stash ---------------------------------------------------------------------------

#: The run's shared state (``runner/run.py``).
RUN: pytest.StashKey[Run] = pytest.StashKey()
#: Every selected benchmark with its data, loaded once per process (``runner/collect.py``).
CATALOG: pytest.StashKey[Catalog] = pytest.StashKey()
#: This process's model work (``runner/work.py``): made on first use where items run.
WORK: pytest.StashKey[Work] = pytest.StashKey()
#: What the unit whose setup just took its answer got (``runner/handover.py``), for its test function.
HAND_OVER: pytest.StashKey[Callable[[Unit], Handed]] = pytest.StashKey()
#: The run of the response store this session belongs to (``ResponseStore.begin_run``): set where the
#: store is checked at start-up (``runner/store_setup.py``); None when this session writes no run.
STORE_RUN: pytest.StashKey[str | None] = pytest.StashKey()
#: The run's result, once built at the end of the session (``runner/ending.py``).
RESULT: pytest.StashKey[RunResult] = pytest.StashKey()

# --- an item's stash ------------------------------------------------------------------------------

#: The unit of an item of a user's file (a benchmark function's items get it as a parameter).
UNIT: pytest.StashKey[Unit] = pytest.StashKey()
#: The unit of an ordinary test counted in a benchmark (a Python test using ``toolcall_chat``).
TEST_UNIT: pytest.StashKey[Unit] = pytest.StashKey()
#: The ``UnitModels`` such a test asks through: its record's ``usage`` and ``from_store`` say what it used.
TEST_MODELS: pytest.StashKey[UnitModels] = pytest.StashKey()
#: The item's record (the keys of ``results.records.Record``, and the verdict's), from the start of
#: its protocol until it is put on its teardown report.
RECORD: pytest.StashKey[dict[str, Any]] = pytest.StashKey()

# --- what xdist carries -----------------------------------------------------------------------------

#: A worker's ``workerinput``: the store run of the controller's session (``STORE_RUN``).
STORE_RUN_INPUT = "toolcall_store_run"
#: A worker's ``workerinput``: the benchmark node ids given as arguments (``runner/selection.py``).
#: (The client process's address travels under ``model.sdk_process.WORKER_INPUT``: the model layer's.)
NODEIDS_INPUT = "toolcall_nodeids"
#: A worker's ``workeroutput``: what it selected before sharding (``shards.Selection.as_dict``).
SELECTION_OUTPUT = "toolcall_selection"
#: A worker's ``workeroutput``: its store losses, [answers not kept, why].
STORE_LOST = "toolcall_store_lost"
#: A worker's ``workeroutput``: the usage entries of its requests that belong to no unit.
OTHER_REQUESTS = "toolcall_other_requests"
#: A worker's ``workeroutput``: its selected tests that a benchmark counts (``toolcall_chat``).
COUNTED = "toolcall_counted"
