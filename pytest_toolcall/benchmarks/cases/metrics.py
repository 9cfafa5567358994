"""The ``cases`` metrics block: accuracy per file, per tag and overall, and the gate names over it.

A record is one scored item (a case of a file, or a Python test that used ``assert_tool_calls``) with
``file`` (its path), ``tags`` and ``outcome``. Items whose request errored or that were skipped had no
answer to score: they are counted apart (``errors``, ``skipped``) and in no accuracy, so that a flaky
endpoint lowers no number silently (the gate fails on errors instead). ``cases_block`` adds the
intervals; the gate names and values are derived from the declaration (``benchmark.METRICS``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pytest_toolcall.benchmarks.cases.format import Case, case_file_stem
from pytest_toolcall.benchmarks.cases.matching import CaseVerdict

PASSED = "passed"
ERROR, SKIPPED = "error", "skipped"


def cases_metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"files": {path: {n, passed, accuracy}}, "tags": {...}, "overall", "n", "passed", "errors", "skipped"}``;
    an accuracy over no scored item is None (no evidence, which a gate must not read as 0 or 1)."""
    files: dict[str, list[int]] = {}
    tags: dict[str, list[int]] = {}
    total = [0, 0]
    errors = skipped = 0
    for record in records:
        outcome = record.get("outcome")
        if outcome == ERROR:
            errors += 1
            continue
        if outcome == SKIPPED:
            skipped += 1
            continue
        passed = int(outcome == PASSED)
        for counts in (files.setdefault(str(record["file"]), [0, 0]), total):
            counts[0] += 1
            counts[1] += passed
        for tag in dict.fromkeys(record.get("tags") or ()):
            counts = tags.setdefault(str(tag), [0, 0])
            counts[0] += 1
            counts[1] += passed
    return {
        "files": {name: _accuracy(*files[name]) for name in sorted(files)},
        "tags": {name: _accuracy(*tags[name]) for name in sorted(tags)},
        "overall": _ratio(*total),
        "n": total[0],
        "passed": total[1],
        "errors": errors,
        "skipped": skipped,
    }


def cases_block(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``cases`` block: ``cases_metrics`` with the intervals (Wilson when each case ran once; under
    repeats a bootstrap over cases, not attempts) and, under repeats, pass^k and the flaky cases."""
    from pytest_toolcall.api.statistics import category_fields, repeat_fields

    block = cases_metrics(records)
    scored = [r for r in records if r.get("outcome") not in (ERROR, SKIPPED)]

    def interval(rows: list[dict[str, Any]]) -> list[float] | None:
        return category_fields(rows)["ci95"] if rows else None

    for name, row in block["files"].items():
        row["ci95"] = interval([r for r in scored if str(r.get("file")) == name])
    for tag, row in block["tags"].items():
        row["ci95"] = interval([r for r in scored if tag in (r.get("tags") or ())])
    block["overall_ci95"] = interval(scored)
    block.update(repeat_fields(scored))
    return block


def case_record(case: Case, verdict: CaseVerdict) -> dict[str, Any]:
    """The fields of a case's sample in the JSON report (plain builtins), and what ``cases_metrics`` reads.
    The runner adds its own (nodeid, repeat, latency, usage, output...)."""
    return {
        "benchmark": "cases",
        "category": case.stem,
        "id": case.id,
        "file": case.file,
        "line": case.line,
        "tags": list(case.tags),
        "outcome": PASSED if verdict.passed else "failed",
        "score": 1.0 if verdict.passed else 0.0,
        "failure_kind": verdict.failure_kind,
        "reason": verdict.message,
        "calls": [{**asdict(report), "problems": list(report.problems)} for report in verdict.calls],
    }


def file_labels(paths: Any) -> dict[str, str]:
    """The name of each case file in gate metrics: its stem (``weather``), or, for files whose stems
    collide (``a/smoke.toolcall.yaml``, ``b/smoke.toolcall.yaml``), the path without the case-file
    suffix (``a/smoke``, ``b/smoke``), so that each file has a metric of its own."""
    paths = list(paths)
    stems = [case_file_stem(path) for path in paths]
    return {
        path: stem if stems.count(stem) == 1 else _without_suffix(str(path), stem)
        for path, stem in zip(paths, stems, strict=True)
    }


def _without_suffix(path: str, stem: str) -> str:
    suffix = path.replace("\\", "/").rsplit("/", 1)[-1][len(stem) :]
    return path[: len(path) - len(suffix)]


def _accuracy(n: int, passed: int) -> dict[str, Any]:
    return {"n": n, "passed": passed, "accuracy": _ratio(n, passed)}


def _ratio(n: int, passed: int) -> float | None:
    return passed / n if n else None
