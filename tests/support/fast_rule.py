"""The fast loop's rule (``pytest -m "not slow" -n 2``), held while the tests run: a test not marked
``slow`` runs no pytest inside itself (``pytester``), starts no process and opens no server. Such a
test fails, saying which rule it broke and that it needs ``@pytest.mark.slow``.

Registered by the root ``conftest.py``. It watches the process's own calls, not the source: whatever
starts a process (``subprocess``, a helper of a helper) goes through ``Popen``, and whatever serves
goes through ``socket.listen``."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

#: Fixtures that run pytest inside the test.
PYTEST_INSIDE = frozenset({"pytester", "testdir"})

#: The test running now when it is not marked slow (its setup, call and teardown), else None.
_fast: list[pytest.Item | None] = [None]


def fast_rule_problem(item: pytest.Item) -> str | None:
    """Why ``item`` breaks the rule before it runs (it asks for pytester), or None."""
    if item.get_closest_marker("slow") is not None:
        return None
    inside = sorted(PYTEST_INSIDE & set(getattr(item, "fixturenames", ())))
    if inside:
        return f"runs pytest inside itself ({', '.join(inside)}): mark it @pytest.mark.slow"
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _fast[0] = item if item.get_closest_marker("slow") is None else None
    try:
        return (yield)
    finally:
        _fast[0] = None


def pytest_runtest_setup(item: pytest.Item) -> None:
    problem = fast_rule_problem(item)
    if problem is not None:
        pytest.fail(f"{item.nodeid} is not marked slow but {problem}", pytrace=False)


def _refusing(what: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guard(*args: Any, **kwargs: Any) -> Any:
        item = _fast[0]
        if item is not None:
            _fast[0] = None  # said once: its teardown may stop what it started
            pytest.fail(f"{item.nodeid} is not marked slow but {what}: mark it @pytest.mark.slow", pytrace=False)
        return original(*args, **kwargs)

    guard.__wrapped__ = original  # type: ignore[attr-defined]
    return guard


def install() -> None:
    """Guard the calls that start a process or open a server (once per process)."""
    if hasattr(subprocess.Popen._execute_child, "__wrapped__"):  # type: ignore[attr-defined]
        return
    subprocess.Popen._execute_child = _refusing(  # type: ignore[attr-defined,method-assign]
        "starts a process",
        subprocess.Popen._execute_child,  # type: ignore[attr-defined]
    )
    socket.socket.listen = _refusing("opens a server", socket.socket.listen)  # type: ignore[method-assign]


install()
