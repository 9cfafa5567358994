"""BFCL behind the benchmark protocol: one official entry is one unit, asked in the selected mode
(``fc``: native tool calls; ``prompting``: the official default system prompt) with the official
generation settings, and judged by the official checker's rules.

Generation settings: BFCL requests carry the official runner's own (temperature 0.001, no
``max_tokens``: the class's ``sampling``) unless ``--toolcall-temperature`` or
``--toolcall-max-tokens`` is given, which then replaces it.

A multi-turn entry is one unit too: a dialogue (``Dialogue`` plan) run by the official inference
loop against simulated backends, graded by the official state and response checks.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.api import (
    Benchmark,
    ChatRequest,
    ChatResponse,
    Dialogue,
    Loaded,
    Models,
    Part,
    Plan,
    Requests,
    Unit,
    Verdict,
    parse_choices,
    usage_error,
)
from pytest_toolcall.api.text import one_line
from pytest_toolcall.benchmarks.bfcl.data import LIVE, MEMORY_CATEGORIES, NON_LIVE
from pytest_toolcall.benchmarks.bfcl.metrics import (
    ALL_CATEGORIES,
    FORMAT_SENSITIVITY,
    METRICS,
    MULTI_TURN,
    NOT_MEASURED,
    V3_CATEGORIES,
)
from pytest_toolcall.benchmarks.bfcl.options import OPTIONS

MODES = ("fc", "prompting")
#: How a reply carrying ``tool_calls: []`` is read (see ``multi_turn_dialogue.EMPTY_TOOL_CALLS``).
EMPTY_TOOL_CALLS = ("official", "fixed")
#: Groups accepted by ``--toolcall-bfcl-categories`` besides category names.
CATEGORY_GROUPS: dict[str, tuple[str, ...]] = {
    "all": ALL_CATEGORIES,
    "v3": V3_CATEGORIES,
    "non_live": NON_LIVE,
    "live": LIVE,
    "multi_turn": MULTI_TURN,
    "memory": MEMORY_CATEGORIES,
    "agentic": MEMORY_CATEGORIES,
}
#: What the official runner sends besides messages and tools; None = the field is left out.
GENERATION = {"temperature": 0.001, "max_tokens": None}


def group_of(category: str) -> str:
    if category in MULTI_TURN:
        return "multi_turn"
    if category in MEMORY_CATEGORIES:
        return "agentic"
    if category == FORMAT_SENSITIVITY:
        return FORMAT_SENSITIVITY
    return "live" if category.startswith("live_") else "non_live"


class BFCL(Benchmark):
    name = "bfcl"
    #: The output hooks: ``pytest-toolcall export --format bfcl`` (the official score files).
    hooks: ClassVar[str | None] = "pytest_toolcall.benchmarks.bfcl.export"
    metrics = METRICS
    markers: ClassVar[Mapping[str, str]] = {
        "non_live": "BFCL non-live category",
        "live": "BFCL live category",
        "multi_turn": "BFCL multi-turn category",
        "agentic": "BFCL V4 agentic category (memory)",
        "memory": "BFCL V4 memory category",
        **{category: f"BFCL category {category}" for category in ALL_CATEGORIES if category != FORMAT_SENSITIVITY},
        FORMAT_SENSITIVITY: "BFCL V4 format sensitivity (prompting mode only)",
    }
    options = OPTIONS
    #: What the official runner sends besides messages and tools (``--temperature 0.001``, no
    #: ``max_tokens``): the run's --toolcall-temperature/--toolcall-max-tokens replace it when given.
    sampling: ClassVar[Mapping[str, Any]] = {"temperature": 0.001}

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        modes = parse_choices("bfcl-mode", settings.option("bfcl-mode"), MODES)
        if len(modes) != 1:
            raise usage_error("bfcl-mode", f"one mode, not {', '.join(modes)}")
        self.mode = modes[0]
        names = (*CATEGORY_GROUPS, *ALL_CATEGORIES)
        asked = str(settings.option("bfcl-categories") or "")
        for name in (part.strip() for part in asked.split(",")):
            if name in NOT_MEASURED:  # an official category, named with the reason it cannot run here
                raise usage_error("bfcl-categories", f"{name} is not measured: it {NOT_MEASURED[name]}")
        chosen = parse_choices("bfcl-categories", asked, names)
        categories = [c for name in chosen for c in CATEGORY_GROUPS.get(name, (name,))]
        if self.mode == "fc" and FORMAT_SENSITIVITY in categories:
            if FORMAT_SENSITIVITY in chosen:
                raise usage_error("bfcl-categories", "format_sensitivity runs in prompting mode only (as officially)")
            categories.remove(FORMAT_SENSITIVITY)  # "all" in fc mode: as the official runner skips it
        self.categories = tuple(c for c in ALL_CATEGORIES if c in categories)  # official order
        readings = parse_choices("bfcl-empty-tool-calls", settings.option("bfcl-empty-tool-calls"), EMPTY_TOOL_CALLS)
        if len(readings) != 1:
            raise usage_error("bfcl-empty-tool-calls", f"one reading, not {', '.join(readings)}")
        self.empty_tool_calls = readings[0]
        self._memory_chains: Any = None
        #: Questions per (memory category, scenario): they share its prerequisite conversations.
        self._scenario_questions: dict[tuple[str, str], int] = {}
        self._reference_failures: dict[str, str | None] = {}

    def header(self) -> str:
        # The generic temperature/max_tokens on the next header line do not apply to BFCL requests.
        return (
            f"bfcl={pinned_commit()[:7]} bfcl-mode={self.mode} bfcl-sampling=official(temperature=0.001) "
            f"bfcl-empty-tool-calls={self.empty_tool_calls}"
        )

    def datasets(self) -> dict[str, Any]:
        from pytest_toolcall.benchmarks.bfcl.source_calls import EXACT

        return {
            "commit": pinned_commit(),
            "mode": self.mode,
            "categories": list(self.categories),
            "generation": dict(GENERATION),
            # How a reply of ``tool_calls: []`` was read: it decides memory verdicts (part of the run).
            "empty_tool_calls": self.empty_tool_calls,
            # Java/JavaScript replies in prompting mode are read exactly as officially only with the
            # optional tree-sitter packages; a hand-written reader stands in without them.
            "java_js_reader": "tree-sitter" if EXACT else "hand-written (tree-sitter not installed)",
        }

    # --- data ------------------------------------------------------------------------------------

    def load(self) -> Loaded:
        from pytest_toolcall.benchmarks.bfcl.data import load_category, load_memory_category, load_multi_turn_category
        from pytest_toolcall.benchmarks.bfcl.format_sensitivity import load_format_sensitivity

        loaded = Loaded(units=[])
        for category in self.categories:
            load: Any = load_category
            if category in MULTI_TURN:
                load = load_multi_turn_category
            elif category in MEMORY_CATEGORIES:
                load = load_memory_category
            elif category == FORMAT_SENSITIVITY:
                load = load_format_sensitivity
            samples, problems = load(category)
            if category in MEMORY_CATEGORIES:
                for sample in samples:
                    key = (category, sample.scenario)
                    self._scenario_questions[key] = self._scenario_questions.get(key, 0) + 1
            loaded.units += [self.unit(sample) for sample in samples]
            loaded.problems += [(f"bfcl[{category}]", str(problem)) for problem in problems]
        return loaded

    def unit(self, sample: Any) -> Unit:
        return Unit(
            benchmark=self.name,
            key=f"{sample.category}/{sample.id}",
            category=sample.category,
            id=sample.id,
            markers=(group_of(sample.category), sample.category),
            sample=sample,
            source=sample.source,
        )

    # --- asking ----------------------------------------------------------------------------------

    def plan(self, unit: Unit, models: Models) -> Plan:
        from pytest_toolcall.benchmarks.bfcl.request import build_request

        # The official generation settings are the class's ``sampling``, which the run sends with
        # every request of a unit; nothing is added per request.
        sampling: dict[str, Any] = {}
        if unit.category in MEMORY_CATEGORIES:
            from pytest_toolcall.benchmarks.bfcl import memory_dialogue

            if self._memory_chains is None:
                self._memory_chains = memory_dialogue.MemoryChains()
            if models.oracle:
                chains = self._memory_chains
                return Dialogue(functools.partial(memory_dialogue.run_with_oracle, unit.sample, self.mode, chains))
            # Expected: the question (a call and its answer), and the scenario's prerequisite
            # conversations (about two requests a turn) shared among the scenario's questions.
            turns = sum(len(entry["question"]) for entry in unit.sample.prereqs)
            sharing = self._scenario_questions.get((unit.category, unit.sample.scenario), 1)
            return Dialogue(
                functools.partial(
                    memory_dialogue.run_with_model, unit.sample, self.mode, models.model, sampling,
                    self.empty_tool_calls, self._memory_chains,
                ),
                2.0 + 2.0 * turns / sharing,
            )  # fmt: skip
        if unit.category == FORMAT_SENSITIVITY:
            from pytest_toolcall.benchmarks.bfcl.format_sensitivity import build_messages, oracle_text

            reference = {"content": oracle_text(unit.sample), "tool_calls": []} if models.oracle else None
            return Requests([ChatRequest(build_messages(unit.sample), sampling=sampling, reference=reference)])
        if unit.category in MULTI_TURN:
            from pytest_toolcall.benchmarks.bfcl.multi_turn_dialogue import run_with_model, run_with_oracle

            if models.oracle:
                return Dialogue(functools.partial(run_with_oracle, unit.sample, self.mode))
            # Expected: a request per call of the ground truth and one more per turn (its answer).
            expected = float(sum(len(turn) + 1 for turn in unit.sample.ground_truth))
            dialogue = functools.partial(
                run_with_model, unit.sample, self.mode, models.model, sampling, self.empty_tool_calls
            )
            return Dialogue(dialogue, expected)
        request = build_request(unit.sample, self.mode)
        reference = oracle_reply(unit.sample, self.mode) if models.oracle else None
        return Requests([ChatRequest(request.messages, tools=request.tools, sampling=sampling, reference=reference)])

    # --- scoring ---------------------------------------------------------------------------------

    def score(self, unit: Unit, answer: Any) -> Verdict:
        from pytest_toolcall.benchmarks.bfcl.checker import check_result

        if unit.category in MULTI_TURN:
            return self._score_dialogue(unit, answer)
        if unit.category in MEMORY_CATEGORIES:
            return self._score_memory(unit, answer)
        (response,) = answer
        if unit.category == FORMAT_SENSITIVITY:
            return self._score_format(unit, response)
        calls = reply_calls(response)
        result = recorded_result(response, calls, self.mode, self.empty_tool_calls)
        verdict = check_result(unit.sample, result, self.mode)
        fields: dict[str, Any] = {
            "output": response.content,
            "tool_calls": calls,
            "mode": self.mode,
            "error_type": verdict.error_type,
            "failure_kind": verdict.error_type,  # BFCL keeps the official error types
            "ceiling": self.ceiling(unit),
        }
        if verdict.valid:
            return Verdict(True, fields=fields)
        message = failure_message(unit.sample, response, calls, verdict, self.mode)
        return Verdict(False, message, fields, brief="\n".join(message.splitlines()[:2]))

    def _score_dialogue(self, unit: Unit, run: Any) -> Verdict:
        from pytest_toolcall.benchmarks.bfcl.multi_turn_dialogue import evaluate, transcript

        verdict = evaluate(unit.sample, run, self.mode)
        error_type = None if verdict["valid"] else verdict.get("error_type")
        fields: dict[str, Any] = {
            "output": run.result,
            "mode": self.mode,
            "error_type": error_type,
            "failure_kind": error_type,
            "ceiling": self.ceiling(unit),
            "turns": len(run.result),
            "force_quit": run.force_quit,
        }
        if verdict["valid"]:
            return Verdict(True, fields=fields)
        fields["transcript"] = run.messages
        reason = verdict.get("error_message")
        reason = "; ".join(map(str, reason)) if isinstance(reason, list) else str(reason)
        brief = f"{error_type}: {reason}"
        message = f"{brief}\nturns run: {len(run.result)} of {len(unit.sample.ground_truth)}\n{transcript(run)}"
        decoded = verdict.get("model_result_decoded")
        if decoded is not None:
            message += f"\ndecoded calls per turn: {one_line(json.dumps(decoded), 1500)}"
        message += f"\nground truth per turn: {one_line(json.dumps(unit.sample.ground_truth), 1500)}"
        return Verdict(False, message, fields, brief=brief)

    def _score_format(self, unit: Unit, response: ChatResponse) -> Verdict:
        from pytest_toolcall.benchmarks.bfcl.format_sensitivity import check

        verdict = check(unit.sample, response.content)
        fields: dict[str, Any] = {
            "output": response.content,
            "mode": self.mode,
            "format": unit.sample.format,
            "error_type": verdict.error_type,
            "failure_kind": verdict.error_type,
            "ceiling": self.ceiling(unit),
        }
        if verdict.valid:
            return Verdict(True, fields=fields)
        message = failure_message(unit.sample.entry, response, [], verdict, self.mode)
        message = f"{message}\nformat: {unit.sample.format}"
        return Verdict(False, message, fields, brief="\n".join(message.splitlines()[:2]))

    def _score_memory(self, unit: Unit, run: Any) -> Verdict:
        from pytest_toolcall.benchmarks.bfcl.memory_dialogue import evaluate
        from pytest_toolcall.benchmarks.bfcl.multi_turn_dialogue import decoder, transcript

        verdict = evaluate(unit.sample, run, decoder(self.mode))
        error_type = None if verdict["valid"] else verdict["error_type"]
        fields: dict[str, Any] = {
            "output": run.result,
            "mode": self.mode,
            "error_type": error_type,
            "failure_kind": error_type,
            "ceiling": self.ceiling(unit),
            "force_quit": run.force_quit,
        }
        if verdict["valid"]:
            return Verdict(True, fields=fields)
        fields["transcript"] = run.messages
        brief = f"{error_type}: {verdict['error_message']}"
        steps = run.result[0] if run.result else []
        message = (
            f"{brief}\nlast step: {one_line(json.dumps(steps[-1] if steps else None), 600)}\n{transcript(run)}"
            f"\npossible answers: {one_line(json.dumps(unit.sample.ground_truth), 600)}"
        )
        return Verdict(False, message, fields, brief=brief)

    def explain(self, unit: Unit) -> dict[str, Any]:
        """The request (none for a dialogue: its transcript says it) and the possible answers (per
        turn for a dialogue; none for irrelevance, where no call is the answer)."""
        return {**super().explain(unit), "expected": unit.sample.ground_truth}

    def ceiling(self, unit: Unit) -> float:
        """1.0 when a reply giving the first possible answer passes the checker, else 0.0."""
        return 0.0 if self.known_failure(unit) else 1.0

    def known_failure(self, unit: Unit) -> str | None:
        """Why the reply giving the unit's first possible answer fails the official checker (the item
        is then an expected failure); computed once per unit of this process."""
        if unit.key not in self._reference_failures and unit.category == FORMAT_SENSITIVITY:
            from pytest_toolcall.benchmarks.bfcl.format_sensitivity import check, oracle_text

            verdict = check(unit.sample, oracle_text(unit.sample))
            self._reference_failures[unit.key] = (
                None if verdict.valid else f"the first possible answer fails the official checker: {verdict.error_type}"
            )
        if unit.key not in self._reference_failures and unit.category in MEMORY_CATEGORIES:
            from pytest_toolcall.benchmarks.bfcl.agentic import answer_check
            from pytest_toolcall.benchmarks.bfcl.memory_dialogue import oracle_answer

            checked = answer_check(oracle_answer(unit.sample), unit.sample.ground_truth)
            self._reference_failures[unit.key] = (
                None if checked["valid"] else "the first possible answer fails the official checker"
            )
        if unit.key not in self._reference_failures and unit.category in MULTI_TURN:
            from pytest_toolcall.benchmarks.bfcl.multi_turn_dialogue import evaluate, run_with_oracle

            result = evaluate(unit.sample, run_with_oracle(unit.sample, self.mode), self.mode)
            self._reference_failures[unit.key] = (
                None
                if result["valid"]
                else f"the ground truth fails the official checker: {result.get('error_type')}: "
                + one_line(str(result.get("error_message")), 200)
            )
        if unit.key not in self._reference_failures:
            from pytest_toolcall.benchmarks.bfcl.oracle import oracle_verdict

            verdict = oracle_verdict(unit.sample, self.mode)
            self._reference_failures[unit.key] = (
                None
                if verdict.valid
                else f"the first possible answer fails the official checker: {verdict.error_type}: "
                + one_line("; ".join(verdict.errors), 200)
            )
        return self._reference_failures[unit.key]

    def selection_hint(self, names: set[str]) -> str | None:
        """A category (or group) named in -m/-k that --toolcall-bfcl-categories did not load."""
        wanted = [name for name in (*CATEGORY_GROUPS, *ALL_CATEGORIES) if name in names and name != "all"]
        unloaded = [name for name in wanted if not set(CATEGORY_GROUPS.get(name, (name,))) & set(self.categories)]
        if not unloaded:
            return None
        return f"BFCL {', '.join(unloaded)} items are loaded with --toolcall-bfcl-categories={','.join(unloaded)}"

    # --- results ---------------------------------------------------------------------------------

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        from pytest_toolcall.benchmarks.bfcl.source_calls import EXACT
        from pytest_toolcall.benchmarks.bfcl.summary import bfcl_table

        lines = bfcl_table(block)
        read_by_hand = [c for c in ("simple_java", "simple_javascript") if c in block["categories"]]
        if block["mode"] == "prompting" and read_by_hand and not EXACT:
            lines.append(
                f"{', '.join(read_by_hand)}: replies read without tree-sitter, a few verdicts may differ from the "
                "official ones (pip install 'pytest-toolcall[bfcl]')"
            )
        return lines


def oracle_reply(sample: Any, mode: str) -> dict[str, Any]:
    """The oracle model's reference for a sample: the reply giving its first possible answer."""
    from pytest_toolcall.benchmarks.bfcl.oracle import oracle_answer

    answer = oracle_answer(sample, mode)
    calls = [{"id": f"call_{n}", **call} for n, call in enumerate(answer.tool_calls)]
    return {"content": answer.content, "tool_calls": calls}


