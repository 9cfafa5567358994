"""Offline tools and hostile files (issue: a hostile world, round two, items 6 and 7).

``gate``, ``html``, ``merge`` and ``merge-store`` take files from anywhere: a report with wrong
types, a 5,000-digit integer or a non-finite number, a FIFO or ``/dev/zero`` where a report belongs,
a store of another table shape or with text where seconds belong, shards whose samples name units
that are not the selection's. Each is one line naming the file (and the field), exit status 2, never a
traceback. A run refuses a case file nested 100,000 deep and counts that multiply its work.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cli import main
from tests.support.failing_runs import WEATHER_CASES


def oracle_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--toolcall-model=oracle", "-p", "no:randomly", "-p", "no:cacheprovider", *args)


@pytest.fixture
def report(pytester: pytest.Pytester) -> Path:
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    oracle_run(pytester, "--toolcall-report=report.json", ".").assert_outcomes(passed=4)
    return pytester.path / "report.json"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.err


def one_line_refusal(status: int, err: str, *parts: str) -> None:
    assert status == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for part in parts:
        assert part in err, err


def commands(path: Path, out: Path) -> list[list[str]]:
    return [
        ["gate", str(path), "--fail-under", "cases.overall=0.5"],
        ["html", str(path), "-o", str(out / "r.html")],
        ["merge", str(path), "-o", str(out / "m.json")],
    ]


def edited(report: Path, edit: Any) -> str:
    document = json.loads(report.read_text(encoding="utf-8"))
    edit(document)
    return json.dumps(document)


@pytest.mark.parametrize(
    ("name", "text", "field"),
    [
        ("score as text", lambda r: edited(r, lambda d: d["samples"][0].update(score="high")), "samples[0].score"),
        ("outcome unknown", lambda r: edited(r, lambda d: d["samples"][1].update(outcome=7)), "samples[1].outcome"),
        ("selected as text", lambda r: edited(r, lambda d: d["run"].update(selected="4")), "run.selected"),
        (
            "5000 digits",
            lambda r: edited(r, lambda d: d["run"].update(selected=0)).replace(
                '"selected": 0', '"selected": ' + "9" * 5000
            ),
            "run.selected",
        ),
        (
            "NaN",
            lambda r: edited(r, lambda d: d["samples"][0].update(score=0.123457)).replace("0.123457", "NaN"),
            "samples[0].score",
        ),
        (
            "1e999",
            lambda r: edited(r, lambda d: d["metrics"].update(x=0.123457)).replace("0.123457", "1e999"),
            "metrics.x",
        ),
        (
            "Infinity",
            lambda r: edited(r, lambda d: d["samples"][0].update(latency_s=0.123457)).replace("0.123457", "-Infinity"),
            "samples[0].latency_s",
        ),
        (
            "nested deep",
            lambda r: edited(r, lambda d: d["run"].update(extra=None)).replace(
                '"extra": null', '"extra": ' + "[" * 100_000 + "]" * 100_000
            ),
            "nested too deep",
        ),
    ],
)
@pytest.mark.slow
def test_a_hostile_report_is_one_line_naming_file_and_field(
    report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: Any, field: str
) -> None:
    hostile = tmp_path / "hostile.json"
    hostile.write_text(text(report), encoding="utf-8")
    for argv in commands(hostile, tmp_path):
        status, err = cli(capsys, *argv)
        one_line_refusal(status, err, str(hostile), field)


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_special_files_are_refused_without_reading_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    if kind == "fifo":
        path = tmp_path / "report.json"
        os.mkfifo(path)  # nothing ever writes to it: opening it for reading would block forever
        expected = "a FIFO"
    elif kind == "device":
        path, expected = Path("/dev/zero"), "a device"
    else:
        path, expected = tmp_path, "a folder"
    for argv in commands(path, tmp_path):
        status, err = cli(capsys, *argv)
        one_line_refusal(status, err, str(path), expected)


@pytest.mark.parametrize("option", ["--toolcall-baseline", "--toolcall-reference"])
@pytest.mark.slow
def test_a_fifo_baseline_or_reference_is_a_usage_error(pytester: pytest.Pytester, option: str) -> None:
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    os.mkfifo(pytester.path / "base.json")
    bench = ["--toolcall-bench=general_fc"] if option == "--toolcall-reference" else []
    result = oracle_run(pytester, f"{option}=base.json", *bench, ".")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "base.json: cannot read it (a FIFO, not a JSON report: refused)" in result.stderr.str()


@pytest.mark.slow
def test_a_shard_sample_naming_no_unit_is_refused(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    for k in (1, 2):
        oracle_run(pytester, f"--toolcall-shard={k}/2", f"--toolcall-report=s{k}.json", ".")
    shards = [pytester.path / "s1.json", pytester.path / "s2.json"]
    status, err = cli(capsys, "merge", *map(str, shards), "-o", str(pytester.path / "m.json"))
    assert status == 0, err  # the shards as written merge
    document = json.loads(shards[1].read_text(encoding="utf-8"))
    real = document["samples"][0]["nodeid"]
    document["samples"][0]["nodeid"] = real.replace("::c", "::forged_c")  # the same count, another unit
    shards[1].write_text(json.dumps(document), encoding="utf-8")
    status, err = cli(capsys, "merge", *map(str, shards), "-o", str(pytester.path / "m.json"))
    one_line_refusal(status, err, "not the units of the selection")


def make_store(path: Path, responses: str, costs: str | None, rows: list[tuple[str, Any]]) -> Path:
    path.mkdir()
    with closing(sqlite3.connect(path / "responses.sqlite3")) as db:
        db.execute(f"CREATE TABLE responses ({responses})")
        if costs is not None:
            db.execute(f"CREATE TABLE unit_costs ({costs})")
            db.executemany("INSERT INTO unit_costs VALUES (?, ?)", rows)
        db.execute("PRAGMA user_version=2")
        db.commit()
    return path


@pytest.mark.parametrize(
    ("responses", "costs", "rows", "message"),
    [
        ("key TEXT, answer TEXT", None, [], "responses table of another shape"),
    ],
)
def test_merge_store_refuses_stores_of_another_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], responses: str, costs: str | None, rows: list, message: str
) -> None:
    store = make_store(tmp_path / "odd", responses, costs, rows)
    status, err = cli(capsys, "merge-store", str(store), "-o", str(tmp_path / "out"))
    one_line_refusal(status, err, str(store / "responses.sqlite3"), message)


@pytest.mark.slow
def test_a_run_with_text_unit_costs_is_no_internal_error(pytester: pytest.Pytester) -> None:
    """A store with a unit-costs table of earlier versions (here holding text) is read as usual: the
    table is not read any more (shard cuts do not depend on the store)."""
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    first = oracle_run(pytester, "--toolcall-model=m", "--toolcall-cache=off", "--co", ".")  # (collects only)
    assert first.ret == 0
    store = pytester.path / "store"
    make_store(
        store,
        "key TEXT PRIMARY KEY, model TEXT NOT NULL, stored_at REAL NOT NULL, response TEXT NOT NULL",
        "nodeid TEXT PRIMARY KEY, seconds",
        [("weather.toolcall.yaml::c0", "slow"), ("weather.toolcall.yaml::c1", 2.0)],
    )
    result = pytester.runpytest(
        "--toolcall-model=m",
        "--toolcall-base-url=http://127.0.0.1:9/v1",
        f"--toolcall-cache={store}",
        "--toolcall-cache-mode=replay",
        "--toolcall-shard=1/2",
        "-p",
        "no:randomly",
        ".",
    )
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # replay with an empty store: every item an error


@pytest.mark.slow
def test_a_case_file_nested_100000_deep_is_one_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toolcall.yaml", deep="cases:\n  - " + "[" * 100_000 + "]" * 100_000 + "\n")
    result = oracle_run(pytester, ".")
    out = result.stdout.str()
    assert "RecursionError" not in out and "Traceback" not in out
    assert "deep.toolcall.yaml:2: invalid YAML: nested deeper than 200 levels" in out


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("--toolcall-repeat=100000000", "--toolcall-repeat: must be at most 1000"),
        ("--toolcall-concurrency=10000000", "--toolcall-concurrency: must be at most 1024"),
        ("--toolcall-max-retries=1000000", "--toolcall-max-retries: must be at most 100"),
        ("--toolcall-repeat=" + "9" * 5000, "--toolcall-repeat: expected an integer"),
    ],
)
@pytest.mark.slow
def test_counts_that_multiply_work_are_bounded(pytester: pytest.Pytester, option: str, message: str) -> None:
    pytester.makefile(".toolcall.yaml", weather=WEATHER_CASES)
    result = oracle_run(pytester, option, ".")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


@pytest.mark.slow
def test_case_files_of_one_stem_have_a_metric_and_a_header_each(pytester: pytest.Pytester) -> None:
    for folder in ("a", "b"):
        (pytester.path / folder).mkdir()
        (pytester.path / folder / "w.toolcall.yaml").write_text(WEATHER_CASES, encoding="utf-8")
    result = oracle_run(
        pytester, "--toolcall-fail-under=cases.file.a/w=0.5,cases.file.b/w=0.5", "--toolcall-report=r.json", "."
    )
    result.assert_outcomes(passed=8)
    assert "toolcall gate passed" in result.stdout.str()
    files = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["metrics"]["cases"]["files"]
    assert sorted(files) == ["a/w.toolcall.yaml", "b/w.toolcall.yaml"]
