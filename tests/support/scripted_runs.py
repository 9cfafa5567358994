"""Shared helpers of the reliability and streaming tests (faults, hostile output, secrets, interruption,
streams).

Not a test module: the arguments of a run against the local server, the answer tables, a chat server
that timestamps every request it receives, and readers for the JSON report.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolcall.benchmarks.acebench.dataset import NORMAL, SPECIAL, load_category
from pytest_toolcall.benchmarks.acebench.prompts import Prompts, acebench_requests
from pytest_toolcall.testing.server import ChatServer, FaultPlan, Reply, message_text, text_key

#: A call list no ACEBench sample expects: the items answered with it fail.
WRONG_CALL = "[wrong_call(x=1)]"


#: A general_fc tool with a strict schema, shared by the fault and hostile-output suites.
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


def server_run_args(server: ChatServer) -> list[str]:
    """pytest's arguments for a run whose every answer is ``server``'s: a model named ``m``, no key, no
    response store, no retry, the JSON report in ``report.json``, the items in their order."""
    return [
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-api-key-env=",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
        "--toolcall-max-retries=0",
        "-p",
        "no:randomly",
    ]


def acebench_nodeid(lang: str, sample_id: str) -> str:
    return f"toolcall::acebench[{lang}/{sample_id}]"


def general_fc_nodeid(stem: str, index: int) -> str:
    return f"toolcall::general_fc[{stem}/{index}]"


@dataclass
class AnswerTable:
    """What the server answers to every ACEBench request of a selection, keyed by message text."""

    replies: dict[str, Reply] = field(default_factory=dict)
    #: text key of a request -> node id of the item it belongs to
    owner: dict[str, str] = field(default_factory=dict)
    #: text key of a request -> its step index within the item
    step: dict[str, int] = field(default_factory=dict)
    #: node id -> number of requests of the item (a normal multi-turn dialogue has several)
    requests: dict[str, int] = field(default_factory=dict)

    def item_of(self, body: dict[str, Any]) -> str:
        return self.owner[text_key(message_text(body))]

    def step_of(self, body: dict[str, Any]) -> int:
        return self.step[text_key(message_text(body))]

    def __call__(self, body: dict[str, Any]) -> Reply:
        return self.replies.get(text_key(message_text(body)), Reply(content="no idea"))

    @property
    def total(self) -> int:
        return sum(self.requests.values())


def acebench_answers(
    root: Path,
    limit: int,
    wrong: frozenset[str] = frozenset(),
    langs: tuple[str, ...] = ("en",),
    categories: tuple[str, ...] = NORMAL + SPECIAL,
) -> AnswerTable:
    """The reference answer of every request of the first ``limit`` units per category; the units
    whose id is in ``wrong`` are answered with a wrong call instead."""
    prompts = Prompts.load(root)
    table = AnswerTable()
    for lang in langs:
        for category in categories:
            for sample in load_category(root, lang, category)[:limit]:
                nodeid = acebench_nodeid(lang, sample.id)
                requests = acebench_requests(prompts, sample)
                table.requests[nodeid] = len(requests)
                for index, request in enumerate(requests):
                    key = text_key(message_text({"messages": request.messages}))
                    table.step[key] = index
                    answer = WRONG_CALL if sample.id in wrong else request.reference
                    table.replies[key] = Reply(content=answer)
                    table.owner[key] = nodeid
    return table


_WARM = False


def warm_up_client() -> None:
    """Load the whole ``openai``/``httpx`` stack once per process, success and error paths alike.

    pytester's in-process runs drop the modules a run imported. ``openai`` imports parts of its HTTP
    stack lazily (the connection pool, the anyio backend), so a stack loaded half before a run and
    half inside it mixes two copies of the exception classes, and a reset then surfaces as a raw
    ``ReadError``. Loaded completely before any run, every run shares one copy, as a real run does.
    """
    global _WARM
    if _WARM:
        return
    import asyncio

    import openai

    async def ask(base_url: str) -> None:
        client = openai.AsyncOpenAI(api_key="sk-warm-up", base_url=base_url, timeout=0.2, max_retries=0)
        try:
            await client.post("/chat/completions", cast_to=bytes, body={"model": "m", "messages": []})
        except openai.OpenAIError:
            pass
        finally:
            await client.close()

    for kinds in (None, ("reset",), ("hang",), ("500",)):
        faults = FaultPlan(rate=1.0, kinds=kinds, hang=1.0) if kinds else None
        with ChatServer(lambda body: Reply(content="ok"), faults=faults) as server:
            asyncio.run(ask(server.base_url))
    _WARM = True


@dataclass(frozen=True)
class Arrival:
    at: float  # time.monotonic() when the server had read the request
    body: dict[str, Any] | None
    fault: str | None
    authorization: str | None


class RecordingServer(ChatServer):
    """A ChatServer that also keeps, for every request, when it arrived and which fault it got."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arrivals: list[Arrival] = []
        self._arrivals_lock = threading.Lock()

    def _record(
        self, raw: bytes, auth: str | None, api_key: str | None = None
    ) -> tuple[dict[str, Any] | None, str | None]:
        body, fault = super()._record(raw, auth, api_key)
        with self._arrivals_lock:
            self.arrivals.append(Arrival(time.monotonic(), body, fault, auth))
        return body, fault

    def by_body(self) -> dict[str, list[Arrival]]:
        """Arrivals grouped by request body (every attempt of one request), in arrival order."""
        groups: dict[str, list[Arrival]] = {}
        with self._arrivals_lock:
            arrivals = list(self.arrivals)
        for arrival in arrivals:
            key = json.dumps(arrival.body, sort_keys=True)
            groups.setdefault(key, []).append(arrival)
        return groups


def load_report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def records_by_nodeid(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {record["nodeid"]: record for record in report["samples"]}


def outcomes(report: dict[str, Any]) -> dict[str, str]:
    return {record["nodeid"]: record["outcome"] for record in report["samples"]}


#: What a request's entry in a sample's usage says of time and attempts (a fault changes these).
TIMING = ("latency_s", "retries", "queue_s", "ttft_s")


def verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per item, everything that a fault must not change: the record without its latency and without
    the ids the server gives tool calls (a counter); its usage without timing and retries."""
    result = {}
    for nodeid, record in records_by_nodeid(report).items():
        plain = {k: v for k, v in record.items() if k != "latency_s"}
        if isinstance(plain.get("usage"), dict):
            requests = [{k: v for k, v in r.items() if k not in TIMING} for r in plain["usage"]["requests"]]
            plain["usage"] = {**plain["usage"], "requests": requests}
        if isinstance(plain.get("tool_calls"), list):
            plain["tool_calls"] = [
                {k: v for k, v in call.items() if k != "id"} if isinstance(call, dict) else call
                for call in plain["tool_calls"]
            ]
        result[nodeid] = plain
    return result


def run_with_deadline(pytester: Any, seconds: float, *args: str) -> tuple[Any, float]:
    """``pytester.runpytest(*args)`` in-process, interrupted (as by Ctrl-C) if it runs past ``seconds``:
    a hanging run then fails its test instead of hanging the suite. Returns the result and the time."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    # A suite launched in the background inherits SIGINT ignored: the deadline must still interrupt.
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    started = time.monotonic()
    timer.start()
    try:
        result = pytester.runpytest(*args, no_reraise_ctrlc=True)
    finally:
        timer.cancel()
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    return result, time.monotonic() - started
