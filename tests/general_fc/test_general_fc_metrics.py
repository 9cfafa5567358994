"""general_fc aggregates (K2-Vendor-Verifier's metric table) and agreement with a reference run."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_toolcall.benchmarks.general_fc.metrics import (
    agreement_fields,
    general_fc_metrics,
    record_key,
    reference_decisions,
)


def rec(
    label: bool,
    finish: str | None,
    valid: bool | None = None,
    outcome: str = "passed",
    kind: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    record = {"should_call_tool": label, "finish_reason": finish, "schema_valid": valid, "outcome": outcome, **extra}
    if kind is not None:
        record["reason_kind"] = kind
    return record


def worked_example() -> list[dict[str, Any]]:
    """TP 27, FP 17, FN 13, TN 3, and 4 of the 44 attempts valid (a worked example)."""
    records = [rec(True, "tool_calls", i < 4) for i in range(27)]
    records += [rec(False, "tool_calls", False, "failed", "schema_error") for _ in range(17)]
    records += [rec(True, "stop", outcome="failed") for _ in range(13)]
    records += [rec(False, "stop") for _ in range(3)]
    return records


def test_worked_example() -> None:
    metrics = general_fc_metrics(worked_example())
    assert {k: metrics[k] for k in ("TP", "FP", "FN", "TN")} == {"TP": 27, "FP": 17, "FN": 13, "TN": 3}
    assert metrics["count_finish_reason_tool_call"] == 44
    assert metrics["count_successful_tool_call"] == 4
    assert round(metrics["tool_call_precision"], 4) == 0.6136
    assert metrics["tool_call_recall"] == pytest.approx(0.675)
    assert round(metrics["tool_call_f1"], 4) == 0.6429
    assert round(metrics["schema_accuracy"], 4) == 0.0909
    assert (metrics["n"], metrics["scored"], metrics["errors"]) == (60, 60, 0)


def test_all_keys_present() -> None:
    assert set(general_fc_metrics([])) == {
        "n",
        "scored",
        "errors",
        "skipped",
        "passed",
        "TP",
        "FP",
        "FN",
        "TN",
        "count_finish_reason_tool_call",
        "count_successful_tool_call",
        "schema_accuracy",
        "tool_call_precision",
        "tool_call_recall",
        "tool_call_f1",
        "finish_reasons",
        "validation_failures",
        "failure_kinds",
        # issue 14: intervals, and K2-Vendor-Verifier's view where a failed request is no call
        "accuracy",
        "accuracy_ci95",
        "schema_accuracy_ci95",
        "tool_call_f1_ci95",
        "official",
        "tool_call_precision_official",
        "tool_call_recall_official",
        "tool_call_f1_official",
    }


def test_zero_denominators_give_zero() -> None:
    # No call, no positive label: every denominator is 0, as in K2-Vendor-Verifier.
    metrics = general_fc_metrics([rec(False, "stop"), rec(False, "length")])
    for key in ("schema_accuracy", "tool_call_precision", "tool_call_recall", "tool_call_f1"):
        assert metrics[key] == 0.0


@pytest.mark.parametrize("records", [[], [rec(True, "error", outcome="error")]], ids=["empty", "only errors"])
def test_nothing_scored_is_not_measured(records: list[dict[str, Any]]) -> None:
    # Issue 11 (d): with nothing scored the metrics are null ("not measured"), never 0.
    metrics = general_fc_metrics(records)
    for key in ("schema_accuracy", "tool_call_precision", "tool_call_recall", "tool_call_f1"):
        assert metrics[key] is None


def test_precision_without_recall_gives_zero_f1() -> None:
    # All predictions are false positives: P = 0, R = 0/0 → 0, F1 = 0/0 → 0.
    metrics = general_fc_metrics([rec(False, "tool_calls", True, "failed")])
    assert (metrics["tool_call_precision"], metrics["tool_call_recall"], metrics["tool_call_f1"]) == (0.0, 0.0, 0.0)
    assert metrics["schema_accuracy"] == 1.0


def test_errors_and_skipped_are_excluded_but_counted() -> None:
    records = worked_example()
    records += [rec(True, None, outcome="error") for _ in range(5)]
    # Even a record that somehow carries a finish reason is not scored when its outcome is an error.
    records.append(rec(True, "tool_calls", True, outcome="error"))
    records += [rec(False, None, outcome="skipped") for _ in range(2)]
    metrics = general_fc_metrics(records)
    assert (metrics["n"], metrics["scored"], metrics["errors"], metrics["skipped"]) == (68, 60, 6, 2)
    official = ("official", "tool_call_precision_official", "tool_call_recall_official", "tool_call_f1_official")
    answered = {k: v for k, v in metrics.items() if k not in official}
    clean = {k: v for k, v in general_fc_metrics(worked_example()).items() if k not in official}
    assert answered == {**clean, "n": 68, "errors": 6, "skipped": 2}
    # K2-Vendor-Verifier's view: the six failed requests (all labelled "call") are six more false negatives.
    assert metrics["official"] == {
        **{k: clean[k] for k in ("TP", "FP", "TN")},
        "FN": clean["FN"] + 6,
        "failed_requests": 6,
    }


def test_xfail_outcomes_are_scored() -> None:
    metrics = general_fc_metrics([rec(True, "tool_calls", True, "xpassed"), rec(True, "stop", outcome="xfailed")])
    assert (metrics["scored"], metrics["TP"], metrics["FN"]) == (2, 1, 1)


def test_only_finish_reason_tool_calls_is_a_prediction() -> None:
    records = [rec(True, "function_call"), rec(True, "stop"), rec(True, "length"), rec(True, None)]
    assert general_fc_metrics(records)["FN"] == 4


def test_finish_reason_histogram() -> None:
    records = [*worked_example(), rec(True, "length", outcome="failed"), rec(True, None, outcome="failed")]
    records.append(rec(True, "length", outcome="error"))  # not scored: not in the histogram
    assert general_fc_metrics(records)["finish_reasons"] == {"tool_calls": 44, "stop": 16, "length": 1, "null": 1}


def test_validation_failure_histogram_adds_up() -> None:
    records = [
        rec(True, "tool_calls", False, "failed", "json_decode"),
        rec(True, "tool_calls", False, "failed", "json_decode"),
        rec(True, "tool_calls", False, "failed", "unknown_tool"),
        rec(False, "tool_calls", False, "failed", "empty_tool_calls"),  # label false still counts as an attempt
        rec(True, "tool_calls", False, "failed"),  # no kind recorded
        rec(True, "tool_calls", True),
        rec(True, "stop", outcome="failed", kind="schema_error"),  # not an attempt: ignored
    ]
    metrics = general_fc_metrics(records)
    assert metrics["validation_failures"] == {"json_decode": 2, "empty_tool_calls": 1, "other": 1, "unknown_tool": 1}
    assert (
        sum(metrics["validation_failures"].values())
        == metrics["count_finish_reason_tool_call"] - metrics["count_successful_tool_call"]
    )


# ---- agreement with a reference run ------------------------------------------------------------


def sample(pred: bool, index: int, stem: str = "calls", outcome: str = "passed", **fields: Any) -> dict[str, Any]:
    """A general_fc sample of a report: its decision, its line, and whatever else is given."""
    finish = None if outcome == "error" else "tool_calls" if pred else "stop"
    return rec(True, finish, True if pred else None, outcome, benchmark="general_fc", stem=stem, index=index, **fields)


def against(reference: dict[int, bool | None], preds: dict[int, bool]) -> list[dict[str, Any]]:
    """This run's records (``preds``), each with the reference's decision on its line, as ``load`` sets it."""
    return [sample(pred, i, reference_calls=reference[i]) for i, pred in preds.items()]


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    """Wilson's score interval written out: (p + z²/2n ± z·√(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.96."""
    z, p = 1.96, k / n
    centre, half, shrink = p + z * z / (2 * n), z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5, 1 + z * z / n
    return (centre - half) / shrink, (centre + half) / shrink


