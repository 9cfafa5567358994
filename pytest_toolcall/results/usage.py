"""What a run used: requests, tokens, latency, retries and an estimated cost, and the budget check.

Input: one record per model request with ``prompt_tokens``, ``completion_tokens`` (either may be
missing or None: counted as 0), optionally ``cached_tokens`` and ``reasoning_tokens``, ``latency_s``,
``from_store`` (answered by the response store, nothing was sent), ``stored_at`` (when the store kept
such an answer, seconds since the epoch) and ``retries``.

* Token totals count every answer the run used, fresh or from the store. ``cached_tokens`` (the
  provider's prompt cache) are part of ``prompt_tokens`` and ``reasoning_tokens`` part of
  ``completion_tokens``, as the OpenAI usage object reports them; they are shown, never added again.
* Latency p50/p95 are over fresh requests only (a store hit takes no time worth reporting), by
  linear interpolation between order statistics (``statistics.percentile``); None without any.
* ``from_store`` counts the answers the store gave; ``oldest_stored_at`` is when the oldest of them
  was kept (ISO 8601, UTC; None without any).
* Cost, with a price (USD per million prompt tokens, USD per million completion tokens), is over fresh
  requests only: answers from the store cost nothing this time. Cached prompt tokens are charged at
  the full prompt price, so the estimate is an upper bound for providers that discount them.
* ``Budget`` adds the cost of each fresh request as it completes; once the total passes the limit,
  ``exhausted`` turns true and the caller stops sending new requests.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.core.stats.estimates import percentile

#: A price: (USD per million prompt tokens, USD per million completion tokens).
Price = tuple[float, float]


def cost_usd(prompt_tokens: int, completion_tokens: int, price: Price) -> float:
    """The cost of these tokens at this price."""
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


def _tokens(record: Mapping[str, Any], field: str) -> int:
    return int(record.get(field) or 0)


def usage_summary(records: Iterable[Mapping[str, Any]], price: Price | None = None) -> dict[str, Any]:
    """The ``usage`` block of the report from per-request records (see the module docstring)."""
    records = list(records)
    fresh = [r for r in records if not r.get("from_store")]
    latencies = [float(r["latency_s"]) for r in fresh if r.get("latency_s") is not None]
    fresh_prompt = sum(_tokens(r, "prompt_tokens") for r in fresh)
    fresh_completion = sum(_tokens(r, "completion_tokens") for r in fresh)
    stored = [float(r["stored_at"]) for r in records if r.get("from_store") and r.get("stored_at") is not None]
    return {
        "requests": len(records),
        "fresh": len(fresh),
        "from_store": len(records) - len(fresh),
        "oldest_stored_at": _iso(min(stored)) if stored else None,
        "retries": sum(_tokens(r, "retries") for r in records),
        "prompt_tokens": sum(_tokens(r, "prompt_tokens") for r in records),
        "completion_tokens": sum(_tokens(r, "completion_tokens") for r in records),
        "cached_tokens": sum(_tokens(r, "cached_tokens") for r in records),
        "reasoning_tokens": sum(_tokens(r, "reasoning_tokens") for r in records),
        "latency_p50_s": percentile(latencies, 0.50),
        "latency_p95_s": percentile(latencies, 0.95),
        "cost_usd": None if price is None else cost_usd(fresh_prompt, fresh_completion, price),
    }


def _iso(epoch: float) -> str:
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Budget:
    """A running cost estimate against ``--toolcall-budget``."""

    limit_usd: float
    price: Price
    spent_usd: float = 0.0

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one completed request (store hits cost nothing)."""
        if not record.get("from_store"):
            tokens = _tokens(record, "prompt_tokens"), _tokens(record, "completion_tokens")
            self.spent_usd += cost_usd(*tokens, self.price)

    @property
    def exhausted(self) -> bool:
        """True once the estimate has passed the limit: send no new request."""
        return self.spent_usd > self.limit_usd
