"""general_fc through the plugin: native tool calls from a real local server through the real
``openai`` client, the K2-Vendor-Verifier counts, reference agreement, bad lines, both benchmarks."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_DATA
from pytest_toolcall.testing.server import ChatServer, Reply

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
TIME = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {"type": "object", "properties": {"zone": {"type": "string", "format": "timezone"}}},
    },
}


def call(name: str, arguments: str) -> dict[str, str]:
    return {"name": name, "arguments": arguments}


# (user message, should_call_tool, server reply). Expected per K2VV: pred = finish_reason == tool_calls;
# valid = every call decodes, names a tool, and validates against its schema.
CASES: list[tuple[str, bool, Reply]] = [
    ("no call, label false", False, Reply(content="It is sunny.")),  # TN
    ("no call, label true", True, Reply(content="I don't know.")),  # FN
    ("valid call", True, Reply(tool_calls=[call("get_weather", '{"city": "Paris"}')])),  # TP, valid
    ("several calls", True, Reply(tool_calls=[call("get_weather", '{"city": "Oslo"}'), call("get_time", "{}")])),
    ("invalid json", True, Reply(tool_calls=[call("get_weather", '{"city": ')])),  # TP, invalid
    ("wrong type", True, Reply(tool_calls=[call("get_weather", '{"city": 5}')])),  # TP, invalid
    ("bad enum", True, Reply(tool_calls=[call("get_weather", '{"city": "Oslo", "unit": "k"}')])),  # TP, invalid
    ("missing required", True, Reply(tool_calls=[call("get_weather", '{"unit": "c"}')])),  # TP, invalid
    ("extra property", True, Reply(tool_calls=[call("get_weather", '{"city": "Rome", "x": 1}')])),  # invalid
    ("format not asserted", True, Reply(tool_calls=[call("get_time", '{"zone": "not a zone"}')])),  # valid
    ("unknown tool", True, Reply(tool_calls=[call("get_wether", '{"city": "Paris"}')])),  # TP, invalid
    ("calls under stop", True, Reply(tool_calls=[call("get_weather", '{"city": "Oslo"}')], finish_reason="stop")),
    ("empty tool_calls", True, Reply(content="", finish_reason="tool_calls")),  # TP, invalid
    ("call, label false", False, Reply(tool_calls=[call("get_time", "{}")])),  # FP, valid
    ("server error", True, Reply(status=500)),  # error: in no metric
]
# TP 11 (valid 4: valid call, several calls, format not asserted, call label false is FP), FP 1, FN 2, TN 1.
EXPECTED = {
    "n": 15,
    "scored": 14,
    "errors": 1,
    "TP": 10,
    "FP": 1,
    "FN": 2,
    "TN": 1,
    "count_finish_reason_tool_call": 11,
    "count_successful_tool_call": 4,
}


def write_file(path: Path, cases: list[tuple[str, bool, Reply]]) -> Path:
    lines = [
        json.dumps(
            {"messages": [{"role": "user", "content": text}], "tools": [WEATHER, TIME], "should_call_tool": label}
        )
        for text, label, _ in cases
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def server() -> Iterator[ChatServer]:
    replies = {text: reply for text, _, reply in CASES}

    def respond(body: dict[str, Any]) -> Reply:
        return replies[body["messages"][-1]["content"]]

    with ChatServer(respond) as srv:
        yield srv


@pytest.fixture
def args(pytester: pytest.Pytester, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-general-fc")
    path = write_file(pytester.path / "calls.jsonl", CASES)
    return [
        "--toolcall-model=vendor-model",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-bench=general_fc",
        f"--toolcall-general-fc={path}",
        "--toolcall-max-retries=0",
        "--toolcall-cache=off",
        "-p",
        "no:randomly",
    ]


def report(pytester: pytest.Pytester, name: str = "report.json") -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text())


@pytest.mark.slow
@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_counts_equal_k2vv(pytester: pytest.Pytester, args: list[str], server: ChatServer, dist: list[str]) -> None:
    result = pytester.runpytest(*args, "--toolcall-report=report.json", *dist)
    result.assert_outcomes(passed=4, failed=10, errors=1)
    metrics = report(pytester)["metrics"]["general_fc"]
    assert {k: metrics[k] for k in EXPECTED} == EXPECTED
    assert metrics["schema_accuracy"] == pytest.approx(4 / 11)
    assert metrics["tool_call_precision"] == pytest.approx(10 / 11)
    assert metrics["tool_call_recall"] == pytest.approx(10 / 12)
    assert metrics["tool_call_f1"] == pytest.approx(2 * (10 / 11) * (10 / 12) / (10 / 11 + 10 / 12))
    assert all(sent["tools"] == [WEATHER, TIME] for sent in server.requests)  # exactly as in the file
    assert sorted(sent["messages"][0]["content"] for sent in server.requests) == sorted(c[0] for c in CASES)
    samples = {s["index"]: s for s in report(pytester)["samples"]}
    assert samples[4]["schema_valid"] is False and samples[4]["reason_kind"] == "json_decode"
    assert samples[14]["outcome"] == "error" and "HTTP 500" in samples[14]["error"]
    assert "after 1 attempt" in samples[14]["error"]
    assert samples[11]["finish_reason"] == "stop" and samples[11]["tool_calls"][0]["name"] == "get_weather"


@pytest.mark.slow
def test_failure_messages(pytester: pytest.Pytester, args: list[str]) -> None:
    result = pytester.runpytest(*args, "-k", "calls/5 or calls/10 or calls/1]")
    out = result.stdout.str()
    assert "call 1 (get_weather): 5 is not of type 'string'" in out
    assert "unknown tool 'get_wether'" in out
    assert "expected a tool call, got finish_reason 'stop'" in out


@pytest.mark.slow
@pytest.mark.parametrize("dist", [[], ["-n", "0"], ["-n", "2"]], ids=["no-xdist", "n0", "n2"])
def test_reference_agreement(pytester: pytest.Pytester, args: list[str], dist: list[str]) -> None:
    """Against the oracle's run of the same file (it calls a tool exactly when the label says so),
    agreement is the share of decisions that match the label: the confusion of the block itself."""
    oracle = [a for a in args if not a.startswith(("--toolcall-model", "--toolcall-base-url"))]
    pytester.runpytest("--toolcall-model=oracle", *oracle, "--toolcall-report=official.json").assert_outcomes(passed=15)
    result = pytester.runpytest(*args, "--toolcall-report=report.json", "--toolcall-reference=official.json", *dist)
    result.assert_outcomes(passed=4, failed=10, errors=1)
    block = report(pytester)["metrics"]["general_fc"]
    agreement = block["reference_agreement"]
    assert {k: agreement[k] for k in ("TP", "FP", "FN", "TN")} == {k: EXPECTED[k] for k in ("TP", "FP", "FN", "TN")}
    assert (agreement["paired"], agreement["unpaired"], block["agreement"]) == (14, 0, 11 / 14)
    assert block["agreement_official"] == 11 / 15  # the failed request counts as no call; the oracle called
    assert "vs reference: agreement" in result.stdout.str()
    samples = report(pytester)["samples"]
    for s in samples:
        if s["outcome"] == "error":
            assert "agrees" not in s and s["reference_calls"] is True
        else:
            assert s["agrees"] is ((s["finish_reason"] == "tool_calls") == s["should_call_tool"]), s
    assert sum(s.get("agrees") is True for s in samples) == 11


@pytest.mark.slow
def test_gate_on_f1(pytester: pytest.Pytester, args: list[str]) -> None:
    ok = pytester.runpytest(*args, "--toolcall-fail-under=general_fc.tool_call_f1=0.8", "--toolcall-max-errors=1")
    assert ok.ret == 0
    low = pytester.runpytest(*args, "--toolcall-fail-under=general_fc.schema_accuracy=0.5", "--toolcall-max-errors=1")
    assert low.ret == 1
    assert "general_fc.schema_accuracy = 0.3636 < 0.5" in low.stdout.str()
    errors = pytester.runpytest(*args, "--toolcall-fail-under=general_fc.tool_call_f1=0.8")
    assert errors.ret == 1
    assert "1 request error(s)" in errors.stdout.str()


@pytest.mark.slow
def test_bad_lines_are_collection_errors_and_the_rest_runs(pytester: pytest.Pytester, args: list[str]) -> None:
    path = pytester.path / "calls.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:40]  # truncated JSON
    lines[5] = json.dumps({"messages": [{"role": "user", "content": "x"}], "tools": [WEATHER]})
    path.write_text("\n".join(lines) + "\n")
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=3, failed=9, errors=3)  # 2 bad lines + the server error
    out = result.stdout.str()
    assert f"{path}:3: not valid JSON" in out
    assert f"{path}:6: missing field should_call_tool" in out
    assert "Traceback" not in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.slow
def test_oracle_scores_every_line(pytester: pytest.Pytester, general_fc_set: Path) -> None:
    path = general_fc_set
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=general_fc",
        f"--toolcall-general-fc={path}",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
    )
    result.assert_outcomes(passed=511)
    metrics = report(pytester)["metrics"]["general_fc"]
    assert (metrics["tool_call_f1"], metrics["schema_accuracy"]) == (1.0, 1.0)


@pytest.mark.slow
def test_both_benchmarks_one_summary(pytester: pytest.Pytester, general_fc_set: Path, acebench_root: Path) -> None:
    path = TEST_DATA / "general_fc" / "example_3.jsonl"
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=acebench,general_fc",
        f"--toolcall-general-fc={path}",
        f"--toolcall-data-dir={acebench_root}",
        "--toolcall-limit=1",
        "--junitxml=junit.xml",
        "-p",
        "no:randomly",
        "-m",
        "not agent",
    )
    result.assert_outcomes(passed=15 + 1)  # --toolcall-limit applies per category and per file
    result.stdout.fnmatch_lines(
        ["*toolcall: acebench/en (oracle)*", "*toolcall: general_fc (oracle)*", "tool_call_f1 * 1.0000 *"]
    )
    assert 'name="general_fc.tool_call_f1" value="1"' in (pytester.path / "junit.xml").read_text()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--toolcall-bench=general_fc", "--toolcall-general-fc=nope.jsonl"], "nope.jsonl: file not found"),
        (["--toolcall-general-fc=nope.jsonl"], "nope.jsonl: file not found"),
        (
            ["--toolcall-bench=acebench", "--toolcall-general-fc=x.jsonl"],
            "--toolcall-general-fc-files: given, but --toolcall-bench does not include",
        ),
    ],
)
@pytest.mark.slow
def test_usage_errors(pytester: pytest.Pytester, options: list[str], message: str) -> None:
    result = pytester.runpytest("--toolcall-model=oracle", *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


@pytest.mark.slow
@pytest.mark.parametrize("options", [["--toolcall-bench=general_fc"], ["--toolcall-bench=acebench,general_fc"]])
def test_general_fc_without_a_file_runs_the_shipped_set(pytester: pytest.Pytester, options: list[str]) -> None:
    result = pytester.runpytest("--toolcall-model=oracle", *options, "--collect-only", "-q", "-m", "general_fc")
    assert len(re.findall(r"toolcall::general_fc\[k2vv_zh_511/\d+\]", result.stdout.str())) == 511


@pytest.mark.slow
def test_a_general_fc_file_alone_selects_general_fc(pytester: pytest.Pytester) -> None:
    path = TEST_DATA / "general_fc" / "example_3.jsonl"
    result = pytester.runpytest("--toolcall-model=oracle", f"--toolcall-general-fc={path}", "--collect-only", "-q")
    assert re.findall(r"toolcall::(\w+)\[", result.stdout.str()) == ["general_fc"] * 3
