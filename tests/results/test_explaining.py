"""What a report says about a failed item, for every benchmark: the request, the raw answer, the
decoded calls, the expected answer, the reason in full and a dialogue's transcript, from a real run
against a local server whose model answers every request wrongly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.benchmark import SHIPPED_ROOT
from tests.support.failing_runs import failing_report

pytestmark = pytest.mark.slow  # runs pytest over four benchmarks


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    report = failing_report(tmp_path_factory.mktemp("failing"))
    return {s["nodeid"]: s for s in report["samples"]}


def shipped(lang: str, category: str, folder: str = "") -> dict[str, Any]:
    path = SHIPPED_ROOT / "data_all" / f"data_{lang}" / folder / f"data_{category}.json"
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


def test_every_failed_item_says_why_in_full(samples: dict[str, dict[str, Any]]) -> None:
    failed = [s for s in samples.values() if s["outcome"] in ("failed", "xfailed")]
    assert {s["benchmark"] for s in failed} == {"acebench", "bfcl", "general_fc", "cases"}
    for sample in failed:
        assert sample["explanation"].startswith(sample["reason"].split("\n")[0]), sample["nodeid"]
        assert "expected" in sample, sample["nodeid"]
        # One of the two: the request of a single answer, the transcript of a dialogue.
        assert ("request" in sample) != ("transcript" in sample), sample["nodeid"]


def test_acebench_normal_carries_its_question_and_ground_truth(samples: dict[str, dict[str, Any]]) -> None:
    sample = samples["toolcall::acebench[en/normal_atom_bool_0]"]
    row, answer = shipped("en", "normal_atom_bool"), shipped("en", "normal_atom_bool", "possible_answer")
    assert sample["expected"] == answer["ground_truth"]
    assert any(row["question"] in m["content"] for m in sample["request"]["messages"])
    assert sample["output"] == "[wrong_call(x=1)]"
    assert sample["tool_calls"] == [{"name": "wrong_call", "arguments": {"x": 1}}]
    assert "wrong_call" in sample["explanation"]


def test_dialogues_carry_their_transcript(samples: dict[str, dict[str, Any]]) -> None:
    agent = samples["toolcall::acebench[en/agent_multi_turn_0]"]
    roles = [m["role"] for m in agent["transcript"]]
    assert roles[0] == "user" and "assistant" in roles and "tool" in roles
    executed = [c for m in agent["transcript"] for c in m.get("calls", [])]
    assert executed and executed[0]["name"] == "wrong_call"
    bfcl = samples["toolcall::bfcl[multi_turn_base/multi_turn_base_0]"]
    calls = [c["function"]["name"] for m in bfcl["transcript"] for c in m.get("tool_calls") or []]
    assert calls and set(calls) == {"wrong_call"}
    assert any(m["role"] == "tool" for m in bfcl["transcript"])
    assert isinstance(bfcl["expected"], list) and bfcl["expected"]  # the possible calls of each turn


def test_single_answers_carry_the_request_as_sent(samples: dict[str, dict[str, Any]]) -> None:
    bfcl = samples["toolcall::bfcl[simple_python/simple_python_0]"]
    assert bfcl["request"]["tools"] and bfcl["expected"]
    general = next(s for s in samples.values() if s["benchmark"] == "general_fc")
    assert general["expected"] == {"should_call_tool": general["should_call_tool"]}
    assert general["request"]["messages"] and general["request"]["tools"]
    case = samples["weather.toolcall.yaml::paris"]
    assert case["request"]["messages"] == [{"role": "user", "content": "What is the weather in Paris?"}]
    assert case["expected"] == {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
