"""BFCL's options, in its namespace (``--toolcall-bfcl-<name>``).

Read by pytest in every run to register the options, so it imports nothing but ``Option`` (the
benchmark itself is imported only when a run selects it)."""

from __future__ import annotations

from pytest_toolcall.api import Option

OPTIONS = (
    Option(
        "mode",
        "BFCL mode: fc (native tool calling) or prompting (the official default system prompt, "
        "calls written as python text)",
        default="fc",
        metavar="MODE",
    ),
    Option(
        "categories",
        "BFCL categories to load, comma-separated: category names, non_live, live, multi_turn, v3, memory, "
        "agentic or all",
        default="all",
        metavar="LIST",
    ),
    Option(
        "empty-tool-calls",
        "BFCL: how a reply carrying tool_calls: [] is read: official (as gorilla@6ea5797: no response "
        "recorded for that step) or fixed (its text kept, as the upstream fixes do)",
        default="official",
        metavar="READING",
    ),
)
