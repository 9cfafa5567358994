"""``--toolcall-baseline``: an earlier JSON report, read at start-up, and this run's ``comparison`` with it.

Units pair by ``statistics.unit_key`` (benchmark, language or file, category, id), so only units that
ran in both runs take part. Each benchmark compares its own metrics (``Benchmark.compare``); this module
reads the report, says where the two runs are not alike (another plugin version, model, settings or
data) and leaves out of the comparison the benchmarks whose data differ, and lists the units that went
pass→fail and fail→pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_toolcall.core.protocol.benchmark import Benchmark
from pytest_toolcall.core.stats.comparison import compare_units
from pytest_toolcall.results import identity
from pytest_toolcall.results.standing import run_gate, with_standings


class BaselineError(ValueError):
    """A baseline report that cannot be used; the message names the file."""


def load_baseline(path: Path) -> dict[str, Any]:
    """The report at ``path``, checked enough to compare with: BaselineError otherwise."""
    from pytest_toolcall.core.safety.reports import ReportError, read_report

    try:
        document = read_report(path)
    except ReportError as exc:
        raise BaselineError(str(exc)) from None
    samples = document["samples"]
    for number, sample in enumerate(samples):
        if "benchmark" not in sample or "id" not in sample:
            raise BaselineError(f"{path}: sample {number} has no benchmark or id")
    document["path"] = str(path)
    return document


def differences(baseline: Mapping[str, Any], run: Mapping[str, Any]) -> list[str]:
    """What differs between the baseline's run and this one, for a person: the model and endpoint,
    and every field of the runs' identities that differs (``results.identity``)."""
    before = baseline.get("run", {})
    notes = []
    for key, label in (("model", "model"), ("base_url", "endpoint")):
        if before.get(key) != run.get(key):
            notes.append(f"{label}: baseline {before.get(key)!r}, now {run.get(key)!r}")
    fields = identity.differing(before.get("identity"), run.get("identity"))
    if fields:
        notes.append(f"run identity {_hash(before)} -> {_hash(run)}: {identity.differences_line(fields)}")
    elif not isinstance(before.get("identity"), Mapping):  # a report written before identities
        for key, label in (("plugin_version", "plugin version"), ("settings", "settings"), ("repeat", "repeat")):
            if (before.get(key) or None) != (run.get(key) or None):
                notes.append(f"{label}: baseline {before.get(key)!r}, now {run.get(key)!r}")
    return notes


def _hash(run: Mapping[str, Any]) -> str:
    fields = run.get("identity")
    return str(fields.get("hash")) if isinstance(fields, Mapping) else "unknown"


def compare_run(
    baseline: Mapping[str, Any],
    run: Mapping[str, Any],
    samples: list[dict[str, Any]],
    metrics: Mapping[str, dict[str, Any]],
    benchmarks: Mapping[str, Benchmark],
) -> dict[str, Any]:
    """The report's ``comparison`` section."""
    notes = differences(baseline, run)
    before_datasets = baseline.get("run", {}).get("datasets") or {}
    compared: dict[str, dict[str, Any]] = {}
    matched = []
    for name, benchmark in benchmarks.items():
        before = [s for s in baseline["samples"] if s.get("benchmark") == name]
        now = [s for s in samples if s.get("benchmark") == name]
        if not before:
            # A benchmark that ran nothing either time (the users' cases, always active, with no
            # case file selected) is no difference.
            if now:
                notes.append(f"{name}: not in the baseline")
            continue
        if name in before_datasets and before_datasets[name] != run.get("datasets", {}).get(name):
            notes.append(
                f"{name}: the baseline ran other data ({before_datasets[name]!r}, now "
                f"{run.get('datasets', {}).get(name)!r}): not compared"
            )
            continue
        matched.append(name)
        compared.update(benchmark.compare(before, baseline.get("metrics", {}), now, metrics.get(name, {})))
    units = compare_units(
        [s for s in baseline["samples"] if s.get("benchmark") in matched],
        [s for s in samples if s.get("benchmark") in matched],
    )
    before_run = baseline.get("run", {})
    comparison = {
        "baseline": {
            "path": baseline.get("path"),
            "model": before_run.get("model"),
            "started_at": before_run.get("started_at"),
            "label": identity.label(before_run),
        },
        "identity": {
            "baseline": _hash(before_run),
            "now": _hash(run),
            "differing": identity.differing(before_run.get("identity"), run.get("identity")),
        },
        "notes": notes,
        "metrics": compared,
        "regressed": units["regressed"],
        "fixed": units["fixed"],
    }
    return with_standings(comparison, *run_gate(run))
