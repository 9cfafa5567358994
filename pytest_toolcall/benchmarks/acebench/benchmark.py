"""ACEBench behind the benchmark protocol: units, requests, verdicts and its summary table; its metrics
and gate names are declared (``metrics.METRICS``).

A unit is an ACEBench sample, a whole normal multi-turn dialogue (teacher-forced steps, one request
each) or an agent dialogue (run against the simulated APIs on a thread of its own).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.api import (
    Benchmark,
    ChatRequest,
    ChatResponse,
    Dialogue,
    Loaded,
    Model,
    Models,
    Part,
    Plan,
    Requests,
    Role,
    Skip,
    Unit,
    Verdict,
    parse_choices,
    parse_number,
    usage_error,
)
from pytest_toolcall.api.text import one_line
from pytest_toolcall.benchmarks.acebench.dataset import (
    CATEGORIES,
    LANGUAGES,
    DataError,
    Sample,
    family,
)
from pytest_toolcall.benchmarks.acebench.metrics import METRICS
from pytest_toolcall.benchmarks.acebench.options import FIXTURES, OPTIONS

#: The pinned data root shipped in the package (chenchen0103/ACEBench@56dd66c, MIT).
SHIPPED_ROOT = Path(__file__).with_name("data")
#: Expected requests of an agent dialogue (a few tool rounds per turn, user turns between), for
#: balancing shards before any latency is recorded.
AGENT_COST = 12.0
NO_USER = (
    "agent_multi_turn needs a user simulator: pass --toolcall-user-model=NAME "
    "(and --toolcall-user-base-url=URL if it is served elsewhere)"
)


class ACEBench(Benchmark):
    name = "acebench"
    metrics = METRICS
    markers: ClassVar[Mapping[str, str]] = {
        "normal": "ACEBench normal category",
        "special": "ACEBench special category",
        "agent": "ACEBench agent category",
        "en": "ACEBench English data",
        "zh": "ACEBench Chinese data",
    }
    fixtures = FIXTURES
    options = OPTIONS
    #: The official runner's sampling (the agent dialogues send their own: ``AGENT_SAMPLING``).
    sampling: ClassVar[Mapping[str, Any]] = {"temperature": 0.7, "max_tokens": 1200}

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        option = settings.option
        self.langs = LANGUAGES if option("lang") == "all" else parse_choices("lang", option("lang"), LANGUAGES)
        data_dir = option("data-dir")
        self.root = Path(data_dir).expanduser() if data_dir else SHIPPED_ROOT
        if not (self.root / "data_all").is_dir():
            raise usage_error(
                "data-dir",
                f"{self.root} has no data_all/ folder (an ACEBench data root holds data_all/ and prompts.json)",
            )
        step_lang = parse_choices("step-prompt-lang", option("step-prompt-lang"), ("sample", *LANGUAGES))[0]
        self.step_prompt_lang = None if step_lang == "sample" else step_lang
        self.max_turns = parse_number("max-dialog-turns", option("max-dialog-turns"), int, minimum=1, maximum=1000)
        self._prompts: Any = None
        self._reference_failures: dict[str, str | None] = {}

    def selection_hint(self, names: set[str]) -> str | None:
        missing = [lang for lang in LANGUAGES if lang in names and lang not in self.langs]
        if not missing:
            return None
        return f"{'/'.join(missing)} items are loaded with --toolcall-lang={missing[0]} (or all)"

    def roles(self) -> tuple[Role, ...]:
        return (Role.USER,)  # agent_multi_turn's user simulator

    def header(self) -> str:
        return f"lang={','.join(self.langs)} acebench={self.data_label()}"

    def data_label(self) -> str:
        return pinned_commit()[:7] if self.root == SHIPPED_ROOT else str(self.root)

    def datasets(self) -> dict[str, Any]:
        return {"commit": pinned_commit()[:7], "root": str(self.root), "langs": list(self.langs)}

    # --- data ------------------------------------------------------------------------------------

    def load(self) -> Loaded:
        from pytest_toolcall.benchmarks.acebench.dataset import load_category
        from pytest_toolcall.benchmarks.acebench.prompts import Prompts

        loaded = Loaded(units=[])
        try:
            self._prompts = Prompts.load(self.root)
        except DataError as exc:
            loaded.problems.append(("acebench", str(exc)))
            return loaded
        for lang in self.langs:
            for category in CATEGORIES:
                try:
                    samples = load_category(self.root, lang, category)
                except DataError as exc:
                    loaded.problems.append((f"acebench[{lang}/{category}]", str(exc)))
                    continue
                loaded.units += [self.unit(sample) for sample in samples]
        return loaded

    def unit(self, sample: Sample) -> Unit:
        return Unit(
            benchmark=self.name,
            key=f"{sample.lang}/{sample.id}",
            category=sample.category,
            id=sample.id,
            lang=sample.lang,
            markers=(family(sample.category), sample.lang),
            sample=sample,
            source=sample.first.source,
        )

    @property
    def prompts(self) -> Any:
        assert self._prompts is not None, "ACEBench units exist only when the prompts loaded"
        return self._prompts

    # --- asking ----------------------------------------------------------------------------------

    def plan(self, unit: Unit, models: Models) -> Plan:
        from pytest_toolcall.benchmarks.acebench.prompts import acebench_requests

        sample: Sample = unit.sample
        if family(sample.category) != "agent":
            return Requests(acebench_requests(self.prompts, sample))
        if models.oracle:
            return Dialogue(functools.partial(self.reference_rollout, sample))
        if sample.category == "agent_multi_step":
            return Dialogue(functools.partial(self._multi_step, sample, models.model), AGENT_COST)
        user = models.user
        if user is None:
            return Skip(NO_USER)
        return Dialogue(functools.partial(self._multi_turn, sample, models.model, user), AGENT_COST)

    def _multi_step(self, sample: Sample, model: Model) -> Any:
        from pytest_toolcall.benchmarks.acebench.agents import AGENT_SAMPLING, run_multi_step

        agent = _speaker(model, AGENT_SAMPLING)
        return run_multi_step(sample, self.prompts, agent, max_turns=self.max_turns, prompt_lang=self.step_prompt_lang)

    def _multi_turn(self, sample: Sample, model: Model, user_model: Model) -> Any:
        from pytest_toolcall.benchmarks.acebench.agents import (
            AGENT_SAMPLING,
            USER_SAMPLING,
            oracle_user,
            run_multi_turn,
        )

        user = oracle_user(sample) if user_model.oracle else _speaker(user_model, USER_SAMPLING)
        return run_multi_turn(sample, self.prompts, _speaker(model, AGENT_SAMPLING), user, max_turns=self.max_turns)

    def reference_rollout(self, sample: Sample) -> Any:
        from pytest_toolcall.benchmarks.acebench.agents.oracle import oracle_rollout

        return oracle_rollout(sample, self.prompts, self.max_turns)

    # --- scoring ---------------------------------------------------------------------------------

    def score(self, unit: Unit, answer: Any) -> Verdict:
        from pytest_toolcall.benchmarks.acebench.scoring.sample import explain, score_sample

        sample: Sample = unit.sample
        if family(sample.category) == "agent":
            return self._score_agent(unit, answer)
        outputs = [response.content for response in answer]
        result = score_sample(sample, outputs)
        fields: dict[str, Any] = {
            "output": outputs[0] if len(outputs) == 1 else outputs,
            "process": result.process,
            "ceiling": self.ceiling(unit),
            "error_type": next((s.verdict.error_type for s in result.steps if not s.verdict.valid), ""),
        }
        fields["failure_kind"] = fields["error_type"] or None  # ACEBench keeps the official error types
        if len(sample.steps) > 1:
            fields["steps"] = [{"id": s.id, "valid": s.verdict.valid, "output": s.output} for s in result.steps]
        if result.passed:
            return Verdict(True, fields=fields)
        # The calls as decoded ({name: arguments} each), in the protocol's shape; none when undecodable.
        decoded = [d for s in result.steps for d in s.decoded or ()]
        fields["tool_calls"] = [{"name": n, "arguments": a} for d in decoded for n, a in d.items()]
        return Verdict(False, explain(sample, result), fields, brief=explain(sample, result, brief=True))

    def _score_agent(self, unit: Unit, rollout: Any) -> Verdict:
        """End state against the ground truth; process score against the milestones."""
        from pytest_toolcall.benchmarks.acebench.agents import format_transcript, score_rollout

        result = score_rollout(unit.sample, rollout)
        fields = {
            "output": rollout.agent_replies,
            "process": result.process,
            "ceiling": self.ceiling(unit),
            "error_type": result.error_type,
            "process_calls": rollout.process,
            "end_state": rollout.end_state,
            "failure_kind": result.error_type or None,
        }
        if result.passed:
            return Verdict(True, fields=fields)
        transcript = format_transcript(rollout)
        fields["transcript"] = [_chat_message(m) for m in rollout.transcript]
        return Verdict(False, f"{result.message}\n\ntranscript:\n{transcript}", fields, brief=result.message)

    def explain(self, unit: Unit) -> dict[str, Any]:
        """The request (none for an agent: its transcript says it) and the ground truth: of each
        step for a normal multi-turn dialogue, the end state for an agent."""
        truth = [step.ground_truth for step in unit.sample.steps]
        return {**super().explain(unit), "expected": truth[0] if len(truth) == 1 else truth}

    def ceiling(self, unit: Unit) -> float:
        """1.0 when the dataset's own reference answer passes the official scorer, else 0.0."""
        return 0.0 if self.known_failure(unit) else 1.0

    def known_failure(self, unit: Unit) -> str | None:
        """Computed once per unit of this run (and honouring --toolcall-max-dialog-turns, as the
        oracle's own run does)."""
        if unit.key not in self._reference_failures:
            why = self._reference_failure(unit.sample)
            self._reference_failures[unit.key] = (
                None if why is None else f"the dataset's reference answer fails the official scorer: {why}"
            )
        return self._reference_failures[unit.key]

    def _reference_failure(self, sample: Sample) -> str | None:
        from pytest_toolcall.benchmarks.acebench.agents import score_rollout
        from pytest_toolcall.benchmarks.acebench.oracle import acebench_answer
        from pytest_toolcall.benchmarks.acebench.scoring.sample import score_sample

        if family(sample.category) == "agent":
            result = score_rollout(sample, self.reference_rollout(sample))
            return None if result.passed else one_line(result.message.split("\n", 1)[0], 200)
        answers = [acebench_answer(sample.lang, sample.category, step) for step in sample.steps]
        steps = score_sample(sample, answers).steps
        failed = next((s for s in steps if not s.verdict.valid), None)
        if failed is None:
            return None
        head = f"{failed.id}: " if len(steps) > 1 else ""
        return one_line(f"{head}{failed.verdict.message or failed.verdict.error_type}", 200)

    # --- results ---------------------------------------------------------------------------------

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        from pytest_toolcall.benchmarks.acebench.summary import acebench_table

        return acebench_table(block)


def _speaker(model: Model, sampling: dict[str, Any]) -> Callable[[list[dict[str, Any]]], str]:
    """A dialogue participant backed by a model: messages in, reply text out (the official loops
    send the agent and the simulator their own fixed sampling settings)."""

    def speak(messages: list[dict[str, Any]]) -> str:
        response: ChatResponse = model.submit(ChatRequest(messages, sampling=sampling)).result()
        return response.content or ""

    return speak


@functools.cache
def pinned_commit() -> str:
    return (SHIPPED_ROOT / "COMMIT").read_text(encoding="utf-8").strip()


#: Who says what in ACEBench's dialogue history, in the chat roles of a transcript.
_ROLES = {"user": "user", "agent": "assistant", "execution": "tool"}


def _chat_message(message: Any) -> dict[str, Any]:
    """One message of a rollout as a transcript entry; an execution's calls with their outcomes."""
    entry: dict[str, Any] = {"role": _ROLES.get(message.sender, message.sender), "content": message.content}
    if message.calls:
        entry["calls"] = [
            {"name": c.name, "arguments": c.arguments, "outcome": c.outcome, "result": c.result} for c in message.calls
        ]
    return entry
