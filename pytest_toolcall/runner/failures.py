"""How a failed benchmark item reads in pytest's output, for each ``--tb`` style.

pytest shows a ``pytest.fail(..., pytrace=False)`` as its message under the test function's file and
line, which here is always the same line of ``items.py``. A benchmark item's failure is about its data
instead: the crash line names the sample's file and line and starts with the unit's key, ``--tb=short``
shows the verdict's brief (the reason and the raw output) and ``--tb=long``/``auto`` everything. The
report keeps pytest's own classes, so xdist carries it to the controller unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.core.protocol.benchmark import Unit
from pytest_toolcall.runner import compat


class VerdictFailure(pytest.fail.Exception):  # type: ignore[name-defined]
    """The scorer's verdict failed the item. A unit whose reference answer is known to fail is an
    expected failure of exactly this, never of a request that got no answer (still an error)."""


def present(report: pytest.TestReport, unit: Unit, brief: str, style: str) -> None:
    """Rewrite the failure representation of ``report`` (a failed call of ``unit``, ``brief`` its
    verdict's brief) for ``style``."""
    longrepr: Any = report.longrepr
    entries = getattr(getattr(longrepr, "reprtraceback", None), "reprentries", None)
    if not entries or not hasattr(entries[0], "lines"):
        return
    path, _, line = (unit.source or unit.nodeid).rpartition(":") if unit.source else (unit.nodeid, "", "0")
    crash = compat.file_location(path, int(line) if line.isdigit() else 0, f"{unit.key}: {brief}")
    if crash is None:
        return
    longrepr.reprcrash = crash
    chain = getattr(longrepr, "chain", None)
    if chain:  # what xdist sends: the chain's last link is the crash the controller shows
        traceback, _, description = chain[-1]
        chain[-1] = (traceback, crash, description)
    if style == "line":
        entries[0].lines = []  # pytest 9 prints the entries before the crash line: just the line
    elif style == "short":
        entries[0].lines = brief.splitlines()
