"""Whole requests against the official ones: the official runner (two trials, its default seed)
played scripted runs against a recording server (``tests/data/tau2/learn_requests.py``); here the
plugin plays the same runs live, through the real ``openai`` client and the local chat server, and
every request body it sends must be one the official code sent (messages, tools in the toolkit's
order, ``tool_choice``, temperature, the trial's ``seed``), every official one must be sent, and
each run ends as the official one did, with its reward."""

from __future__ import annotations

import json
import lzma
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2.banking_env import agent_specs, user_specs
from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks, task_by_id
from pytest_toolcall.benchmarks.tau2.environment import ToolSpec, tool_specs
from pytest_toolcall.benchmarks.tau2.loop import trial_seed
from pytest_toolcall.testing.server import ChatServer, Reply

REQUESTS = Path(__file__).parents[1] / "data" / "tau2" / "requests"
DOMAINS = ("airline", "retail", "telecom", "banking_knowledge")
#: banking_knowledge's runs were learned with this retrieval configuration (the default offline one).
RETRIEVAL = "bm25"


def learned(domain: str) -> dict[str, Any]:
    return json.loads(lzma.decompress((REQUESTS / f"requests-{domain}.json.xz").read_bytes()))


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True)


def test_the_trial_seeds_are_the_official_runners() -> None:
    for domain in DOMAINS:
        data = learned(domain)
        assert [trial_seed(t) for t in range(len(data["seeds"]))] == data["seeds"]
        assert {run["seed"] for run in data["runs"]} == set(data["seeds"])


def declared(domain: str, side: str) -> dict[str, ToolSpec]:
    if domain == "banking_knowledge":
        return agent_specs(RETRIEVAL) if side == "agent" else user_specs()
    return tool_specs(domain if side == "agent" else f"{domain}_user")


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_tools_are_in_the_toolkits_order(domain: str) -> None:
    """The agent's tools (and the user's of telecom and banking_knowledge, those the task offers) in
    the order the official requests list them."""
    checked = set()
    for run in learned(domain)["runs"]:
        offered = task_by_id(domain, run["task_id"]).get("user_tools")
        for request in run["requests"]:
            tools = request["body"].get("tools")
            if tools:
                side = request["side"]
                specs = declared(domain, side)
                wanted = [s.schema for n, s in specs.items() if side == "agent" or offered is None or n in offered]
                assert wanted == tools
                checked.add(side)
    assert checked == ({"agent"} if domain in ("airline", "retail") else {"agent", "user"})


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
        """What differs between a missed request and the official one of the same seed that shares
        the longest beginning of messages with it, for the failure message."""
        best: tuple[int, dict[str, Any]] | None = None
        for key in self.replies:
            official = json.loads(key)
            if official.get("seed") != body.get("seed"):
                continue
            pairs = zip(official["messages"], body["messages"], strict=False)
            common = next(
                (i for i, (o, b) in enumerate(pairs) if o != b), min(len(official["messages"]), len(body["messages"]))
            )
            if best is None or common > best[0]:
                best = (common, official)
        if best is None:
            return f"no official request with seed {body.get('seed')}"
        common, official = best
        differ = [k for k in sorted(set(official) | set(body)) if official.get(k) != body.get(k)]
        first = [m[common] if common < len(m) else None for m in (official["messages"], body["messages"])]
        return f"fields that differ: {differ}; message {common} differs (official, sent): {first}"


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
            *([f"--toolcall-tau2-retrieval={RETRIEVAL}"] if domain == "banking_knowledge" else []),
            *others,
        )
    assert not server_script.misses, server_script.closest(server_script.misses[0])
    assert server_script.seen == set(server_script.replies)
    rewards = [run["reward"] for run in data["runs"]]
    result.assert_outcomes(passed=rewards.count(1.0), failed=rewards.count(0.0))
    samples = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))["samples"]
    verdicts = {(s["task_id"], s["trial"]): (s["reward"], s["termination_reason"]) for s in samples}
    assert verdicts == {(r["task_id"], r["trial"]): (r["reward"], r["termination_reason"]) for r in data["runs"]}
    sides = set(server_script.sides.values())
    assert sides == {"agent", "user"}
