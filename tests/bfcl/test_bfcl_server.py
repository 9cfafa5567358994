"""BFCL through the plugin against the local chat-completions server (the real ``openai`` client):
the server answers each item with a reply of the committed verdict corpus (right and wrong ones, in
both modes), and every item's outcome and error type must be the official checker's verdict on that
reply. The aggregates must not depend on xdist."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.data import (
    BfclSample,
    MultiTurnSample,
    language_of,
    load_multi_turn_category,
    load_samples,
)
from pytest_toolcall.benchmarks.bfcl.multi_turn_dialogue import _keyword_call, func_docs
from pytest_toolcall.benchmarks.bfcl.request import build_request
from pytest_toolcall.benchmarks.bfcl.source_calls import EXACT
from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

VERDICTS = Path(__file__).resolve().parents[2] / "data" / "verdicts"


@cache
def samples() -> dict[tuple[str, str], BfclSample]:
    loaded, problems = load_samples()
    assert not problems
    return {(sample.category, sample.id): sample for sample in loaded}


@cache
def scripted(mode: str) -> tuple[dict[str, Any], ...]:
    """One corpus reply per sample of the corpus in ``mode``: the k-th sample takes its k-th reply
    (cycling), so that every kind of edit, right or wrong, is among them. Java/JavaScript prompting
    replies are left out without tree-sitter (the official reader decides them)."""
    with open(VERDICTS / "bfcl_outputs.jsonl", encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    by_sample: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for line in lines:
        if line["mode"] != mode:
            continue
        if mode == "prompting" and language_of(line["category"]) != "python" and not EXACT:
            continue
        by_sample.setdefault((line["category"], line["id"]), []).append(line)
    return tuple(replies[k % len(replies)] for k, replies in enumerate(by_sample.values()))


def request_key(messages: Any, tools: Any) -> str:
    return json.dumps({"messages": messages, "tools": tools}, sort_keys=True)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    replies: dict[str, Reply] = {}
    for mode in ("fc", "prompting"):
        for line in scripted(mode):
            request = build_request(samples()[(line["category"], line["id"])], mode)
            key = request_key(request.messages, request.tools)
            assert key not in replies, "two scripted items send the same request"
            replies[key] = Reply(content=line["content"], tool_calls=line["tool_calls"] or None)

    def respond(body: dict[str, Any]) -> Reply:
        # An unscripted request is an error of its item: the test then fails on the outcome.
        return replies.get(request_key(body["messages"], body.get("tools")), Reply(status=400))

    with ChatServer(respond) as srv:
        yield srv


def run(
    pytester: pytest.Pytester, server: ChatServer, mode: str, *extra: str, keep: list[str] | None = None
) -> dict[str, Any]:
    """Run the scripted items of ``mode`` (a conftest keeps only them) and return the JSON report."""
    if keep is None:
        keep = [f"toolcall::bfcl[{line['category']}/{line['id']}]" for line in scripted(mode)]
    (pytester.path / "keep.json").write_text(json.dumps(keep), encoding="utf-8")
    pytester.makeconftest(
        """
        import json, pathlib

        KEEP = set(json.loads((pathlib.Path(__file__).parent / "keep.json").read_text()))

        def pytest_collection_modifyitems(config, items):
            chosen = [item for item in items if item.nodeid in KEEP]
            config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in KEEP])
            items[:] = chosen
        """
    )
    pytester.runpytest(
        "--toolcall-model=served-model",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-bench=bfcl",
        f"--toolcall-bfcl-mode={mode}",
        "--toolcall-max-retries=0",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
        *extra,
    )
    return json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("mode", ["fc", "prompting"])
def test_verdicts_of_scripted_replies_are_the_official_ones(
    pytester: pytest.Pytester, server: ChatServer, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-bfcl-test")
    lines = scripted(mode)
    report = run(pytester, server, mode)
    got = {sample["nodeid"]: sample for sample in report["samples"]}
    assert len(got) == len(lines) == len(server.requests)
    for line in lines:
        sample = got[f"toolcall::bfcl[{line['category']}/{line['id']}]"]
        assert (sample["score"], sample["error_type"]) == (float(line["valid"]), line["error_type"]), line
        # An item whose own possible answer fails the checker is an expected failure (xfail/xpass).
        expected = (
            ("passed" if line["valid"] else "failed")
            if sample["ceiling"]
            else ("xpassed" if line["valid"] else "xfailed")
        )
        assert sample["outcome"] == expected, line
    assert {line["valid"] for line in lines} == {True, False}
    assert len({line["edit"] for line in lines}) > 15
    # Requests as the official runner sends them: its temperature, no max_tokens, tools only in fc.
    for body in server.requests:
        assert body["temperature"] == 0.001 and "max_tokens" not in body
        assert ("tools" in body) == (mode == "fc")
    # Each category's accuracy is the share of official passes among its scripted replies.
    block = report["metrics"]["bfcl"]
    for category, metrics in block["categories"].items():
        verdicts = [line["valid"] for line in lines if line["category"] == category]
        assert (metrics["n"], metrics["passed"]) == (len(verdicts), sum(verdicts)), category


def test_aggregates_identical_under_xdist(
    pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-bfcl-test")
    single = run(pytester, server, "fc")
    distributed = run(pytester, server, "fc", "-n", "2")
    assert distributed["metrics"] == single["metrics"]
    assert distributed["metrics"]["bfcl"]["categories"]

    def verdicts(report: dict[str, Any]) -> dict[str, Any]:
        return {s["nodeid"]: (s["outcome"], s["error_type"], s["ceiling"]) for s in report["samples"]}

    assert verdicts(distributed) == verdicts(single)


# --- multi-turn ------------------------------------------------------------------------------------


def multi_turn_sample(category: str, sample_id: str) -> MultiTurnSample:
    samples, problems = load_multi_turn_category(category)
    assert not problems
    return next(sample for sample in samples if sample.id == sample_id)


def ground_truth_script(sample: MultiTurnSample, mode: str) -> list[Reply]:
    """A model that answers each turn with its ground-truth calls (keyword arguments), then text."""
    params = {doc["name"]: list(doc["parameters"]["properties"]) for docs in func_docs().values() for doc in docs}
    script = []
    for calls in sample.ground_truth:
        if calls:
            named = [_keyword_call(call, params) for call in calls]
            if mode == "fc":
                script.append(Reply(tool_calls=[{"name": n, "arguments": json.dumps(a)} for n, a in named]))
            else:
                written = ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in named)
                script.append(Reply(content=f"[{written}]"))
        script.append(Reply(content="Done."))
    return script


@pytest.mark.parametrize("mode", ["fc", "prompting"])
def test_multi_turn_dialogues_against_the_server(
    pytester: pytest.Pytester, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One item per dialogue: the ground truth passes (held-out function offered at its turn), a model
    that never calls fails on the first turn, one that repeats a call is force-terminated."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-bfcl-test")
    right = multi_turn_sample("multi_turn_miss_func", "multi_turn_miss_func_0")
    silent = multi_turn_sample("multi_turn_base", "multi_turn_base_1")
    looping = multi_turn_sample("multi_turn_base", "multi_turn_base_2")
    repeat = Reply(tool_calls=[{"name": "ls", "arguments": "{}"}]) if mode == "fc" else Reply(content="[ls()]")
    scripts = {
        right.entry["question"][0][0]["content"]: ground_truth_script(right, mode),
        silent.entry["question"][0][0]["content"]: [Reply(content="I cannot do that.")] * 10,
        looping.entry["question"][0][0]["content"]: [repeat] * 30,
    }

    def respond(body: dict[str, Any]) -> Reply:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        step = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return scripts[user][step]

    keep = [f"toolcall::bfcl[{s.category}/{s.id}]" for s in (right, silent, looping)]
    with ChatServer(respond) as server:
        report = run(pytester, server, mode, "--toolcall-bfcl-categories=multi_turn", keep=keep)
    got = {sample["id"]: sample for sample in report["samples"]}
    assert got[right.id]["outcome"] == "passed", got[right.id]["reason"]
    assert got[right.id]["turns"] == len(right.ground_truth) and got[right.id]["ceiling"] == 1.0
    assert (got[silent.id]["outcome"], got[silent.id]["error_type"]) == (
        "failed",
        "multi_turn:empty_turn_model_response",
    )
    assert (got[looping.id]["outcome"], got[looping.id]["error_type"]) == ("failed", "multi_turn:force_terminated")
    assert got[looping.id]["force_quit"] is True and got[looping.id]["turns"] == 1

    requests = server.requests
    # Official requests: temperature 0.001, no max_tokens; the step limit is 20 executed steps a turn.
    assert all(body["temperature"] == 0.001 and "max_tokens" not in body for body in requests)
    looping_requests = [b for b in requests if looping.entry["question"][0][0]["content"] in str(b["messages"])]
    assert len(looping_requests) == 21  # the 21st executed step in one turn is over the limit
    silent_requests = [b for b in requests if silent.entry["question"][0][0]["content"] in str(b["messages"])]
    assert len(silent_requests) == len(silent.entry["question"])  # one text reply ends each turn
    # The held-out function is offered from its turn on, with the official message.
    right_requests = [b for b in requests if right.entry["question"][0][0]["content"] in str(b["messages"])]
    held_out = "I have updated some more functions you can choose from. What about now?"
    for body in right_requests:
        later = any(held_out in str(m.get("content")) for m in body["messages"])
        if mode == "fc":
            assert ("sort" in [tool["function"]["name"] for tool in body["tools"]]) == later
        else:
            assert "tools" not in body and body["messages"][0]["role"] == "system"
            assert ('"name": "sort"' in body["messages"][0]["content"]) is False
    assert any(held_out in str(m.get("content")) for body in right_requests for m in body["messages"])
    if mode == "fc":
        # Results go back as tool messages paired with the call ids of the assistant message.
        last = right_requests[-1]["messages"]
        ids = {c["id"] for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or []}
        assert ids and {m["tool_call_id"] for m in last if m["role"] == "tool"} == ids
    block = report["metrics"]["bfcl"]
    assert block["categories"]["multi_turn_miss_func"]["passed"] == 1
    assert block["categories"]["multi_turn_base"] | {"ci95": None} == {
        "n": 2,
        "passed": 0,
        "failed": 2,
        "errors": 0,
        "accuracy": 0.0,
        "ci95": None,
        "ceiling": 1.0,
    }
