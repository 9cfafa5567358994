"""The plugin object of the xdist controller (registered only there): what each worker is given
(the client process to send through, the node ids asked for), what it sends back (the selection
before sharding, the items it collected), and the scheduler that keeps the workers' queues deep
enough to prefetch from."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.model import sdk_process
from pytest_toolcall.results.selection import Selection
from pytest_toolcall.runner import compat, selection
from pytest_toolcall.runner.keys import (
    COUNTED,
    NODEIDS_INPUT,
    OTHER_REQUESTS,
    SELECTION_OUTPUT,
    STORE_LOST,
    STORE_RUN,
    STORE_RUN_INPUT,
)
from pytest_toolcall.runner.run import Run


class XdistController:
    def __init__(self, run: Run) -> None:
        self.run = run

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        """Workers send their requests through this process's client process (one SDK import)."""
        if self.run.settings.sends_requests:
            node.workerinput[sdk_process.WORKER_INPUT] = sdk_process.client_address()
        node.workerinput[NODEIDS_INPUT] = self.run.requested
        node.workerinput[STORE_RUN_INPUT] = self.run.config.stash.get(STORE_RUN, None)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "load":
            return None  # the user chose another distribution: theirs
        from pytest_toolcall.runner.scheduling import PrefetchLoadScheduling

        return PrefetchLoadScheduling(config, log, depth=2 * self.run.settings.concurrency)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        run = self.run
        if not run.collector.selected:
            # Before anything is scheduled; every worker collected the same items (xdist checks), so the
            # first is enough. A usage error here ends the session like one raised at collection.
            if run.requested:
                selection.check_matched(run.requested, ids)
            run.check_selected(lambda: (unit for nodeid in ids if (unit := run.catalog.unit(nodeid)) is not None))
        run.collector.select(ids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.run.add_store_losses(*compat.node_worker_output(node).get(STORE_LOST, (0, "")))
        self.run.collector.select([], compat.node_worker_output(node).get(COUNTED, []))
        self.run.other_requests += compat.node_worker_output(node).get(OTHER_REQUESTS, [])
        chosen = compat.node_worker_output(node).get(SELECTION_OUTPUT)
        if chosen is not None and self.run.selection is None:
            shard = self.run.settings.shard
            self.run.selection = Selection.from_dict(chosen, f"{shard[0]}/{shard[1]}" if shard else None)
