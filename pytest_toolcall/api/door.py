"""The door for input from outside the process (a server a benchmark starts, a judge's answer, a file
it reads): secrets masked, nesting and size bounded, types checked, before the benchmark holds it.
docs/security.md lists what comes in where."""

from __future__ import annotations

from pytest_toolcall.core.safety.door import (
    MAX_DEPTH,
    MCP_RESULT_LIMIT,
    MCP_TEXT_LIMIT,
    STDERR_LIMIT,
    Refused,
    add_secret,
    add_url,
    cap,
    check_depth,
    child_environment,
    loads,
    printable,
    redact,
    string,
    too_deep,
)

__all__ = [
    "MAX_DEPTH",
    "MCP_RESULT_LIMIT",
    "MCP_TEXT_LIMIT",
    "STDERR_LIMIT",
    "Refused",
    "add_secret",
    "add_url",
    "cap",
    "check_depth",
    "child_environment",
    "loads",
    "printable",
    "redact",
    "string",
    "too_deep",
]
