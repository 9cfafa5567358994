"""Every example case file loads, and the oracle's answer passes every one of its cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_toolcall.benchmarks.cases.format import SUFFIXES
from pytest_toolcall.benchmarks.cases.loading import load_case_file
from pytest_toolcall.benchmarks.cases.oracle import oracle_answer
from pytest_toolcall.benchmarks.cases.response import judge_case
from pytest_toolcall.core.protocol.types import ChatRequest
from pytest_toolcall.model.oracle import OracleModel

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "cases"
FILES = sorted(p for p in EXAMPLES.iterdir() if p.name.endswith(SUFFIXES))


def test_the_examples_cover_every_suffix_and_kind():
    assert {s for p in FILES for s in SUFFIXES if p.name.endswith(s)} == set(SUFFIXES)
    expects = [c.expect for p in FILES for c in load_case_file(p)]
    keys = {k for e in expects for k in e} | {k for e in expects for a in e.get("any_of", []) for k in a}
    assert keys >= {"no_call", "should_call_tool", "calls", "ordered", "allow_extra", "any_of"}
    text = "".join(p.read_text(encoding="utf-8") for p in FILES)
    for matcher in ("$regex", "$one_of", "$approx", "$tol", "$any"):
        assert matcher in text


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_case_loads_and_the_oracle_passes_it(path):
    cases = load_case_file(path)
    assert cases
    model = OracleModel()
    for case in cases:
        request = ChatRequest(case.messages, case.tools or None, case.sampling(), reference=oracle_answer(case))
        verdict = judge_case(case, model.submit(request).result())
        assert verdict.passed, f"{case.id}: {verdict.message}"


def test_agentscope_toy_benchmark_answers():
    # The two questions of AgentScope's toy benchmark, with its ground truths (4.0 and 83331).
    cases = {c.id: c for c in load_case_file(EXAMPLES / "arithmetic.toolcall.yaml")}
    first = cases["math_problem_1"].expect["any_of"][0]["calls"][0]["arguments"]["answer_as_number"]
    assert first["$approx"] == 4.0
    assert cases["math_problem_2"].expect["any_of"][0]["calls"][0]["arguments"] == {"answer_as_number": 83331}
    assert 12345 + 54321 + 6789 + 9876 == 83331
