"""Python tests counted in the ``cases`` block: the ``toolcall_chat`` function they call, and what
their record says (what they asked, what they asserted, the failure kind of what they raised).

Such a test is a unit like a case: file = its module, key = its name, tags = its markers. Its verdict
is the test's own: passed when its call raised nothing; a failed ``assert_tool_calls`` gives the
failure kind and the per-call diff, any other exception only its text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_toolcall.api import ChatRequest, ChatResponse, Model, RequestError
from pytest_toolcall.benchmarks.cases.assertions import ToolCallAssertionError, observing
from pytest_toolcall.benchmarks.cases.matching import CaseVerdict
from pytest_toolcall.benchmarks.cases.response import OracleResponse, ToolCallResponse

if TYPE_CHECKING:
    from pytest_toolcall.benchmarks.cases.mcp_servers import McpServer
    from pytest_toolcall.benchmarks.cases.steps import Transcript

NO_TOOL_ANSWER = "No tool is needed for this request."  # the oracle's text (oracle.NO_TOOL_ANSWER)

#: Markers of pytest itself, which say how a test runs, not what it is about: never tags.
PYTEST_MARKERS = frozenset(
    {"parametrize", "usefixtures", "filterwarnings", "skip", "skipif", "xfail", "tryfirst", "trylast", "cases"}
)


@dataclass
class PythonTest:
    """The sample of a Python test's unit: filled while the test runs."""

    responses: list[ToolCallResponse] = field(default_factory=list)
    #: (expect, verdict) of every expectation checked, in order.
    assertions: list[tuple[dict[str, Any], CaseVerdict]] = field(default_factory=list)
    latency_s: float = 0.0
    #: The transcripts of its multi-step runs (``toolcall_chat.run``), in order.
    runs: list[Any] = field(default_factory=list)


class Chat:
    """``toolcall_chat(messages_or_prompt, tools=None, **settings) -> ToolCallResponse``."""

    def __init__(self, model: Model, oracle: bool, test: PythonTest) -> None:
        self._model = model
        self._oracle = oracle
        self._test = test

    def __call__(
        self, messages_or_prompt: str | list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **settings: Any
    ) -> ToolCallResponse:
        """Ask the model: a prompt (one user message) or OpenAI chat messages, with OpenAI tool
        definitions. ``settings`` are request-body fields for this request (``temperature``,
        ``max_tokens``, ``tool_choice``; ``extra_body``'s fields are sent at the top level), part of
        the response store's key."""
        __tracebackhide__ = True  # a request's error ends at the test's line
        messages = self._messages(messages_or_prompt, tools)
        sampling = _sampling(settings)
        if self._oracle:
            response: ToolCallResponse = OracleResponse(tools)
        else:
            answer = self._ask(ChatRequest(json.loads(json.dumps(messages)), tools, sampling))
            response = ToolCallResponse.from_chat_response(answer, usage=getattr(answer, "usage", None))
        self._test.responses.append(response)
        return response

    def run(
        self,
        messages_or_prompt: str | list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        mcp: McpServer | dict[str, Any] | None = None,
        tool_results: dict[str, Any] | None = None,
        steps: int = 5,
        **settings: Any,
    ) -> Transcript:
        """Let the model act up to ``steps`` times: each answer's calls executed by ``mcp`` (a running
        ``McpServer``, or the case-file form ``{"command": [...]}`` / ``{"url": ...}``, started for this
        run) or answered from ``tool_results`` (as in a case file), their results sent back, until a
        text answer. ``tools`` default to the server's. Returns the ``Transcript`` (``messages``,
        ``calls`` with their results, ``final``, ``step_limit``), for ``assert_trajectory``."""
        __tracebackhide__ = True
        from pytest_toolcall.benchmarks.cases.mcp_servers import McpServer
        from pytest_toolcall.benchmarks.cases.steps import MockResults, run_steps

        if (mcp is None) == (tool_results is None):
            raise TypeError("toolcall_chat.run: give mcp (a server) or tool_results (mocks), one of them")
        own = McpServer(mcp) if isinstance(mcp, dict) else None
        server = own or mcp
        try:
            offered = tools if tools is not None else server.tools if isinstance(server, McpServer) else None
            execute = server.call if isinstance(server, McpServer) else MockResults(tool_results or {})
            messages = self._messages(messages_or_prompt, tools)
            transcript = run_steps(self._ask_one, messages, offered, _sampling(settings), steps, execute)
        finally:
            if own is not None:
                own.close()
        self._test.runs.append(transcript)
        return transcript

    def _ask_one(self, request: ChatRequest) -> ChatResponse:
        __tracebackhide__ = True
        if self._oracle:  # the oracle answers a run with text: it has no expectation to answer
            answer = ChatResponse(NO_TOOL_ANSWER)
        else:
            answer = self._ask(request)
        self._test.responses.append(ToolCallResponse.from_chat_response(answer, usage=answer.usage))
        return answer

    def _ask(self, request: ChatRequest) -> ChatResponse:
        """The model's answer; a request that got none after the retries raises its ``RequestError``,
        which the runner makes an error of the test (not a failure), as for an item whose request
        got no answer. Its traceback ends at the test's line."""
        __tracebackhide__ = True
        try:
            answer = self._model.submit(request).result()
        except RequestError as exc:
            raise exc.with_traceback(None) from None
        self._test.latency_s += answer.latency_s
        return answer

    @staticmethod
    def _messages(messages_or_prompt: Any, tools: Any) -> list[dict[str, Any]]:
        if tools is not None and not isinstance(tools, list):
            raise TypeError("toolcall_chat: tools must be a list of OpenAI tool definitions")
        if isinstance(messages_or_prompt, str):
            return [{"role": "user", "content": messages_or_prompt}]
        if isinstance(messages_or_prompt, list) and all(isinstance(m, dict) for m in messages_or_prompt):
            return [dict(m) for m in messages_or_prompt]
        raise TypeError("toolcall_chat: pass a prompt (str) or a list of OpenAI chat messages (dicts)")


