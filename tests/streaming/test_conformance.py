"""The conformance probes (``--toolcall-bench=conformance``) against the local server: all pass on a
compliant stack, through Chat Completions, the Responses API and the Messages API, plain and streamed
(one run asking every path too); a stack that breaks one contract fails probes of that contract and
of no other."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.benchmarks.cases.conformance import PROBES as PROBE_FILES
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


CONTRACTS = {
    "tool_choice": 9,
    "parallel_tool_calls": 3,
    "strict_schemas": 5,
    "multi_turn": 2,
    "reasoning": 2,
    "usage": 2,
    "immutable_parameters": 10,
    "tool_call_schemas": 205,
    "response_format": 4,
    "dynamic_tools": 3,
    "prompt_tokens": 1,
    "language_following": 6,
    "repetition": 3,
    "key_order": 2,
}
PROBES = sum(CONTRACTS.values())


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--toolcall-api=responses",),
        ("--toolcall-stream=both",),
        ("--toolcall-api=responses", "--toolcall-stream=on"),
        ("--toolcall-api=messages", "--toolcall-stream=both"),
    ],
    ids=["chat", "responses", "chat-both", "responses-on", "messages-both"],
)
def test_a_compliant_server_passes_every_probe(pytester: pytest.Pytester, args: tuple[str, ...]) -> None:
    with ChatServer(contract_model()) as server:
        report = conformance(pytester, server, *args)
    block = report["metrics"]["conformance"]
    assert failed(report) == {}
    assert block["n"] == block["passed"] == PROBES and block["overall"] == 1.0
    assert {c: row["n"] for c, row in block["contracts"].items()} == CONTRACTS
    assert "paths" not in block
    if "--toolcall-stream=both" in args:
        assert report["stream"]["compared"] == PROBES and report["stream"]["parity"] == 1.0


def test_every_api_and_mode_in_one_run(pytester: pytest.Pytester) -> None:
    with ChatServer(contract_model()) as server:
        report = conformance(pytester, server, "--toolcall-conformance-paths=all")
        asked = {(b.get("_api", "chat"), bool(b.get("stream"))) for b in server.requests}
        sent = len(server.requests)
    assert asked == {(api, stream) for api in ("chat", "responses", "messages") for stream in (False, True)}
    block = report["metrics"]["conformance"]
    assert failed(report) == {} and block["n"] == block["passed"] == sent == 6 * PROBES
    paths = [f"{api}/{mode}" for api in ("chat", "responses", "messages") for mode in ("plain", "streamed")]
    assert list(block["paths"]) == list(CONTRACTS)
    for contract, row in block["paths"].items():
        assert list(row) == paths
        assert {cell["n"] for cell in row.values()} == {CONTRACTS[contract]}
        assert {cell["accuracy"] for cell in row.values()} == {1.0}
    ids = {s["id"] for s in report["samples"] if s["category"] == "key_order"}
    assert "flat_arguments_in_declared_order@messages/streamed" in ids and len(ids) == 12


def test_one_broken_path_fails_only_its_probes(pytester: pytest.Pytester) -> None:
    """A stack whose Messages streams end without message_stop: every probe asked that way fails as
    stream_protocol, every other path passes."""
    compliant = contract_model()

    def respond(body: dict[str, Any]) -> Any:
        reply = compliant(body)
        if body.get("_api") == "messages" and body.get("stream") and reply.status == 200:
            reply.stream_break = "no_message_stop"
        return reply

    with ChatServer(respond) as server:
        report = conformance(
            pytester, server, "--toolcall-conformance-paths=messages,chat/streamed", "-m", "not tool_call_schemas"
        )
    samples = report["samples"]
    failures = [s for s in samples if s["outcome"] != "passed"]
    streamed = [s for s in samples if s["id"].endswith("@messages/streamed")]
    # (a refusal is an error answer, not a stream: the probes that expect one pass)
    expected = {s["id"] for s in streamed if not s["id"].split("@")[0].endswith("refused")}
    assert {s["id"] for s in failures} == expected and len(expected) == len(streamed) - 9
    assert {s["failure_kind"] for s in failures} == {"stream_protocol"}
    assert len(samples) == 3 * (PROBES - CONTRACTS["tool_call_schemas"])


#: Every walle probe: the ids of the shipped file.
TOOL_CALL_SCHEMAS = [
    json.loads(line)["id"] for line in (PROBE_FILES / "tool_call_schemas.toolcall.jsonl").read_text().splitlines()
]
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
    # (a stack without usage cannot say how many prompt tokens it counted either)
    "no_usage": {
        "usage/usage_of_a_text_answer": "usage_missing",
        "usage/usage_of_a_tool_call": "usage_missing",
        "prompt_tokens/assistant_hello": "usage_mismatch",
    },
    "accepts_any_sampling": {
        f"immutable_parameters/{probe}": "unexpected_status"
        for probe in (
            "temperature_1_1_is_refused",
            "temperature_2_is_refused",
            "negative_temperature_is_refused",
            "top_p_0_8_is_refused",
            "presence_penalty_is_refused",
            "frequency_penalty_is_refused",
            "two_choices_are_refused",
        )
    },
    "invalid_schema_arguments": {f"tool_call_schemas/{probe}": "schema_violation" for probe in TOOL_CALL_SCHEMAS},
    "ignores_response_format": {
        f"response_format/{probe}": "invalid_json_output"
        for probe in ("json_schema_strict", "json_schema_nested", "json_schema_not_strict", "json_object")
    },
    "stale_tools": {
        "dynamic_tools/a_tool_removed_is_not_called": "unknown_tool",
        "dynamic_tools/a_tool_added_is_called": "missing_call",
        "dynamic_tools/only_the_offered_tool_under_required": "unknown_tool",
    },
    "miscounts_prompt": {"prompt_tokens/assistant_hello": "usage_mismatch"},
    "answers_in_english": {
        f"language_following/{probe}": "wrong_language"
        for probe in ("korean", "japanese", "russian", "thai", "greek", "arabic")
    },
    "repeats_itself": {
        f"repetition/{probe}": "repetition"
        for probe in ("a_paragraph_about_the_sea", "a_list_of_fruit", "a_paragraph_in_chinese")
    },
    "sorts_argument_keys": {
        "key_order/flat_arguments_in_declared_order": "key_order",
        "key_order/nested_arguments_in_declared_order": "key_order",
    },
}


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_each_broken_contract_is_named(pytester: pytest.Pytester, broken: str) -> None:
    with ChatServer(contract_model(frozenset({broken}))) as server:
        report = conformance(pytester, server)
    got = failed(report)
    expected = EXPECTED[broken]
    assert got == expected
    contracts = report["metrics"]["conformance"]["contracts"]
    own = {BREAKS[broken]} | ({"prompt_tokens"} if broken == "no_usage" else set())
    assert {c for c, row in contracts.items() if row["accuracy"] < 1.0} == own
