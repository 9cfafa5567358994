"""The fast loop's rule holds itself (``tests/support/fast_rule.py``): a test not marked slow that runs
pytest inside itself, starts a process or opens a server fails, naming what it did; marked slow, it
runs."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # runs pytest inside itself

SUITE = """
import socket
import subprocess
import sys

import pytest


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_opens_a_server():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()


def test_runs_pytest(pytester):
    pass


@pytest.mark.slow
def test_slow_may_do_all_of_it(pytester):
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()


def test_plain():
    assert sum(range(4)) == 6
"""


def test_a_fast_test_that_starts_processes_servers_or_pytest_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["pytester", "tests.support.fast_rule"]\n')
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=2, errors=1)
    result.stdout.fnmatch_lines_random(
        [
            "*test_starts_a_process is not marked slow but starts a process: mark it @pytest.mark.slow",
            "*test_opens_a_server is not marked slow but opens a server: mark it @pytest.mark.slow",
            "*test_runs_pytest is not marked slow but runs pytest inside itself (pytester): mark it*",
        ]
    )
