"""User cases behind the benchmark protocol: the ``cases`` benchmark.

Its units come from the users' own files, wherever pytest finds them among the paths it is given:
every case of a ``*.toolcall.yaml|yml|jsonl`` file is one item (``<file>::<case id>``), asked with
its own messages, tools and generation settings, scored by the rules of the format. Python tests
that ask through ``toolcall_chat`` are units too (``test_unit``), scored by what they raised. Both
feed the ``cases`` metrics block: accuracy per file, per tag and overall.

This module is imported whenever pytest starts (entry points): YAML and jsonschema are imported
only when a case file is read.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from pytest_toolcall.api import (
    Benchmark,
    ChatRequest,
    Dialogue,
    Loaded,
    Models,
    Part,
    Plan,
    Requests,
    Skip,
    Unit,
    Verdict,
)
from pytest_toolcall.benchmarks.cases.names import METRICS, SUFFIXES

if TYPE_CHECKING:
    from pytest_toolcall.api import Settings
    from pytest_toolcall.benchmarks.cases.mcp_servers import ServerPool


class Cases(Benchmark):
    name = "cases"
    metrics = METRICS
    file_suffixes: ClassVar[tuple[str, ...]] = SUFFIXES
    fixtures: ClassVar[str | None] = "pytest_toolcall.benchmarks.cases.fixtures"
    counted_fixtures: ClassVar[tuple[str, ...]] = ("toolcall_chat",)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._servers: ServerPool | None = None  # the MCP servers of the case files, started as files are collected

    def servers(self) -> ServerPool:
        from pytest_toolcall.benchmarks.cases.mcp_servers import ServerPool

        if self._servers is None:
            # A replay asks no server: their tools and results come from the store.
            self._servers = ServerPool(offline=self.settings.cache_mode == "replay")
        return self._servers

    def close(self) -> None:
        if self._servers is not None:
            self._servers.close()

    def load(self) -> Loaded:
        return Loaded(units=[])  # every unit lives in a user's file

    def load_file(self, path: Path, name: str) -> Loaded:
        from pytest_toolcall.benchmarks.cases.format import CaseFileError
        from pytest_toolcall.benchmarks.cases.loading import load_case_file

        try:
            # Named as pytest names the file: the key of its server, from collection to the run.
            cases = load_case_file(path, self.servers(), name)
        except CaseFileError as exc:
            # Named as pytest names the file (relative to the rootdir), at the offending case's line.
            return Loaded(units=[], problems=[(name, f"{name}:{exc.line}: {exc.message}")])
        return Loaded(units=[self._unit(dataclasses.replace(case, file=name)) for case in cases])

    def _unit(self, case: Any) -> Unit:
        return Unit(
            benchmark=self.name,
            key=case.id,
            category=case.stem,
            id=case.id,
            markers=case.tags,
            fields={"file": case.file, "line": case.line, "tags": list(case.tags)},
            sample=case,
            file=case.file,
            source=f"{case.file}:{case.line}",
        )

    def test_unit(self, item: pytest.Item) -> Unit:
        """The unit of a Python test using ``toolcall_chat``: file = its module, tags = its markers; its
        sample (a ``PythonTest``) is filled in while the test runs."""
        from pytest_toolcall.benchmarks.cases.format import case_file_stem
        from pytest_toolcall.benchmarks.cases.python_tests import PYTEST_MARKERS, PythonTest

        file, _, key = item.nodeid.partition("::")
        tags = tuple(dict.fromkeys(m.name for m in item.iter_markers() if m.name not in PYTEST_MARKERS))
        _, line, _ = item.location
        return Unit(
            benchmark=self.name,
            key=key,
            category=case_file_stem(file),
            id=key,
            markers=tags,
            fields={"file": file, "line": (line or 0) + 1, "tags": list(tags)},
            sample=PythonTest(),
            file=file,
        )

    def plan(self, unit: Unit, models: Models) -> Plan:
        from pytest_toolcall.benchmarks.cases.oracle import oracle_answer

        case = unit.sample
        if case.multi_step:
            return self._dialogue(case, models)
        reference = oracle_answer(case) if models.oracle else None
        # The case's own settings travel with the request: sent, and part of the store key.
        request = ChatRequest(
            case.messages,
            case.tools or None,
            case.sampling(),
            reference=reference,
            answer_errors="status" in case.expect,
        )
        return Requests([request])

    def _dialogue(self, case: Any, models: Models) -> Plan:
        from pytest_toolcall.benchmarks.cases.dialogue import run_case
        from pytest_toolcall.benchmarks.cases.oracle import NotAnswerable, oracle_steps

        references = None
        if models.oracle:
            try:
                references = oracle_steps(case)
            except NotAnswerable as exc:
                return Skip(f"the oracle cannot answer this case: {exc}")
        servers = self.servers()
        return Dialogue(lambda: run_case(case, models, servers, references), float(case.steps))

    def explain(self, unit: Unit) -> dict[str, Any]:
        """The case's messages and tools (not re-planned: a multi-step case's plan starts its MCP
        servers) and its ``expect``."""
        case = unit.sample
        if not hasattr(case, "expect"):  # a Python test: its traceback explains it
            return {}
        return {"request": {"messages": case.messages, "tools": case.tools or []}, "expected": case.expect}

    def score(self, unit: Unit, answer: Any) -> Verdict:
        """A case: ``answer`` is its one response. A Python test: what its call raised (None: nothing)."""
        from pytest_toolcall.benchmarks.cases.python_tests import PythonTest, python_test_fields

        if isinstance(unit.sample, PythonTest):
            passed, message, fields = python_test_fields(unit.sample, answer)
            return Verdict(passed, message, fields)
        from pytest_toolcall.benchmarks.cases.metrics import case_record
        from pytest_toolcall.benchmarks.cases.response import judge_case

        if not isinstance(answer, list):
            return self._score_run(answer)
        (response,) = answer
        case = unit.sample
        verdict = judge_case(case, response)
        fields = {k: v for k, v in case_record(case, verdict).items() if k not in ("outcome", "score")}
        fields.update(expect=case.expect, output=response.content, tool_calls=response.tool_calls)
        fields["finish_reason"] = response.finish_reason
        # The whole message is short (the kind, a line per difference, the answer): the report's reason.
        return Verdict(verdict.passed, verdict.message, fields, brief=verdict.message)

    def _score_run(self, run: Any) -> Verdict:
        from pytest_toolcall.benchmarks.cases.dialogue import judge_run
        from pytest_toolcall.benchmarks.cases.metrics import case_record

        case, transcript = run.case, run.transcript
        verdict = judge_run(case, transcript)
        fields = {k: v for k, v in case_record(case, verdict).items() if k not in ("outcome", "score")}
        first = transcript.first
        fields.update(expect=case.expect, **transcript.record())
        fields.update(output=transcript.final, tool_calls=first.tool_calls if first is not None else [])
        fields["finish_reason"] = transcript.responses[-1].finish_reason if transcript.responses else None
        if case.mcp is not None:
            from pytest_toolcall.benchmarks.cases.mcp_servers import server_label

            fields["mcp_server"] = server_label(case.mcp)
            fields["mcp_tools"] = {chat: mcp for mcp, chat in case.tool_names.items()}  # the names that differ
        brief = verdict.message.split("\nrun (")[0]
        return Verdict(verdict.passed, verdict.message, fields, brief=brief)

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        from pytest_toolcall.benchmarks.cases.summary import cases_table

        return cases_table(block)
