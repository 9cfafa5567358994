"""Reading files a run is given: regular files only, with a size cap, and JSON reports of earlier
runs (a reference, a baseline) checked field by field."""

from __future__ import annotations

from pytest_toolcall.core.safety.files import check_regular_file, read_regular_file
from pytest_toolcall.core.safety.reports import ReportError, read_report

__all__ = ["ReportError", "check_regular_file", "read_regular_file", "read_report"]
