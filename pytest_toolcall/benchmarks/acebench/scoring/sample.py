"""Score one ACEBench normal or special unit from the model's output text(s)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.api.text import clip, one_line
from pytest_toolcall.benchmarks.acebench.dataset import Sample, family, is_multi_turn_normal
from pytest_toolcall.benchmarks.acebench.decode import DecodeError, decode_multi_turn, decode_single_turn
from pytest_toolcall.benchmarks.acebench.scoring.normal import check_normal
from pytest_toolcall.benchmarks.acebench.scoring.special import check_special
from pytest_toolcall.benchmarks.acebench.scoring.verdict import Verdict


@dataclass(frozen=True)
class StepResult:
    id: str
    output: str
    decoded: list[dict[str, Any]] | None  # None when the output does not decode
    verdict: Verdict


@dataclass(frozen=True)
class SampleResult:
    steps: tuple[StepResult, ...]

    @property
    def passed(self) -> bool:
        return all(step.verdict.valid for step in self.steps)

    @property
    def process(self) -> float | None:
        """Normal multi-turn only: the fraction of valid steps, rounded as the official code does."""
        if len(self.steps) == 1:
            return None
        return round(sum(s.verdict.valid for s in self.steps) / len(self.steps), 3)


def score_sample(sample: Sample, outputs: Sequence[str | None]) -> SampleResult:
    if len(outputs) != len(sample.steps):
        raise ValueError(f"{sample.id}: {len(sample.steps)} step(s) but {len(outputs)} output(s)")
    return SampleResult(tuple(score_step(sample, i, output or "") for i, output in enumerate(outputs)))


def score_step(sample: Sample, index: int, output: str) -> StepResult:
    step = sample.steps[index]
    if family(sample.category) == "special":
        return StepResult(step.id, output, None, check_special(sample.category, output, step.ground_truth))
    decode = decode_multi_turn if is_multi_turn_normal(sample.category) else decode_single_turn
    try:
        calls = decode(output)
    except DecodeError as exc:
        return StepResult(step.id, output, None, Verdict(False, "wrong_output_format", f"cannot decode: {exc}"))
    verdict = check_normal(step.row["function"], calls, step.ground_truth)
    return StepResult(step.id, output, [call.as_dict() for call in calls], verdict)


def explain(sample: Sample, result: SampleResult, brief: bool = False) -> str:
    """A failure message a person can act on: rule, raw output, decoded calls, expected answer
    (``brief``: the failing steps' rule and raw output only)."""
    lines = []
    for step, step_result in zip(sample.steps, result.steps, strict=True):
        verdict = step_result.verdict
        head = f"{step.id}: " if len(sample.steps) > 1 else ""
        if verdict.valid:
            if not brief:
                lines.append(f"{head}ok")
            continue
        lines.append(f"{head}{verdict.message or verdict.error_type}")
        lines.append(f"    output:   {one_line(step_result.output, 600)}")
        if brief:
            continue
        if step_result.decoded is not None:
            lines.append(f"    decoded:  {one_line(clip(step_result.decoded, 600), 600)}")
        lines.append(f"    expected: {one_line(clip(step.ground_truth, 600), 600)}")
    return "\n".join(lines)
