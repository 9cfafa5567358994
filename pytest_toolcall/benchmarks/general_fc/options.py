"""general_fc's options, in its namespace (``--toolcall-general-fc-<name>``).

Read by pytest in every run to register the options, so it imports nothing but ``Option`` (the
benchmark itself is imported only when a run selects it)."""

from __future__ import annotations

from pytest_toolcall.api import Option

#: The names from before the namespace (``--toolcall-general-fc``, ``--toolcall-reference``) stay as aliases.
OPTIONS = (
    Option(
        "files",
        "general_fc JSONL file(s), comma-separated (messages, tools, should_call_tool per line; "
        "default: the shipped k2vv_zh_511 set); selects general_fc when --toolcall-bench is not given",
        metavar="PATH",
        selects=True,
        aliases=("general-fc",),
    ),
    Option(
        "reference",
        "JSON report of a reference run on the same general_fc file(s), holding every line this run "
        "selects: agreement of the decisions to call (gate name general_fc.agreement)",
        metavar="REPORT",
        aliases=("reference",),
    ),
)
