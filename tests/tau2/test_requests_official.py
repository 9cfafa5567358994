"""Whole requests against the official ones: the official runner (two trials, its default seed)
played scripted runs against a recording server (``tests/data/tau2/learn_requests.py``); here the
plugin plays the same runs live, through the real ``openai`` client and the local chat server, and
every request body it sends must be one the official code sent (messages, tools in the toolkit's
order, ``tool_choice``, temperature, the trial's ``seed``), every official one must be sent, and
each run ends as the official one did, with its reward."""

from __future__ import annotations

import gzip
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks
from pytest_toolcall.benchmarks.tau2.environment import tool_specs
from pytest_toolcall.benchmarks.tau2.loop import trial_seed
from tests.support.chat_server import ChatServer, Reply

REQUESTS = Path(__file__).parents[1] / "data" / "tau2" / "requests"
DOMAINS = ("airline", "retail", "telecom")


def learned(domain: str) -> dict[str, Any]:
    return json.loads(gzip.decompress((REQUESTS / f"requests-{domain}.json.gz").read_bytes()))


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True)


def test_the_trial_seeds_are_the_official_runners() -> None:
    for domain in DOMAINS:
        data = learned(domain)
        assert [trial_seed(t) for t in range(len(data["seeds"]))] == data["seeds"]
        assert {run["seed"] for run in data["runs"]} == set(data["seeds"])


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_tools_are_in_the_toolkits_order(domain: str) -> None:
    """The agent's tools (and telecom's user tools) in the order the official requests list them."""
    for run in learned(domain)["runs"]:
        for request in run["requests"]:
            tools = request["body"].get("tools")
            if tools:
                specs = tool_specs(domain if request["side"] == "agent" else f"{domain}_user")
                assert [spec.schema for spec in specs.values()] == tools


class OfficialRequests:
    """Answers a request that is exactly one the official code sent with the reply it got then;
    any other request is recorded as a miss (and answered with an error)."""

    def __init__(self, domains: tuple[str, ...]) -> None:
        self.replies: dict[str, dict[str, Any]] = {}
        self.sides: dict[str, str] = {}
        for domain in domains:
            for run in learned(domain)["runs"]:
                for request in run["requests"]:
                    key = canonical(request["body"])
                    self.replies[key] = request["reply"]
                    self.sides[key] = request["side"]
        self.seen: set[str] = set()
        self.misses: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        key = canonical(body)
        with self.lock:
            if key not in self.replies:
                self.misses.append(body)
                return Reply(status=400, content="not an official request")
            self.seen.add(key)
        reply = self.replies[key]
        return Reply(content=reply["content"], tool_calls=reply["tool_calls"])

    def closest(self, body: dict[str, Any]) -> str:
        """What differs between a missed request and the official one of its place (the same
        seed, system prompt and number of messages), for the failure message."""
        for key in self.replies:
            official = json.loads(key)
            if (official.get("seed"), official["messages"][:1], len(official["messages"])) == (
                body.get("seed"),
                body["messages"][:1],
                len(body["messages"]),
            ):
                keys = sorted(set(official) | set(body))
                differ = [k for k in keys if official.get(k) != body.get(k)]
                pairs = zip(official["messages"], body["messages"], strict=True)
                first = next(((o, b) for o, b in pairs if o != b), None)
                return f"fields that differ: {differ}; first message that differs (official, sent): {first}"
        return f"no official request with seed {body.get('seed')} and this system prompt and length"


@pytest.mark.slow
@pytest.mark.parametrize("domain", DOMAINS)
def test_a_live_run_sends_the_official_requests(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, domain: str
) -> None:
    data = learned(domain)
    tasks = {run["task_id"] for run in data["runs"]}
    others = [
        f"--deselect=toolcall::tau2[{domain}/{task['id']}@{trial}]"
        for task in domain_tasks(domain, "base")
        if task["id"] not in tasks
        for trial in (1, 2)
    ]
    server_script = OfficialRequests((domain,))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(server_script) as server:
        result = pytester.runpytest(
            "--toolcall-model=agent",
            "--toolcall-user-model=user",
            f"--toolcall-base-url={server.base_url}",
            "--toolcall-bench=tau2",
            f"--toolcall-tau2-domains={domain}",
            "--toolcall-repeat=2",
            "--toolcall-cache=off",
            "--toolcall-max-retries=0",
            "--toolcall-report=report.json",
            *others,
        )
    assert not server_script.misses, server_script.closest(server_script.misses[0])
    assert server_script.seen == set(server_script.replies)
    result.assert_outcomes(passed=len(data["runs"]))
    samples = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))["samples"]
    verdicts = {(s["task_id"], s["trial"]): (s["reward"], s["termination_reason"]) for s in samples}
    assert verdicts == {(r["task_id"], r["trial"]): (r["reward"], r["termination_reason"]) for r in data["runs"]}
    sides = set(server_script.sides.values())
    assert sides == {"agent", "user"}
