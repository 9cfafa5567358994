"""The test function of every benchmark item. Fixtures fetch, the benchmark's scorer asserts.

Setup (the fixtures) asks the model: a request that never gets an answer makes the item an
*error*. The call phase scores: a wrong answer makes it a *failure*, with the scorer's reason in the
message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.core.benchmark import Benchmark, Unit


def test_function(name: str, benchmark: Benchmark) -> Callable[..., None]:
    """The test function of one benchmark, named after it (so node ids read ``acebench[...]``)."""

    # The benchmark is bound here, not fetched through a fixture: every fixture costs each item.
    def run(toolcall_unit: Unit, toolcall_answer: Any, toolcall_record: dict[str, Any], request: Any) -> None:
        from pytest_toolcall.runner.failures import VERDICT, VerdictFailure

        verdict = benchmark.score(toolcall_unit, toolcall_answer)
        toolcall_record.update(verdict.fields, score=1.0 if verdict.passed else 0.0)
        if not verdict.passed:
            toolcall_record["reason"] = verdict.brief or verdict.message.split("\n", 1)[0]
            request.node.stash[VERDICT] = verdict
            raise VerdictFailure(verdict.message, pytrace=False)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = f"One {name} unit under its scorer."
    return run
