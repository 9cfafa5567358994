"""Usage totals, latency percentiles, cost and the budget, against arithmetic written out here."""

from __future__ import annotations

import pytest

from pytest_toolcall.config.settings import parse_price
from pytest_toolcall.results import gate, summary
from pytest_toolcall.results.usage import Budget, cost_usd, usage_summary


def request(prompt: int | None, completion: int | None, latency: float | None, store: bool = False,
            retries: int = 0, **extra: object) -> dict:  # fmt: skip
    return {"prompt_tokens": prompt, "completion_tokens": completion, "latency_s": latency, "from_store": store,
            "retries": retries, **extra}  # fmt: skip


RECORDS = [
    request(1000, 500, 0.8, retries=1, cached_tokens=600),
    request(3000, 700, 2.4, reasoning_tokens=300),
    request(2000, 100, 0.4, store=True),  # answered by the store: no latency or cost counted
    request(None, None, 1.2, retries=2),  # the provider sent no usage
    request(500, 50, None),  # no latency recorded
]


def test_totals_by_hand() -> None:
    usage = usage_summary(RECORDS)
    assert (usage["requests"], usage["fresh"], usage["from_store"]) == (5, 4, 1)
    assert usage["retries"] == 3  # 1 + 2
    assert usage["prompt_tokens"] == 6500  # 1000 + 3000 + 2000 + 0 + 500, store included
    assert usage["completion_tokens"] == 1350  # 500 + 700 + 100 + 0 + 50
    assert usage["cached_tokens"] == 600 and usage["reasoning_tokens"] == 300  # shown, not added again
    assert usage["cost_usd"] is None  # no price


def test_latency_percentiles_over_fresh_requests() -> None:
    usage = usage_summary(RECORDS)
    # fresh latencies, sorted: 0.8, 1.2, 2.4 (the store's 0.4 and the missing one are left out)
    # p50: h = 2·0.5 = 1 → 1.2; p95: h = 2·0.95 = 1.9 → 1.2 + 0.9·(2.4 - 1.2) = 2.28
    assert usage["latency_p50_s"] == pytest.approx(1.2)
    assert usage["latency_p95_s"] == pytest.approx(2.28)


def test_cost_over_fresh_requests() -> None:
    usage = usage_summary(RECORDS, price=(2.5, 10.0))
    # fresh: prompt 1000 + 3000 + 0 + 500 = 4500, completion 500 + 700 + 0 + 50 = 1250
    # 4500·2.5/1e6 + 1250·10/1e6 = 0.01125 + 0.0125 = 0.02375
    assert usage["cost_usd"] == pytest.approx(0.02375)
    assert cost_usd(1_000_000, 2_000_000, (0.15, 0.6)) == pytest.approx(0.15 + 1.2)


def test_nothing_used() -> None:
    usage = usage_summary([], price=(1.0, 1.0))
    assert usage["requests"] == 0 and usage["prompt_tokens"] == 0
    assert usage["latency_p50_s"] is None and usage["latency_p95_s"] is None
    assert usage["cost_usd"] == 0.0
    only_store = usage_summary([request(10, 10, 0.1, store=True)], price=(1.0, 1.0))
    assert only_store["latency_p50_s"] is None and only_store["cost_usd"] == 0.0


@pytest.mark.parametrize(
    ("text", "expected"), [("2.5,10", (2.5, 10.0)), (" 0.15 , 0.6 ", (0.15, 0.6)), ("0,0", (0.0, 0.0))]
)
def test_parse_price(text: str, expected: tuple[float, float]) -> None:
    assert parse_price(text) == expected


@pytest.mark.parametrize("text", ["2.5", "1,2,3", "a,b", "-1,2", "nan,1", "inf,1", ""])
def test_parse_price_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="price"):
        parse_price(text)


def test_budget_stops_once_the_estimate_passes_the_limit() -> None:
    budget = Budget(limit_usd=0.01, price=(2.0, 8.0))
    budget.add(request(2000, 500, 0.5))  # 2000·2/1e6 + 500·8/1e6 = 0.004 + 0.004 = 0.008
    assert budget.spent_usd == pytest.approx(0.008) and not budget.exhausted
    budget.add(request(100_000, 100_000, 0.1, store=True))  # a store hit costs nothing
    assert budget.spent_usd == pytest.approx(0.008)
    budget.add(request(1000, 0, 0.5))  # + 0.002 = 0.010: at the limit, not past it
    assert budget.spent_usd == pytest.approx(0.010)
    budget.add(request(None, 1, 0.5))  # + 0.000008
    assert budget.exhausted


