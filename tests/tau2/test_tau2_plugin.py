"""τ²-bench items through the plugin: the oracle, re-grading results files, a live run of scripted
agent and user turns through the real ``openai`` client and the local chat server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.benchmarks.tau2 import benchmark as tau2_benchmark
from pytest_toolcall.benchmarks.tau2.prompts import user_system_prompt
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.tau2.official import domain_files, expected, results_files, unpack

# Every test here runs pytest (most against the local server): the integration set.
pytestmark = pytest.mark.slow


def report(pytester: pytest.Pytester) -> dict[str, Any]:
    return json.loads((pytester.path / "report.json").read_text())


def live_args(server: ChatServer, domain: str) -> list[str]:
    """A live run of one domain: agent ``agent`` and user simulator ``user``, both on ``server``."""
    return [
        "--toolcall-model=agent",
        "--toolcall-user-model=user",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-bench=tau2",
        f"--toolcall-tau2-domains={domain}",
        "--toolcall-cache=off",
        "--toolcall-report=report.json",
    ]


def test_oracle_passes_a_few_tasks_of_every_domain(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--toolcall-model=oracle", "--toolcall-bench=tau2", "--toolcall-limit=2", "--toolcall-report=report.json", "-rs"
    )
    result.assert_outcomes(passed=6)
    samples = report(pytester)["samples"]
    assert {s["domain"] for s in samples} == {"airline", "retail", "telecom"}
    assert all(s["reward"] == 1.0 and s["outcome"] == "passed" for s in samples)
    blocks = report(pytester)["metrics"]["tau2"]["categories"]
    assert blocks["airline"]["accuracy"] == 1.0 and blocks["airline"]["components"]["DB"]["passed"] == 2
    assert blocks["telecom"]["accuracy"] == 1.0 and blocks["telecom"]["components"]["ENV_ASSERTION"]["passed"] == 2


def test_a_live_run_without_a_user_model_is_a_usage_error_before_any_request(pytester: pytest.Pytester) -> None:
    server = ChatServer(lambda body: Reply(content="hello")).start()
    try:
        args = [a for a in live_args(server, "airline") if not a.startswith("--toolcall-user-model")]
        result = pytester.runpytest(*args)
        assert server.requests == []
    finally:
        server.stop()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "--toolcall-user-model: a τ²-bench simulation needs a user simulator" in err
    assert "Traceback" not in err and not (pytester.path / "report.json").exists()


def test_gate_names(pytester: pytest.Pytester) -> None:
    base = ["--toolcall-model=oracle", "--toolcall-bench=tau2", "--toolcall-limit=1", "--toolcall-tau2-domains=airline"]
    held = pytester.runpytest(*base, "--toolcall-fail-under=tau2.airline=1.0,tau2.airline.pass_hat_1=1,tau2.overall=1")
    assert held.ret == 0
    typo = pytester.runpytest(*base, "--toolcall-fail-under=tau2.airline.accuracy=0.5")
    assert typo.ret != 0 and "unknown metric 'tau2.airline.accuracy'" in typo.stdout.str() + typo.stderr.str()


@pytest.mark.slow
@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_oracle_passes_every_airline_and_retail_task(pytester: pytest.Pytester, dist: list[str]) -> None:
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=tau2",
        "--toolcall-user-model=oracle",
        "--toolcall-tau2-domains=airline,retail",
        "--toolcall-report=report.json",
        *dist,
    )
    # With no judge, the 40 retail tasks that have NL assertions are not measured: skipped (their
    # judge-free components hold); the other 74 are measured.
    result.assert_outcomes(passed=124, skipped=40)
    domains = report(pytester)["metrics"]["tau2"]["categories"]
    assert domains["airline"]["accuracy"] == domains["retail"]["accuracy"] == 1.0
    assert domains["retail"]["not_measured"] == 40 and domains["retail"]["tasks"] == 74
    assert "retail: 40 reward(s) not measured" in result.stdout.str()


NOT_MEASURED = "NL_ASSERTION not measured: grading it needs --toolcall-judge-model"


def judged_retail_tasks() -> set[str]:
    """The retail tasks of the leaderboard split whose reward needs the judge, read from the task
    files: NL_ASSERTION in the reward basis and assertions to judge."""
    folder = Path(tau2_benchmark.__file__).parent / "data" / "retail"
    split = set(json.loads((folder / "split_tasks.json").read_text())["base"])
    tasks = json.loads((folder / "tasks.json").read_text())
    return {
        str(t["id"])
        for t in tasks
        if t["id"] in split
        and "NL_ASSERTION" in t["evaluation_criteria"]["reward_basis"]
        and t["evaluation_criteria"].get("nl_assertions")
    }


RETAIL = ["--toolcall-model=oracle", "--toolcall-user-model=oracle", "--toolcall-bench=tau2"]
RETAIL += ["--toolcall-tau2-domains=retail", "--toolcall-report=report.json", "--junitxml=junit.xml", "-rs"]


def test_unmeasured_rewards_are_skipped_not_passed(pytester: pytest.Pytester) -> None:
    """No judge: a reward that is not measured skips its item with the reason (folded into one line
    by -rs, <skipped> in JUnit), its sample kept with its judge-free breakdown and counted apart in
    the block; the same with no xdist, -n 0 and -n 2."""
    judged = judged_retail_tasks()
    blocks, sample_sets = [], []
    for dist in ([], ["-n", "0"], ["-n", "2"]):
        result = pytester.runpytest(*RETAIL, *dist)
        samples = report(pytester)["samples"]
        result.assert_outcomes(passed=len(samples) - len(judged), skipped=len(judged))
        assert result.ret == 0
        assert f"SKIPPED [{len(judged)}] " in result.stdout.str()
        assert f": {NOT_MEASURED}" in result.stdout.str()
        skipped = [s for s in samples if s["outcome"] == "skipped"]
        assert {s["task_id"] for s in skipped} == judged
        for sample in skipped:
            assert (sample["not_measured"], sample["score"], sample["reward"]) == (NOT_MEASURED, None, None)
            assert sample["reward_breakdown"] == {"DB": 1.0, "NL_ASSERTION": None}
        retail = report(pytester)["metrics"]["tau2"]["categories"]["retail"]
        assert retail["not_measured"] == len(judged) and retail["skipped"] == 0
        assert retail["tasks"] == len(samples) - len(judged)
        assert retail["components"]["DB"]["n"] == len(samples)  # the unmeasured ones' DB counted
        junit = (pytester.path / "junit.xml").read_text()
        assert junit.count("<skipped ") == junit.count(f'message="{NOT_MEASURED}"') == len(judged)
        blocks.append(report(pytester)["metrics"])
        sample_sets.append(sorted((s["nodeid"], s["outcome"], json.dumps(s["reward_breakdown"])) for s in samples))
    assert blocks[0] == blocks[1] == blocks[2] and sample_sets[0] == sample_sets[1] == sample_sets[2]


def test_a_judge_measures_the_skipped_rewards(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same run with a judge (a real client against the local server) that finds every
    assertion met: the tasks skipped without one are asked of it once each, and pass."""

    def judge(body: dict[str, Any]) -> Reply:
        results = [{"expectedOutcome": "the assertions", "reasoning": "r", "metExpectation": True}]
        return Reply(content=json.dumps({"results": results}))

    judged = judged_retail_tasks()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(judge) as server:
        result = pytester.runpytest(
            *RETAIL, "--toolcall-judge-model=judge", f"--toolcall-judge-base-url={server.base_url}"
        )
        asked = len(server.requests)
    samples = report(pytester)["samples"]
    result.assert_outcomes(passed=len(samples))
    assert asked == len(judged)
    for sample in (s for s in samples if s["task_id"] in judged):
        assert (sample["reward"], sample["reward_breakdown"]) == (1.0, {"DB": 1.0, "NL_ASSERTION": 1.0})
        assert "not_measured" not in sample
    retail = report(pytester)["metrics"]["tau2"]["categories"]["retail"]
    assert retail["not_measured"] == 0 and retail["tasks"] == len(samples) and retail["accuracy"] == 1.0


