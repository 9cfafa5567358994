"""A multi-step case, run and judged: its calls executed by its MCP server (or mocked), every
exchange with the server kept in the response store, the first answer, the trajectory and the final
answer judged.

The server's tool list and each call's result pass through ``Models.exchange``: a replay or ``--lf``
takes them from the store, so the run is the recorded one exactly, and the server is started only
when something must really be asked of it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.api import Models, RequestError
from pytest_toolcall.api.text import clip
from pytest_toolcall.benchmarks.cases.format import EXPECT_KINDS, Case, with_tools
from pytest_toolcall.benchmarks.cases.matching import CaseVerdict
from pytest_toolcall.benchmarks.cases.mcp_servers import McpError, McpServer, ServerPool, server_label, tools_of
from pytest_toolcall.benchmarks.cases.response import judge_case
from pytest_toolcall.benchmarks.cases.steps import Execute, MockResults, Transcript, run_steps
from pytest_toolcall.benchmarks.cases.trajectory import Outcome, judge_final, judge_trajectory


@dataclass
class CaseRun:
    """The answer of a multi-step case: the case as run (its server's tools), and what happened."""

    case: Case
    transcript: Transcript


def run_case(case: Case, models: Models, servers: ServerPool, references: list[Any] | None) -> CaseRun:
    execute: Execute = MockResults(case.tool_results or {})
    live = _LiveServer(case, servers)
    try:
        if case.mcp is not None:
            label = server_label(case.mcp)
            listed = models.exchange("mcp.list_tools", {"server": label}, lambda: live().listed)
            tools, mapping = tools_of(listed, case.mcp.get("tools"), label)
            case = with_tools(case, tools, {k: v for k, v in mapping.items() if k != v})

            def execute(name: str, arguments: Any) -> dict[str, Any]:
                request = {"server": label, "name": name, "arguments": arguments}
                return models.exchange("mcp.call", request, lambda: live().call(name, arguments))

        model = models.model
        transcript = run_steps(
            lambda request: model.submit(request).result(),
            case.messages,
            case.tools,
            case.sampling(),
            case.steps,
            execute,
            references,
        )
    except McpError as exc:  # the server stopped or did not answer: an error of the case, not its failure
        raise RequestError(str(exc)) from None
    finally:
        live.close()
    return CaseRun(case, transcript)


class _LiveServer:
    """The case's server, started on first use only (a replay never uses it)."""

    def __init__(self, case: Case, servers: ServerPool) -> None:
        self._case = case
        self._servers = servers
        self._own: McpServer | None = None
        self._lock = threading.Lock()

    def __call__(self) -> McpServer:
        spec = self._case.mcp
        assert spec is not None
        if spec.get("scope") != "case":
            return self._servers.server(self._case.file, spec)
        with self._lock:
            if self._own is None:
                self._own = McpServer(spec)
            return self._own

    def close(self) -> None:
        if self._own is not None:
            self._own.close()


def judge_run(case: Case, transcript: Transcript) -> CaseVerdict:
    """The verdict of a multi-step run: the first answer by the first-answer expectation (when the case
    has one), all calls by ``trajectory``, the final text by ``final``; every part that fails is said."""
    expect = case.expect
    parts: list[tuple[str, Outcome]] = []
    reports: tuple[Any, ...] = ()
    first = transcript.first
    if any(k in expect for k in EXPECT_KINDS) and first is not None:
        verdict = judge_case(case, first)
        reports = verdict.calls
        if not verdict.passed:
            parts.append(("first answer", Outcome(verdict.failure_kind, tuple(verdict.message.splitlines()))))
    if "trajectory" in expect:
        parts.append(("trajectory", judge_trajectory(expect["trajectory"], transcript.calls)))
    if "final" in expect:
        final = judge_final(expect["final"], transcript.final, transcript.step_limit, case.steps)
        parts.append(("final answer", final))
    failed = [(name, outcome) for name, outcome in parts if outcome.kind is not None]
    if not failed:
        return CaseVerdict(True, None, "", reports)
    kind = failed[0][1].kind
    lines = [f"{kind}: {', '.join(name for name, _ in failed)} failed"]
    for name, outcome in failed:
        lines.append(f"{name}:")
        lines.extend("  " + line for line in outcome.lines)
    lines.append(run_summary(case, transcript))
    return CaseVerdict(False, kind, "\n".join(lines), reports)


def run_summary(case: Case, transcript: Transcript, width: int = 200) -> str:
    """The run in a few lines: each call with its result, then the final answer or the spent budget."""
    lines = [f"run ({len(transcript.responses)} of {transcript.steps} steps):"]
    back = {chat: mcp for mcp, chat in case.tool_names.items()}
    for call in transcript.calls:
        name = call["name"] + (f" (MCP {back[call['name']]!r})" if call["name"] in back else "")
        result = "not executed: no step left" if call["result"] is None else clip(call["result"], width)
        error = " [tool error]" if call["is_error"] else ""
        lines.append(f"  step {call['step']}: {name}({clip(call['arguments'], width)}) -> {result}{error}")
    if transcript.step_limit:
        lines.append(f"  the step budget ({transcript.steps}) was spent before a text answer")
    else:
        lines.append(f"  final: {clip(transcript.final or '', width)!r}")
    return "\n".join(lines)
