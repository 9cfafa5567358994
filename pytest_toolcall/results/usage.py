"""What a run used: requests, tokens, latency, retries and an estimated cost, and the budget check.

Input: one record per model request with ``prompt_tokens``, ``completion_tokens`` (either may be
missing or None: counted as 0), optionally ``cached_tokens`` and ``reasoning_tokens``, ``latency_s``,
``from_store`` (answered by the response store, nothing was sent), ``stored_at`` (when the store kept
such an answer, seconds since the epoch), ``retries`` and, for requests sent, ``queue_s`` and (streamed)
``ttft_s``.

* Token totals count every answer the run used, fresh or from the store. ``cached_tokens`` (the
  provider's prompt cache) are part of ``prompt_tokens`` and ``reasoning_tokens`` part of
  ``completion_tokens``, as the OpenAI usage object reports them; they are shown, never added again.
* Latency p50/p95 are over fresh requests only (a store hit takes no time worth reporting), by
  linear interpolation between order statistics (``statistics.percentile``); None without any.
* Timing of fresh requests, each a p50/p95 (p50 only for the rate) by the same interpolation, None
  without any: ``ttft_*`` over streamed requests (``ttft_s``: from sending to the first event);
  ``queue_*`` over all (``queue_s``: the wait for a free slot of ``--toolcall-concurrency``, which
  is not part of ``latency_s``); ``output_tokens_per_s_p50`` over requests with completion tokens,
  each ``completion_tokens / (latency_s - ttft_s)`` when streamed (the decoding rate, after the first
  event) and ``completion_tokens / latency_s`` when not.
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
from typing import Any, TypeGuard

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
        **timing(fresh),
        "cost_usd": None if price is None else cost_usd(fresh_prompt, fresh_completion, price),
    }


def timing(fresh: list[Mapping[str, Any]]) -> dict[str, float | None]:
    """Time to first event, wait for a slot and output rate of fresh requests (module docstring)."""
    ttfts = [float(r["ttft_s"]) for r in fresh if _number(r.get("ttft_s"))]
    queues = [float(r["queue_s"]) for r in fresh if _number(r.get("queue_s"))]
    rates = []
    for r in fresh:
        tokens, latency, ttft = r.get("completion_tokens"), r.get("latency_s"), r.get("ttft_s")
        if not (_number(tokens) and _number(latency)) or tokens <= 0:
            continue
        decoding = latency - (ttft if _number(ttft) else 0.0)
        if decoding > 0:
            rates.append(tokens / decoding)
    return {
        "ttft_p50_s": percentile(ttfts, 0.50),
        "ttft_p95_s": percentile(ttfts, 0.95),
        "queue_p50_s": percentile(queues, 0.50),
        "queue_p95_s": percentile(queues, 0.95),
        "output_tokens_per_s_p50": percentile(rates, 0.50),
    }


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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
