"""``--toolcall-tau2-retrieval`` (ini ``toolcall_tau2_retrieval``): a configuration that cannot run
offline is a usage error naming why, before anything runs; the one chosen is part of the run's
identity and printed beside banking_knowledge's score."""

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


def test_the_configuration_is_recorded_and_printed_beside_the_domain(pytester: pytest.Pytester) -> None:
    """A banking_knowledge run records its configuration in the run's datasets and so its identity
    (which two runs of other configurations differ in), in each sample, and prints it beside the
    domain's score."""
    import json

    result = run(
        pytester,
        "--toolcall-tau2-domains=banking_knowledge",
        "--toolcall-tau2-retrieval=no_knowledge",
        "--toolcall-user-model=oracle",
        "--toolcall-limit=2",
        "--toolcall-report=r.json",
    )
    result.assert_outcomes(passed=2)
    assert "banking_knowledge (no_knowledge)" in result.stdout.str()
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["run"]["datasets"]["tau2"]["retrieval"] == "no_knowledge"
    assert report["run"]["identity"]["datasets"]["tau2"]["retrieval"] == "no_knowledge"
    assert {s["retrieval"] for s in report["samples"]} == {"no_knowledge"}


def test_an_offline_configuration_leaves_other_domains_as_they_were(pytester: pytest.Pytester) -> None:
    """The configuration is banking_knowledge's: a run of other domains has the same identity."""
    import json

    base = ["--toolcall-tau2-domains=airline", "--toolcall-limit=1", "--toolcall-user-model=oracle"]
    run(pytester, *base, "--toolcall-report=a.json").assert_outcomes(passed=1)
    run(pytester, *base, "--toolcall-tau2-retrieval=no_knowledge", "--toolcall-report=b.json").assert_outcomes(passed=1)
    a, b = (json.loads((pytester.path / name).read_text())["run"] for name in ("a.json", "b.json"))
    assert a["datasets"]["tau2"] == b["datasets"]["tau2"] and "retrieval" not in a["datasets"]["tau2"]
