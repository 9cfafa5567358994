"""calc's options, read by pytest in every run without importing the benchmark: it imports nothing
but ``Option``. ``Option("file")`` is ``--toolcall-calc-file`` (ini ``toolcall_calc_file``)."""

from __future__ import annotations

from pytest_toolcall.api import Option

OPTIONS = (Option("file", "calc: JSONL file of questions (default: the shipped samples)", metavar="PATH"),)
