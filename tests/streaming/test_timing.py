"""Timing in ``usage``, end to end against the local server: the time to a streamed answer's first
event, the output rate after it, and the wait for a free slot of ``--toolcall-concurrency`` kept out
of the latency. Bounds come from what the server does (it sleeps before the events, it holds two
requests at a time), never from how fast this machine computes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.core.stats.estimates import percentile
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import server_run_args

# Every test here runs pytest against the local server: the integration set, left out of the fast loop.
pytestmark = pytest.mark.slow


def cases(count: int) -> str:
    return "cases:\n" + "".join(
        f'  - id: c{n}\n    prompt: "Say {n}."\n    expect: {{no_call: true}}\n' for n in range(count)
    )


def run(pytester: pytest.Pytester, server: ChatServer, *args: str) -> dict[str, Any]:
    pytester.runpytest(
        *server_run_args(server),
        ".",
        *args,
    )
    return json.loads((pytester.path / "report.json").read_text())


def requests_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for s in report["samples"] for r in s["usage"]["requests"]]


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_first_event_and_output_rate_of_streamed_answers(pytester: pytest.Pytester, api: str) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        text = body.get("messages") or body.get("input")
        first = text[-1]["content"]
        prompt = first if isinstance(first, str) else (first[0].get("text") or "")
        return Reply(content=f"I say {prompt[4:-1]} out loud.", first_event_after=0.3, last_event_after=0.8)

    pytester.makefile(".toolcall.yaml", timed=cases(4))
    with ChatServer(respond) as server:
        report = run(pytester, server, "--toolcall-stream=on", f"--toolcall-api={api}", "--toolcall-concurrency=4")
    assert [s["outcome"] for s in report["samples"]] == ["passed"] * 4
    usage, requests = report["usage"], requests_of(report)
    # The first event comes 0.3 s after the headers, and before the last one (at 0.8 s): the time to it
    # is nearer 0.3 s than to the end (whatever this machine adds before the headers, it adds to both).
    assert all(0.3 <= r["ttft_s"] < r["latency_s"] for r in requests)
    assert usage["ttft_p50_s"] >= 0.3 and usage["latency_p50_s"] >= 0.8
    assert usage["ttft_p50_s"] - 0.3 < usage["latency_p50_s"] - usage["ttft_p50_s"]
    # The rate after the first event, from the samples' own records: completion tokens / (latency - ttft).
    rates = [r["completion_tokens"] / (r["latency_s"] - r["ttft_s"]) for r in requests]
    assert usage["output_tokens_per_s_p50"] == pytest.approx(percentile(rates, 0.5))
    assert usage["queue_p50_s"] is not None  # (4 requests, 4 slots: no wait worth a bound)


def test_the_wait_for_a_slot_is_reported_apart_from_the_latency(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toolcall.yaml", queued=cases(16))

    def respond(body: dict[str, Any]) -> Reply:
        return Reply(content=f"I say {body['messages'][-1]['content'][4:-1]} out loud.")

    with ChatServer(respond, latency=0.3) as server:
        report = run(pytester, server, "--toolcall-concurrency=2")
        assert server.max_in_flight <= 2  # the slots hold: others waited
    usage, requests = report["usage"], requests_of(report)
    assert len(requests) == 16 and [s["outcome"] for s in report["samples"]] == ["passed"] * 16
    assert all(r["latency_s"] >= 0.3 for r in requests) and all("ttft_s" not in r for r in requests)
    # The run keeps about twice the concurrency asked: most requests find both slots taken and wait
    # about one answer's time (the first two never wait).
    waited = [r for r in requests if r["queue_s"] >= 0.15]
    assert len(waited) >= 8, sorted(r["queue_s"] for r in requests)
    assert usage["queue_p95_s"] >= 0.15 and usage["ttft_p50_s"] is None
    # Counted in the latency, the wait would put its median near 0.3 + queue_p50 (about 0.6).
    assert usage["latency_p50_s"] < 0.3 + usage["queue_p50_s"]