def test_a_gate_on_nothing_measured_fails(pytester: pytest.Pytester) -> None:
    """Every selected reward skipped as not measured: pytest alone passes (skips fail no run), a
    gate on the domain, or on the overall value, fails and says why."""
    only = ["-k", "retail/2]"]
    assert pytester.runpytest(*RETAIL, *only).ret == 0
    for metric in ("tau2.retail", "tau2.overall"):
        gated = pytester.runpytest(*RETAIL, *only, f"--toolcall-fail-under={metric}=0.5")
        gated.assert_outcomes(skipped=1)
        assert gated.ret == pytest.ExitCode.TESTS_FAILED
        assert f"toolcall gate FAILED: {metric} was not measured (required >= 0.5)" in gated.stdout.str()


@pytest.mark.parametrize("dist", [[], ["-n", "2"]], ids=["no-xdist", "n2"])
def test_oracle_passes_every_telecom_task(pytester: pytest.Pytester, dist: list[str]) -> None:
    """Dual control: the oracle user plays the reference's user actions on its phone."""
    result = pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=tau2",
        "--toolcall-user-model=oracle",
        "--toolcall-tau2-domains=telecom",
        "--toolcall-report=report.json",
        *dist,
    )
    result.assert_outcomes(passed=114)
    telecom = report(pytester)["metrics"]["tau2"]["categories"]["telecom"]
    assert telecom["accuracy"] == 1.0 and telecom["tasks"] == 114
    samples = report(pytester)["samples"]
    assert all(set(s["reward_breakdown"]) <= {"ENV_ASSERTION", "ACTION"} for s in samples)


