"""Right numbers from a hostile world (issue 11, item 4 b-d).

Before: malformed ``tool_calls`` in a 200 answer were retried into request errors and left out of
F1 (K2-Vendor-Verifier counts them as invalid calls); a duplicated ACEBench sample id was renamed by
pytest and both samples dropped out of the metrics; when every request failed every accuracy showed
0.000 and the JSON said ``overall: 0.0``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.acebench.dataset import answer_file, data_file
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.general_fc_files import general_fc_args, line, write_lines
from tests.support.scripted_runs import load_report

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-numbers-0123456789")


def _completion(tool_calls: Any) -> Reply:
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return Reply(body=json.dumps({"choices": [{"message": message, "finish_reason": "tool_calls"}]}))


GOOD = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
MALFORMED = {
    "no-name": [{"id": "c1", "type": "function", "function": {"arguments": '{"city": "Paris"}'}}],
    "string": "get_weather(city='Paris')",
    "list-of-strings": ["get_weather", '{"city": "Paris"}'],
    "no-function": [{"id": "c1", "type": "function"}],
    "one-bad-of-two": [GOOD, {"id": "c2", "function": {"name": None, "arguments": "{}"}}],
}


def test_malformed_tool_calls_are_invalid_calls_not_request_errors(pytester: pytest.Pytester) -> None:
    answers = {name: _completion(calls) for name, calls in MALFORMED.items()}
    answers["good"] = _completion([GOOD])
    path = write_lines(pytester.path / "calls.jsonl", [line(name) for name in answers])
    with ChatServer(lambda body: answers[body["messages"][-1]["content"]]) as server:
        result = pytester.runpytest(
            *general_fc_args(server.base_url, path, "--toolcall-report=report.json", "--toolcall-max-retries=3")
        )
    result.assert_outcomes(passed=1, failed=len(MALFORMED))
    assert server.count == len(answers)  # none retried
    report = load_report(pytester.path / "report.json")
    samples = {s["index"]: s for s in report["samples"]}
    for index, name in enumerate(MALFORMED):
        sample = samples[index]
        assert sample["outcome"] == "failed" and sample["error"] is None, (name, sample)
        assert sample["pred"] is True and sample["schema_valid"] is False, name
        assert sample["reason_kind"] == "unknown_tool", (name, sample["reason"])
    # Counted as K2-Vendor-Verifier counts them: each an attempt, none successful.
    metrics = report["metrics"]["general_fc"]
    assert metrics["errors"] == 0 and metrics["count_finish_reason_tool_call"] == len(answers)
    assert metrics["count_successful_tool_call"] == 1
    assert metrics["schema_accuracy"] == pytest.approx(1 / len(answers))


def _copy_root(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def test_a_duplicated_acebench_id_is_a_data_problem_naming_file_and_line(
    pytester: pytest.Pytester, acebench_root: Path
) -> None:
    root = _copy_root(acebench_root, pytester.path / "root")
    data, answers = data_file(root, "en", "normal_atom_bool"), answer_file(root, "en", "normal_atom_bool")
    for path in (data, answers):  # line 3 becomes a copy of line 2
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[2] = lines[1]
        path.write_text("".join(lines), encoding="utf-8")
    duplicated = json.loads(data.read_text(encoding="utf-8").splitlines()[1])["id"]
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        f"--toolcall-data-dir={root}",
        "--toolcall-limit=3",
        "-k",
        "normal_atom_bool or normal_atom_enum",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
    )
    output = result.stdout.str()
    assert f"{data}:3: duplicate id {duplicated!r} (first on line 2)" in output, output
    assert result.ret != pytest.ExitCode.OK
    report = load_report(pytester.path / "report.json")
    assert report["run"]["data_problems"]  # the run says it is incomplete
    ids = [s["id"] for s in report["samples"]]
    assert len(ids) == len(set(ids)) and not any(i.startswith("normal_atom_bool") for i in ids)
    assert {s["category"] for s in report["samples"]} == {"normal_atom_enum"}  # the rest still ran


def test_nothing_measured_is_null_never_zero(pytester: pytest.Pytester, acebench_root: Path) -> None:
    with ChatServer(lambda body: Reply(status=500, content="down")) as server:
        result = pytester.runpytest(
            "--toolcall-model=vendor-model",
            f"--toolcall-base-url={server.base_url}",
            f"--toolcall-data-dir={acebench_root}",
            "--toolcall-limit=2",
            "-k",
            "normal_atom_bool or special_irrelevant",
            "--toolcall-cache=off",
            "--toolcall-max-retries=0",
            "--toolcall-report=report.json",
            "-p",
            "no:randomly",
        )
    result.assert_outcomes(errors=4)
    block = load_report(pytester.path / "report.json")["metrics"]["acebench/en"]
    assert {c: m["accuracy"] for c, m in block["categories"].items()} == {
        "normal_atom_bool": None,
        "special_irrelevant": None,
    }
    assert block["overall"] is None and block["overall_official"] is None
    assert all(value is None for value in block["groups"].values())
    output = result.stdout.str()
    assert "0.000" not in output
    result.stdout.fnmatch_lines(["*normal_atom_bool*not measured*", "OVERALL*not measured*"])


def test_general_fc_with_nothing_scored_is_not_measured(pytester: pytest.Pytester) -> None:
    path = write_lines(pytester.path / "calls.jsonl", [line("a"), line("b", should_call_tool=False)])
    with ChatServer(lambda body: Reply(status=500, content="down")) as server:
        result = pytester.runpytest(*general_fc_args(server.base_url, path, "--toolcall-report=report.json"))
    result.assert_outcomes(errors=2)
    metrics = load_report(pytester.path / "report.json")["metrics"]["general_fc"]
    assert [metrics[k] for k in ("schema_accuracy", "tool_call_precision", "tool_call_recall", "tool_call_f1")] == [
        None
    ] * 4
    result.stdout.fnmatch_lines(["*tool_call_f1*not measured*"])