def _sampling(settings: dict[str, Any]) -> dict[str, Any]:
    """Request-body fields: ``extra_body``'s are sent at the top level."""
    sampling = {k: v for k, v in settings.items() if k != "extra_body"}
    sampling.update(settings.get("extra_body") or {})
    return sampling


@contextmanager
def python_test(test: PythonTest, model: Model, oracle: bool) -> Iterator[Chat]:
    with observing(lambda expect, verdict: test.assertions.append((expect, verdict))):
        yield Chat(model, oracle, test)


def python_test_fields(test: PythonTest, error: BaseException | None) -> tuple[bool, str, dict[str, Any]]:
    """(passed, message, record fields) of a finished Python test, from what its call raised."""
    verdict = error.verdict if isinstance(error, ToolCallAssertionError) else None
    if verdict is None and error is None:
        # Passed: the last expectation it checked stands for it.
        verdict = test.assertions[-1][1] if test.assertions else None
    expect = next((e for e, v in reversed(test.assertions) if v is verdict), None)
    last = test.responses[-1] if test.responses else None
    fields: dict[str, Any] = {
        "requests": len(test.responses),
        "output": last.content if last is not None else None,
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.raw_arguments} for c in (last.tool_calls if last else ())
        ],
        "expect": expect,
        "assertions": len(test.assertions),
        "failure_kind": verdict.failure_kind if verdict is not None and error is not None else None,
        "reason": _reason(error, verdict),
        "calls": [{**asdict(r), "problems": list(r.problems)} for r in verdict.calls] if verdict is not None else [],
        "latency_s": round(test.latency_s, 4) if test.responses else None,
    }
    if test.runs:
        fields.update(test.runs[-1].record())
    return error is None, fields["reason"], fields


def _reason(error: BaseException | None, verdict: CaseVerdict | None) -> str:
    if error is None or isinstance(error, RequestError):
        return ""  # (a request that got no answer has no verdict: the runner records its error)
    return verdict.message if verdict is not None else _describe(error)


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
