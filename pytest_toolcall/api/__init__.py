"""The public API of pytest-toolcall: everything a third-party benchmark or a user's test needs.

A benchmark (``docs/writing-a-benchmark.md``) subclasses ``Benchmark`` and implements ``load``,
``plan`` and ``score``, and declares what it measures (``Metrics``: rows, groups and weights, the
repeats' reducer); the metrics block, its table, gate names and values, JUnit properties and the
comparison with a baseline are derived from that declaration. A user's test
asserts on an answer with ``assert_tool_calls`` (imported on first use, like the response types: they
need YAML and jsonschema). Names not listed in ``__all__`` are internal and may change.

Submodules, each with its own ``__all__``: ``api.text`` (inert text for messages), ``api.files``
(capped file and report reading), ``api.jsonl`` (JSON Lines with file:line problems),
``api.door`` (input from outside: secrets masked, depth and size bounded, types checked),
``api.literals`` (the capped literal interpreter), ``api.patterns`` (linear-time regular
expressions), ``api.statistics`` (intervals, repeats, paired comparisons), ``api.native`` (tool
schemas and tool-call validation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each name lives. Imported on first use (``__getattr__``): a benchmark's light declaration
#: module imports ``Option`` from here in every pytest run, and must not pay for the rest.
_WHERE = {
    "Settings": "pytest_toolcall.config.settings",
    "Benchmark": "pytest_toolcall.core.protocol.benchmark",
    "DataError": "pytest_toolcall.core.protocol.benchmark",
    "Dialogue": "pytest_toolcall.core.protocol.benchmark",
    "Loaded": "pytest_toolcall.core.protocol.benchmark",
    "Models": "pytest_toolcall.core.protocol.benchmark",
    "Plan": "pytest_toolcall.core.protocol.benchmark",
    "Requests": "pytest_toolcall.core.protocol.benchmark",
    "Skip": "pytest_toolcall.core.protocol.benchmark",
    "Unit": "pytest_toolcall.core.protocol.benchmark",
    "Verdict": "pytest_toolcall.core.protocol.benchmark",
    "BlockError": "pytest_toolcall.core.protocol.blocks",
    "accuracy_block": "pytest_toolcall.core.protocol.blocks",
    "accuracy_row": "pytest_toolcall.core.protocol.blocks",
    "block_value": "pytest_toolcall.core.protocol.blocks",
    "check_blocks": "pytest_toolcall.core.protocol.blocks",
    "interval_keys": "pytest_toolcall.core.protocol.blocks",
    "official_key": "pytest_toolcall.core.protocol.blocks",
    "EXTRA_CALL": "pytest_toolcall.core.protocol.failure_kinds",
    "FAILURE_KINDS": "pytest_toolcall.core.protocol.failure_kinds",
    "INVALID_JSON": "pytest_toolcall.core.protocol.failure_kinds",
    "MISSING_CALL": "pytest_toolcall.core.protocol.failure_kinds",
    "NO_CALL": "pytest_toolcall.core.protocol.failure_kinds",
    "REASONING_ONLY": "pytest_toolcall.core.protocol.failure_kinds",
    "SCHEMA_VIOLATION": "pytest_toolcall.core.protocol.failure_kinds",
    "STEP_LIMIT": "pytest_toolcall.core.protocol.failure_kinds",
    "STREAM_MISMATCH": "pytest_toolcall.core.protocol.failure_kinds",
    "STREAM_PROTOCOL": "pytest_toolcall.core.protocol.failure_kinds",
    "TOOL_MARKUP_IN_TEXT": "pytest_toolcall.core.protocol.failure_kinds",
    "TRUNCATED": "pytest_toolcall.core.protocol.failure_kinds",
    "UNEXPECTED_CALL": "pytest_toolcall.core.protocol.failure_kinds",
    "UNEXPECTED_STATUS": "pytest_toolcall.core.protocol.failure_kinds",
    "UNKNOWN_TOOL_KIND": "pytest_toolcall.core.protocol.failure_kinds",
    "WRONG_FINAL": "pytest_toolcall.core.protocol.failure_kinds",
    "WRONG_ORDER": "pytest_toolcall.core.protocol.failure_kinds",
    "WRONG_VALUE": "pytest_toolcall.core.protocol.failure_kinds",
    "failure_kind_counts": "pytest_toolcall.core.protocol.failure_kinds",
    "failure_kind_line": "pytest_toolcall.core.protocol.failure_kinds",
    "has_tool_markup": "pytest_toolcall.core.protocol.failure_kinds",
    "Column": "pytest_toolcall.core.protocol.metrics",
    "Group": "pytest_toolcall.core.protocol.metrics",
    "Metrics": "pytest_toolcall.core.protocol.metrics",
    "Overall": "pytest_toolcall.core.protocol.metrics",
    "Rows": "pytest_toolcall.core.protocol.metrics",
    "block_metrics": "pytest_toolcall.core.protocol.metrics",
    "derive_block": "pytest_toolcall.core.protocol.metrics",
    "gate_names": "pytest_toolcall.core.protocol.metrics",
    "group_shares": "pytest_toolcall.core.protocol.metrics",
    "metric_value": "pytest_toolcall.core.protocol.metrics",
    "Option": "pytest_toolcall.core.protocol.options",
    "parse_choices": "pytest_toolcall.core.protocol.options",
    "parse_number": "pytest_toolcall.core.protocol.options",
    "usage_error": "pytest_toolcall.core.protocol.options",
    "Part": "pytest_toolcall.core.protocol.tables",
    "Table": "pytest_toolcall.core.protocol.tables",
    "coverage_notes": "pytest_toolcall.core.protocol.tables",
    "default_parts": "pytest_toolcall.core.protocol.tables",
    "default_table": "pytest_toolcall.core.protocol.tables",
    "interval": "pytest_toolcall.core.protocol.tables",
    "pass_hat": "pytest_toolcall.core.protocol.tables",
    "render": "pytest_toolcall.core.protocol.tables",
    "ChatRequest": "pytest_toolcall.core.protocol.types",
    "ChatResponse": "pytest_toolcall.core.protocol.types",
    "Model": "pytest_toolcall.core.protocol.types",
    "RequestError": "pytest_toolcall.core.protocol.types",
    "Role": "pytest_toolcall.core.protocol.types",
    "compare_metric": "pytest_toolcall.core.stats.comparison",
    "compare_metrics": "pytest_toolcall.core.stats.comparison",
    "mcnemar_exact": "pytest_toolcall.core.stats.comparison",
    "unit_weights": "pytest_toolcall.core.stats.comparison",
    "pass_hat_k": "pytest_toolcall.core.stats.estimates",
    "wilson": "pytest_toolcall.core.stats.estimates",
    "accuracy_interval": "pytest_toolcall.core.stats.intervals",
    "as_list": "pytest_toolcall.core.stats.intervals",
    "category_fields": "pytest_toolcall.core.stats.intervals",
    "repeat_fields": "pytest_toolcall.core.stats.intervals",
    "MAJORITY": "pytest_toolcall.core.stats.repeats",
    "MEAN": "pytest_toolcall.core.stats.repeats",
    "PASS_HAT_K": "pytest_toolcall.core.stats.repeats",
    "Reducer": "pytest_toolcall.core.stats.repeats",
    # a user's test
    "assert_tool_calls": "pytest_toolcall.benchmarks.cases.assertions",
    "check_tool_calls": "pytest_toolcall.benchmarks.cases.assertions",
    "ToolCallAssertionError": "pytest_toolcall.benchmarks.cases.assertions",
    "ToolCallResponse": "pytest_toolcall.benchmarks.cases.response",
    "ToolCall": "pytest_toolcall.benchmarks.cases.response",
}

__all__ = [  # noqa: RUF022 (grouped by kind, not sorted)
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
    "assert_tool_calls",
    "check_tool_calls",
    "ToolCallAssertionError",
    "ToolCallResponse",
    "ToolCall",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: the next lookup finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
