"""``pytest-toolcall diff``: which units changed between two runs, their calls aligned by matching
with the differing arguments named, and the refusal of runs of other data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cli import main
from pytest_toolcall.results.diffing import align_calls, calls_of, diff_runs, only_reordered, same_data_problem


def sample(nodeid: str, outcome: str, calls: list[dict[str, Any]] | None = None, output: Any = None) -> dict[str, Any]:
    return {"nodeid": nodeid, "outcome": outcome, "tool_calls": calls, "output": output}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": "c", "name": name, "arguments": json.dumps(arguments)}


def test_units_changed_by_verdict_or_answer() -> None:
    base = [
        sample("a", "passed", [call("f", x=1)]),
        sample("b", "failed", [call("f", x=2)]),
        sample("c", "failed", [call("f", x=3)]),
        sample("d", "passed", [call("f", x=4)]),
        sample("gone", "passed"),
    ]
    now = [
        sample("a", "failed", [call("f", x=9)]),  # regressed
        sample("b", "passed", [call("f", x=1)]),  # fixed
        sample("c", "failed", [call("g", x=3)]),  # same verdict, other answer
        sample("d", "passed", [call("f", x=4)]),  # unchanged
        sample("new", "passed"),
    ]
    diff = diff_runs(base, now)
    assert [(c.nodeid, c.status) for c in diff.changes] == [("a", "regressed"), ("b", "fixed"), ("c", "changed")]
    assert diff.counts() == {"regressed": 1, "fixed": 1, "changed": 1}
    assert (diff.only_base, diff.only_now) == (["gone"], ["new"])


def test_calls_align_naming_what_differs() -> None:
    base = calls_of(sample("u", "passed", [call("f", city="Paris", unit="c"), call("g", n=1)]))
    now = calls_of(sample("u", "failed", [{"function": {"name": "f", "arguments": '{"city": "Lyon", "unit": "c"}'}}]))
    pairs = align_calls(base, now)
    assert [p.differing for p in pairs] == [["city"], ["(name)", "(arguments)"]]
    assert pairs[1].now is None and pairs[0].now == {"name": "f", "arguments": {"city": "Lyon", "unit": "c"}}
    assert align_calls(now, now)[0].differing == []


def test_reordered_calls_align_with_their_match_not_their_position() -> None:
    base = calls_of(sample("u", "passed", [call("f", city="Paris"), call("g", n=1), call("h", x=1)]))
    now = calls_of(sample("u", "passed", [call("h", x=1), call("f", city="Paris"), call("g", n=1)]))
    pairs = align_calls(base, now)
    # Paired by position, every call would differ by name; matched, none differs.
    assert [(p.base and p.base["name"], p.now and p.now["name"], p.differing) for p in pairs] == [
        ("h", "h", []),
        ("f", "f", []),
        ("g", "g", []),
    ]
    assert only_reordered(base, now) and not only_reordered(base, base)


def test_identical_calls_match_first_then_calls_of_the_same_name_in_order() -> None:
    base = calls_of(sample("u", "passed", [call("f", x=1), call("f", x=2), call("g", y=1)]))
    now = calls_of(sample("u", "failed", [call("f", x=3), call("f", x=1), call("k", z=0)]))
    pairs = align_calls(base, now)
    assert [(p.base and p.base["arguments"], p.now and p.now["arguments"], p.differing) for p in pairs] == [
        ({"x": 2}, {"x": 3}, ["x"]),  # the f left over after the identical f(x=1) matched
        ({"x": 1}, {"x": 1}, []),
        (None, {"z": 0}, ["(name)", "(arguments)"]),  # nothing of that name: unmatched
        ({"y": 1}, None, ["(name)", "(arguments)"]),  # base's call that matched none
    ]
    assert not only_reordered(base, now)


def test_a_diff_says_which_changes_only_reordered_their_calls() -> None:
    base = [sample("a", "passed", [call("f", x=1), call("g", y=2)]), sample("b", "passed", [call("f", x=1)])]
    now = [sample("a", "failed", [call("g", y=2), call("f", x=1)]), sample("b", "passed", [call("f", x=2)])]
    diff = diff_runs(base, now)
    assert [(c.nodeid, c.status, c.reordered) for c in diff.changes] == [
        ("a", "regressed", True),
        ("b", "changed", False),
    ]
    assert diff.reordered() == 1


def test_aligning_many_calls_is_linear() -> None:
    # Every call distinct and none matching: a quadratic pairing would compare 4e8 pairs.
    n = 20_000
    base = [{"name": f"f{i}", "arguments": {"i": i}} for i in range(n)]
    now = [{"name": f"g{i}", "arguments": {"i": i}} for i in range(n)]
    pairs = align_calls(base, now)
    assert len(pairs) == 2 * n and all(p.differing[0] == "(name)" for p in pairs)


def test_runs_of_other_data_are_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    documents = []
    for name, commit in (("a.json", "aaa"), ("b.json", "bbb")):
        document = {
            "schema": "pytest-toolcall/report/1",
            "run": {"model": name, "datasets": {"acebench": {"commit": commit}}},
            "samples": [],
            "metrics": {},
        }
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
        documents.append(document)
    problem = same_data_problem(["a.json", "b.json"], documents)
    assert problem is not None and problem.startswith("b.json is not a run of the same data as a.json")
    status = main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-o", str(tmp_path / "d.html")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "not a run of the same data" in err
    assert not (tmp_path / "d.html").exists()
    status = main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"pytest-toolcall compare: {tmp_path / 'b.json'} is not")


def test_units_of_one_run_only_are_named_on_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_toolcall.results.diff_html import ONLY_LISTED

    def report(name: str, nodeids: list[str]) -> Path:
        samples = [sample(n, "passed") for n in nodeids]
        document = {"schema": "pytest-toolcall/report/1", "run": {"model": name}, "samples": samples, "metrics": {}}
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
        return tmp_path / name

    shared = [f"toolcall::x[s{i}]" for i in range(3)]
    dropped = [f"toolcall::x[<b>old{i}</b>]" for i in range(ONLY_LISTED + 5)]
    base = report("base.json", shared + dropped)
    now = report("now.json", [*shared, "toolcall::x[new]"])
    status = main(["diff", str(base), str(now), "-o", str(tmp_path / "d.html")])
    out = capsys.readouterr().out
    assert status == 0 and f"; {ONLY_LISTED + 5} only in base.json, 1 only in now.json: " in out
    page = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert f"only in base.json: {ONLY_LISTED + 5}</h3>" in page and "only in now.json: 1</h3>" in page
    assert "<li>toolcall::x[new]</li>" in page
    listed = page.count("<li>toolcall::x[&lt;b&gt;old")  # escaped, and capped
    assert listed == ONLY_LISTED and "and 5 more" in page and "<b>old" not in page
