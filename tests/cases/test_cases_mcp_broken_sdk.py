"""A broken ``mcp`` install (another package's install replaced 2.x by 1.x, which has no ``Client``)
is named at once with its real cause, not found out as a 60-second wait for a tool list."""

from __future__ import annotations

import sys
import types

import pytest

from pytest_toolcall.benchmarks.cases.mcp_servers import McpError, McpServer, sdk_problem


def test_a_downgraded_sdk_is_named_with_its_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sdk_problem() == ""  # the installed SDK (2.x) is fine
    old = types.ModuleType("mcp")  # what mcp 1.x offers at its top: no ``Client``
    monkeypatch.setitem(sys.modules, "mcp", old)
    problem = sdk_problem()
    assert "the installed mcp" in problem and "cannot import name 'Client'" in problem
    assert "pip install 'pytest-toolcall[mcp]'" in problem
    with pytest.raises(McpError) as caught:  # before any server is started: no wait
        McpServer({"command": [sys.executable, "-c", "import time; time.sleep(600)"]})
    assert str(caught.value) == problem and "\n" not in str(caught.value)


def test_a_missing_sdk_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp raises ImportError

    def no_distribution(name: str) -> str:
        from importlib.metadata import PackageNotFoundError

        raise PackageNotFoundError(name)

    monkeypatch.setattr("importlib.metadata.version", no_distribution)
    assert sdk_problem() == "MCP servers need the mcp SDK: pip install 'pytest-toolcall[mcp]'"
