"""The public API of pytest-toolcall: everything a third-party benchmark or a user's test needs.

A benchmark (``docs/writing-a-benchmark.md``) subclasses ``Benchmark`` and implements ``load``,
``plan`` and ``score``, and declares what it measures (``Metrics``: rows, groups and weights, the
repeats' reducer); the metrics block, its table, gate names and values, JUnit properties and the
comparison with a baseline are derived from that declaration. A user's test
asserts on an answer with ``assert_tool_calls`` (imported on first use, like the response types: they
need YAML and jsonschema). Names not listed in ``__all__`` are internal and may change.

Submodules, each with its own ``__all__``: ``api.text`` (inert text for messages), ``api.files``
(capped file and report reading), ``api.jsonl`` (JSON Lines with file:line problems),
``api.literals`` (the capped literal interpreter), ``api.patterns`` (linear-time regular
expressions), ``api.statistics`` (intervals, repeats, paired comparisons), ``api.native`` (tool
schemas and tool-call validation).
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.benchmark import (
    Benchmark,
    DataError,
    Dialogue,
    Loaded,
    Models,
    Plan,
    Requests,
    Skip,
    Unit,
    Verdict,
)
from pytest_toolcall.core.protocol.blocks import (
    BlockError,
    accuracy_block,
    accuracy_row,
    block_value,
    check_blocks,
    interval_keys,
    official_key,
)
from pytest_toolcall.core.protocol.failure_kinds import (
    EXTRA_CALL,
    FAILURE_KINDS,
    INVALID_JSON,
    MISSING_CALL,
    NO_CALL,
    REASONING_ONLY,
    SCHEMA_VIOLATION,
    STEP_LIMIT,
    STREAM_MISMATCH,
    STREAM_PROTOCOL,
    TOOL_MARKUP_IN_TEXT,
    TRUNCATED,
    UNEXPECTED_CALL,
    UNEXPECTED_STATUS,
    UNKNOWN_TOOL_KIND,
    WRONG_FINAL,
    WRONG_ORDER,
    WRONG_VALUE,
    failure_kind_counts,
    failure_kind_line,
    has_tool_markup,
)
from pytest_toolcall.core.protocol.metrics import (
    Column,
    Group,
    Metrics,
    Overall,
    Rows,
    block_metrics,
    derive_block,
    gate_names,
    group_shares,
    metric_value,
)
from pytest_toolcall.core.protocol.options import Option, parse_choices, parse_number, usage_error
from pytest_toolcall.core.protocol.tables import (
    Part,
    Table,
    coverage_notes,
    default_parts,
    default_table,
    interval,
    pass_hat,
    render,
)
from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse, Model, RequestError, Role
from pytest_toolcall.core.stats.comparison import compare_metric, compare_metrics, mcnemar_exact, unit_weights
from pytest_toolcall.core.stats.estimates import pass_hat_k, wilson
from pytest_toolcall.core.stats.intervals import accuracy_interval, as_list, category_fields, repeat_fields
from pytest_toolcall.core.stats.repeats import MAJORITY, MEAN, PASS_HAT_K, Reducer

_LAZY = {
    "assert_tool_calls": "pytest_toolcall.benchmarks.cases.assertions",
    "check_tool_calls": "pytest_toolcall.benchmarks.cases.assertions",
    "ToolCallAssertionError": "pytest_toolcall.benchmarks.cases.assertions",
    "ToolCallResponse": "pytest_toolcall.benchmarks.cases.response",
    "ToolCall": "pytest_toolcall.benchmarks.cases.response",
}

__all__ = [
    # the protocol
    "Benchmark",
    "DataError",
    "Dialogue",
    "Loaded",
    "Models",
    "Plan",
    "Requests",
    "Skip",
    "Unit",
    "Verdict",
    "Option",
    "Settings",
    "parse_choices",
    "parse_number",
    "usage_error",
    # requests and responses
    "ChatRequest",
    "ChatResponse",
    "Model",
    "RequestError",
    "Role",
    # metrics, declared
    "Metrics",
    "Rows",
    "Column",
    "Group",
    "Overall",
    "Reducer",
    "MEAN",
    "PASS_HAT_K",
    "MAJORITY",
    "gate_names",
    "derive_block",
    "group_shares",
    "block_metrics",
    "metric_value",
    # metrics blocks
    "BlockError",
    "accuracy_block",
    "accuracy_row",
    "block_value",
    "check_blocks",
    "interval_keys",
    "official_key",
    "default_table",
    "default_parts",
    "Part",
    "Table",
    "render",
    "coverage_notes",
    "interval",
    "pass_hat",
    # intervals, repeats and the comparison
    "accuracy_interval",
    "as_list",
    "category_fields",
    "repeat_fields",
    "pass_hat_k",
    "wilson",
    "compare_metric",
    "compare_metrics",
    "mcnemar_exact",
    "unit_weights",
    # failure kinds
    "FAILURE_KINDS",
    "EXTRA_CALL",
    "INVALID_JSON",
    "MISSING_CALL",
    "NO_CALL",
    "REASONING_ONLY",
    "SCHEMA_VIOLATION",
    "STEP_LIMIT",
    "STREAM_MISMATCH",
    "STREAM_PROTOCOL",
    "TOOL_MARKUP_IN_TEXT",
    "TRUNCATED",
    "UNEXPECTED_CALL",
    "UNEXPECTED_STATUS",
    "UNKNOWN_TOOL_KIND",
    "WRONG_FINAL",
    "WRONG_ORDER",
    "WRONG_VALUE",
    "failure_kind_counts",
    "failure_kind_line",
    "has_tool_markup",
    # a user's test
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
