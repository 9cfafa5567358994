"""Root conftest: the data the project's own tests use, all of it inside the repository.

The benchmark data is the data shipped in the package; test-only files live under ``tests/data``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# pytester's in-process runs drop the modules they import when they end, but a package keeps its
# submodules as attributes: a second run would then mix old and new module objects. Importing the
# whole plugin here puts every module in the snapshot pytester restores.
import pytest_toolcall.benchmarks.acebench.agents.native
import pytest_toolcall.benchmarks.acebench.benchmark
import pytest_toolcall.benchmarks.acebench.fixtures
import pytest_toolcall.benchmarks.cases.benchmark
import pytest_toolcall.benchmarks.cases.python_tests
import pytest_toolcall.benchmarks.cases.summary
import pytest_toolcall.benchmarks.general_fc.benchmark
import pytest_toolcall.runner.distributing
import pytest_toolcall.runner.ending
import pytest_toolcall.runner.junit
import pytest_toolcall.runner.last_failed
import pytest_toolcall.runner.session  # noqa: F401
from pytest_toolcall.benchmarks.acebench.benchmark import SHIPPED_ROOT
from pytest_toolcall.benchmarks.general_fc.benchmark import SHIPPED_SET

pytest_plugins = ["pytester", "tests.support.fast_rule"]

# The calc example's own tests need it installed: its author runs them in its folder, and
# tests/machinery/test_example_benchmark.py does so; a run of examples/ from here leaves them.
collect_ignore = ["examples/calc_benchmark"]

REPO = Path(__file__).resolve().parent
TEST_DATA = REPO / "tests" / "data"


@pytest.fixture(scope="session")
def acebench_root() -> Path:
    """The pinned ACEBench data root shipped in the package."""
    return SHIPPED_ROOT


@pytest.fixture(scope="session")
def general_fc_set() -> Path:
    """The general_fc set shipped in the package (k2vv_zh_511)."""
    return SHIPPED_SET


@pytest.fixture(scope="session")
def test_data() -> Path:
    return TEST_DATA
