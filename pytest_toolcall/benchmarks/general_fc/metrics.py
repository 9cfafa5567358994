"""general_fc aggregates: the confusion over call/no-call decisions, precision, recall, F1 and schema
accuracy (K2-Vendor-Verifier's metric table), and agreement with a reference run (``agreement``).

Two views of failed requests: the metrics over the lines that got an answer (errors left out), and
K2-Vendor-Verifier's, where a request that failed counts as an answer without a tool call (its
``*_official`` fields and ``official`` counts). Intervals (``core.stats.intervals``): ``tool_call_f1_ci95``
from the bootstrap over (predicted, label) units, ``schema_accuracy_ci95`` Wilson over the tool-call
attempts, ``accuracy_ci95`` of passed/scored; under ``--toolcall-repeat`` each attempt is a unit of these
intervals, and the block has ``pass_hat_k`` and ``flaky``."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import MAJORITY, failure_kind_counts
from pytest_toolcall.api.statistics import (
    accuracy_interval,
    as_list,
    attempt_scores,
    category_fields,
    compare_f1,
    compare_metric,
    f1_interval,
    repeat_fields,
    unit_key,
    unit_means,
    wilson,
)
from pytest_toolcall.benchmarks.general_fc.scoring import ERROR, OTHER, SKIPPED, TOOL_CALLS

# ---- what the declaration (``benchmark.METRICS``) names -----------------------------------------


def general_fc_block(benchmark: Any, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The block: K2-Vendor-Verifier's metrics, and agreement with the reference run when there is one
    (from the samples alone, each carrying the reference's decision, so that a report recomputes
    offline without the reference file: the option says whether there was one)."""
    block = general_fc_metrics(records)
    if benchmark.settings.option("reference"):
        block.update(agreement_fields(records))
    return block


def compare_decisions(baseline: list[dict[str, Any]], now: list[dict[str, Any]]) -> dict[str, Any]:
    """Tool-call F1 against the baseline over the lines both runs answered; under repeats a line's
    decision is the majority of its attempts (a tie counts as a call: ``MAJORITY``)."""

    def decisions(rows: list[dict[str, Any]]) -> dict[str, tuple[bool, bool]]:
        votes: dict[str, list[float]] = {}
        labels: dict[str, bool] = {}
        for r in rows:
            if is_scored(r):
                votes.setdefault(unit_key(r), []).append(1.0 if record_pred(r) else 0.0)
                labels[unit_key(r)] = bool(r["should_call_tool"])
        return {key: (MAJORITY.value(calls) == 1.0, labels[key]) for key, calls in votes.items()}

    return compare_f1(decisions(baseline), decisions(now))


def compare_passes(baseline: list[dict[str, Any]], now: list[dict[str, Any]]) -> dict[str, Any]:
    """The share of lines passed against the baseline, over the lines both runs answered."""

    def passes(rows: list[dict[str, Any]]) -> dict[str, float]:
        return unit_means(attempt_scores([r for r in rows if is_scored(r)]))

    return compare_metric(passes(baseline), passes(now))


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


def reference_decisions(samples: list[dict[str, Any]]) -> dict[tuple[str, int], bool | None]:
    """The reference run's decision to call per line (file stem, line index) from its report's
    samples: every general_fc line it holds, None where no attempt got an answer; under repeats the
    majority of its attempts (a tie counts as a call, as in the baseline comparison)."""
    votes: dict[tuple[str, int], list[bool]] = {}
    for sample in samples:
        key = record_key(sample) if sample.get("benchmark") == "general_fc" else None
        if key is not None:
            votes.setdefault(key, []).extend([record_pred(sample)] if is_scored(sample) else [])
    return {key: 2 * sum(calls) >= len(calls) if calls else None for key, calls in votes.items()}


def agreement_fields(records: list[dict[str, Any]]) -> dict[str, Any]:
    """This run's decisions to call against the reference run's (K2-Vendor-Verifier's vendor check),
    from each record's ``reference_calls`` (the reference's decision on its line, None when it has
    none): ``agreement``, the share of the paired answers that decide as the reference did, with
    ``agreement_ci95`` (``core.stats.intervals.accuracy_interval``: Wilson when each line ran once) and
    ``agreement_official`` (a failed request counts as an answer without a call, as in
    ``tool_call_f1_official``); ``reference_agreement`` holds the counts and the confusion with the
    reference's decision as the label (positive = a call)."""
    scored = [r for r in records if is_scored(r)]
    paired = [r for r in scored if r.get("reference_calls") is not None]
    failed = [r for r in records if r.get("outcome") == ERROR and r.get("reference_calls") is not None]
    confusion = _confusion([(record_pred(r), bool(r["reference_calls"])) for r in paired])
    agreeing = confusion["TP"] + confusion["TN"]
    by_line: dict[Any, list[float]] = {}
    for r in paired:
        by_line.setdefault(record_key(r), []).append(1.0 if record_pred(r) == r["reference_calls"] else 0.0)
    official = agreeing + sum(1 for r in failed if not r["reference_calls"])
    prf: dict[str, float | None] = {**_prf(confusion)} if paired else dict.fromkeys(_prf(confusion))
    return {
        "agreement": agreeing / len(paired) if paired else None,
        "agreement_ci95": as_list(accuracy_interval(by_line)) if paired else None,
        "agreement_official": official / (len(paired) + len(failed)) if paired or failed else None,
        # unpaired: answers on lines where the reference's request got no answer.
        "reference_agreement": {"paired": len(paired), "unpaired": len(scored) - len(paired), **confusion, **prf},
    }


def record_key(record: dict[str, Any]) -> tuple[str, int] | None:
    """(file stem, 0-based line index) of a general_fc record, or None when it has neither form."""
    if record.get("stem") is not None and record.get("index") is not None:
        return str(record["stem"]), int(record["index"])
    return None


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
