"""Shards of one run, checked before ``RunResult.merge`` makes the run's result of them.

Every metric is recomputed from the samples by the run's own code path (``aggregate.py``), with the
benchmarks rebuilt from the options the shards recorded, so a merged report equals the report of a
single run of the same selection. Shards are refused, naming the files, when they overlap, disagree
in what they ran (model, settings, data, plugin version, selection, how it was cut) or leave selected
units out (the last one accepted with ``allow_partial``, which marks the result partial). The merged
``run`` section is the first shard's, with the fields that describe a part of the run combined
(``COMBINED``): there is one writer of a ``run`` section, the run itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_toolcall.core.safety.reports import ReportError, read_report
from pytest_toolcall.results.identity import run_identity
from pytest_toolcall.results.recompute import checked_benchmarks, rebuild_benchmarks
from pytest_toolcall.results.selection import selection_of

__all__ = ["ReportError", "check_shards", "merge_junit", "merged_run", "read_report", "rebuild_benchmarks"]

#: A shard: the path of its report (for messages) and the report.
Shard = tuple[Path, Mapping[str, Any]]

#: ``run`` fields every shard of one run must agree on.
AGREED = ("model", "base_url", "settings", "datasets", "plugin_version")
#: Options that may differ between the shards of one run (where each writes, how fast it asks).
PER_SHARD_OPTIONS = frozenset(
    {
        "shard",
        "report",
        "html",
        "cache",
        "cache-mode",
        "concurrency",
        "timeout",
        "max-retries",
        "fail-under",
        "max-errors",
    }
)


def _earliest(values: Iterable[Any]) -> Any:
    return min((v or "" for v in values), default=None) or None


def _latest(values: Iterable[Any]) -> Any:
    return max((v or "" for v in values), default=None) or None


def _union(values: Iterable[Any]) -> list[Any]:
    return sorted({v for value in values for v in value or []})


#: How the ``run`` fields that describe one shard make the field of the whole run: each is given the
#: shards' values of the field, in order. Every other field is the first shard's (they agree).
COMBINED: dict[str, Callable[[list[Any]], Any]] = {
    "started_at": _earliest,
    "finished_at": _latest,
    "selected": lambda values: sum(int(v) for v in values),
    "not_run": lambda values: sum(int(v or 0) for v in values),
    "not_asked": lambda values: sum(int(v or 0) for v in values),
    "data_problems": _union,
    "ordinary_failed": _union,
    "other_requests": lambda values: [entry for value in values for entry in value or []],
    "interrupted": any,
    "partial": any,
    "shard": lambda values: None,
    "selection": lambda values: {**values[0], "plan": None},
    "options": lambda values: {k: v for k, v in values[0].items() if k != "shard"},
}
#: Fields a merged run has of its own (set below), never a shard's.
MERGED_ONLY = ("merged_from", "missing")


def check_shards(reports: Sequence[Shard], allow_partial: bool = False) -> list[str]:
    """Check that the ``reports`` are shards of one run that can be merged (``ReportError`` naming
    the files if not); return what of the selection no report covers (allowed with ``allow_partial``)."""
    if not reports:
        raise ReportError("no report to merge")
    for path, document in reports:
        _check_shape(path, document["run"])
    for path, document in reports:
        checked_benchmarks(path, dict(document))  # a shard's metrics are those of its own samples
    refusals = [*_disagreements(reports), *_overlaps(reports)]
    if refusals:
        raise ReportError("cannot merge:\n  " + "\n  ".join(refusals))
    gaps = _gaps(reports)
    foreign = None if gaps else _foreign_samples(reports)
    if foreign is not None:
        raise ReportError(f"cannot merge: {foreign}")
    if gaps and not allow_partial:
        raise ReportError(
            "cannot merge: " + "; ".join(gaps) + " (--allow-partial merges what is there, marked partial)"
        )
    return gaps


def merged_run(reports: Sequence[Shard], gaps: list[str]) -> dict[str, Any]:
    """The ``run`` section of the whole run of (checked) shards, ``gaps`` being what none covers."""
    runs = [document["run"] for _, document in reports]
    run = {name: value for name, value in runs[0].items() if name not in MERGED_ONLY}
    for name, combine in COMBINED.items():
        run[name] = combine([r.get(name) for r in runs])
    run["partial"] = bool(gaps) or run["partial"]
    if any(isinstance(r.get("identity"), dict) for r in runs):  # of the whole: the users' files of every shard
        files = {k: v for r in runs for k, v in ((r.get("identity") or {}).get("files") or {}).items()}
        run["identity"] = run_identity(run, files)
    run["merged_from"] = [{"path": str(path), "shard": document["run"]["shard"]} for path, document in reports]
    if gaps:
        run["missing"] = gaps
    return run


def _needs(path: Path, run: Mapping[str, Any], *fields: str) -> None:
    missing = [f for f in fields if f not in run]
    if missing:
        raise ReportError(
            f"{path}: run.{', run.'.join(missing)} missing: written by a pytest-toolcall without shards "
            "(re-run the shards with this version)"
        )


def _check_shape(path: Path, run: Mapping[str, Any]) -> None:
    """The ``run`` fields merge reads, of the types it reads them as."""
    _needs(path, run, *AGREED, "selection", "options", "aggregation", "shard", "selected")
    shard = run["shard"]
    if shard is not None and not (isinstance(shard, str) and re.fullmatch(r"[1-9]\d*/[1-9]\d*", shard)):
        raise ReportError(f"{path}: run.shard is {shard!r}, expected K/N or null")
    if not isinstance(run["selected"], int) or not isinstance(run["selection"], dict):
        raise ReportError(f"{path}: run.selected must be a number and run.selection an object")
    if not isinstance(run["options"], dict) or not isinstance(run["aggregation"], dict):
        raise ReportError(f"{path}: run.options and run.aggregation must be objects")


def _disagreements(reports: Sequence[Shard]) -> list[str]:
    """Where a shard ran something else than the first: model, settings, data, options, selection, cut."""
    first_path, first = reports[0]
    base = first["run"]
    refusals: list[str] = []
    for path, document in reports[1:]:
        run = document["run"]
        for name in AGREED:
            if run.get(name) != base.get(name):
                refusals.append(f"{first_path} and {path} disagree in {name}: {base.get(name)!r} != {run.get(name)!r}")
        changed = sorted(
            name
            for name in set(run["options"]) | set(base["options"])
            if name not in PER_SHARD_OPTIONS and run["options"].get(name) != base["options"].get(name)
        )
        if changed:
            refusals.append(f"{first_path} and {path} were run with different options: {', '.join(changed)}")
        if run["selection"].get("digest") != base["selection"].get("digest"):
            refusals.append(
                f"{first_path} and {path} selected different units "
                f"({base['selection'].get('count')} and {run['selection'].get('count')} before sharding)"
            )
        elif run["selection"].get("plan") != base["selection"].get("plan"):
            refusals.append(
                f"{first_path} and {path} were cut into shards differently (different counts of shards, or "
                "stores that recorded different latencies: give every shard job the same store)"
            )
    return refusals


def _overlaps(reports: Sequence[Shard]) -> list[str]:
    """The same shard twice, or the same item in two reports."""
    refusals: list[str] = []
    by_shard: dict[str, Path] = {}
    for path, document in reports:
        shard = document["run"]["shard"]
        if shard is not None and shard in by_shard:
            refusals.append(f"{by_shard[shard]} and {path} are both shard {shard}")
        by_shard.setdefault(shard, path)
    owner: dict[str, Path] = {}
    overlaps: dict[tuple[Path, Path], list[str]] = {}
    for path, document in reports:
        for sample in document["samples"]:
            nodeid = sample["nodeid"]
            if nodeid in owner and owner[nodeid] != path:
                overlaps.setdefault((owner[nodeid], path), []).append(nodeid)
            owner.setdefault(nodeid, path)
    for (a, b), nodeids in overlaps.items():
        shown = ", ".join(nodeids[:3]) + (f" and {len(nodeids) - 3} more" if len(nodeids) > 3 else "")
        refusals.append(f"{a} and {b} overlap: {len(nodeids)} item(s) in both ({shown})")
    return refusals


def _gaps(reports: Sequence[Shard]) -> list[str]:
    """What of the selection no report covers."""
    runs = [document["run"] for _, document in reports]
    shards = [r["shard"] for r in runs]
    if any(shard is None for shard in shards):
        unsharded = [str(path) for path, document in reports if document["run"]["shard"] is None]
        return [
            f"{', '.join(unsharded)} {'is not a shard' if len(unsharded) == 1 else 'are not shards'}: "
            "nothing says which units the merged run should hold"
        ]
    count = int(str(shards[0]).split("/")[1])
    present = {int(str(shard).split("/")[0]) for shard in shards}
    gaps = [f"shard {k}/{count} is missing" for k in range(1, count + 1) if k not in present]
    expected = int(runs[0]["selection"]["count"])
    selected = sum(int(r["selected"]) for r in runs)
    if not gaps and selected != expected:
        gaps.append(f"the shards selected {selected} of the {expected} units of the selection")
    return gaps


def _foreign_samples(reports: Sequence[Shard]) -> str | None:
    """Why the samples are not those of the selection, when every unit ran and they can be checked:
    the selection's digest is of its node ids, so a sample naming another unit (the real one missing)
    is found even when the counts agree."""
    runs = [document["run"] for _, document in reports]
    if any(r.get("not_run") or r.get("partial") for r in runs):
        return None  # units that did not run have no sample: the digest cannot be recomputed
    units = [s["nodeid"] for _, document in reports for s in document["samples"]]  # (a sample is a unit's)
    if selection_of(units).digest == runs[0]["selection"]["digest"]:
        return None
    return (
        f"the samples' node ids are not the units of the selection ({len(units)} sample(s) of "
        f"{runs[0]['selection']['count']} unit(s)): a report was changed, or comes from another run"
    )


def merge_junit(paths: list[Path], properties: Iterable[tuple[str, Any]] | None = None) -> Any:
    """One JUnit XML document of the shards' JUnit files: every testcase in one ``testsuite`` (the
    counts summed), whose properties are ``properties`` when given: the merged run's aggregates
    (``RunResult.suite_properties`` of the merged report; the shards' own describe a part and are
    dropped)."""
    from xml.etree import ElementTree

    from pytest_toolcall.results.report import junit_value

    cases: list[Any] = []
    counts = dict.fromkeys(("tests", "errors", "failures", "skipped"), 0)
    seconds = 0.0
    for path in paths:
        try:
            root = ElementTree.parse(path).getroot()
        except OSError as exc:
            raise ReportError(f"{path}: cannot read it ({exc.strerror or exc})") from None
        except ElementTree.ParseError as exc:
            raise ReportError(f"{path}:{exc.position[0]}: not valid XML ({exc})") from None
        suites = [root] if root.tag == "testsuite" else root.findall("testsuite") if root.tag == "testsuites" else []
        if not suites:
            raise ReportError(f"{path}: not a JUnit XML report (root element <{root.tag}>)")
        for suite in suites:
            try:
                for name in counts:
                    counts[name] += int(suite.get(name, "0"))
                seconds += float(suite.get("time", "0"))
            except ValueError as exc:
                raise ReportError(f"{path}: a testsuite has a count that is not a number ({exc})") from None
            cases += suite.findall("testcase")
    merged_suite = ElementTree.Element(
        "testsuite", {"name": "pytest", **{k: str(v) for k, v in counts.items()}, "time": f"{seconds:.3f}"}
    )
    if properties is not None:
        element = ElementTree.SubElement(merged_suite, "properties")
        for prop, value in properties:  # as a run adds them (runner/junit.py)
            ElementTree.SubElement(element, "property", {"name": prop, "value": junit_value(value)})
    merged_suite.extend(cases)
    root = ElementTree.Element("testsuites", {"name": "pytest tests"})
    root.append(merged_suite)
    return ElementTree.ElementTree(root)
