"""Shards, merge and the offline commands, end to end: four shards of an ACEBench en+zh + general_fc
oracle run, merged, are the single run; what cannot be merged is refused, naming the files; the
offline gate says and exits what the in-run gate does."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from pytest_toolcall import cli
from pytest_toolcall.core.protocol.types import ChatResponse
from pytest_toolcall.model.store import ResponseStore
from pytest_toolcall.runner import shards

RUN = [
    "--toolcall-model=oracle",
    "--toolcall-bench=acebench,general_fc",
    "--toolcall-lang=all",
    "--toolcall-limit=2",
    "--toolcall-cache=off",
    "-p",
    "no:randomly",
]


def run(pytester: pytest.Pytester, report: str, *extra: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest(*RUN, f"--toolcall-report={report}", *extra)
    return result, json.loads((pytester.path / report).read_text())


def by_nodeid(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {sample["nodeid"]: sample for sample in document["samples"]}


def merge(pytester: pytest.Pytester, *reports: str, output: str = "merged.json", extra: tuple[str, ...] = ()) -> int:
    paths = [str(pytester.path / r) for r in reports]
    return cli.main(["merge", *paths, "-o", str(pytester.path / output), *extra])


@pytest.fixture
def single_and_shards(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    """The single run, and its four shards (the third one under ``-n 2``)."""
    _, single = run(pytester, "single.json", "--junitxml=single.xml")
    reports = {"single": single}
    for k in range(1, 5):
        extra = ("-n", "2") if k == 3 else ()
        _, reports[f"s{k}"] = run(pytester, f"s{k}.json", f"--toolcall-shard={k}/4", f"--junitxml=s{k}.xml", *extra)
    return reports


@pytest.mark.slow
def test_shards_merged_equal_the_single_run(
    pytester: pytest.Pytester, single_and_shards: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    single = single_and_shards["single"]
    parts = [single_and_shards[f"s{k}"] for k in range(1, 5)]
    # Each shard holds a part: disjoint, together everything, every part with agent dialogues.
    ids = [set(by_nodeid(part)) for part in parts]
    assert sum(map(len, ids)) == len(set().union(*ids)) == len(single["samples"])
    assert all(any(s["category"].startswith("agent") for s in part["samples"]) for part in parts)
    assert {part["run"]["shard"] for part in parts} == {"1/4", "2/4", "3/4", "4/4"}
    assert {"acebench/en", "acebench/zh", "general_fc"} <= set(single["metrics"])

    assert merge(pytester, "s4.json", "s2.json", "s1.json", "s3.json") == 0
    merged = json.loads((pytester.path / "merged.json").read_text())
    assert merged["metrics"] == single["metrics"]
    assert by_nodeid(merged) == by_nodeid(single)
    assert merged["usage"] == single["usage"]
    assert merged["run"]["partial"] is False
    assert merged["run"]["shard"] is None
    assert merged["run"]["selected"] == single["run"]["selected"]
    assert merged["run"]["selection"] == single["run"]["selection"]
    # One writer of a run section: the merged run has every field of a single run's, the same identity.
    assert set(single["run"]) <= set(merged["run"])
    assert merged["run"]["identity"] == single["run"]["identity"]
    assert merged["run"]["settings"] == single["run"]["settings"] and merged["run"]["repeat"] == 1
    assert "merged 4 report(s)" in capsys.readouterr().out


def suite(path: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, str]]]:
    """(suite counts, suite properties, testcase name -> its properties) of a JUnit file."""
    root = ElementTree.parse(path).getroot()
    (testsuite,) = root.findall("testsuite")
    counts = {k: testsuite.get(k, "") for k in ("tests", "errors", "failures", "skipped")}
    properties = {p.get("name", ""): p.get("value", "") for p in testsuite.findall("properties/property")}
    cases = {
        f"{c.get('classname')}::{c.get('name')}": {p.get("name", ""): p.get("value", "") for p in c.iter("property")}
        for c in testsuite.findall("testcase")
    }
    return counts, properties, cases


@pytest.mark.slow
def test_merge_junit_of_the_shards_is_the_single_runs(
    pytester: pytest.Pytester, single_and_shards: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert merge(pytester, "s1.json", "s2.json", "s3.json", "s4.json") == 0
    shards_xml = [str(pytester.path / f"s{k}.xml") for k in range(1, 5)]
    merged_xml = pytester.path / "merged.xml"
    report = str(pytester.path / "merged.json")
    assert cli.main(["merge-junit", *shards_xml, "-o", str(merged_xml), "--report", report]) == 0
    counts, properties, cases = suite(merged_xml)
    single_counts, single_properties, single_cases = suite(pytester.path / "single.xml")
    assert counts == single_counts
    assert properties == single_properties and "acebench/zh.overall" in properties
    assert cases == single_cases
    assert cli.main(["merge-junit", str(pytester.path / "s1.json"), "-o", str(merged_xml)]) == cli.BAD_INPUT
    assert "s1.json:1: not valid XML" in capsys.readouterr().err


@pytest.mark.slow
def test_merge_refuses_a_missing_shard_and_accepts_it_with_allow_partial(
    pytester: pytest.Pytester, single_and_shards: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert merge(pytester, "s1.json", "s2.json", "s4.json") == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert "shard 3/4 is missing" in err and "Traceback" not in err
    assert not (pytester.path / "merged.json").exists()

    assert merge(pytester, "s1.json", "s2.json", "s4.json", extra=("--allow-partial",)) == 0
    merged = json.loads((pytester.path / "merged.json").read_text())
    assert merged["run"]["partial"] is True
    assert merged["run"]["missing"] == ["shard 3/4 is missing"]
    present = {**by_nodeid(single_and_shards["s1"]), **by_nodeid(single_and_shards["s2"])}
    present |= by_nodeid(single_and_shards["s4"])
    assert by_nodeid(merged) == present
    # The metrics are those of the samples that are there, by the run's own aggregation.
    from pytest_toolcall.results.aggregate import aggregate, all_blocks
    from pytest_toolcall.results.merge import rebuild_benchmarks

    benchmarks = rebuild_benchmarks(Path("s1.json"), single_and_shards["s1"]["run"])
    assert merged["metrics"] == all_blocks(aggregate(benchmarks, list(present.values())))
    assert merged["metrics"] != single_and_shards["single"]["metrics"]

    # The offline gate names the missing shard and fails, even on the measured values, unless told.
    capsys.readouterr()
    gate = ["gate", str(pytester.path / "merged.json"), "--fail-under=overall=0", "--gate-value=measured"]
    assert cli.main(gate) == 1
    out = capsys.readouterr().out
    assert "toolcall gate FAILED: the report is a partial merge (shard 3/4 is missing)" in out
    assert cli.main([*gate, "--allow-partial"]) == 0
    assert "a partial merge (shard 3/4 is missing)" in capsys.readouterr().out


@pytest.mark.slow
def test_merge_refuses_overlapping_shards_naming_them(
    pytester: pytest.Pytester, single_and_shards: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    # The same shard twice (under another name).
    (pytester.path / "again.json").write_text((pytester.path / "s2.json").read_text())
    assert merge(pytester, "s1.json", "s2.json", "again.json", "s3.json", "s4.json") == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert "s2.json and" in err and "again.json are both shard 2/4" in err
    assert "overlap" in err
    # The single run with a shard: overlapping items, and not cut the same way.
    assert merge(pytester, "single.json", "s1.json", extra=("--allow-partial",)) == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert "single.json and" in err and "s1.json overlap" in err


@pytest.mark.slow
def test_merge_refuses_shards_that_disagree(pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    run(pytester, "a.json", "--toolcall-shard=1/2")
    run(pytester, "b.json", "--toolcall-shard=2/2", "--toolcall-temperature=0.2")
    run(pytester, "c.json", "--toolcall-shard=2/2", "--toolcall-lang=en")
    assert merge(pytester, "a.json", "b.json") == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert "a.json and" in err and "b.json disagree in settings" in err and "different options: temperature" in err
    assert merge(pytester, "a.json", "c.json") == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert "c.json selected different units" in err and "different options: acebench-lang" in err


@pytest.mark.slow
def test_merge_refuses_reports_cut_into_other_shard_counts(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    run(pytester, "a.json", "--toolcall-shard=1/2")
    run(pytester, "b.json", "--toolcall-shard=2/3")
    assert merge(pytester, "a.json", "b.json", extra=("--allow-partial",)) == cli.BAD_INPUT
    assert "cut into shards differently" in capsys.readouterr().err


@pytest.mark.slow
def test_shards_compose_with_k_and_m(pytester: pytest.Pytester) -> None:
    """A shard is a part of what -k/-m selected: two shards of '-m normal -k en/' make that run."""
    plain, whole = run(pytester, "whole.json", "-m", "normal", "-k", "en/")
    first, a = run(pytester, "a.json", "-m", "normal", "-k", "en/", "--toolcall-shard=1/2")
    _, b = run(pytester, "b.json", "-m", "normal", "-k", "en/", "--toolcall-shard=2/2")
    assert set(by_nodeid(a)) | set(by_nodeid(b)) == set(by_nodeid(whole))
    assert not set(by_nodeid(a)) & set(by_nodeid(b))
    assert all(s["lang"] == "en" and s["category"].startswith("normal") for s in whole["samples"])
    assert a["run"]["selection"] == {**whole["run"]["selection"], "plan": a["run"]["selection"]["plan"]}
    assert any("shard=1/2" in line for line in first.outlines)  # named in the header
    plain_counts, first_counts = plain.parseoutcomes(), first.parseoutcomes()
    assert first_counts["deselected"] == plain_counts["deselected"] + whole["run"]["selected"] - a["run"]["selected"]


# --- the cut itself -------------------------------------------------------------------------------


class FakeItem:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.stash = pytest.Stash()  # (where an item of a user's file keeps its unit)


def test_shard_cut_is_independent_of_collection_order_and_keeps_repeats_together() -> None:
    items = [FakeItem(f"toolcall::general_fc[set/{i}@{k}]") for i in range(50) for k in (1, 2, 3)]
    items += [FakeItem(f"tests/test_x.py::test_{i}") for i in range(7)]
    cuts = []
    for seed in range(3):
        shuffled = items[:]
        random.Random(seed).shuffle(shuffled)
        parts = [shards.cut(shuffled, (k, 4), {}) for k in range(1, 5)]
        cuts.append([sorted(i.nodeid for i in kept) for kept, _, _ in parts])
        assert len({plan for _, _, plan in parts}) == 1
    assert cuts[0] == cuts[1] == cuts[2]
    for part in cuts[0]:
        units = {shards.group_key(nodeid) for nodeid in part if "@" in nodeid}
        assert sum(1 for nodeid in part if "@" in nodeid) == 3 * len(units)  # every attempt of each unit
    assert sorted(nodeid for part in cuts[0] for nodeid in part) == sorted(i.nodeid for i in items)
    assert max(map(len, cuts[0])) - min(map(len, cuts[0])) <= 3  # balanced to a unit's weight


def test_shard_cut_balances_by_cost() -> None:
    # Two heavy units and six light ones in two shards: one heavy unit in each.
    nodeids = [f"toolcall::b[heavy{i}]" for i in range(2)] + [f"toolcall::b[light{i}]" for i in range(6)]
    group = dict.fromkeys(nodeids, 1.0) | dict.fromkeys(nodeids[:2], 12.0)
    assignment = shards.assign(group, 2)
    assert assignment[nodeids[0]] != assignment[nodeids[1]]
    loads = [sum(w for key, w in group.items() if assignment[key] == k) for k in (1, 2)]
    assert loads == [15.0, 15.0]
    # Without a benchmark behind an item, every unit weighs one; attempts of a unit add up.
    items = [FakeItem(n) for n in nodeids] + [FakeItem("toolcall::b[rep@1]"), FakeItem("toolcall::b[rep@2]")]
    weights = shards.weights(items, {})  # type: ignore[arg-type]
    assert weights == dict.fromkeys(nodeids, 1.0) | {"toolcall::b[rep]": 2.0}


@pytest.mark.slow
def test_shard_option_is_checked(pytester: pytest.Pytester) -> None:
    for bad in ("0/4", "5/4", "2", "a/b"):
        result = pytester.runpytest(*RUN, f"--toolcall-shard={bad}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["*--toolcall-shard: expected K/N*"])


@pytest.mark.slow
def test_shards_run_one_after_another_on_one_store_merge_into_the_single_run(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shard 1 fills the store (answers, latencies) before shard 2 starts, and a shard re-run after
    the store changed: every job still cuts the same way, and the reports merge into the single run."""
    store = pytester.path / "store"
    ResponseStore(store / "responses.sqlite3").close()
    with closing(sqlite3.connect(store / "responses.sqlite3")) as db:  # latencies as earlier versions kept them
        db.execute("CREATE TABLE unit_costs (nodeid TEXT PRIMARY KEY, seconds REAL NOT NULL)")
        db.execute("INSERT INTO unit_costs VALUES ('toolcall::general_fc[k2vv_zh_511/0]', 40.0)")
        db.commit()
    args = [a for a in RUN if a != "--toolcall-cache=off"] + [f"--toolcall-cache={store}"]
    pytester.runpytest(*RUN, "--toolcall-report=single.json", "--toolcall-shard=1/2")
    no_store_plan = json.loads((pytester.path / "single.json").read_text())["run"]["selection"]["plan"]
    pytester.runpytest(*RUN, "--toolcall-report=single.json")
    for k in (1, 2, 1):  # shard 1 again last: a re-run of a failed job, after shard 2 changed the store
        pytester.runpytest(*args, f"--toolcall-shard={k}/2", f"--toolcall-report=r{k}.json")
    plans = {json.loads((pytester.path / f"r{k}.json").read_text())["run"]["selection"]["plan"] for k in (1, 2)}
    assert plans == {no_store_plan}
    merged = pytester.path / "merged.json"
    assert cli.main(["merge", str(pytester.path / "r1.json"), str(pytester.path / "r2.json"), "-o", str(merged)]) == 0
    single = json.loads((pytester.path / "single.json").read_text())
    both = json.loads(merged.read_text())
    assert both["metrics"] == single["metrics"]
    assert sorted(s["nodeid"] for s in both["samples"]) == sorted(s["nodeid"] for s in single["samples"])


