"""``assert_tool_calls``: the rules of case files, for Python tests (re-exported as
``pytest_toolcall.assert_tool_calls``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pytest_toolcall.api import ChatResponse
from pytest_toolcall.api.native import schema_problem
from pytest_toolcall.benchmarks.cases.format import expect_problem
from pytest_toolcall.benchmarks.cases.matching import CaseVerdict
from pytest_toolcall.benchmarks.cases.response import OracleResponse, ToolCallResponse, judge_response
from pytest_toolcall.benchmarks.cases.steps import Transcript


class ToolCallAssertionError(AssertionError):
    """A failed ``assert_tool_calls``; carries the verdict, so that the plugin can record the test's
    failure kind (``excinfo.value.verdict.failure_kind``) like a case file's."""

    def __init__(self, verdict: CaseVerdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


def check_tool_calls(
    response: ToolCallResponse | ChatResponse, expect: dict[str, Any], tools: list[dict[str, Any]] | None = None
) -> CaseVerdict:
    """The verdict of ``response`` against ``expect``, without raising on a failure; ``ValueError`` for
    a malformed ``expect`` or ``tools``."""
    problem = _tools_problem(tools) if tools is not None else ""
    if not problem:
        names = {t["function"]["name"] for t in tools} if tools is not None else None
        problem = expect_problem(expect, names)
    if problem:
        raise ValueError(f"assert_tool_calls: invalid expect/tools: {problem}")
    if isinstance(response, OracleResponse):
        response.settle(expect, tools)
    verdict = judge_response(response, expect, tools)
    observer = _OBSERVER.get()
    if observer is not None:
        observer(expect, verdict)
    return verdict


Observer = Callable[[dict[str, Any], CaseVerdict], None]
_OBSERVER: ContextVar[Observer | None] = ContextVar("toolcall_assertion_observer", default=None)


@contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """Every expectation checked meanwhile (in this thread or task) is passed to ``observer`` with its
    verdict: how a Python test's record gets the expectations it asserted."""
    token = _OBSERVER.set(observer)
    try:
        yield
    finally:
        try:
            _OBSERVER.reset(token)
        except ValueError:  # resumed in another context (a plugin running fixtures in copied contexts)
            _OBSERVER.set(None)


def assert_tool_calls(
    response: ToolCallResponse | ChatResponse, expect: dict[str, Any], tools: list[dict[str, Any]] | None = None
) -> None:
    """Passes silently when ``response`` satisfies ``expect`` (the case-file syntax, e.g.
    ``{"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}``); otherwise raises
    ``AssertionError`` (a ``ToolCallAssertionError``) whose message names the failure kind and what
    differed.

    With ``tools`` (the request's OpenAI tool definitions) every call must also name one of them and
    carry arguments valid against its ``parameters``; without, only that they are a JSON object.
    A malformed ``expect`` or ``tools`` is the test's own mistake: ``ValueError``, not a failure.
    """
    __tracebackhide__ = True  # pytest shows the failing test's line, not this function's
    verdict = check_tool_calls(response, expect, tools)
    if not verdict.passed:
        raise ToolCallAssertionError(verdict)


_UNSET: Any = object()


def check_trajectory(
    run: Transcript,
    calls: list[dict[str, Any]] | None = None,
    *,
    match: str = "strict",
    args: str = "exact",
    final: Any = _UNSET,
) -> CaseVerdict:
    """The verdict of a multi-step run (``toolcall_chat.run``) by the rules of ``expect.trajectory``
    (``calls`` with ``match`` and ``args``) and ``expect.final``, without raising on a failure."""
    expect: dict[str, Any] = {}
    if calls is not None:
        expect["trajectory"] = {"calls": calls, "match": match, "args": args}
    if final is not _UNSET:
        expect["final"] = final
    if not expect:
        raise ValueError("assert_trajectory: give the expected calls, final, or both")
    problem = expect_problem(expect)
    if problem:
        raise ValueError(f"assert_trajectory: invalid expectation: {problem}")
    from pytest_toolcall.benchmarks.cases.dialogue import judge_run
    from pytest_toolcall.benchmarks.cases.format import Case

    case = Case("", 0, "", run.messages, [], (), {}, expect, steps=run.steps)
    verdict = judge_run(case, run)
    observer = _OBSERVER.get()
    if observer is not None:
        observer(expect, verdict)
    return verdict


def assert_trajectory(
    run: Transcript,
    calls: list[dict[str, Any]] | None = None,
    *,
    match: str = "strict",
    args: str = "exact",
    final: Any = _UNSET,
) -> None:
    """Passes silently when the run's calls relate to ``calls`` as ``match`` says (``strict``,
    ``unordered``, ``subset``: the run's calls are among them, ``superset``: the run's calls include
    them), arguments compared as ``args`` says (``exact``, ``subset``, ``superset``, ``ignore``), and
    its final text answer is ``final`` (a string or a matcher) when given; otherwise raises a
    ``ToolCallAssertionError`` listing the expected and the run's calls, what differed, and the run."""
    __tracebackhide__ = True
    verdict = check_trajectory(run, calls, match=match, args=args, final=final)
    if not verdict.passed:
        raise ToolCallAssertionError(verdict)


def _tools_problem(tools: Any) -> str:
    if not isinstance(tools, list):
        return "tools must be a list of OpenAI tool definitions"
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return f"not an OpenAI tool definition: {tool!r:.80}"
        problem = schema_problem(function.get("parameters", {}))
        if problem or not function.get("parameters"):
            return f"tool {function['name']!r}: parameters are not a valid, non-empty JSON Schema {problem}".rstrip()
    return ""
