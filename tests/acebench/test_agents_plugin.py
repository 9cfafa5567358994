"""ACEBench agent items through the plugin: the oracle against the official ceilings, a scripted
agent through a real local server and the real ``openai`` client, the user simulator option."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from pytest_toolcall.benchmarks.acebench.agents import run_multi_step, run_multi_turn, score_rollout
from pytest_toolcall.benchmarks.acebench.agents.oracle import first_path, oracle_user
from pytest_toolcall.benchmarks.acebench.dataset import load_category
from pytest_toolcall.benchmarks.acebench.prompts import Prompts
from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

TRANSCRIPTS = REPO / "data" / "verdicts" / "agent_transcripts.jsonl"


def official_oracle() -> dict[str, dict[str, Any]]:
    """The official verdicts of the oracle transcripts, by ``lang/id``."""
    rows = (json.loads(line) for line in TRANSCRIPTS.read_text(encoding="utf-8").splitlines())
    return {f"{r['lang']}/{r['id']}": r for r in rows if r["case"] == "oracle"}


def report(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "report.json").read_text())


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_oracle_equals_the_official_verdicts(pytester: pytest.Pytester, acebench_root: Path, dist: list[str]) -> None:
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        f"--toolcall-data-dir={acebench_root}",
        "--toolcall-lang=all",
        "-m",
        "agent",
        "--toolcall-report=report.json",
        "-p",
        "no:randomly",
        *dist,
    )
    official = official_oracle()
    failing = {key for key, row in official.items() if not row["end_state_valid"]}
    result.assert_outcomes(passed=100 - len(failing), xfailed=len(failing))  # references that fail
    samples = {f"{s['lang']}/{s['id']}": s for s in report(pytester)["samples"]}
    assert {k for k, s in samples.items() if s["outcome"] == "xfailed"} == failing
    # The official process file rounds each score to 3 decimals (category means use the raw value).
    assert {k: round(s["process"], 3) for k, s in samples.items()} == {k: row["process"] for k, row in official.items()}
    metrics = report(pytester)["metrics"]
    # The official category numbers: accuracy round(c/n, 3), process round(mean, 3).
    assert metrics["acebench/zh"]["categories"]["agent_multi_turn"]["accuracy"] == 0.967
    assert metrics["acebench/en"]["categories"]["agent_multi_step"]["ceiling"] == 0.2
    assert metrics["acebench/en"]["groups"]["agent"] == pytest.approx((0.2 + 0.7) / 2)


class ScriptedAgent:
    """Plays reference milestones, told apart by the task text found in the request (the longest one:
    some tasks contain others, and samples with the same task get the same script): its k-th reply is
    the k-th milestone, k = executions seen so far in the history."""

    def __init__(self, root: Path) -> None:
        self.tasks = {}
        for lang in ("en", "zh"):
            for category in ("agent_multi_step", "agent_multi_turn"):
                for sample in load_category(root, lang, category):
                    self.tasks[sample.first.row["question"]] = first_path(sample.first.answer["mile_stone"])

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        history = messages[-1]["content"]
        question = max((q for q in self.tasks if q in history), key=len, default=None)
        milestones = self.tasks.get(question, []) if question else []
        done = history.count("execution result:") + history.count("\nexecution:")
        return milestones[done] if done < len(milestones) else "finish conversation"

    def expected(self, root: Path, lang: str) -> dict[str, tuple[bool, float]]:
        """(passed, process) of every sample of ``lang`` with this agent, run in-process."""
        prompts = Prompts.load(root)
        results = {}
        for category in ("agent_multi_step", "agent_multi_turn"):
            for sample in load_category(root, lang, category):
                if category == "agent_multi_step":
                    rollout = run_multi_step(sample, prompts, self)
                else:
                    rollout = run_multi_turn(sample, prompts, self, oracle_user(sample))
                result = score_rollout(sample, rollout)
                results[f"{lang}/{sample.id}"] = (result.passed, round(result.process, 3))
        return results


@pytest.fixture
def scripted_agent(acebench_root: Path) -> Iterator[ChatServer]:
    script = ScriptedAgent(acebench_root)
    with ChatServer(lambda body: Reply(content=script(body["messages"]))) as srv:
        yield srv


@pytest.fixture
def agent_args(acebench_root: Path, scripted_agent: ChatServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-agent")
    return [
        "--toolcall-model=agent-model",
        f"--toolcall-base-url={scripted_agent.base_url}",
        f"--toolcall-data-dir={acebench_root}",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
        "-m",
        "agent",
        "-p",
        "no:randomly",
    ]


def test_multi_turn_is_skipped_without_a_user_simulator(
    pytester: pytest.Pytester, agent_args: list[str], scripted_agent: ChatServer, acebench_root: Path
) -> None:
    result = pytester.runpytest(*agent_args, "-rs", "--runxfail")
    expected = ScriptedAgent(acebench_root).expected(acebench_root, "en")
    step = {k: v for k, v in expected.items() if "multi_step" in k}
    passing = sum(passed for passed, _ in step.values())
    result.assert_outcomes(passed=passing, failed=20 - passing, skipped=30)
    assert "agent_multi_turn needs a user simulator: pass --toolcall-user-model=NAME" in result.stdout.str()
    agent_requests = scripted_agent.requests
    assert all(r["temperature"] == 0.001 and r["max_tokens"] == 1000 and r["top_p"] == 1 for r in agent_requests)
    en = report(pytester)["metrics"]["acebench/en"]
    assert "agent_multi_turn" in en["missing_categories"] and en["partial"]


def test_rollouts_through_the_client_equal_rollouts_in_process(
    pytester: pytest.Pytester, agent_args: list[str], acebench_root: Path
) -> None:
    result = pytester.runpytest(
        *agent_args, "--toolcall-user-model=oracle", "--toolcall-lang=zh", "-n", "2", "--runxfail"
    )
    expected = ScriptedAgent(acebench_root).expected(acebench_root, "zh")
    passing = sum(passed for passed, _ in expected.values())
    result.assert_outcomes(passed=passing, failed=50 - passing)
    samples = {f"zh/{s['id']}": s for s in report(pytester)["samples"]}
    assert {k: (s["outcome"] == "passed", round(s["process"], 3)) for k, s in samples.items()} == expected


def test_failure_shows_state_difference_and_transcript(pytester: pytest.Pytester, agent_args: list[str]) -> None:
    result = pytester.runpytest(*agent_args, "-k", "en/agent_multi_step_14", "--runxfail")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "class attributes wrong:" in out and "MessageApi.inbox" in out
    assert "transcript:" in out and "agent -> execution:" in out and "execution -> agent:" in out


def test_request_error_in_a_rollout_is_an_error(
    pytester: pytest.Pytester, agent_args: list[str], scripted_agent: ChatServer
) -> None:
    scripted_agent.stop()
    result = pytester.runpytest(*agent_args, "-k", "en/agent_multi_step_0", "--toolcall-max-retries=0")
    result.assert_outcomes(errors=1)
    assert "request failed:" in result.stdout.str()


def test_rollouts_run_side_by_side(
    pytester: pytest.Pytester, agent_args: list[str], scripted_agent: ChatServer
) -> None:
    """A rollout waits for the model at every turn; the other items' rollouts go on meanwhile."""
    scripted_agent.latency = 0.05
    result = pytester.runpytest(*agent_args, "--toolcall-concurrency=8", "-k", "multi_step")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    assert scripted_agent.max_in_flight >= 4


@pytest.mark.parametrize(("option", "language_of_prompt"), [([], "en"), (["--toolcall-step-prompt-lang=zh"], "zh")])
def test_multi_step_prompt_language(
    pytester: pytest.Pytester,
    agent_args: list[str],
    scripted_agent: ChatServer,
    acebench_root: Path,
    option: list[str],
    language_of_prompt: str,
) -> None:
    """The official API runner sends the zh multi_step prompts even for en samples; on request, so do we."""
    pytester.runpytest(*agent_args, "-k", "en/agent_multi_step_3]", *option)
    system = Prompts.load(acebench_root).text(
        "model_inference/multi_step/APIModel_agent.py", f"MULTI_TURN_AGENT_PROMPT_SYSTEM_{language_of_prompt.upper()}"
    )
    assert scripted_agent.requests and all(r["messages"][0]["content"] == system for r in scripted_agent.requests)
