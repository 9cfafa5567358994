"""Loading a case file: read and validated (``format.py``), then every case checked against the
oracle: an expectation that even the oracle's answer fails (a listed value the schema forbids, a
required argument the case forbids) is a mistake of its author, reported at load time because no
model could pass it either.
"""

from __future__ import annotations

from pathlib import Path

from pytest_toolcall.benchmarks.cases.format import Case, CaseFileError, read_case_file
from pytest_toolcall.benchmarks.cases.oracle import OracleError, oracle_answer
from pytest_toolcall.benchmarks.cases.response import judge_case
from pytest_toolcall.core.types import ChatResponse


def load_case_file(path: str | Path) -> list[Case]:
    """Every case of a file, or a ``CaseFileError`` for the first problem found."""
    cases = read_case_file(path)
    for case in cases:
        try:
            check_oracle(case)
        except OracleError as exc:
            raise CaseFileError(case.file, case.line, f"case {case.id!r}: {exc}") from None
    return cases


def check_oracle(case: Case) -> None:
    """Raises ``OracleError`` when the oracle's answer does not pass the case."""
    answer = oracle_answer(case)
    calls = answer.get("tool_calls") or []
    response = ChatResponse(
        answer.get("content"), "tool_calls" if calls else "stop", calls, status=answer.get("status", 200)
    )
    verdict = judge_case(case, response)
    if not verdict.passed:
        raise OracleError(f"even the expected answer fails this case, so no model can pass it: {verdict.message}")
