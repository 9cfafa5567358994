"""Outputs are checked before any request and written independently (issue 11, item 1).

Before: a report path that could not be written was found after every item ran (a raw
PermissionError/IsADirectoryError traceback, no summary, no JUnit file). Now every output path is
checked at start-up (a usage error naming the option and the path, before the first request), and
an output that fails at the end is one line while the others are still written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.general_fc_files import general_fc_args, line, write_lines
from tests.support.scripted_runs import load_report

CALL = Reply(tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer(lambda body: CALL) as srv:
        yield srv


@pytest.fixture
def args(pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-outputs-0123456789")
    path = write_lines(pytester.path / "calls.jsonl", [line("weather in Paris?"), line("and in Rome?")])
    return general_fc_args(server.base_url, path)


def _blocker(pytester: pytest.Pytester) -> Path:
    """A regular file: no folder can be created under it, even by root."""
    blocker = pytester.path / "blocker"
    blocker.write_text("a file, not a folder")
    return blocker


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "target"),
    [
        ("--toolcall-report", "folder"),
        ("--toolcall-html", "folder"),
        ("--junitxml", "folder"),
        ("--toolcall-report", "under-a-file"),
        ("--toolcall-html", "under-a-file"),
        ("--junitxml", "under-a-file"),
    ],
)
def test_an_output_that_cannot_be_written_is_a_usage_error_before_any_request(
    pytester: pytest.Pytester, server: ChatServer, args: list[str], option: str, target: str
) -> None:
    if target == "folder":
        path = pytester.path / "out"
        path.mkdir()
    else:
        path = _blocker(pytester) / "deeper" / "out.json"
    result = pytester.runpytest(*args, f"{option}={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert server.count == 0  # nothing was sent
    error = result.stderr.str()
    assert option in error and str(path) in error, error
    assert "Traceback" not in result.stdout.str() + error


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_a_usage_error(pytester: pytest.Pytester, server: ChatServer, args: list[str]) -> None:
    folder = pytester.path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        result = pytester.runpytest(*args, f"--toolcall-report={folder / 'report.json'}")
    finally:
        folder.chmod(0o755)
    assert result.ret == pytest.ExitCode.USAGE_ERROR and server.count == 0
    assert "not writable" in result.stderr.str()


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--toolcall-html", "--toolcall-report"])
def test_a_folder_that_refuses_files_whatever_its_permissions_is_a_usage_error(
    pytester: pytest.Pytester, server: ChatServer, args: list[str], option: str
) -> None:
    # /proc passes a permission check (as root, every folder does) but takes no new file.
    result = pytester.runpytest(*args, f"{option}=/proc/report.out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and server.count == 0
    assert f"{option}: cannot write /proc/report.out: folder /proc is not writable" in result.stderr.str()


@pytest.mark.slow
def test_a_wrong_reference_is_a_usage_error_before_any_request(
    pytester: pytest.Pytester, server: ChatServer, args: list[str]
) -> None:
    result = pytester.runpytest(*args, "--toolcall-reference=missing.json", "--toolcall-report=report.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR and server.count == 0
    assert "--toolcall-reference" in result.stderr.str() and "missing.json" in result.stderr.str()


@pytest.mark.slow
def test_an_output_lost_at_the_end_takes_no_other_with_it(
    pytester: pytest.Pytester, server: ChatServer, args: list[str]
) -> None:
    """The report's path becomes a folder during the run (after the start-up check): one line says
    so, the HTML report and the JUnit file are still written, and the run fails."""
    pytester.makeconftest(
        """
        import os

        def pytest_collection_finish(session):
            os.mkdir("report.json")
        """
    )
    result = pytester.runpytest(
        *args, "--toolcall-report=report.json", "--toolcall-html=report.html", "--junitxml=junit.xml"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["toolcall: JSON report not written to report.json: *"])
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    assert (pytester.path / "report.html").stat().st_size > 1000
    assert "<testsuite" in (pytester.path / "junit.xml").read_text()
    assert "toolcall: general_fc" in result.stdout.str()  # the summary is still there


@pytest.mark.slow
def test_reports_are_created_with_the_process_umask(
    pytester: pytest.Pytester, server: ChatServer, args: list[str]
) -> None:
    previous = os.umask(0o022)
    try:
        result = pytester.runpytest(
            *args, "--toolcall-report=report.json", "--toolcall-html=report.html", "--junitxml=junit.xml"
        )
    finally:
        os.umask(previous)
    assert result.ret == pytest.ExitCode.OK
    modes = {name: stat.S_IMODE((pytester.path / name).stat().st_mode) for name in ("report.json", "report.html")}
    assert modes == {"report.json": 0o644, "report.html": 0o644}
    assert load_report(pytester.path / "report.json")["metrics"]["general_fc"]["TP"] == 2
