"""general_fc aggregates: the confusion over call/no-call decisions, precision, recall, F1 and schema
accuracy (K2-Vendor-Verifier's metric table), and agreement with a reference run.

Two views of failed requests: the metrics over the lines that got an answer (errors left out), and
K2-Vendor-Verifier's, where a request that failed counts as an answer without a tool call (its
``*_official`` fields and ``official`` counts). Intervals (``core.intervals``): ``tool_call_f1_ci95``
from the bootstrap over (predicted, label) units, ``schema_accuracy_ci95`` Wilson over the tool-call
attempts, ``accuracy_ci95`` of passed/scored; under ``--toolcall-repeat`` each attempt is a unit of these
intervals, and the block has ``pass_hat_k`` and ``flaky``."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.general_fc.scoring import ERROR, OTHER, SKIPPED, TOOL_CALLS
from pytest_toolcall.core.failure_kinds import failure_kind_counts
from pytest_toolcall.core.intervals import as_list, category_fields, f1_interval, repeat_fields
from pytest_toolcall.core.statistics import wilson

# ---- aggregates ------------------------------------------------------------------------------


def is_scored(record: dict[str, Any]) -> bool:
    """A record with an answer: request errors and skipped items count in no metric."""
    return record.get("outcome") not in (ERROR, SKIPPED) and "should_call_tool" in record


def record_pred(record: dict[str, Any]) -> bool:
    return record.get("finish_reason") == TOOL_CALLS


def general_fc_metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    """K2-Vendor-Verifier's metrics over per-sample records (``should_call_tool``, ``finish_reason``,
    ``schema_valid``, ``outcome``, optionally ``reason_kind``)."""
    scored = [r for r in records if is_scored(r)]
    decisions = [(record_pred(r), bool(r["should_call_tool"])) for r in scored]
    confusion = _confusion(decisions)
    # K2-Vendor-Verifier's view: a request that failed is an answer without a tool call.
    failed = [
        (False, bool(r["should_call_tool"])) for r in records if r.get("outcome") == ERROR and "should_call_tool" in r
    ]
    official = _confusion(decisions + failed)
    attempts = confusion["TP"] + confusion["FP"]
    successful = sum(1 for r in scored if record_pred(r) and r.get("schema_valid") is True)
    # One failure kind per attempt that did not validate, whatever the label: the histogram adds up to
    # count_finish_reason_tool_call - count_successful_tool_call.
    failures = [r.get("reason_kind") or OTHER for r in scored if record_pred(r) and r.get("schema_valid") is not True]
    passed = sum(1 for r in scored if r.get("outcome") == "passed")
    prf = _prf(confusion)
    official_prf = _prf(official)
    block: dict[str, Any] = {
        "n": len(records),
        "scored": len(scored),
        "errors": sum(1 for r in records if r.get("outcome") == ERROR),
        "skipped": sum(1 for r in records if r.get("outcome") == SKIPPED),
        "passed": passed,
        "accuracy": _ratio(passed, len(scored)) if scored else None,
        "accuracy_ci95": category_fields(scored)["ci95"] if scored else None,
        **confusion,
        "count_finish_reason_tool_call": attempts,
        "count_successful_tool_call": successful,
        "schema_accuracy": _ratio(successful, attempts),
        "schema_accuracy_ci95": as_list(wilson(successful, attempts)),
        **prf,
        "tool_call_f1_ci95": as_list(f1_interval(_decisions_by_unit(scored))),
        "official": {**official, "failed_requests": len(failed)},
        **{f"{name}_official": value for name, value in official_prf.items()},
        **repeat_fields(records),
        "finish_reasons": _histogram(
            "null" if r.get("finish_reason") is None else str(r["finish_reason"]) for r in scored
        ),
        "validation_failures": _histogram(failures),
        "failure_kinds": failure_kind_counts(scored),
    }
    if not scored:  # every item errored or was skipped: nothing was measured, which is not 0
        block.update(dict.fromkeys(("schema_accuracy", *_prf(confusion)), None))
    return block


def _decisions_by_unit(records: list[dict[str, Any]]) -> list[tuple[tuple[bool, bool], ...]]:
    """Each line's (called, should call) decisions, one per attempt: the units of the F1 interval
    (sorted within a unit: F1 does not depend on which attempt came first)."""
    by_unit: dict[Any, list[tuple[bool, bool]]] = {}
    for r in records:
        by_unit.setdefault(record_key(r) or r.get("nodeid"), []).append((record_pred(r), bool(r["should_call_tool"])))
    return [tuple(sorted(decisions)) for decisions in by_unit.values()]


def trigger_agreement(records: list[dict[str, Any]], reference_records: list[dict[str, Any]]) -> dict[str, Any]:
    """This run's call/no-call decisions against another run's (K2VV's vendor check, README metric
    table): positive = called a tool (finish_reason "tool_calls") in the reference run.

    Records pair by (file stem, line index): fields ``stem`` and ``index``, else the general_fc node id.
    Only scored records take part; a key seen twice keeps its last record (counted in ``duplicates``).
    """
    here, here_dupes = _by_key(records)
    there, there_dupes = _by_key(reference_records)
    paired = sorted(here.keys() & there.keys())
    confusion = _confusion([(record_pred(here[k]), record_pred(there[k])) for k in paired])
    return {
        "paired": len(paired),
        "only_here": len(here.keys() - there.keys()),
        "only_in_reference": len(there.keys() - here.keys()),
        "duplicates": here_dupes + there_dupes,
        **confusion,
        "agreement": _ratio(confusion["TP"] + confusion["TN"], len(paired)),
        **_prf(confusion),
    }


def record_key(record: dict[str, Any]) -> tuple[str, int] | None:
    """(file stem, 0-based line index) of a general_fc record, or None when it has neither form."""
    if record.get("stem") is not None and record.get("index") is not None:
        return str(record["stem"]), int(record["index"])
    return None


def _by_key(records: list[dict[str, Any]]) -> tuple[dict[tuple[str, int], dict[str, Any]], int]:
    keyed: dict[tuple[str, int], dict[str, Any]] = {}
    duplicates = 0
    for record in records:
        key = record_key(record)
        if key is None or not is_scored(record):
            continue
        duplicates += key in keyed
        keyed[key] = record
    return keyed, duplicates


def _confusion(pairs: list[tuple[bool, bool]]) -> dict[str, int]:
    """(predicted, actual) pairs → TP/FP/FN/TN, positive = a tool call."""
    counts = {"TP": 0, "FP": 0, "FN": 0, "TN": 0}
    for predicted, actual in pairs:
        counts[("T" if predicted == actual else "F") + ("P" if predicted else "N")] += 1
    return counts


def _prf(confusion: dict[str, int]) -> dict[str, float]:
    precision = _ratio(confusion["TP"], confusion["TP"] + confusion["FP"])
    recall = _ratio(confusion["TP"], confusion["TP"] + confusion["FN"])
    f1 = _ratio(2 * precision * recall, precision + recall)
    return {"tool_call_precision": precision, "tool_call_recall": recall, "tool_call_f1": f1}


def _ratio(numerator: float, denominator: float) -> float:
    """0.0 for an empty denominator."""
    return numerator / denominator if denominator else 0.0


def _histogram(values: Any) -> dict[str, int]:
    """Counts, most frequent first (ties by name)."""
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