def small_results(tmp_path: Path, domain: str) -> tuple[Path, dict[str, dict[str, Any]]]:
    """A results file with one simulation per (task, trial): two trials of each of the first tasks,
    the reference and a variant, taken from the learned file."""
    raw = json.loads(unpack(domain_files(domain)[0], tmp_path).read_text())
    chosen, trials = [], {}
    for sim in raw["simulations"]:
        task = sim["task_id"]
        trial = trials.get(task, 0)
        if trial < 2 and len(trials) <= 6:
            chosen.append({**sim, "trial": trial})
            trials[task] = trial + 1
    raw["simulations"] = chosen
    path = tmp_path / f"{domain}_run.json"
    path.write_text(json.dumps(raw))
    return path, {f"{s['task_id']}@{s['trial'] + 1}": expected()[s["id"]] for s in chosen}


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom"])
def test_regrading_a_results_file(pytester: pytest.Pytester, tmp_path: Path, domain: str) -> None:
    if not domain_files(domain):
        pytest.skip(f"no learned {domain} file")
    path, want = small_results(tmp_path, domain)
    result = pytester.runpytest(
        "--toolcall-model=oracle", f"--toolcall-tau2-results={path}", "--toolcall-report=report.json", "-rs"
    )
    samples = {s["nodeid"].split("/", 1)[1].rstrip("]"): s for s in report(pytester)["samples"]}
    assert set(samples) == set(want)
    for key, sample in samples.items():
        if want[key]["kind"] == "infrastructure_error":
            assert sample["outcome"] == "skipped"
            continue
        official = want[key]
        assert sample["simulation_id"].startswith(f"{domain}-")
        judged = "NL_ASSERTION" in official["breakdown"] and sample["reward"] is None
        if not judged:
            assert (sample["reward"], sample["reward_breakdown"]) == (official["reward"], official["breakdown"]), key
        want_outcome = {None: "skipped", 0.0: "failed"}.get(sample["reward"], "passed")
        assert sample["outcome"] == want_outcome, key
        zero = [name for name, value in sample["reward_breakdown"].items() if value == 0.0]
        if zero:  # the record, the item's line and its message name what differed
            named = {line.split(":", 1)[0] for line in sample["failed_checks"]}
            assert set(zero) <= named, (key, sample["failed_checks"])
            assert sample["failed_checks"][0] in sample["reason"] and "what differed:" in sample["explanation"]
    assert result.ret in (0, 1)


