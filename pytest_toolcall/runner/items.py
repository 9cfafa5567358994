"""The test function of every benchmark item. Setup fetches, the benchmark's scorer asserts.

Setup asks the model (``recording.ItemProtocol.pytest_runtest_setup``, after the item's fixtures): a request
that never gets an answer makes the item an *error*. The call phase scores: a wrong answer makes it
a *failure*, with the scorer's reason in the message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolcall.core.benchmark import Benchmark, Unit

#: (answer, record) of the unit whose setup just took its answer: put here by the run's ``Answers``
#: (``answers.py``), which reads the catalog that these functions are collected into; a key of this
#: module keeps the imports one way (collect -> items <- answers).
HAND_OVER = pytest.StashKey[Callable[[Unit], tuple[Any, dict[str, Any]]]]()


def test_function(name: str, benchmark: Benchmark, config: pytest.Config) -> Callable[..., None]:
    """The test function of one benchmark, named after it (so node ids read ``acebench[...]``)."""

    # The benchmark is bound here and the answer is handed over by the run, not through fixtures
    # or ``request``: each costs every item tens of microseconds, a second per 20,000 items.
    def run(toolcall_unit: Unit) -> None:
        from pytest_toolcall.core.text import inert
        from pytest_toolcall.runner.failures import VerdictFailure

        answer, record = config.stash[HAND_OVER](toolcall_unit)
        verdict = benchmark.score(toolcall_unit, answer)
        record.update(verdict.fields, score=1.0 if verdict.passed else 0.0)
        if not verdict.passed:
            # Messages quote model output: inert here, whichever benchmark wrote them.
            record["reason"] = inert(verdict.brief or verdict.message.split("\n", 1)[0])
            raise VerdictFailure(inert(verdict.message), pytrace=False)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"One {name} unit under its scorer."
    return run
