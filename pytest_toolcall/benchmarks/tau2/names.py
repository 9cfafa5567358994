"""The names τ²-bench's modules share that need none of their code: the data folder, the domains,
the reward components. Light on purpose: the benchmark class and its metrics import only this, so
that a run that does not select τ²-bench never loads its environments (pydantic models)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).with_name("data")
DOMAINS = ("airline", "retail", "telecom")
#: Every domain a run may select: τ³-bench's knowledge domain too (its environment is
#: ``banking_env.BankingEnvironment``).
ALL_DOMAINS = (*DOMAINS, "banking_knowledge")
INFRASTRUCTURE_ERROR = "infrastructure_error"
COMPONENTS = ("DB", "ENV_ASSERTION", "ACTION", "NL_ASSERTION", "COMMUNICATE")
