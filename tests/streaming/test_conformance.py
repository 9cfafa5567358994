"""The conformance probes (``--toolcall-bench=conformance``) against the local server: all pass on a
compliant stack, through Chat Completions and the Responses API, plain and streamed; a stack that
breaks one contract fails probes of that contract and of no other."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer
from tests.support.serving_contract import BREAKS, contract_model

# Every test here runs pytest against the local server: the integration set, left out of the fast loop.
pytestmark = pytest.mark.slow


def conformance(pytester: pytest.Pytester, server: ChatServer, *args: str) -> dict[str, Any]:
    pytester.runpytest(
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-api-key-env=",
        "--toolcall-cache=off",
        "--toolcall-bench=conformance",
        "--toolcall-report=report.json",
        "--toolcall-max-retries=0",
        "-p",
        "no:randomly",
        *args,
    )
    return json.loads((pytester.path / "report.json").read_text())


def failed(report: dict[str, Any]) -> dict[str, str]:
    return {f"{s['category']}/{s['id']}": s["failure_kind"] for s in report["samples"] if s["outcome"] != "passed"}


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--toolcall-api=responses",),
        ("--toolcall-stream=both",),
        ("--toolcall-api=responses", "--toolcall-stream=on"),
    ],
    ids=["chat", "responses", "chat-both", "responses-on"],
)
def test_a_compliant_server_passes_every_probe(pytester: pytest.Pytester, args: tuple[str, ...]) -> None:
    with ChatServer(contract_model()) as server:
        report = conformance(pytester, server, *args)
    block = report["metrics"]["conformance"]
    assert failed(report) == {}
    assert block["n"] == block["passed"] == 23 and block["overall"] == 1.0
    assert set(block["contracts"]) == {
        "tool_choice",
        "parallel_tool_calls",
        "strict_schemas",
        "multi_turn",
        "reasoning",
        "usage",
    }
    if "--toolcall-stream=both" in args:
        assert report["stream"]["compared"] == 23 and report["stream"]["parity"] == 1.0


EXPECTED = {
    "none_ignored": {"tool_choice/none_forbids_calls": "unexpected_call"},
    "required_ignored": {"tool_choice/required_forces_a_call": "no_call"},
    "named_ignored": {"tool_choice/named_forces_that_tool": "missing_call"},
    "accepts_required_without_tools": {"tool_choice/required_without_tools_is_refused": "unexpected_status"},
    "accepts_invalid_tool_choice": {"tool_choice/invalid_tool_choice_is_refused": "unexpected_status"},
    "parallel_ignored": {"parallel_tool_calls/false_allows_one_call": "extra_call"},
    "strict_ignored": {
        "strict_schemas/flat_object": "schema_violation",
        "strict_schemas/enum_and_ranges": "schema_violation",
    },
    "ignores_tool_results": {
        "multi_turn/answer_from_tool_results": "unexpected_call",
        "multi_turn/next_call_from_tool_results": "missing_call",
    },
    "drops_answer_after_reasoning": {"reasoning/text_after_reasoning": "reasoning_only"},
    "no_usage": {"usage/usage_of_a_text_answer": "usage_missing", "usage/usage_of_a_tool_call": "usage_missing"},
}


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_each_broken_contract_is_named(pytester: pytest.Pytester, broken: str) -> None:
    with ChatServer(contract_model(frozenset({broken}))) as server:
        report = conformance(pytester, server)
    got = failed(report)
    expected = EXPECTED[broken]
    assert got == expected
    contracts = report["metrics"]["conformance"]["contracts"]
    assert [c for c, row in contracts.items() if row["accuracy"] < 1.0] == [BREAKS[broken]]