def recorded_result(response: ChatResponse, calls: list[dict[str, Any]], mode: str, empty_tool_calls: str) -> Any:
    """What the official handler records for a single-turn reply: its calls, else its text; a reply
    of ``tool_calls: []`` in fc mode is the empty list under the ``official`` reading (6ea5797 keeps
    no text then) and its text under ``fixed``."""
    from pytest_toolcall.benchmarks.bfcl.decode import official_result

    if mode == "fc" and not calls and response.empty_tool_calls and empty_tool_calls == "official":
        return []
    return official_result(response.content, calls, mode)


def reply_calls(response: ChatResponse) -> list[dict[str, Any]]:
    """The reply's tool calls as the checker takes them (name, raw JSON arguments)."""
    return [{"name": call.get("name"), "arguments": call.get("arguments")} for call in response.tool_calls]


def failure_message(sample: Any, response: ChatResponse, calls: list[dict[str, Any]], verdict: Any, mode: str) -> str:
    """The official error type and what it is about (the parameter, the call), the reply, and what
    the possible answer accepts."""
    from pytest_toolcall.api.text import clip, name

    reason = "; ".join(verdict.errors) or "no detail"
    lines = [f"{verdict.error_type}: {reason}"]
    if calls:
        shown = ", ".join(f"{name(call['name'])}({clip(call['arguments'], 300)})" for call in calls)
        lines.append(f"reply ({mode}, tool calls): {shown}")
    else:
        lines.append(f"reply ({mode}, text): {clip(response.content, 600)}")
    if response.finish_reason == "length":
        lines.append("the reply was cut by the token limit (finish_reason length)")
    if sample.ground_truth is not None:
        lines.append(f"possible answer: {clip(json.dumps(sample.ground_truth, ensure_ascii=False), 600)}")
    elif "irrelevance" in sample.category:
        lines.append("possible answer: no function call")
    else:
        lines.append("possible answer: any function call")
    return "\n".join(lines)


@functools.cache
def pinned_commit() -> str:
    manifest = Path(__file__).with_name("manifest.json")
    return json.loads(manifest.read_text(encoding="utf-8"))["commit"]
