"""Root conftest: where the shared benchmark data lives, for the project's own tests.

The data (pinned ACEBench root, general_fc files) sits beside the checkout in ``../shared``; CI may
point elsewhere with ``TOOLCALL_SHARED_DIR``. A missing folder is an error, never a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# pytester's in-process runs drop the modules they import when they end, but a package keeps its
# submodules as attributes: a second run would then mix old and new module objects. Importing the
# whole plugin here puts every module in the snapshot pytester restores.
import pytest_toolcall.run  # noqa: F401

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parent


def shared_dir() -> Path:
    candidates = [os.environ.get("TOOLCALL_SHARED_DIR"), REPO.parent / "shared", "/work/shared"]
    for candidate in filter(None, candidates):
        path = Path(candidate)
        if (path / "acebench" / "data_all").is_dir():
            return path
    raise pytest.UsageError(
        "the shared benchmark data was not found: set TOOLCALL_SHARED_DIR to the folder holding "
        "acebench/ and general_fc/"
    )


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_dir()


@pytest.fixture(scope="session")
def acebench_root(shared: Path) -> Path:
    return shared / "acebench"
