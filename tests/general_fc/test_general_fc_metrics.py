"""general_fc aggregates (K2-Vendor-Verifier's metric table) and trigger agreement against a reference run."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.benchmarks.general_fc.metrics import general_fc_metrics, record_key, trigger_agreement


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


# ---- trigger agreement --------------------------------------------------------------------------


def run_records(preds: dict[int, bool], stem: str = "calls", **fields: Any) -> list[dict[str, Any]]:
    return [
        rec(True, "tool_calls" if pred else "stop", True if pred else None, stem=stem, index=i, **fields)
        for i, pred in preds.items()
    ]


def test_agreement_counts_and_scores() -> None:
    here = run_records({0: True, 1: True, 2: False, 3: False, 4: True, 5: True})
    reference = run_records({0: True, 1: False, 2: True, 3: False, 4: True, 9: True})
    agreement = trigger_agreement(here, reference)
    assert agreement == {
        "paired": 5,
        "only_here": 1,
        "only_in_reference": 1,
        "duplicates": 0,
        "TP": 2,
        "FP": 1,
        "FN": 1,
        "TN": 1,
        "agreement": 3 / 5,
        "tool_call_precision": 2 / 3,
        "tool_call_recall": 2 / 3,
        "tool_call_f1": pytest.approx(2 / 3),
    }


def test_agreement_pairs_by_stem_and_index_not_order() -> None:
    here = run_records({0: True, 1: False}, stem="a") + run_records({0: False}, stem="b")
    reference = list(reversed(run_records({0: True, 1: False}, stem="a") + run_records({0: True}, stem="b")))
    agreement = trigger_agreement(here, reference)
    assert (agreement["paired"], agreement["TP"], agreement["TN"], agreement["FN"]) == (3, 1, 1, 1)


def test_agreement_pairs_by_record_fields_never_by_node_id() -> None:
    """Identity travels as data: a record without stem and index is never paired, whatever its
    node id says."""
    here = [rec(True, "tool_calls", True, nodeid="toolcall::general_fc[k2vv/3]", stem="k2vv", index=3)]
    reference = [rec(True, "tool_calls", True, nodeid="toolcall::general_fc[k2vv/3]", index=None)]
    assert record_key(here[0]) == ("k2vv", 3)
    assert record_key(reference[0]) is None
    assert trigger_agreement(here, reference)["paired"] == 0


def test_agreement_ignores_unscored_and_foreign_records() -> None:
    here = [*run_records({0: True, 1: True}), rec(True, None, outcome="error", stem="calls", index=2)]
    reference = [*run_records({0: True, 2: True}), rec(True, None, outcome="error", stem="calls", index=1)]
    reference.append(rec(True, "tool_calls", nodeid="toolcall::acebench[en/normal_atom_bool_1]"))
    agreement = trigger_agreement(here, reference)
    assert (agreement["paired"], agreement["only_here"], agreement["only_in_reference"]) == (1, 1, 1)


def test_agreement_counts_duplicates_last_wins() -> None:
    here = run_records({0: True}) + run_records({0: False})
    agreement = trigger_agreement(here, run_records({0: False}))
    assert (agreement["duplicates"], agreement["TN"], agreement["paired"]) == (1, 1, 1)


def test_agreement_with_nothing_paired_is_zero() -> None:
    agreement = trigger_agreement(run_records({0: True}), [])
    assert agreement["paired"] == 0
    assert agreement["agreement"] == agreement["tool_call_f1"] == 0.0
