"""general_fc scoring: one response → verdict, records → metrics.

The validation is K2-Vendor-Verifier's (``validate_tool_call``), not evalscope's: the raw arguments
string goes through ``json.loads``, the tool is the first of that name, the schema is checked first,
no format checker, and an empty ``tool_calls`` list under ``finish_reason == "tool_calls"`` is invalid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_toolcall.api import UNEXPECTED_CALL, ChatResponse
from pytest_toolcall.api.native import (
    EMPTY_TOOL_CALLS,
    FAILURE_KIND,
    INVALID_SCHEMA,
    JSON_DECODE,
    MISSING_PARAMETERS,
    OTHER,
    REASON_KINDS,
    SCHEMA_ERROR,
    TOOL_CALLS,
    UNKNOWN_TOOL,
    Failure,
    compile_schema,
    describe_calls,
    missing_call_kind,
    validate_tool_calls,
)
from pytest_toolcall.api.text import clip
from pytest_toolcall.benchmarks.general_fc.dataset import GeneralFCSample

__all__ = [  # the validation vocabulary, as general_fc's records and metrics name it
    "EMPTY_TOOL_CALLS",
    "ERROR",
    "INVALID_SCHEMA",
    "JSON_DECODE",
    "MISSING_PARAMETERS",
    "OTHER",
    "REASON_KINDS",
    "SCHEMA_ERROR",
    "SKIPPED",
    "TOOL_CALLS",
    "UNKNOWN_TOOL",
    "Failure",
    "GeneralFCResult",
    "compile_schema",
    "score_response",
    "validate_tool_calls",
]

#: Record outcomes without an answer to score: excluded from every metric.
ERROR, SKIPPED = "error", "skipped"


@dataclass(frozen=True)
class GeneralFCResult:
    should_call_tool: bool
    finish_reason: str | None
    n_calls: int
    pred: bool  # finish_reason == "tool_calls", nothing else
    valid: bool | None  # only when pred; None otherwise
    successful: bool  # pred and valid
    passed: bool  # label true: successful; label false: not pred
    reason: str  # why the sample failed, "" when it passed
    reason_kind: str | None  # the validation failure kind when valid is False
    validation_reason: str  # the validation failure, even when the decision already failed the sample
    failure_kind: str | None  # why the sample failed, in the vocabulary of native tool calling

    def record(self) -> dict[str, Any]:
        """The fields a per-sample record needs for ``general_fc_metrics`` (plain builtins)."""
        fields = dict(vars(self))  # every field is a scalar: asdict's deep copy is not needed
        fields["schema_valid"] = fields.pop("valid")
        return fields


def score_response(sample: GeneralFCSample, response: ChatResponse) -> GeneralFCResult:
    calls = response.tool_calls or []
    pred = response.finish_reason == TOOL_CALLS
    failure = validate_tool_calls(sample.tools, calls) if pred else None
    valid = failure is None if pred else None
    successful = pred and failure is None
    kind = None
    if sample.should_call_tool:
        passed = successful
        if not pred:
            reason = f"expected a tool call, got finish_reason {response.finish_reason!r}"
            if calls:  # calls returned under another finish reason do not count
                reason += f" with {len(calls)} call(s) (only finish_reason 'tool_calls' counts)"
                reason += f": {describe_calls(calls)}"
            elif response.content:
                reason += f" and the text {clip(response.content, 200)!r}"
            kind = _missing_call_kind(sample, response)
        elif failure:
            reason, kind = failure.message, FAILURE_KIND[failure.kind]
        else:
            reason = ""
    else:
        passed = not pred
        if passed:
            reason = ""
        elif calls:
            reason = f"expected no tool call, got {len(calls)} call(s): {describe_calls(calls)}"
        else:
            reason = f"expected no tool call, got finish_reason {TOOL_CALLS!r} (with no tool_calls)"
        kind = None if passed else UNEXPECTED_CALL
    return GeneralFCResult(
        should_call_tool=sample.should_call_tool,
        finish_reason=response.finish_reason,
        n_calls=len(calls),
        pred=pred,
        valid=valid,
        successful=successful,
        passed=passed,
        reason=reason,
        reason_kind=failure.kind if failure else None,
        validation_reason=failure.message if failure else "",
        failure_kind=kind,
    )


def _missing_call_kind(sample: GeneralFCSample, response: ChatResponse) -> str:
    names = [tool["function"]["name"] for tool in sample.tools]
    return missing_call_kind(response.finish_reason, response.content, names)
