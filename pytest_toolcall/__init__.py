"""pytest-toolcall: tool-calling benchmarks (ACEBench, general_fc, your own cases) as pytest items.

``assert_tool_calls`` and the response types are imported on first use (module ``__getattr__``), so
that importing the plugin, which pytest does in every run, does not import YAML or jsonschema.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "assert_tool_calls": "pytest_toolcall.benchmarks.cases.assertions",
    "check_tool_calls": "pytest_toolcall.benchmarks.cases.assertions",
    "ToolCallAssertionError": "pytest_toolcall.benchmarks.cases.assertions",
    "ToolCallResponse": "pytest_toolcall.benchmarks.cases.response",
    "ToolCall": "pytest_toolcall.benchmarks.cases.response",
    "assert_trajectory": "pytest_toolcall.benchmarks.cases.assertions",
    "check_trajectory": "pytest_toolcall.benchmarks.cases.assertions",
    "McpServer": "pytest_toolcall.benchmarks.cases.mcp_servers",
    "Transcript": "pytest_toolcall.benchmarks.cases.steps",
}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        # Not cached here: the module's own attribute stays the one truth (pytester drops and
        # re-imports submodules between in-process runs).
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
