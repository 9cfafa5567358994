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
        "BFCL categories to load, comma-separated: category names, non_live, live, multi_turn or all",
        default="all",
        metavar="LIST",
    ),
)
