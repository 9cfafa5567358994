"""τ²-bench behind the benchmark protocol: a unit is a task of a domain (a live simulation of the
official loop) or a simulation of a results file (``--toolcall-tau2-results``, graded again); both
end in the official reward (``evaluation.py``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.api import (
    Benchmark,
    ChatRequest,
    DataError,
    Dialogue,
    Loaded,
    Model,
    Models,
    Part,
    Plan,
    Role,
    Skip,
    Unit,
    Verdict,
    parse_choices,
    usage_error,
)
from pytest_toolcall.benchmarks.tau2.metrics import METRICS
from pytest_toolcall.benchmarks.tau2.names import ALL_DOMAINS, DATA
from pytest_toolcall.benchmarks.tau2.options import OPTIONS

COMMIT = "a2c0247"
SPLITS = ("leaderboard", "base", "train", "test", "full", "small")
#: The split each domain's leaderboard number is over.
LEADERBOARD = {"airline": "base", "retail": "base", "telecom": "base", "banking_knowledge": "base"}
#: Requests of a simulation, for balancing shards before any latency is recorded.
SIMULATION_COST = 30.0
KNOWLEDGE_DOMAIN = "banking_knowledge"
NO_USER = (
    "a τ²-bench simulation needs a user simulator: pass --toolcall-user-model=NAME "
    "(and --toolcall-user-base-url=URL if it is served elsewhere), or re-grade results files with "
    "--toolcall-tau2-results"
)


@dataclass
class Outcome:
    """What a unit's dialogue returns: the simulation, and its reward (graded on the dialogue's
    thread, where the judge model can be asked)."""

    domain: str
    task_id: str
    termination_reason: str
    messages: list[dict[str, Any]]
    reward: Any  # evaluation.Reward


class Tau2(Benchmark):
    name = "tau2"
    metrics = METRICS
    markers: ClassVar[Mapping[str, str]] = {
        "airline": "τ²-bench airline domain",
        "retail": "τ²-bench retail domain",
        "telecom": "τ²-bench telecom domain",
        "banking_knowledge": "τ³-bench banking_knowledge domain",
    }
    #: The official results and submission files (``pytest-toolcall export --format tau2``).
    hooks: ClassVar[str | None] = "pytest_toolcall.benchmarks.tau2.export"
    options = OPTIONS
    #: The official sampling of the agent and the user simulator (``DEFAULT_LLM_ARGS_*`` at a2c0247):
    #: temperature 0, no token cap; the run's --toolcall-temperature/--toolcall-max-tokens replace it.
    sampling: ClassVar[Mapping[str, Any]] = {"temperature": 0.0}

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        option = settings.option
        self.domains = parse_choices("tau2-domains", option("tau2-domains") or "airline,retail,telecom", ALL_DOMAINS)
        self.retrieval = _retrieval(option("tau2-retrieval") or "bm25")
        if KNOWLEDGE_DOMAIN in self.domains and self.retrieval == "bm25":
            try:
                import rank_bm25  # noqa: F401
            except ImportError:
                raise usage_error(
                    "tau2-retrieval",
                    "bm25 ranks with the rank-bm25 package, as the official code: pip install 'pytest-toolcall[tau3]' "
                    "(or choose another configuration)",
                ) from None
        self.split = parse_choices("tau2-split", option("tau2-split") or "leaderboard", SPLITS)[0]
        files = [f.strip() for f in (option("tau2-results") or "").split(",") if f.strip()]
        self.results_files = [Path(f).expanduser() for f in files]
        for path in self.results_files:
            if not path.is_file():
                raise usage_error("tau2-results", f"{path} is not a file")

    def roles(self) -> tuple[Role, ...]:
        """The judge of NL assertions; the user simulator of live simulations (not of re-grading)."""
        return (Role.JUDGE,) if self.results_files else (Role.USER, Role.JUDGE)

    def read_inputs(self) -> None:
        """A live run without a user simulator would skip every simulation: refused before any
        request (the oracle plays the user from the task when none is named)."""
        if not self.results_files and not self.settings.option("user-model") and not self.settings.is_oracle:
            raise usage_error("user-model", NO_USER)

    def header(self) -> str:
        if self.results_files:
            return f"tau2={COMMIT} re-grading {len(self.results_files)} results file(s)"
        retrieval = f" retrieval={self.retrieval}" if KNOWLEDGE_DOMAIN in self.domains else ""
        return f"tau2={COMMIT} domains={','.join(self.domains)} split={self.split}{retrieval}"

    def datasets(self) -> dict[str, Any]:
        return {
            "commit": COMMIT,
            "domains": list(self.domains),
            # banking_knowledge's retrieval configuration: part of the run's identity when it ran
            **({"retrieval": self.retrieval} if KNOWLEDGE_DOMAIN in self.domains else {}),
            "split": self.split,
            "results_files": [str(p) for p in self.results_files],
        }

    # --- data ------------------------------------------------------------------------------------

    def load(self) -> Loaded:
        if self.results_files:
            return self._load_results()
        loaded = Loaded(units=[])
        for domain in self.domains:
            try:
                tasks = domain_tasks(domain, LEADERBOARD[domain] if self.split == "leaderboard" else self.split)
            except DataError as exc:
                loaded.problems.append((f"tau2[{domain}]", str(exc)))
                continue
            source = DATA / domain / ("tasks" if domain == KNOWLEDGE_DOMAIN else "tasks.json")
            for task in tasks:
                loaded.units.append(self._unit(domain, str(task["id"]), {"task": task}, source=str(source)))
        return loaded

    def _load_results(self) -> Loaded:
        from pytest_toolcall.benchmarks.tau2.results_file import load_results

        loaded = Loaded(units=[])
        seen: dict[tuple[str, str, int], str] = {}
        configurations: dict[str, str] = {}  # banking_knowledge's retrieval configuration -> its first file
        for path in self.results_files:
            try:
                simulations = load_results(path)
            except DataError as exc:
                loaded.problems.append((f"tau2[{path.name}]", str(exc)))
                continue
            retrieval = next((sim.retrieval for sim in simulations if sim.retrieval), None)
            if retrieval is not None:
                # one domain score of two configurations would compare with neither
                other = next(((c, f) for c, f in configurations.items() if c != retrieval), None)
                if other is not None:
                    loaded.problems.append(
                        (
                            f"tau2[{path.name}]",
                            f"{path}: a banking_knowledge run with retrieval {retrieval}, {other[1]} one with "
                            f"{other[0]}: one configuration per run, please",
                        )
                    )
                    continue
                configurations.setdefault(retrieval, str(path))
            for sim in simulations:
                key = (sim.domain, str(sim.task["id"]), sim.trial)
                if key in seen:
                    loaded.problems.append(
                        (
                            f"tau2[{path.name}]",
                            f"{path}: simulation {sim.simulation_id} is trial {sim.trial} of {sim.domain} task "
                            f"{key[1]}, as is {seen[key]}: one run's simulations only, please",
                        )
                    )
                    continue
                seen[key] = f"{sim.simulation_id} ({sim.file})"
                fields = {"simulation_id": sim.simulation_id, "termination_reason": sim.termination_reason}
                if sim.retrieval:
                    fields["retrieval"] = sim.retrieval
                loaded.units.append(
                    self._unit(sim.domain, key[1], {"task": sim.task, "saved": sim}, sim.trial, fields, source=sim.file)
                )
        return loaded

    def _unit(
        self,
        domain: str,
        task_id: str,
        sample: dict[str, Any],
        trial: int | None = None,
        extra: dict[str, Any] | None = None,
        source: str | None = None,
    ) -> Unit:
        fields = {"domain": domain, "task_id": task_id, "trial": trial, **(extra or {})}
        return Unit(
            benchmark=self.name,
            key=f"{domain}/{task_id}",
            category=domain,
            id=task_id,
            markers=(domain,),
            fields=fields,
            sample=sample,
            source=source,
            attempt=None if trial is None else trial + 1,
        )

    # --- asking ----------------------------------------------------------------------------------

    def plan(self, unit: Unit, models: Models) -> Plan:
        domain = unit.fields["domain"]
        task = unit.sample["task"]
        judge = self._judge(models)
        saved = unit.sample.get("saved")
        if saved is not None:
            if saved.termination_reason == "infrastructure_error":
                return Skip("the simulation ended infrastructure_error: officially in no metric (counted apart)")
            return Dialogue(functools.partial(_grade, domain, task, saved.messages, saved.termination_reason, judge))
        user = models.user  # (under the oracle, the oracle plays the user when no simulator is given)
        if user is None:
            return Skip(NO_USER)
        trial = (unit.attempt or 1) - 1  # under --toolcall-repeat, the official trial (its seed)
        simulate = functools.partial(_simulate, domain, task, trial, models.model, user, judge, self.retrieval)
        return Dialogue(simulate, SIMULATION_COST)

    def _judge(self, models: Models) -> Any:
        judge = models.judge
        if judge is None:
            return None
        from pytest_toolcall.benchmarks.tau2.judge import model_judge

        return model_judge(judge)

    # --- scoring ---------------------------------------------------------------------------------

    def score(self, unit: Unit, answer: Any) -> Verdict:
        from pytest_toolcall.benchmarks.tau2.evaluation import failures
        from pytest_toolcall.benchmarks.tau2.transcript import format_transcript

        outcome: Outcome = answer
        reward = outcome.reward
        failed = [name for name, value in reward.breakdown.items() if value == 0.0]
        fields: dict[str, Any] = {
            "domain": outcome.domain,
            "task_id": outcome.task_id,
            # A re-graded simulation's own trial; a live one's attempt under --toolcall-repeat (from 0).
            "trial": unit.fields["trial"] if unit.fields.get("trial") is not None else (unit.attempt or 1) - 1,
            "reward": reward.reward,
            "reward_breakdown": dict(reward.breakdown),
            "termination_reason": outcome.termination_reason,
            "output": [m.get("content") for m in outcome.messages if m.get("role") == "assistant" and m.get("content")],
            # The whole trajectory, in the official format: what an export to tau2's results needs.
            "messages": outcome.messages,
            "failure_kind": None
            if reward.reward != 0.0
            else (failed[0].lower() if failed else "premature_termination"),
        }
        if outcome.domain == KNOWLEDGE_DOMAIN:  # printed beside the domain's score
            # a live run's own; a re-graded simulation's as its results file states it
            retrieval = self.retrieval if "simulation_id" not in unit.fields else unit.fields.get("retrieval")
            if retrieval:
                fields["retrieval"] = retrieval
        if "simulation_id" in unit.fields:
            fields["simulation_id"] = unit.fields["simulation_id"]
        if reward.note:
            fields["reward_note"] = reward.note
        if reward.reward is None:  # no judge, and its judge-free parts hold: neither pass nor failure
            return Verdict(True, fields=fields, not_measured=reward.note)
        if reward.reward == 1.0:
            return Verdict(True, fields=fields)
        why = reward.note or f"components at 0: {', '.join(failed)}"
        differed = failures(reward)
        if differed:
            fields["failed_checks"] = differed
            # The first difference on the item's line; every one of them in the message and the record.
            why += f" ({differed[0]}{f'; and {len(differed) - 1} more' if len(differed) > 1 else ''})"
        brief = f"reward {reward.reward:g}: {why}"
        what = "".join(f"\n  {line}" for line in differed)
        message = f"{brief}\n\nwhat differed:{what}\n\n" if differed else f"{brief}\n\n"
        return Verdict(False, f"{message}transcript:\n{format_transcript(outcome.messages)}", fields, brief=brief)

    # --- results ---------------------------------------------------------------------------------

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        from pytest_toolcall.benchmarks.tau2.metrics import summary_parts

        return summary_parts(block)


@functools.cache
def _tasks(domain: str) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    folder = DATA / domain
    if domain == KNOWLEDGE_DOMAIN:
        # As the official loader: one file per task (they hold the 1.0.1 fixes; tasks.json does not),
        # and no splits: every task is the leaderboard's.
        try:
            tasks = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((folder / "tasks").glob("task_*.json"))]
        except (OSError, ValueError) as exc:
            raise DataError(f"{folder / 'tasks'}: cannot read the tasks ({exc})") from None
        return tasks, {"base": [str(t["id"]) for t in tasks]}
    try:
        tasks = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))
        splits = json.loads((folder / "split_tasks.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"{folder}: cannot read the tasks ({exc})") from None
    return tasks, splits


def _retrieval(value: str) -> str:
    """A retrieval configuration that can run offline, or a usage error saying why not."""
    from pytest_toolcall.benchmarks.tau2.knowledge import refusal

    why = refusal(value.strip())
    if why is not None:
        raise usage_error("tau2-retrieval", why)
    return value.strip()


def task_by_id(domain: str, task_id: str) -> dict[str, Any]:
    """A task of the shipped data (``KeyError`` when the domain has no such task)."""
    tasks, _ = _tasks(domain)
    return next(task for task in tasks if str(task["id"]) == task_id)


def domain_tasks(domain: str, split: str) -> list[dict[str, Any]]:
    tasks, splits = _tasks(domain)
    if split not in splits:
        raise DataError(f"{DATA / domain / 'split_tasks.json'}: no split {split!r} (it has {', '.join(splits)})")
    wanted = set(splits[split])
    return [task for task in tasks if str(task["id"]) in wanted]


def _grade(domain: str, task: dict[str, Any], messages: list[dict[str, Any]], reason: str, judge: Any) -> Outcome:
    from pytest_toolcall.benchmarks.tau2.evaluation import evaluate

    return Outcome(domain, str(task["id"]), reason, messages, evaluate(domain, task, messages, reason, judge))


def _simulate(
    domain: str, task: dict[str, Any], trial: int, model: Model, user: Model, judge: Any, retrieval: str
) -> Outcome:
    from pytest_toolcall.benchmarks.tau2.evaluation import evaluate
    from pytest_toolcall.benchmarks.tau2.loop import run_simulation

    simulation = run_simulation(
        domain,
        task,
        _speaker(model, task, trial, model.oracle, "agent"),
        _speaker(user, task, trial, user.oracle, "user"),
        retrieval=retrieval,
    )
    reward = evaluate(domain, task, simulation.messages, simulation.termination_reason, judge, strict_replay=True)
    return Outcome(domain, str(task["id"]), simulation.termination_reason, simulation.messages, reward)


def _speaker(model: Model, task: dict[str, Any], trial: int, oracle: bool, side: str) -> Any:
    from pytest_toolcall.benchmarks.tau2.loop import decode_calls, request_sampling
    from pytest_toolcall.benchmarks.tau2.oracle import oracle_agent_reply, oracle_user_reply

    def speak(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> tuple[str | None, list[Any]]:
        reference: Any = None
        if oracle:
            reference = oracle_agent_reply(task, messages) if side == "agent" else oracle_user_reply(task, messages)
        # The trial's seed and tool_choice; the temperature is the benchmark's ``sampling``, which
        # the run adds to every request of the unit (what the request sets itself wins).
        sampling = request_sampling(trial, tools)
        response = model.submit(ChatRequest(messages, tools, sampling=sampling, reference=reference)).result()
        return response.content, decode_calls(response.tool_calls)

    return speak
