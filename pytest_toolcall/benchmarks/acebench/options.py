"""ACEBench's options, in its namespace (``--toolcall-acebench-<name>``).

Read by pytest in every run to register the options, so it imports nothing but ``Option`` (the
benchmark itself is imported only when a run selects it)."""

from __future__ import annotations

from pytest_toolcall.api import Option

#: The names from before the namespace (``--toolcall-lang``) stay as aliases.
OPTIONS = (
    Option("lang", "ACEBench language: en, zh or all", default="en", metavar="en|zh|all", aliases=("lang",)),
    Option(
        "data-dir",
        "ACEBench data root holding data_all/ and prompts.json (default: $TOOLCALL_DATA_DIR, else the "
        "pinned data shipped in the package)",
        env="TOOLCALL_DATA_DIR",
        metavar="DIR",
        aliases=("data-dir",),
    ),
    Option(
        "step-prompt-lang",
        "prompt language of agent_multi_step: 'sample' (the sample's) or 'zh' (what the "
        "official API runner sends for both languages)",
        default="sample",
        metavar="sample|zh",
        aliases=("step-prompt-lang",),
    ),
    Option(
        "max-dialog-turns",
        "message cap of an ACEBench agent dialogue (official: 40)",
        default="40",
        metavar="N",
        aliases=("max-dialog-turns",),
    ),
)
#: Fixtures for users' tests (``acebench_env``), registered whenever a model is given.
FIXTURES = "pytest_toolcall.benchmarks.acebench.fixtures"
