"""The hooks of pytest-toolcall: where its outputs hang, and where a plugin adds one.

Added to pytest's plugin manager by the plugin (``pytest_addhooks``), as pytest-xdist adds its own;
``pytest-toolcall export`` calls the export hooks through a plugin manager of its own with the same
specifications (``results/exporting.py``). An implementation is a function of the hook's name in a
pytest plugin (a ``conftest.py``, a module given with ``-p``, a ``pytest11`` entry point), or in the
module a benchmark names in ``Benchmark.hooks`` (registered in the runs that select the benchmark and
by ``pytest-toolcall export`` for its reports); it takes any subset of the hook's arguments.

- ``pytest_toolcall_run_result``: the run's result, once, at the end of a run: the JSON report, the
  HTML report, the GitHub step summary and JUnit's suite properties are written here, and so is any
  other output (a dashboard, a PR comment, an experiment tracker);
- ``pytest_toolcall_terminal_summary``: the run's lines in pytest's terminal summary;
- ``pytest_toolcall_export_formats`` and ``pytest_toolcall_export``: ``pytest-toolcall export --format
  FORMAT REPORT -o PATH`` writes a report in another form (``html`` and ``markdown`` are built in; a
  benchmark adds its official formats).

See docs/hooks.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_toolcall.results.run_result import RunResult


@pytest.hookspec
def pytest_toolcall_run_result(result: RunResult, config: pytest.Config) -> None:
    """The run's result, final: write outputs from it.

    Called once per run at the end of the session, in the process where reports land (never on an
    xdist worker), after the gate has decided (``result.verdict``), before pytest writes its JUnit
    XML and its terminal summary; not called when the run stopped with a usage error. ``result`` is
    the same object every output gets (``results/run_result.py``): ``result.document()`` is the JSON
    report. The built-in outputs run first (``tryfirst``). An output that cannot be written calls
    ``result.output_lost(what, where, exc)``: the run then fails and says so in one line, and the
    other outputs are still written; an exception raised here stops the outputs after it and fails
    the run with one line.

    :param result: the run's ``RunResult``.
    :param config: the pytest config (for your own options).
    """


@pytest.hookspec
def pytest_toolcall_terminal_summary(result: RunResult, terminalreporter: Any, config: pytest.Config) -> None:
    """Write the run's lines in pytest's terminal summary (``terminalreporter.write_line``,
    ``write_sep``): the built-in summary (tables, usage, comparison, the gate's line, the outputs
    written) comes first. Not called under ``--collect-only``.

    :param result: the run's ``RunResult``.
    :param terminalreporter: pytest's terminal reporter.
    :param config: the pytest config.
    """


@pytest.hookspec
def pytest_toolcall_export_formats() -> dict[str, str]:
    """The formats this plugin exports a report to: format name -> one line saying what it is.
    ``pytest-toolcall export`` offers the union; two plugins naming the same format are an error.
    A benchmark's formats start with its name (``tau2-results``)."""
    raise NotImplementedError  # (a specification: never called)


@pytest.hookspec(firstresult=True)
def pytest_toolcall_export(format: str, document: dict[str, Any], path: Path, result: RunResult) -> list[Path] | None:
    """Write the JSON report ``document`` as ``format`` at ``path`` (a file or a folder, as the format
    says) and return the files written; None when ``format`` is not one of this plugin's (the first
    answer that is not None wins).

    ``document`` has been read and checked like every report the offline tools read: its metrics are
    those recomputed from its samples. Bad input (a report without what the format needs): raise
    ``ValueError`` with one line naming what; the command prints it and exits with status 2.

    :param format: the format asked for (``--format``).
    :param document: the JSON report (``REPORT``).
    :param path: where to write (``-o``).
    :param result: the report's ``RunResult``, its benchmarks rebuilt (for tables and summaries).
    """
    raise NotImplementedError  # (a specification: never called)
