"""A BFCL V4 memory question as the official pipeline runs it: first the scenario's prerequisite
conversations, which write the memory, then the question, which reads it.

The prerequisite conversations of one scenario run in order, each a multi-turn dialogue of the
official loop against the memory backend: the first starts with an empty memory, each later one
with the memory the one before left. The question then starts from the memory the last one left,
asked once (one turn, as many steps as the model calls tools). Each dialogue's first turn gets the
official system prompt: the scenario's agent setting, how the memory works and what the memory
holds now (the core memory of the key-value backend, the whole text of the summarisation backend);
the question's also asks for the official answer format ``{'answer': ..., 'context': ...}``.

The prerequisite conversations of a (backend, scenario) run once per process for one model and
mode, whichever question needs them first; the other questions of the scenario wait for them and
start from the same memory. Under pytest-xdist each worker that runs questions of a scenario runs
its conversations once (with the response store, a repeat is answered from it). Officially a
prerequisite conversation whose request fails is recorded as an error and the chain goes on with
the memory before it; here the questions of the scenario error instead, naming it, so that a
transport failure never passes for a model's memory.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from pytest_toolcall.benchmarks.bfcl.agentic import evaluate_agentic
from pytest_toolcall.benchmarks.bfcl.backends import BACKEND_CLASSES
from pytest_toolcall.benchmarks.bfcl.data import MemorySample, MultiTurnSample
from pytest_toolcall.benchmarks.bfcl.multi_turn_loop import DialogueRun, ModelReply

#: The official agent setting of each scenario.
AGENT_SETTINGS = {
    "student": "You are an academic-support assistant for college student. Remember key personal and academic details "
    "discussed across sessions, and draw on them to answer questions or give guidance.",
    "customer": "You are a general customer support assistant for an e-commerce platform. Your task is to understand "
    "and remember information that can be used to provide information about user inquiries, preferences, and offer "
    "consistent, helpful assistance over multiple interactions.",
    "finance": "You are a high-level executive assistant supporting a senior finance professional. Retain and "
    "synthesize both personal and professional information including facts, goals, prior decisions, and family life "
    "across sessions to provide strategic, context-rich guidance and continuity.",
    "healthcare": "You are a healthcare assistant supporting a patient across appointments. Retain essential medical "
    "history, treatment plans, and personal preferences to offer coherent, context-aware guidance and reminders.",
    "notetaker": "You are a personal organization assistant. Capture key information from conversations, like tasks, "
    "deadlines, and preferences, and use it to give reliable reminders and answers in future sessions.",
}

_PERSISTENT = (
    "persistent across multiple conversations with the user, and can be accessed in a later interactions. You should "
    "actively manage your memory data to keep track of important information, ensure that it is up-to-date and easy "
    "to retrieve to provide personalized responses to the user later."
)
#: The key-value (and vector) backends' instruction: a core and an archival memory.
CORE_ARCHIVAL_INSTRUCTION = (
    "{scenario_setting}\n\nYou have access to an advanced memory system, consisting of two memory types 'Core Memory' "
    "and 'Archival Memory'. Both type of memory is " + _PERSISTENT + "\n\nThe Core memory is limited in size, but "
    "always visible to you in context. The Archival Memory has a much larger capacity, but will be held outside of "
    "your immediate context due to its size.\n\nHere is the content of your Core Memory from previous "
    "interactions:\n{memory_content}\n"
)
#: The recursive-summarisation backend's instruction: one memory.
UNIFIED_INSTRUCTION = (
    "{scenario_setting}\n\nYou have access to an advanced memory system, which is " + _PERSISTENT + "\n\nHere is the "
    "content of your memory system from previous interactions:\n{memory_content}\n"
)
#: The answer format every agentic question asks for.
ANSWER_FORMAT_PROMPT = (
    "For your final answer to the user, you must respond in this format: {'answer': A short and precise answer to the "
    "question, 'context': A brief explanation of how you arrived at this answer or why it is correct}. If you do not "
    "know the answer, respond with {'answer': 'I do not know', 'context': 'I do not know'}. If you think the question "
    "cannot be properly answered, response with {'answer': 'I cannot answer this question', 'context': A short reason "
    "explaining why this question cannot be answered}.\n"
)

#: One dialogue with the model: (the entry as a multi-turn sample, the ask function's mode) -> run.
RunDialogue = Callable[[MultiTurnSample], DialogueRun]


def memory_prompt(category: str, scenario: str, snapshot: dict[str, Any] | None) -> str:
    """The official memory system prompt of a dialogue starting from ``snapshot``."""
    backend = BACKEND_CLASSES[f"MemoryAPI_{category.removeprefix('memory_')}"]()
    backend._load_scenario({"snapshot": snapshot})
    template = UNIFIED_INSTRUCTION if category == "memory_rec_sum" else CORE_ARCHIVAL_INSTRUCTION
    return template.format(scenario_setting=AGENT_SETTINGS[scenario], memory_content=backend.memory_in_context())


def dialogue_entry(
    entry: dict[str, Any], category: str, snapshot: dict[str, Any] | None, *, question: bool
) -> MultiTurnSample:
    """The entry as the official loop runs it: the system prompt in its first turn (merged in front of
    a system message there, else first), the backend loaded from ``snapshot``."""
    turns = copy.deepcopy(entry["question"])
    first = turns[0]
    if question:  # only questions ask for the answer format (the official runner adds it first)
        first.insert(0, {"role": "system", "content": ANSWER_FORMAT_PROMPT})
    prompt = memory_prompt(category, entry["scenario"], snapshot)
    if first and first[0].get("role") == "system":
        first[0] = {**first[0], "content": prompt + "\n\n" + first[0]["content"]}
    else:
        first.insert(0, {"role": "system", "content": prompt})
    class_name = entry["involved_classes"][0]
    runnable = {
        "id": entry["id"],
        "question": turns,
        "involved_classes": [class_name],
        "initial_config": {class_name: {"snapshot": copy.deepcopy(snapshot)}},
    }
    return MultiTurnSample(entry["id"], category, runnable, ground_truth=[[] for _ in turns])


class PrereqFailed(Exception):
    """A prerequisite conversation got no answer (its request failed after retries)."""


class MemoryChains:
    """The memory each (backend, scenario) is left with by its prerequisite conversations, computed
    once per key (the model, the mode and reading of ``tool_calls: []`` are part of it), whichever
    thread asks first; the others wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._chains: dict[tuple[Any, ...], Future[dict[str, Any] | None]] = {}

    def memory(self, key: tuple[Any, ...], sample: MemorySample, run: RunDialogue) -> dict[str, Any] | None:
        with self._lock:
            future = self._chains.get(key)
            owner = future is None
            if future is None:
                future = self._chains[key] = Future()
        if owner:
            try:
                future.set_result(run_prereqs(sample, run))
            except BaseException as exc:
                future.set_exception(exc)
        return future.result()


