"""Every metric of a report recomputed from its samples, for the tools that read a report offline
(``gate``, ``html``, ``merge``): a report whose stated metrics are not those of its samples (edited
by hand, or from a run that went wrong) is refused, naming the file and the first metric that differs,
so an offline gate never passes on numbers the samples do not hold."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.config import registry
from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.benchmark import Benchmark
from pytest_toolcall.core.safety.reports import ReportError
from pytest_toolcall.results.aggregate import aggregate, all_blocks

#: How far a stated number may sit from the recomputed one (float noise of another platform only).
REL_TOL = 1e-9


def checked_benchmarks(path: Path, document: dict[str, Any]) -> dict[str, Benchmark]:
    """The report's benchmarks rebuilt from its options, once its stated metrics are found equal to
    those recomputed from its samples (``ReportError`` naming the first that is not)."""
    run = document["run"]
    missing = [name for name in ("options", "aggregation") if not isinstance(run.get(name), dict)]
    if missing:
        raise ReportError(
            f"{path}: run.{', run.'.join(missing)} missing: its metrics cannot be recomputed "
            "(written by an older pytest-toolcall: re-run with this version)"
        )
    benchmarks = rebuild_benchmarks(path, run)
    # Through JSON, as the report holds them (tuples become lists, keys strings).
    recomputed = json.loads(json.dumps(all_blocks(aggregate(benchmarks, list(document["samples"])))))
    difference = _first_difference("metrics", document["metrics"], recomputed)
    if difference is not None:
        raise ReportError(f"{path}: {difference}: the report's metrics are not those of its samples")
    return benchmarks


def check_comparison(path: Path, document: dict[str, Any], benchmarks: dict[str, Benchmark]) -> None:
    """The report's stated ``comparison`` recomputed from its samples and those of the baseline it
    names (``comparison.baseline.path``, as given to the run, or beside the report): ``ReportError``
    when the baseline cannot be read (nothing vouches for the comparison then) or when the stated
    comparison differs, naming the first field that does. An offline gate never passes on a
    comparison the samples do not hold."""
    from pytest_toolcall.results.baseline import BaselineError, compare_run, load_baseline

    stated = document.get("comparison")
    if stated is None:
        return
    named = stated.get("baseline") if isinstance(stated, dict) else None
    where = named.get("path") if isinstance(named, dict) else None
    if not isinstance(where, str) or not where:
        raise ReportError(
            f"{path}: its comparison names no baseline file, so it cannot be recomputed: give --baseline=REPORT.json"
        )
    candidates = [Path(where)] if Path(where).is_absolute() else [Path(where), path.parent / where]
    found = next((candidate for candidate in candidates if candidate.is_file()), None)
    if found is None:
        raise ReportError(
            f"{path}: its baseline {where} is not here, so its comparison cannot be recomputed: "
            "give --baseline=REPORT.json"
        )
    try:
        baseline = load_baseline(found)
    except BaselineError as exc:
        raise ReportError(f"{path}: its comparison cannot be recomputed: {exc}") from None
    baseline["path"] = where  # as the run named it
    run, samples = document["run"], list(document["samples"])
    comparison = compare_run(baseline, run, samples, aggregate(benchmarks, samples), benchmarks)
    difference = _first_difference("comparison", stated, json.loads(json.dumps(comparison)))
    if difference is not None:
        raise ReportError(
            f"{path}: {difference}: the report's comparison is not that of its samples and its baseline's ({where})"
        )


def rebuild_benchmarks(path: Path, run: dict[str, Any]) -> dict[str, Benchmark]:
    """The run's benchmarks, made from its recorded options, with what their aggregation needs."""
    try:
        # The benchmarks the run had (those of its datasets), whatever chose them then.
        settings = Settings.from_raw(run["options"], benches=tuple(run.get("datasets") or ()))
    except pytest.UsageError as exc:
        raise ReportError(f"{path}: the run's options are not valid here: {exc}") from None
    if settings is None:
        raise ReportError(f"{path}: run.options has no model")
    benchmarks: dict[str, Benchmark] = {}
    for name in settings.benches:
        if name not in registry.names():
            raise ReportError(f"{path}: benchmark {name!r} is not installed here")
        try:
            benchmarks[name] = registry.benchmark_class(name)(settings.for_benchmark(name))
        except pytest.UsageError as exc:
            raise ReportError(f"{path}: cannot rebuild benchmark {name!r} here: {exc}") from None
        benchmarks[name].restore_aggregate_context(run["aggregation"].get(name) or {})
    return benchmarks


def _first_difference(where: str, stated: Any, recomputed: Any) -> str | None:
    if isinstance(stated, dict) and isinstance(recomputed, dict):
        for key in sorted(set(stated) | set(recomputed)):
            if key not in recomputed:
                return f"{where}.{key} is stated but not recomputed from the samples"
            if key not in stated:
                return f"{where}.{key} is missing (recomputed {_shown(recomputed[key])})"
            found = _first_difference(f"{where}.{key}", stated[key], recomputed[key])
            if found is not None:
                return found
        return None
    if isinstance(stated, list) and isinstance(recomputed, list) and len(stated) == len(recomputed):
        for number, (a, b) in enumerate(zip(stated, recomputed, strict=True)):
            found = _first_difference(f"{where}[{number}]", a, b)
            if found is not None:
                return found
        return None
    if _number(stated) and _number(recomputed):
        if math.isclose(stated, recomputed, rel_tol=REL_TOL, abs_tol=1e-12):
            return None
    elif stated == recomputed and type(stated) is type(recomputed):
        return None
    return f"{where} is {_shown(stated)}, recomputed {_shown(recomputed)}"


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def _shown(value: Any) -> str:
    from pytest_toolcall.core.safety.text import clip

    return clip(json.dumps(value), 60)