def test_a_results_file_that_is_not_one(pytester: pytest.Pytester, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"simulations": [], "tasks": []}))
    result = pytester.runpytest("--toolcall-model=oracle", f"--toolcall-tau2-results={bad}")
    assert "no info.environment_info.domain_name" in result.stdout.str()
    assert result.ret != 0


class ScriptedRun:
    """Agent and user turns of learned simulations, through the chat server: the agent's k-th reply
    is the k-th assistant message after the greeting of the simulation named in the user's opening
    line; the user opens with that name and then sends the simulation's last user message."""

    def __init__(self, simulations: dict[str, Any]) -> None:
        self.simulations = simulations

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        if not body.get("tools"):  # the user simulator
            opening = not any(m["role"] == "assistant" for m in messages)
            if opening:
                task = next(
                    s for s in self.simulations.values() if user_system_prompt(s.task) == messages[0]["content"]
                )
                return Reply(content=f"simulation {task.simulation_id}")
            sim = self._named(messages[1:], role="assistant")
            return Reply(content=sim.messages[-1]["content"])
        sim = self._named(messages, role="user")
        replies = [m for m in sim.messages[1:] if m["role"] == "assistant"]
        done = sum(1 for m in messages[2:] if m["role"] == "assistant")
        reply = replies[done]
        calls = [{"name": c["name"], "arguments": c["arguments"]} for c in reply.get("tool_calls") or []]
        return Reply(content=reply["content"], tool_calls=calls or None)

    def _named(self, messages: list[dict[str, Any]], role: str) -> Any:
        opening = next(m["content"] for m in messages if m["role"] == role)
        return self.simulations[opening.removeprefix("simulation ")]


KINDS = (
    "gold",
    "wrong_args",
    "missing_write",
    "repeated_write",
    "reordered",
    "hallucinated_tool",
    "no_communicate",
    "float_args",
    "transfer",
)


def test_a_live_run_reproduces_the_official_rewards(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One learned simulation per airline task (kinds in turn), played live: each item's reward is
    the official reward of the trajectory it replays."""
    files = [p for p in results_files() if p.name.startswith("results_airline")]  # floats too
    loaded = [s for path in files for s in load_results(unpack(path, tmp_path))]
    sims = [s for s in loaded if s.termination_reason == "user_stop"]
    available: dict[str, dict[str, Any]] = {}
    for sim in sims:
        kind = expected()[sim.simulation_id]["kind"]
        if kind in KINDS:
            available.setdefault(sim.task["id"], {})[kind] = sim
    by_task: dict[str, Any] = {}
    for task, offered in available.items():  # the kinds in turn, over the tasks
        kinds = [k for k in KINDS if k in offered]
        by_task[task] = offered[kinds[int(task) % len(kinds)]]
    chosen = {s.simulation_id: s for s in by_task.values()}
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(ScriptedRun(chosen)) as server:
        pytester.runpytest(
            *live_args(server, "airline"),
            "-k",
            " or ".join(f"airline/{t}]" for t in by_task),
        )
        agent_requests = [r for r in server.requests if r.get("tools")]
    samples = {s["task_id"]: s for s in report(pytester)["samples"]}
    assert set(samples) == set(by_task)
    for task, sim in by_task.items():
        official = expected()[sim.simulation_id]
        assert (samples[task]["reward"], samples[task]["reward_breakdown"]) == (
            official["reward"],
            official["breakdown"],
        )
    assert len({official["reward"] for official in (expected()[s] for s in chosen)}) == 2  # both outcomes
    assert all(r["temperature"] == 0.0 and "max_tokens" not in r for r in agent_requests)


class ScriptedDualControl:
    """The agent's and the user's replies of the official loop's telecom runs
    (``learn_telecom_loop.py``), through the chat server: a request is the user simulator's when its
    system prompt is a task's user prompt (then the run is that task's: one per prompt), the
    agent's otherwise (the run named by the user's opening ``simulation <id>``); the k-th request
    of a side in a run gets that side's k-th reply, tool calls on the phone included."""

    def __init__(self, simulations: dict[str, Any]) -> None:
        self.by_id = simulations
        self.by_prompt = {user_system_prompt(s.task): s for s in simulations.values()}
        assert len(self.by_prompt) == len(simulations)

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        sim = self.by_prompt.get(messages[0]["content"])
        if sim is not None:
            role, done = "user", sum(1 for m in messages if m["role"] == "assistant")
        else:
            opening = next(m["content"] for m in messages if m["role"] == "user")
            sim = self.by_id[opening.removeprefix("simulation ")]
            role, done = "assistant", sum(1 for m in messages if m["role"] == "assistant") - 1  # the greeting
        reply = [m for m in sim.messages[1:] if m["role"] == role][done]
        calls = [{"name": c["name"], "arguments": c["arguments"]} for c in reply.get("tool_calls") or []]
        return Reply(content=reply["content"], tool_calls=calls or None)


