"""What pytest must know of the ``cases`` benchmark in every run, without importing it: it has no
options of its own, collects the users' case files (``FILE_SUFFIXES``) and offers fixtures for users'
tests (``FIXTURES``)."""

from __future__ import annotations

OPTIONS = ()
#: The same as ``format.SUFFIXES`` (not imported from there: that imports YAML).
FILE_SUFFIXES = (".toolcall.yaml", ".toolcall.yml", ".toolcall.jsonl")
FIXTURES = "pytest_toolcall.benchmarks.cases.fixtures"
