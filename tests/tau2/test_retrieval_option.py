"""``--toolcall-tau2-retrieval`` (ini ``toolcall_tau2_retrieval``): a configuration that cannot run
offline is a usage error naming why, before anything runs; banking_knowledge itself is refused
with one line until its tools are here."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # runs pytest


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--toolcall-model=oracle", "--toolcall-bench=tau2", *args)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("openai_embeddings", "needs an embeddings API (OpenAI text-embedding-3-large)"),
        ("terminal_use", "needs a sandboxed shell"),
        ("alltools", "needs an embeddings API (OpenAI text-embedding-3-large) and a sandboxed shell"),
        ("bm25_reranker", "needs an LLM reranker model"),
        ("nearest", "is not a retrieval configuration of tau2 1.0.1"),
    ],
)
def test_a_configuration_not_offline_is_refused(pytester: pytest.Pytester, value: str, why: str) -> None:
    result = run(pytester, f"--toolcall-tau2-retrieval={value}", "--toolcall-tau2-domains=airline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--toolcall-tau2-retrieval: {value} {why}" in result.stderr.str() or why in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_the_ini_twin(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_tau2_retrieval = terminal_use_write\n")
    result = run(pytester, "--toolcall-tau2-domains=airline")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "terminal_use_write needs a sandboxed shell" in result.stderr.str()


def test_banking_knowledge_is_refused_with_one_line(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--toolcall-tau2-domains=banking_knowledge", "--toolcall-tau2-retrieval=full_kb")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "banking_knowledge is not offered yet" in result.stderr.str()


def test_an_offline_configuration_leaves_other_domains_as_they_were(pytester: pytest.Pytester) -> None:
    """The configuration is banking_knowledge's: a run of other domains has the same identity."""
    import json

    base = ["--toolcall-tau2-domains=airline", "--toolcall-limit=1", "--toolcall-user-model=oracle"]
    run(pytester, *base, "--toolcall-report=a.json").assert_outcomes(passed=1)
    run(pytester, *base, "--toolcall-tau2-retrieval=no_knowledge", "--toolcall-report=b.json").assert_outcomes(passed=1)
    a, b = (json.loads((pytester.path / name).read_text())["run"] for name in ("a.json", "b.json"))
    assert a["datasets"]["tau2"] == b["datasets"]["tau2"] and "retrieval" not in a["datasets"]["tau2"]