def test_reference_decisions_per_line() -> None:
    reference = [
        sample(True, 0),
        sample(False, 1),
        sample(True, 2, outcome="error"),  # no answer: no decision, but the line is in the reference
        *(sample(p, 3, repeat=k) for k, p in enumerate((True, False, False), 1)),  # majority: no call
        *(sample(p, 4, repeat=k) for k, p in enumerate((True, False), 1)),  # a tie counts as a call
        sample(False, 0, stem="other"),
        {**sample(True, 5), "benchmark": "acebench"},  # not a general_fc sample
        {**sample(True, 6), "stem": None},  # no line to pair by, whatever its node id says
    ]
    assert reference_decisions(reference) == {
        ("calls", 0): True,
        ("calls", 1): False,
        ("calls", 2): None,
        ("calls", 3): False,
        ("calls", 4): True,
        ("other", 0): False,
    }


def test_agreement_counts_confusion_and_wilson_interval() -> None:
    reference = {0: True, 1: False, 2: True, 3: False, 4: True, 5: None}
    fields = agreement_fields(against(reference, {0: True, 1: True, 2: False, 3: False, 4: True, 5: True}))
    assert fields["reference_agreement"] == {
        "paired": 5,
        "unpaired": 1,  # line 5: the reference's request got no answer
        "TP": 2,
        "FP": 1,
        "FN": 1,
        "TN": 1,
        "tool_call_precision": 2 / 3,
        "tool_call_recall": 2 / 3,
        "tool_call_f1": pytest.approx(2 / 3),
    }
    assert fields["agreement"] == 3 / 5 == fields["agreement_official"]
    assert fields["agreement_ci95"] == pytest.approx(wilson_by_hand(3, 5))
    assert wilson_by_hand(3, 5) == pytest.approx((0.2307, 0.8824), abs=1e-4)