def test_a_live_dual_control_run_reproduces_the_official_rewards(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Official telecom runs (kinds in turn: user tool calls on the phone, an erroring one, two in
    one message, a missing one, a wrong agent argument), played live through the real client, one
    per user prompt (tasks share prompts; the others are deselected): each item's reward is the
    official one, and the user simulator was sent the official answers of its phone."""
    from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks

    telecom = Path(__file__).parents[1] / "data" / "tau2" / "telecom"
    sims = load_results(unpack(telecom / "results_telecom-loop.json.gz", tmp_path))
    by_prompt: dict[str, list[Any]] = {}
    for sim in sims:
        by_prompt.setdefault(user_system_prompt(sim.task), []).append(sim)
    chosen = {}
    for index, offered in enumerate(by_prompt.values()):
        first_task = [s for s in offered if s.task["id"] == offered[0].task["id"]]
        sim = first_task[index % len(first_task)]
        chosen[sim.simulation_id] = sim
    tasks = {s.task["id"] for s in chosen.values()}
    others = [f"--deselect=toolcall::tau2[telecom/{t['id']}]" for t in domain_tasks("telecom", "base")]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(ScriptedDualControl(chosen)) as server:
        pytester.runpytest(
            *live_args(server, "telecom"),
            *[d for d in others if d.split("/", 1)[1][:-1] not in tasks],
        )
        user_requests = [r for r in server.requests if r["model"] == "user"]
    samples = {s["task_id"]: s for s in report(pytester)["samples"]}
    assert set(samples) == tasks
    learned = expected()
    for sim in chosen.values():
        official = learned[sim.simulation_id]
        sample = samples[sim.task["id"]]
        assert (sample["reward"], sample["reward_breakdown"]) == (official["reward"], official["breakdown"]), (
            sim.simulation_id
        )
    assert {learned[s]["reward"] for s in chosen} == {0.0, 1.0}
    assert {learned[s]["kind"] for s in chosen} >= {"gold", "bad_user_call", "two_calls", "missing_user_action"}
    # the phone's answers the user simulator was sent: the official ones, in order
    last_seen: dict[str, list[Any]] = {}
    prompts = {user_system_prompt(s.task): s.simulation_id for s in chosen.values()}
    for request in user_requests:
        last_seen[prompts[request["messages"][0]["content"]]] = [
            m["content"] for m in request["messages"] if m["role"] == "tool"
        ]
    for sim_id, sim in chosen.items():
        official_answers = [m["content"] for m in sim.messages if m["role"] == "tool" and m["requestor"] == "user"]
        assert last_seen[sim_id] == official_answers, sim_id
    assert all(request.get("tools") for request in user_requests)


def test_an_aborted_exchange_is_an_infrastructure_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tool arguments that are not JSON: the official runner retries and records
    ``infrastructure_error``; here the item errors and the block counts it apart."""

    def reply(body: dict[str, Any]) -> Reply:
        if body.get("tools"):
            return Reply(tool_calls=[{"name": "get_user_details", "arguments": "{not json"}])
        return Reply(content="Hello, I need help.")

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(reply) as server:
        result = pytester.runpytest(
            *live_args(server, "airline"),
            "-k",
            "airline/0]",
        )
    result.assert_outcomes(errors=1)
    assert "arguments are not JSON" in result.stdout.str()
    airline = report(pytester)["metrics"]["tau2"]["categories"]["airline"]
    assert airline["infra_errors"] == 1 and airline["tasks"] == 0 and airline["accuracy"] is None


@pytest.mark.parametrize(
    ("met", "reward", "outcome"), [(True, 1.0, "passed"), (False, 0.0, "failed"), (None, None, "skipped")]
)
def test_nl_assertions_go_to_the_judge(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, met: bool | None, reward: float | None, outcome: str
) -> None:
    """Retail task 2 has an NL assertion: the judge (a real client against the local server) is sent
    the official prompt and its JSON decides; with no judge the reward is not measured."""

    def judge(body: dict[str, Any]) -> Reply:
        assertions = ["Agent should tell the user that there are 10 t-shirt options available."]
        results = [{"expectedOutcome": a, "reasoning": "r", "metExpectation": met} for a in assertions]
        return Reply(content=json.dumps({"results": results}))

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(judge) as server:
        judge_args = ["--toolcall-judge-model=judge", f"--toolcall-judge-base-url={server.base_url}"]
        result = pytester.runpytest(
            "--toolcall-model=oracle",
            "--toolcall-bench=tau2",
            "--toolcall-tau2-domains=retail",
            "--toolcall-report=report.json",
            "-k",
            "retail/2]",
            *(judge_args if met is not None else []),
        )
        prompts = [r["messages"] for r in server.requests]
    sample = report(pytester)["samples"][0]
    assert (sample["reward"], sample["outcome"]) == (reward, outcome)
    assert sample["reward_breakdown"] == {"DB": 1.0, "NL_ASSERTION": None if met is None else reward}
    if met is None:
        assert prompts == [] and "1 reward(s) not measured" in result.stdout.str()
    else:
        assert len(prompts) == 1 and prompts[0][0]["content"].lstrip().startswith("TASK")
        assert "expectedOutcomes:\n        ['Agent should tell the user" in prompts[0][1]["content"]


def test_oracle_passes_every_banking_knowledge_task(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """τ³-bench's knowledge domain with bm25 (the default): the oracle agent and user play every
    task's reference, and every reward is 1; task_102's NL assertions go to the judge (the local
    server, every assertion met), asked once."""
    assertions = tau2_benchmark.task_by_id("banking_knowledge", "task_102")["evaluation_criteria"]["nl_assertions"]

    def judge(body: dict[str, Any]) -> Reply:
        results = [{"expectedOutcome": a, "reasoning": "r", "metExpectation": True} for a in assertions]
        return Reply(content=json.dumps({"results": results}))

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ChatServer(judge) as server:
        result = pytester.runpytest(
            "--toolcall-model=oracle",
            "--toolcall-bench=tau2",
            "--toolcall-user-model=oracle",
            "--toolcall-tau2-domains=banking_knowledge",
            "--toolcall-judge-model=judge",
            f"--toolcall-judge-base-url={server.base_url}",
            "--toolcall-report=report.json",
        )
        asked = len(server.requests)
    result.assert_outcomes(passed=97)
    samples = report(pytester)["samples"]
    assert all(s["reward"] == 1.0 for s in samples)
    assert {k for s in samples for k in s["reward_breakdown"]} == {"DB", "ACTION", "NL_ASSERTION"}
    assert asked == 1
    assert report(pytester)["run"]["datasets"]["tau2"]["retrieval"] == "bm25"
