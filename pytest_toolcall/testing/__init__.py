"""For a benchmark's own tests (and a user's): a scripted OpenAI-compatible model server, runs of a
benchmark with the oracle or against that server, and the reports they write, read back.

    from pytest_toolcall.testing import ChatServer, Reply, ScriptResponder, run_benchmark, run_oracle

    def test_the_oracle_passes_every_unit(tmp_path):
        run = run_oracle("calc", cwd=tmp_path)
        assert run.returncode == 0, run.output
        assert set(run.report.outcomes().values()) == {"passed"}

    def test_a_wrong_call_fails(tmp_path):
        wrong = Reply(tool_calls=[{"name": "multiply", "arguments": {"a": 2, "b": 3}}])
        with ChatServer(ScriptResponder(default=wrong)) as server:
            run = run_benchmark("calc", cwd=tmp_path, model="scripted", base_url=server.base_url)
        assert run.report.block("calc")["categories"]["multiply"]["passed"] == 3

``ChatServer`` is real HTTP on a local port: the plugin's client talks to it exactly as to a hosted
endpoint, plain or streamed (``--toolcall-stream=on``: the same ``Reply`` sent as server-sent events),
through the Chat Completions and the Responses API. Everything here is for tests: none of it is
imported by a run. Names not in ``__all__`` are internal.
"""

from __future__ import annotations

from pytest_toolcall.core.safety.reports import ReportError
from pytest_toolcall.testing.runs import Report, RunOutcome, read_report, run_benchmark, run_oracle
from pytest_toolcall.testing.server import (
    STREAM_BREAKS,
    ChatServer,
    FaultPlan,
    Reply,
    ScriptResponder,
    message_text,
    text_key,
)

__all__ = [
    "STREAM_BREAKS",
    "ChatServer",
    "FaultPlan",
    "Reply",
    "Report",
    "ReportError",
    "RunOutcome",
    "ScriptResponder",
    "message_text",
    "read_report",
    "run_benchmark",
    "run_oracle",
    "text_key",
]