def test_answers_from_the_store_are_counted_with_the_oldest_time() -> None:
    """``from_store`` counts the stored answers, ``oldest_stored_at`` is the earliest ``stored_at`` of
    those (fresh answers carry none), and the gate line and step summary say it."""
    day = 1_764_633_600.0  # 2025-12-02T00:00:00Z
    records = [
        {"prompt_tokens": 1, "completion_tokens": 1, "latency_s": 0.0, "from_store": True, "stored_at": day + 7200},
        {"prompt_tokens": 1, "completion_tokens": 1, "latency_s": 0.0, "from_store": True, "stored_at": day + 60},
        {"prompt_tokens": 1, "completion_tokens": 1, "latency_s": 0.5, "from_store": False},
    ]
    usage = usage_summary(records)
    assert (usage["from_store"], usage["fresh"], usage["oldest_stored_at"]) == (2, 1, "2025-12-02T00:01:00Z")
    assert usage_summary(records[2:])["oldest_stored_at"] is None
    note = gate.store_note(usage)
    assert note == "2 answer(s) from the response store, the oldest stored 2025-12-02T00:01:00Z"
    assert gate.store_note(usage_summary(records[2:])) == ""
    verdict = gate.GateVerdict((), 0, "every threshold holds", note)
    assert verdict.line.endswith(f"[{note}]")
    only_stored = usage_summary(records[:2])
    assert "none sent" in "\n".join(summary.usage_lines(only_stored, None))  # not "p50 - s"


TIMED = [
    request(10, 100, 1.2, ttft_s=0.2, queue_s=0.0),  # streamed: 100 / (1.2 - 0.2) = 100 tokens/s
    request(10, 60, 0.8, ttft_s=0.5, queue_s=0.4),  # streamed: 60 / 0.3 = 200 tokens/s
    request(10, 50, 2.0, queue_s=1.0),  # plain: 50 / 2.0 = 25 tokens/s
    request(10, 0, 0.5, queue_s=0.2),  # no completion tokens: no rate
    request(10, 500, 0.1, store=True, ttft_s=0.01, queue_s=9.0),  # from the store: no timing at all
]


def test_timing_by_hand() -> None:
    usage = usage_summary(TIMED)
    # ttft over the streamed fresh requests: 0.2, 0.5 → p50 h = 0.5 → 0.35; p95 h = 0.95 → 0.2 + 0.95·0.3 = 0.485
    assert usage["ttft_p50_s"] == pytest.approx(0.35) and usage["ttft_p95_s"] == pytest.approx(0.485)
    # queue over the fresh requests, sorted 0.0, 0.2, 0.4, 1.0 → p50 h = 1.5 → 0.3; p95 h = 2.85 → 0.4 + 0.85·0.6
    assert usage["queue_p50_s"] == pytest.approx(0.3) and usage["queue_p95_s"] == pytest.approx(0.91)
    # rates 25, 100, 200 → p50 100
    assert usage["output_tokens_per_s_p50"] == pytest.approx(100.0)
    # the wait for a slot is not latency: latencies stay 0.5, 0.8, 1.2, 2.0 → p50 1.0
    assert usage["latency_p50_s"] == pytest.approx(1.0)
    lines = "\n".join(summary.usage_lines(usage, None))
    assert "time to first event       p50 0.35 s, p95 0.48 s" in lines  # (0.485 shown to 2 digits)
    assert "waiting for a slot        p50 0.30 s, p95 0.91 s (not in the latency)" in lines
    assert "output tokens per second  p50 100.0" in lines


def test_no_timing_without_requests_sent() -> None:
    usage = usage_summary(TIMED[-1:])
    assert [usage[k] for k in ("ttft_p50_s", "queue_p95_s", "output_tokens_per_s_p50")] == [None, None, None]
    plain = usage_summary(TIMED[2:3])
    assert plain["ttft_p50_s"] is None and plain["queue_p50_s"] == pytest.approx(1.0)
    assert "time to first event" not in "\n".join(summary.usage_lines(plain, None))


def test_compare_shows_each_runs_timing() -> None:
    from pathlib import Path

    from pytest_toolcall.results import comparing

    timed = {"usage": usage_summary(TIMED), "run": {"model": "m"}, "samples": []}
    older = {"usage": {"latency_p50_s": 2.5}, "run": {"model": "m"}, "samples": []}  # a report before timing
    runs = [comparing._column(Path(name), doc, {}) for name, doc in (("new.json", timed), ("old.json", older))]
    assert runs[0].timing == {
        "latency_p50_s": pytest.approx(1.0),
        "ttft_p50_s": pytest.approx(0.35),
        "queue_p50_s": pytest.approx(0.3),
        "output_tokens_per_s_p50": pytest.approx(100.0),
    }
    table = comparing.terminal_table(comparing.Comparison(runs, [], {}, 0, [{}, {}]))
    line = "new.json: latency p50 1.00 s, first event p50 0.35 s, slot wait p50 0.30 s, 100.0 tokens/s"
    assert any(text.startswith("timing") and text.endswith(line) for text in table)
    assert any(text.endswith("old.json: latency p50 2.50 s") for text in table)
    page = comparing.compare_page(comparing.Comparison(runs, [], {}, 0, [{}, {}]))
    assert "first event p50 0.35 s" in page and "latency p50 2.50 s" in page
