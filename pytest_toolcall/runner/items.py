"""The test function of every benchmark item. Setup fetches, the benchmark's scorer asserts.

Setup asks the model (``recording.ItemProtocol.pytest_runtest_setup``, after the item's fixtures): a request
that never gets an answer makes the item an *error*. The call phase scores: a wrong answer makes it
a *failure*, with the scorer's reason in the message; a verdict that is not measured (no judge) a
*skip*, with its reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, Unit
from pytest_toolcall.core.protocol.types import ChatResponse, RequestError


@dataclasses.dataclass
class Handed:
    """What a unit's test function gets: the answer to score, the unit's record, and what
    ``--toolcall-stream`` judges: the mode, every response the answer was made of, and the streamed
    half of ``both``."""

    answer: Any
    record: dict[str, Any]
    stream: str = "off"
    responses: list[ChatResponse] = dataclasses.field(default_factory=list)
    #: (answer, responses) of the streamed asking, or the RequestError it ended in; None: not asked.
    streamed: tuple[Any, list[ChatResponse]] | RequestError | None = None


#: What the unit whose setup just took its answer got: put here by the run's ``Answers``
#: (``answers.py``), which reads the catalog that these functions are collected into; a key of this
#: module keeps the imports one way (collect -> items <- answers).
HAND_OVER = pytest.StashKey[Callable[[Unit], Handed]]()


def test_function(name: str, benchmark: Benchmark, config: pytest.Config) -> Callable[..., None]:
    """The test function of one benchmark, named after it (so node ids read ``acebench[...]``)."""

    # The benchmark is bound here and the answer is handed over by the run, not through fixtures
    # or ``request``: each costs every item tens of microseconds, a second per 20,000 items.
    def run(toolcall_unit: Unit) -> None:
        from pytest_toolcall.core.safety.text import inert
        from pytest_toolcall.runner import streamed
        from pytest_toolcall.runner.failures import VerdictFailure

        handed = config.stash[HAND_OVER](toolcall_unit)
        record = handed.record
        verdict = benchmark.score(toolcall_unit, handed.answer)
        if handed.stream == "on":
            verdict = streamed.judge_on(verdict, handed.responses, record)
        record.update(verdict.fields, score=1.0 if verdict.passed else 0.0)
        if handed.stream == "both" and handed.streamed is not None:
            # The plain verdict stays the score; a streamed answer that differs fails the item.
            mismatch = streamed.judge_both(benchmark, toolcall_unit, verdict, handed.responses, handed.streamed, record)
            verdict = mismatch or verdict
            record.update(verdict.fields)
        if verdict.not_measured:  # scored, but the verdict is unknown: neither a pass nor a failure
            record.update(score=None, not_measured=inert(verdict.not_measured))
            pytest.skip(record["not_measured"])
        if not verdict.passed:
            # Messages quote model output: inert here, whichever benchmark wrote them.
            record["reason"] = inert(verdict.brief or verdict.message.split("\n", 1)[0])
            record["explanation"] = inert(verdict.message)  # the reason in full, as --tb=long shows it
            for key, value in benchmark.explain(toolcall_unit).items():
                record.setdefault(key, value)
            raise VerdictFailure(inert(verdict.message), pytrace=False)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"One {name} unit under its scorer."
    return run
