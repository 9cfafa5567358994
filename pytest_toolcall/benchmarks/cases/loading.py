"""Loading a case file: read and validated (``format.py``), then every case checked against the
oracle: an expectation that even the oracle's answer fails (a listed value the schema forbids, a
required argument the case forbids) is a mistake of its author, reported at load time because no
model could pass it either. A multi-step case is checked by the oracle's whole run (every call
answered "ok"), unless the oracle cannot answer it or its server's tools are not known here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pytest_toolcall.api import ChatRequest, ChatResponse
from pytest_toolcall.benchmarks.cases.dialogue import judge_run
from pytest_toolcall.benchmarks.cases.format import Case, CaseFileError, read_case_file
from pytest_toolcall.benchmarks.cases.oracle import NotAnswerable, OracleError, oracle_answer, oracle_steps
from pytest_toolcall.benchmarks.cases.response import judge_case
from pytest_toolcall.benchmarks.cases.steps import Transcript, run_steps

if TYPE_CHECKING:
    from pytest_toolcall.benchmarks.cases.mcp_servers import ServerPool


def load_case_file(path: str | Path, servers: ServerPool | None = None, name: str | None = None) -> list[Case]:
    """Every case of a file, or one ``CaseFileError`` for all the problems found. ``servers`` and
    ``name``: see ``format.read_case_file``."""
    cases = read_case_file(path, servers, name)
    problems: list[tuple[int, str]] = []
    for case in cases:
        try:
            check_oracle(case)
        except OracleError as exc:
            problems.append((case.line, f"case {case.id!r}: {exc}"))
    if problems:
        raise CaseFileError.several(cases[0].file, problems)
    return cases


def check_oracle(case: Case) -> None:
    """Raises ``OracleError`` when the oracle's answer does not pass the case."""
    if case.multi_step:
        _check_run(case)
        return
    answer = oracle_answer(case)
    calls = answer.get("tool_calls") or []
    response = ChatResponse(
        answer.get("content"),
        "tool_calls" if calls else "stop",
        calls,
        status=answer.get("status", 200),
        usage=answer.get("usage"),
    )
    verdict = judge_case(case, response)
    if not verdict.passed:
        raise OracleError(f"even the expected answer fails this case, so no model can pass it: {verdict.message}")


def _check_run(case: Case) -> None:
    if case.tools_pending:
        return  # checked when the tools were known (the run that recorded them)
    try:
        answers = oracle_steps(case)
    except NotAnswerable:
        return  # the case is fine; the oracle's run says it cannot answer it
    transcript = oracle_run(case, answers)
    verdict = judge_run(case, transcript)
    if not verdict.passed:
        raise OracleError(f"even the expected run fails this case, so no model can pass it: {verdict.message}")


def oracle_run(case: Case, answers: list[dict[str, object]]) -> Transcript:
    """The oracle's run of a case, every call answered "ok"."""

    def ask(request: ChatRequest) -> ChatResponse:
        reference = request.reference
        calls = list(reference.get("tool_calls") or [])
        return ChatResponse(reference.get("content"), "tool_calls" if calls else "stop", calls)

    ok = {"content": "ok", "is_error": False}
    return run_steps(ask, case.messages, case.tools, {}, case.steps, lambda name, arguments: ok, answers)
