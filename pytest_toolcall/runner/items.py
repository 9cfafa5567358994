"""The test function of every benchmark item. Setup fetches, the benchmark's scorer asserts.

Setup asks the model (``recording.ItemProtocol.pytest_runtest_setup``, after the item's fixtures): a request
that never gets an answer makes the item an *error*. The call phase scores: a wrong answer makes it
a *failure*, with the scorer's reason in the message; a verdict that is not measured (no judge) a
*skip*, with its reason.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_toolcall.core.protocol.benchmark import Benchmark, Unit
from pytest_toolcall.runner.keys import HAND_OVER


def test_function(name: str, benchmark: Benchmark, config: pytest.Config) -> Callable[..., None]:
    """The test function of one benchmark, named after it (so node ids read ``acebench[...]``)."""

    # The benchmark is bound here and the answer is handed over by the run, not through fixtures
    # or ``request``: each costs every item tens of microseconds, a second per 20,000 items.
    def run(toolcall_unit: Unit) -> None:
        from pytest_toolcall.core.safety.text import inert
        from pytest_toolcall.runner.failures import VerdictFailure

        handed = config.stash[HAND_OVER](toolcall_unit)  # (put there by ``work.Work``, after the setup)
        record = handed.record
        verdict = handed.judge(benchmark, toolcall_unit)  # the record gets its score and stream entry
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