def run_prereqs(sample: MemorySample, run: RunDialogue) -> dict[str, Any] | None:
    """The snapshot the scenario's prerequisite conversations leave (None: empty memory)."""
    snapshot: dict[str, Any] | None = None
    for entry in sample.prereqs:
        if entry["id"].endswith("-0"):
            snapshot = None  # the first conversation of a chain starts with an empty memory
        try:
            dialogue = run(dialogue_entry(entry, sample.category, snapshot, question=False))
        except Exception as exc:
            raise PrereqFailed(f"the prerequisite conversation {entry['id']} failed: {exc}") from exc
        # The official loop saves the memory at the end, force-quit or not.
        snapshot = dialogue.executor.instances[sample.backend_class].snapshot()
    return snapshot


def run_question(sample: MemorySample, snapshot: dict[str, Any] | None, run: RunDialogue) -> DialogueRun:
    return run(dialogue_entry(sample.entry, sample.category, snapshot, question=True))


def oracle_script(sample: MemorySample, mode: str) -> Callable[[list[dict[str, Any]], Any], ModelReply]:
    """The oracle's replies: text in every prerequisite turn (it writes no memory), and the first
    possible answer in the official answer format for the question."""
    answer = oracle_answer(sample)

    def ask(messages: list[dict[str, Any]], functions: Any) -> ModelReply:
        question = any(m.get("role") == "system" and ANSWER_FORMAT_PROMPT in str(m.get("content")) for m in messages)
        text = answer if question else "Noted."
        return ModelReply(message={"role": "assistant", "content": text}, raw=text)

    return ask


def evaluate(sample: MemorySample, run: DialogueRun, decode: Callable[[Any], list[str]]) -> dict[str, Any]:
    """The official verdict of the question's dialogue."""
    return evaluate_agentic(run.result, sample.ground_truth, decode)


def run_with_model(
    sample: MemorySample, mode: str, model: Any, sampling: dict[str, Any], empty_tool_calls: str, chains: MemoryChains
) -> DialogueRun:
    """The question against ``model``, after the scenario's prerequisite conversations (run once)."""
    from pytest_toolcall.benchmarks.bfcl import multi_turn_dialogue

    def run(entry: MultiTurnSample) -> DialogueRun:
        return multi_turn_dialogue.run_with_model(entry, mode, model, sampling, empty_tool_calls)

    key = (id(model), mode, empty_tool_calls, sample.category, sample.scenario)
    return run_question(sample, chains.memory(key, sample, run), run)


def run_with_oracle(sample: MemorySample, mode: str, chains: MemoryChains) -> DialogueRun:
    """The oracle's question (its prerequisite conversations write nothing)."""
    from pytest_toolcall.benchmarks.bfcl import multi_turn_dialogue

    ask = oracle_script(sample, mode)

    def run(entry: MultiTurnSample) -> DialogueRun:
        return multi_turn_dialogue._run(entry, mode, ask)

    key = (run_with_oracle, mode, sample.category, sample.scenario)  # the reference model's chains
    return run_question(sample, chains.memory(key, sample, run), run)


def oracle_answer(sample: MemorySample) -> str:
    """The oracle's final message (see ``oracle_script``)."""
    return "{'answer': " + repr(sample.ground_truth[0]) + ", 'context': 'the first possible answer'}"
