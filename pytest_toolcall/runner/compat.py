"""Every place the run reaches into pytest or xdist beyond their public API, in one module.

Each function says what it touches and why no public way exists. When pytest or xdist change one
of these, this is the only module to adapt; the plugins (``runner/session.py`` and the modules it
registers) call these functions and never the private names themselves.
"""

from __future__ import annotations

from typing import Any

import pytest

# --- xdist ----------------------------------------------------------------------------------------
# ``config.workerinput`` / ``config.workeroutput`` and the node's ``workerinput``/``workeroutput``
# are xdist's documented way to tell a worker and to pass data between it and the controller;
# they are plain attributes, not hooks, so they are read here with a default for runs without xdist.


def is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def worker_input(config: pytest.Config) -> dict[str, Any]:
    """What the controller sent this worker (empty outside an xdist worker)."""
    return getattr(config, "workerinput", {})


def worker_output(config: pytest.Config) -> dict[str, Any] | None:
    """Where a worker leaves data for the controller (None outside an xdist worker)."""
    return getattr(config, "workeroutput", None)


def node_worker_output(node: Any) -> dict[str, Any]:
    """What a finished worker left for the controller (``pytest_testnodedown``)."""
    return getattr(node, "workeroutput", {})


def is_xdist_controller(config: pytest.Config) -> bool:
    """xdist distributes this run from this process (``-n``/``--dist``; ``-n 0`` is no distribution).
    xdist settles ``dist`` in ``pytest_cmdline_main``, before any plugin's ``pytest_configure``."""
    return not is_xdist_worker(config) and getattr(config.option, "dist", "no") != "no"


def forget_worker(report: pytest.TestReport) -> None:
    """Drop the worker node xdist's controller puts on each report it relays (``report.node``): for a
    report with one, pytest's ``BaseReport.toterminal`` prints a ``[gw1] linux -- Python ...`` line
    above the failure's representation, which under ``--tb=line`` doubles each line. Only once
    nothing else reads it (the ``-v`` line, JUnit's testcases); harmless without xdist."""
    report.__dict__.pop("node", None)


def send_tests(scheduler: Any, node: Any, count: int) -> None:
    """Hand ``count`` more pending items to ``node``: ``LoadScheduling`` has no public method for
    it (``runner/scheduling.py`` tops the workers' queues up for prefetching)."""
    scheduler._send_tests(node, count)


# --- pytest's JUnit writer ------------------------------------------------------------------------

try:  # where pytest keeps its JUnit writer (without it: no suite properties, classnames or atomic file)
    from _pytest.junitxml import xml_key

    _JUNIT_KEY: Any = xml_key
except ImportError:  # pragma: no cover - an older or newer pytest
    _JUNIT_KEY = None


def junit_writer(config: pytest.Config) -> Any:
    """pytest's ``LogXML`` of this run (``--junitxml``), or None. No public hook adds suite
    properties or sets a testcase's classname; the writer object is the only way."""
    return config.stash.get(_JUNIT_KEY, None) if _JUNIT_KEY is not None else None


def set_junit_classname(writer: Any, report: pytest.TestReport, classname: str) -> None:
    """The testcase's ``classname`` (``toolcall.<benchmark>.<category>``): set on the node reporter
    before the writer sees the report, which keeps attributes already set (``node_reporter`` is
    the writer's own method)."""
    writer.node_reporter(report).add_attribute("classname", classname)


def add_junit_suite_property(writer: Any, name: str, value: str) -> None:
    """A ``<property>`` of the test suite (the run's aggregates): ``record_testsuite_property`` is a
    fixture, unusable from a hook at the end of the session."""
    writer.add_global_property(name, value)


def junit_failure_as_error(writer: Any, report: pytest.TestReport) -> None:
    """The testcase's ``<failure>`` made an ``<error>``, with the suite's counts: pytest's writer calls
    every failed call phase a failure, and no hook tells it otherwise (a test counted in a benchmark
    whose request got no answer, ``runner/junit.py``). Its node reporter keeps the elements
    (``nodes``) and the writer the counts (``stats``)."""
    for node in writer.node_reporter(report).nodes:
        if node.tag == "failure":
            node.tag = "error"
            writer.stats["failure"] -= 1
            writer.stats["error"] += 1


def junit_file(writer: Any) -> str:
    return str(writer.logfile)


def set_junit_file(writer: Any, path: str) -> None:
    """Where the writer writes, changed just before it does: pytest writes the file in place, and the
    run writes it beside and renames it instead (``runner/junit.py``)."""
    writer.logfile = path


# --- pytest's last-failed plugin --------------------------------------------------------------------


def last_failed_plugin(config: pytest.Config) -> Any:
    """pytest's ``LFPlugin`` with its list of failures, or None (``-p no:cacheprovider``)."""
    lf = config.pluginmanager.get_plugin("lfplugin")
    if lf is None or getattr(config, "cache", None) is None or not hasattr(lf, "lastfailed"):
        return None
    return lf


def last_failed(lf: Any) -> dict[str, bool]:
    """The plugin's list of failures as plain node ids (pytest >= 9 keys it by structured ids)."""
    return {str(nodeid): value for nodeid, value in lf.lastfailed.items()}


def set_last_failed(lf: Any, failures: dict[str, bool]) -> None:
    """Replace the plugin's list of failures, read from the cache at configure: pytest offers no
    way to choose which list ``--lf`` reads (it keeps one per project; the run keeps one per model)."""
    try:  # pytest >= 9 keys the list by structured node ids (plain strings before)
        from _pytest.nodeid import NodeId

        lf.lastfailed = {NodeId.parse(nodeid): value for nodeid, value in failures.items()}
    except ImportError:
        lf.lastfailed = failures
    if hasattr(lf, "_last_failed_paths") and hasattr(lf, "get_last_failed_paths"):
        lf._last_failed_paths = lf.get_last_failed_paths()  # computed from the project's list: again


# --- pytest's session and reports -------------------------------------------------------------------


def continue_on_collection_errors(config: pytest.Config) -> None:
    """Run the items although collection had errors (what ``--continue-on-collection-errors`` does),
    decided at the end of collection: the errors were bad lines of the data, which stay errors of
    the run. pytest reads the option only after ``pytest_collection_finish``."""
    config.option.continue_on_collection_errors = True


try:  # pytest's representation classes: not public API, stable since pytest 6
    from _pytest._code.code import ReprFileLocation

    _ReprFileLocation: Any = ReprFileLocation
except ImportError:  # pragma: no cover - without them pytest's own presentation stays
    _ReprFileLocation = None


def file_location(path: str, line: int, message: str) -> Any:
    """A failure's crash line (``path:line: message``) as pytest prints it, or None where pytest has
    no such class: a benchmark item's failure names the sample's file and line, not ``items.py``'s
    (``runner/failures.py``)."""
    return None if _ReprFileLocation is None else _ReprFileLocation(path, line, message)