def test_agreement_official_counts_a_failed_request_as_no_call() -> None:
    records = [
        *against({0: True, 1: False}, {0: True, 1: True}),
        sample(False, 2, outcome="error", reference_calls=False),  # no call, as the reference: agrees
        sample(False, 3, outcome="error", reference_calls=True),  # disagrees
        sample(False, 4, outcome="error", reference_calls=None),  # nothing to compare with
    ]
    fields = agreement_fields(records)
    assert (fields["agreement"], fields["agreement_official"]) == (1 / 2, 2 / 4)
    assert fields["reference_agreement"]["paired"] == 2


def test_agreement_interval_under_repeats_takes_each_line_as_a_unit() -> None:
    """Each line agrees in one attempt of two: every resample of lines has the mean 0.5, so the
    bootstrap over lines is [0.5, 0.5]; but 6 lines justify no narrower interval than Wilson's for 3
    of 6 (the lines as units, each at its mean), and 12 independent attempts (Wilson 6 of 12) would
    claim a narrower one."""
    records = [
        sample(pred, i, repeat=k, reference_calls=True) for i in range(6) for k, pred in enumerate((True, False), 1)
    ]
    fields = agreement_fields(records)
    assert fields["agreement"] == 0.5

    def wilson_by_hand(k: float, n: int) -> list[float]:
        z, p = 1.96, k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return [centre - half, centre + half]

    assert fields["agreement_ci95"] == pytest.approx(wilson_by_hand(3, 6))
    lo, hi = fields["agreement_ci95"]
    assert hi - lo > wilson_by_hand(6, 12)[1] - wilson_by_hand(6, 12)[0]


def test_agreement_with_nothing_paired_is_not_measured() -> None:
    fields = agreement_fields(against({0: None}, {0: True}))
    assert fields["agreement"] is fields["agreement_ci95"] is fields["agreement_official"] is None
    assert fields["reference_agreement"]["paired"] == 0 and fields["reference_agreement"]["unpaired"] == 1
    assert fields["reference_agreement"]["tool_call_f1"] is None


def test_record_key_needs_stem_and_index() -> None:
    assert record_key(sample(True, 3, stem="k2vv")) == ("k2vv", 3)
    assert record_key({**sample(True, 3), "index": None}) is None
