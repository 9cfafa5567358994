"""References that fit (issue 21): a ``--toolcall-reference`` report that does not fit the run is a
usage error before any request, naming the file and the difference (a run of another benchmark, of
other general_fc files, or of a selection that lacks lines of this one); agreement with a fitting one
is a gate metric, each sample says whether it agrees, and the report recomputes offline without the
reference file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cli import main
from pytest_toolcall.core.stats.estimates import wilson
from tests.support.general_fc_files import line, write_lines

pytestmark = pytest.mark.slow  # runs pytest inside itself

CASES = """
cases:
  - id: c0
    prompt: "Weather in Paris?"
    tools:
      - type: function
        function:
          name: get_weather
          parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
"""


def oracle(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider", *args)


def general_fc(pytester: pytest.Pytester, name: str, *args: str) -> pytest.RunResult:
    path = write_lines(pytester.path / name, [line("Weather in Paris?"), line("Hello", should_call_tool=False)])
    return oracle(pytester, "--toolcall-bench=general_fc", f"--toolcall-general-fc={path}", *args)


def test_a_reference_of_another_benchmark_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toolcall.yaml", weather=CASES)
    oracle(pytester, "--toolcall-report=cases.json", ".").assert_outcomes(passed=1)
    result = general_fc(pytester, "a.jsonl", "--toolcall-reference=cases.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "cases.json holds no general_fc sample (a run of cases)" in err, err
    assert "passed" not in result.stdout.str()


def test_a_reference_of_another_file_is_refused_and_of_the_same_file_accepted(pytester: pytest.Pytester) -> None:
    general_fc(pytester, "a.jsonl", "--toolcall-report=a.json").assert_outcomes(passed=2)
    general_fc(pytester, "b.jsonl", "--toolcall-report=b.json").assert_outcomes(passed=2)
    wrong = general_fc(pytester, "a.jsonl", "--toolcall-reference=b.json")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    assert "b.json is a run of general_fc file(s) b.jsonl, this run of a.jsonl" in wrong.stderr.str()
    right = general_fc(pytester, "a.jsonl", "--toolcall-reference=a.json")
    right.assert_outcomes(passed=2)


# Six lines; the second file flips the labels of lines 1 and 2: the oracle answers by the label, so a
# run of the flipped file against a reference of the first disagrees on those two lines.
LABELS = [True, False, True, True, False, True]
FLIPPED = frozenset({1, 2})


def six_lines(pytester: pytest.Pytester, flipped: frozenset[int] = frozenset()) -> Path:
    lines = [line(f"Weather in city {i}?", should_call_tool=label != (i in flipped)) for i, label in enumerate(LABELS)]
    return write_lines(pytester.path / "a.jsonl", lines)


def six(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return oracle(pytester, "--toolcall-bench=general_fc", f"--toolcall-general-fc={pytester.path / 'a.jsonl'}", *args)


def report(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    return json.loads((pytester.path / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("selection", [["-k", "a/1 or a/2"], ["--toolcall-limit=2"]], ids=["k", "limit"])
@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_a_reference_that_lacks_selected_lines_is_refused(
    pytester: pytest.Pytester, selection: list[str], dist: list[str]
) -> None:
    six_lines(pytester)
    six(pytester, "--toolcall-report=part.json", *selection).assert_outcomes(passed=2)
    six(pytester, "--toolcall-report=report.json").assert_outcomes(passed=6)
    before = (pytester.path / "report.json").read_bytes()
    result = six(pytester, "--toolcall-reference=part.json", "--toolcall-report=report.json", *dist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    missing = "a/0, a/3, a/4, a/5" if selection[0] == "-k" else "a/2, a/3, a/4, a/5"
    assert f"part.json lacks 4 of the 6 line(s) this run selected ({missing})" in result.stderr.str()
    assert "passed" not in result.stdout.str()
    assert (pytester.path / "report.json").read_bytes() == before  # nothing ran: the last report stays


def test_a_subset_of_the_reference_fits(pytester: pytest.Pytester) -> None:
    six_lines(pytester)
    six(pytester, "--toolcall-report=full.json").assert_outcomes(passed=6)
    result = six(pytester, "--toolcall-reference=full.json", "--toolcall-report=report.json", "-k", "a/1 or a/2")
    result.assert_outcomes(passed=2, deselected=4)
    block = report(pytester, "report.json")["metrics"]["general_fc"]
    assert (block["agreement"], block["reference_agreement"]["paired"]) == (1.0, 2)


def test_gating_on_agreement_needs_a_reference(pytester: pytest.Pytester) -> None:
    six_lines(pytester)
    result = six(pytester, "--toolcall-fail-under=general_fc.agreement=0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "--toolcall-fail-under: unknown general_fc metric 'agreement'" in err
    assert "needs --toolcall-reference=REPORT" in err
    six(pytester, "--toolcall-report=plain.json").assert_outcomes(passed=6)
    status = main(["gate", str(pytester.path / "plain.json"), "--fail-under", "general_fc.agreement=0.5"])
    assert status == 2  # offline too: the report's run had no reference


@pytest.fixture
def disagreeing(pytester: pytest.Pytester) -> Path:
    """A report of the flipped file against a reference of the first: agreement 4/6."""
    six_lines(pytester)
    six(pytester, "--toolcall-report=reference.json").assert_outcomes(passed=6)
    six_lines(pytester, FLIPPED)
    six(pytester, "--toolcall-reference=reference.json", "--toolcall-report=report.json").assert_outcomes(passed=6)
    return pytester.path / "report.json"


def test_each_sample_says_whether_it_agrees(disagreeing: Path) -> None:
    document = json.loads(disagreeing.read_text(encoding="utf-8"))
    agrees = {s["index"]: s["agrees"] for s in document["samples"]}
    assert agrees == {i: i not in FLIPPED for i in range(6)}
    assert {s["index"]: s["reference_calls"] for s in document["samples"]} == dict(enumerate(LABELS))
    block = document["metrics"]["general_fc"]
    assert block["agreement"] == 4 / 6 == block["agreement_official"]
    assert block["agreement_ci95"] == list(wilson(4, 6))
    # The reference's decision is the label: FP on line 1 (called, the reference did not), FN on line 2.
    counts = {k: block["reference_agreement"][k] for k in ("paired", "unpaired", "TP", "FP", "FN", "TN")}
    assert counts == {"paired": 6, "unpaired": 0, "TP": 3, "FP": 1, "FN": 1, "TN": 1}


@pytest.mark.parametrize("dist", [["-n", "0"], ["-n", "2"]])
def test_agreement_is_the_same_with_and_without_xdist(
    pytester: pytest.Pytester, disagreeing: Path, dist: list[str]
) -> None:
    six(pytester, "--toolcall-reference=reference.json", "--toolcall-report=again.json", *dist).assert_outcomes(
        passed=6
    )
    again = report(pytester, "again.json")
    first = json.loads(disagreeing.read_text(encoding="utf-8"))
    assert again["metrics"]["general_fc"] == first["metrics"]["general_fc"]
    assert sorted((s["index"], s["agrees"]) for s in again["samples"]) == sorted(
        (s["index"], s["agrees"]) for s in first["samples"]
    )


def test_agreement_gates_in_the_run_on_its_value_and_lower_bound(pytester: pytest.Pytester, disagreeing: Path) -> None:
    gate = ["--toolcall-reference=reference.json", "--toolcall-fail-under=general_fc.agreement=0.6"]
    assert six(pytester, *gate).ret == pytest.ExitCode.OK
    low = six(pytester, *gate, "--toolcall-gate-on=lower")
    assert low.ret == pytest.ExitCode.TESTS_FAILED
    interval = wilson(4, 6)
    assert interval is not None
    assert f"general_fc.agreement = {interval[0]:.4f} < 0.6 (lower 95% bound)" in low.stdout.str()


def test_the_report_gates_offline_without_the_reference_file(
    disagreeing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (disagreeing.parent / "reference.json").unlink()
    assert main(["gate", str(disagreeing), "--fail-under", "general_fc.agreement=0.6"]) == 0
    assert main(["gate", str(disagreeing), "--fail-under", "general_fc.agreement=0.7"]) == 1
    assert "general_fc.agreement = 0.6667 < 0.7" in capsys.readouterr().out
    assert main(["html", str(disagreeing), "-o", str(tmp_path / "report.html")]) == 0
    document = json.loads(disagreeing.read_text(encoding="utf-8"))
    document["metrics"]["general_fc"]["agreement"] = 0.9
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(document), encoding="utf-8")
    capsys.readouterr()
    assert main(["gate", str(tampered), "--fail-under", "general_fc.agreement=0.6"]) == 2
    err = capsys.readouterr().err
    assert "metrics.general_fc.agreement is 0.9, recomputed 0.6666666666666666" in err, err


def test_shards_against_the_whole_reference_merge_into_the_single_run(
    pytester: pytest.Pytester, disagreeing: Path
) -> None:
    for k in (1, 2):
        shard = six(
            pytester, "--toolcall-reference=reference.json", f"--toolcall-shard={k}/2", f"--toolcall-report=s{k}.json"
        )
        assert shard.ret == pytest.ExitCode.OK
    (pytester.path / "reference.json").unlink()  # merge recomputes from the samples alone
    merged = pytester.path / "merged.json"
    assert main(["merge", str(pytester.path / "s1.json"), str(pytester.path / "s2.json"), "-o", str(merged)]) == 0
    single = json.loads(disagreeing.read_text(encoding="utf-8"))["metrics"]["general_fc"]
    assert json.loads(merged.read_text(encoding="utf-8"))["metrics"]["general_fc"] == single
