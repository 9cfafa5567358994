"""τ²-bench's options, in its namespace (``--toolcall-tau2-<name>``).

Read by pytest in every run to register the options, so it imports nothing but ``Option`` (the
benchmark itself is imported only when a run selects it)."""

from __future__ import annotations

from pytest_toolcall.api import Option

OPTIONS = (
    Option(
        "domains",
        "τ²-bench domains, comma-separated: airline, retail, telecom (the default), banking_knowledge",
        default="airline,retail,telecom",
        metavar="LIST",
    ),
    Option(
        "retrieval",
        "τ³-bench banking_knowledge retrieval configuration (part of the run's identity; scores compare only "
        "within one): bm25, grep_only, full_kb, golden_retrieval, no_knowledge",
        default="bm25",
        metavar="NAME",
    ),
    Option(
        "split",
        "τ²-bench task split: leaderboard (each domain's leaderboard set: base), base, train, test, full, small",
        default="leaderboard",
        metavar="NAME",
    ),
    Option(
        "results",
        "grade the simulations of τ²-bench results files (tau2 run's JSON) again, as tau2 evaluate-trajs; "
        "nothing is sent to the model",
        metavar="FILE[,FILE]",
        selects=True,
    ),
)
