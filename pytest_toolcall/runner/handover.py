"""The hand-over: an item's setup takes the answer of its unit (usually fetched already), and its
test function gets it with everything its verdict needs.

A request that got no answer fails the item's setup (an error, not the model's failure); work not
sent (a spent budget, a run that stopped sending) skips it. The record gets the unit's usage either
way.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, Skip, Unit, Verdict
from pytest_toolcall.core.protocol.types import ChatResponse, FatalRequestError, RequestError
from pytest_toolcall.core.safety.text import inert
from pytest_toolcall.model.prefetch import Job
from pytest_toolcall.runner.models import BudgetExhausted
from pytest_toolcall.runner.streamed import Asked, StreamMode
from pytest_toolcall.runner.unit_models import UnitModels, usage_of

if TYPE_CHECKING:
    from pytest_toolcall.runner.work import Work


@dataclasses.dataclass
class UnitJob:
    """A unit's work: one job per asking of the stream mode (the scored one first), each with the
    models it asked through (for its usage)."""

    askings: list[tuple[Job, UnitModels]]

    def start(self) -> None:
        for job, _ in self.askings:
            job.start()

    def pending(self) -> int:
        return sum(job.pending() for job, _ in self.askings)

    def result(self) -> Any:
        return self.askings[0][0].result()

    def cancel(self) -> None:
        for job, _ in self.askings:
            job.cancel()

    def responses(self) -> list[ChatResponse]:
        """The responses the scored answer was made of."""
        return self.askings[0][1].responses()

    def compared(self) -> Asked | None:
        """What the asking that is only compared got (its answer or the ``RequestError`` it ended
        in), once it has finished; None when there is none."""
        if len(self.askings) < 2:
            return None
        job, models = self.askings[1]
        try:
            answer = job.result()
        except RequestError as exc:
            answer = exc
        return Asked(answer, models.responses())

    def usage(self) -> tuple[dict[str, Any] | None, bool]:
        return usage_of([models for _, models in self.askings])


@dataclasses.dataclass
class Handed:
    """What a unit's test function gets: the answer to score, the unit's record, and what the stream
    mode judges (every response the answer was made of, and what the compared asking got)."""

    answer: Any
    record: dict[str, Any]
    stream: StreamMode
    responses: list[ChatResponse] = dataclasses.field(default_factory=list)
    compared: Asked | None = None

    def judge(self, benchmark: Benchmark, unit: Unit) -> Verdict:
        """The item's verdict on the answer, under the stream mode; the record gets the scored
        verdict's fields and score, and the stream's entry."""
        judged = self.stream.judge(
            benchmark, unit, benchmark.score(unit, self.answer), Asked(self.answer, self.responses), self.compared
        )
        record = self.record
        record.update(judged.scored.fields, score=1.0 if judged.scored.passed else 0.0)
        if judged.record is not None:
            record["stream"] = judged.record
        if judged.item is not judged.scored:
            record.update(judged.item.fields)
        return judged.item


def hand(work: Work, job: Job, record: dict[str, Any]) -> Handed:
    """The item's answer and all its test function needs, or the skip or the failure of its setup."""
    compared = job.compared() if isinstance(job, UnitJob) else None  # (first: its requests count in the usage)
    answer = _answer(work, job, record)
    responses = job.responses() if isinstance(job, UnitJob) else []
    return Handed(answer, record, work.stream, responses, compared)


def _answer(work: Work, job: Job, record: dict[str, Any]) -> Any:
    """What the model answered to the item's plan: the responses of its requests, or what its
    dialogue returned."""
    try:
        answer = job.result()
    except BudgetExhausted as exc:
        _keep_usage(job, record)
        record["not_run"] = "budget"  # the gate counts it as not run: the run is partial
        pytest.skip(str(exc))
    except FatalRequestError as exc:
        # The first such answer is this item's error; every later item is skipped with its reason.
        if work.stopped is not None:
            record["stopped"] = True
            pytest.skip(f"not sent: {work.stopped}")
        work.stop(str(exc))
        _keep_usage(job, record)
        record.update(error=inert(exc), stopped=True)
        pytest.fail(f"request failed: {inert(exc)}", pytrace=False)
    except RequestError as exc:
        _keep_usage(job, record)
        record["error"] = inert(exc)
        pytest.fail(f"request failed: {inert(exc)}", pytrace=False)
    if isinstance(answer, Skip):
        if work.stopped is not None and answer.reason.startswith("not sent:"):
            record["stopped"] = True
        pytest.skip(inert(answer.reason))
    _keep_usage(job, record)
    if isinstance(answer, list) and answer and all(isinstance(r, ChatResponse) for r in answer):
        record["latency_s"] = round(max(r.latency_s for r in answer), 4)
    elif record["usage"]:  # a dialogue: its requests one after the other
        record["latency_s"] = round(sum(r["latency_s"] for r in record["usage"]["requests"]), 4)
    return answer


def _keep_usage(job: Job, record: dict[str, Any]) -> None:
    if isinstance(job, UnitJob):
        record["usage"], record["from_store"] = job.usage()