# --- the offline commands -----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("in_run", "offline"),
    [
        (
            ["--toolcall-fail-under=overall=0.5,general_fc.tool_call_f1=0.9"],
            ["--fail-under", "overall=0.5,general_fc.tool_call_f1=0.9"],
        ),
        (["--toolcall-fail-under=overall=0.99"], ["--fail-under", "overall=0.99"]),
        (
            ["--toolcall-fail-under=zh.atom=1", "--toolcall-gate-on=lower"],
            ["--fail-under", "zh.atom=1", "--gate-on", "lower"],
        ),
        (
            ["--toolcall-baseline=base.json", "--toolcall-fail-on-regression", "--toolcall-fail-under=overall=0.5"],
            ["--baseline", "base.json", "--fail-on-regression", "--fail-under", "overall=0.5"],
        ),
    ],
    ids=["pass", "fail", "lower-bound", "baseline"],
)
def test_cli_gate_says_and_exits_what_the_in_run_gate_does(
    pytester: pytest.Pytester, in_run: list[str], offline: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run(pytester, "base.json")
    result, _ = run(pytester, "gated.json", *in_run)
    lines = [line for line in result.outlines if line.startswith("toolcall gate ")]
    assert len(lines) == 1
    capsys.readouterr()  # the runs' own output
    offline = [str(pytester.path / a) if a.endswith(".json") else a for a in offline]
    status = cli.main(["gate", str(pytester.path / "gated.json"), *offline])
    assert capsys.readouterr().out.splitlines() == lines
    assert status == result.ret
    assert status in (0, 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("other_test", "status"),
    [("def test_other():\n    assert False\n", 1), ("def test_other():\n    raise KeyboardInterrupt\n", 2)],
    ids=["ordinary-failure", "interrupted"],
)
def test_cli_gate_judges_the_rest_of_the_session_like_the_run(
    pytester: pytest.Pytester, other_test: str, status: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the gate judges beyond the metrics (other tests that failed, an interrupted run) is in
    the report: the offline gate fails it with the same line; a merge keeps it."""
    pytester.makepyfile(test_other=other_test)
    args = [
        "--toolcall-report=gated.json",
        "--toolcall-fail-under=overall=0.5",
        "--toolcall-shard=1/1",
        "test_other.py",
    ]
    result = pytester.runpytest(*RUN, *args, no_reraise_ctrlc=True)
    document = json.loads((pytester.path / "gated.json").read_text())
    assert result.ret == status
    lines = [line for line in result.outlines if line.startswith("toolcall gate ")]
    assert len(lines) == 1 and lines[0].startswith("toolcall gate FAILED")
    run_section = document["run"]
    if status == 1:
        assert run_section["ordinary_failed"] == ["test_other.py::test_other"]
        assert "1 test(s) besides the benchmark items failed or errored" in lines[0]
    else:
        assert run_section["interrupted"] is True
        assert "the run was interrupted" in lines[0]
    assert merge(pytester, "gated.json") == 0
    capsys.readouterr()
    for report in ("gated.json", "merged.json"):
        assert cli.main(["gate", str(pytester.path / report), "--fail-under", "overall=0.5"]) == 1
        assert capsys.readouterr().out.splitlines() == lines
    _, clean = run(pytester, "clean.json", "--toolcall-fail-under=overall=0.5")
    assert (clean["run"]["ordinary_failed"], clean["run"]["interrupted"]) == ([], False)


def test_cli_gate_counts_errors_like_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = {
        "schema": "pytest-toolcall/report/1",
        "run": {"data_problems": ["toolcall::acebench[en/normal_atom_bool]"]},
        "samples": [{"nodeid": "toolcall::general_fc[s/0]", "outcome": "error"}],
        "metrics": {"general_fc": {"tool_call_f1": 1.0}},
    }
    # The gate's counting, on the report as read (the CLI first recomputes the metrics, below).
    from pytest_toolcall.results import gate
    from pytest_toolcall.results.run_result import RunResult

    result = RunResult.of_report(document)
    thresholds = tuple(gate.parse_thresholds("general_fc.tool_call_f1=0.5"))
    lenient = gate.decide(result, gate.GateOptions(thresholds, 2, "point", "strict", None))
    assert not gate.exit_failed(lenient, result)
    strict = gate.decide(result, gate.GateOptions(thresholds, 1, "point", "strict", None))
    assert gate.exit_failed(strict, result)
    assert "2 request error(s), more than --toolcall-max-errors=1" in strict.line
    # A report with no options to rebuild its benchmarks from cannot have its metrics recomputed.
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document))
    assert cli.main(["gate", str(path), "--fail-under", "general_fc.tool_call_f1=0.5", "--max-errors", "2"]) == 2
    assert "run.options, run.aggregation missing" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read it"),
        ('{"schema": "pytest-toolcall/report/1", "run": {}', ":1: not valid JSON"),
        ("[1, 2]", "not a pytest-toolcall report"),
        ('{"schema": "other"}', "not a pytest-toolcall report (schema 'other'"),
        ('{"schema": "pytest-toolcall/report/1", "run": {}, "metrics": {}, "samples": [1]}', "samples[0]"),
        (b"\xff\xfe\x00", "not UTF-8"),
    ],
)
@pytest.mark.parametrize("command", ["merge", "gate", "html"])
def test_cli_bad_input_is_one_message_naming_the_file(
    tmp_path: Path, content: str | bytes | None, message: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad report.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    args = {"merge": ["-o", str(tmp_path / "m.json")], "gate": ["--fail-under", "overall=0.5"], "html": ["-o", "x"]}
    assert cli.main([command, str(path), *args[command]]) == cli.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"pytest-toolcall {command}: {path}") and message in err
    assert len(err.strip().splitlines()) == 1


def test_cli_merge_of_reports_without_shard_fields_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.json"
    path.write_text(
        json.dumps({"schema": "pytest-toolcall/report/1", "run": {"model": "m"}, "samples": [], "metrics": {}})
    )
    assert cli.main(["merge", str(path), "-o", str(tmp_path / "m.json")]) == cli.BAD_INPUT
    assert "written by a pytest-toolcall without shards" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_html_and_the_module_entry(pytester: pytest.Pytester) -> None:
    run(pytester, "r.json")
    result = subprocess.run(
        [sys.executable, "-m", "pytest_toolcall", "html", "r.json", "-o", "r.html"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    html = (pytester.path / "r.html").read_text()
    assert html.startswith("<!DOCTYPE html>") or html.lower().startswith("<!doctype html>")
    assert "acebench/zh" in html
    bad = subprocess.run(
        [sys.executable, "-m", "pytest_toolcall", "gate", "missing.json", "--fail-under", "overall=1"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "missing.json: cannot read it" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_cli_merge_store_combines_shard_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = ResponseStore(tmp_path / "a" / "responses.sqlite3"), ResponseStore(tmp_path / "b.sqlite3")
    first.put("k1", "m", ChatResponse("one"))
    first.put("k2", "m", ChatResponse("two"))
    second.put("k2", "m", ChatResponse("other two"))
    second.put("k3", "m", ChatResponse("three"))
    first.close()
    second.close()
    assert cli.main(["merge-store", str(tmp_path / "a"), str(tmp_path / "b.sqlite3"), "-o", str(tmp_path / "all")]) == 0
    assert "3 response(s)" in capsys.readouterr().out
    merged = ResponseStore(tmp_path / "all" / "responses.sqlite3")
    assert [merged.get(k).content for k in ("k1", "k2", "k3")] == ["one", "two", "three"]  # type: ignore[union-attr]
    merged.close()
    (tmp_path / "junk.sqlite3").write_text("not a database at all, but long enough to be read as a header....")
    sqlite3.connect(tmp_path / "empty.sqlite3").close()
    for bad, message in (
        ("nowhere", "no response store here"),
        ("junk.sqlite3", "not a response store"),
        ("empty.sqlite3", "no responses table"),
    ):
        assert cli.main(["merge-store", str(tmp_path / bad), "-o", str(tmp_path / "out")]) == cli.BAD_INPUT
        err = capsys.readouterr().err
        assert str(tmp_path / bad) in err and message in err
