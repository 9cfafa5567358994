"""The BFCL multi-turn inference loop, as the official base handler runs it, with the model injected.

Per turn: the turn's user messages are added (a held-out-function turn instead gets the official
"I have updated some more functions ..." message, and in native-tool mode the held-out docs join
the tool list); then the model is asked step after step. Each step's raw output is recorded; when
it cannot be decoded, or decodes to no call, the turn ends; otherwise the calls are executed in
the dialogue's backends and the results go back to the model. More than `step_limit` (20)
executed steps in one turn force-quits the whole dialogue: the recorded result then has fewer turns
than the ground truth, which the evaluation scores as "force-terminated".

The model side is injected: `ask(messages, functions)` returns a `ModelReply` (`functions` is the
current function-doc list in "fc" mode and None in "prompting" mode, where the docs live in the
system prompt that `prepare_prompting` builds), and `decode(raw)` returns call strings such as
`cd(folder='x')` or raises.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_toolcall.benchmarks.bfcl.backends import FUNC_DOC_FILES, SharedWorld
from pytest_toolcall.benchmarks.bfcl.multi_turn_check import is_empty_execute_response
from pytest_toolcall.benchmarks.bfcl.multi_turn_execute import MultiTurnExecutor

MAXIMUM_STEP_LIMIT = 20
ADDITIONAL_FUNCTION_PROMPT_FC = "I have updated some more functions you can choose from. What about now?"
ADDITIONAL_FUNCTION_PROMPT_PROMPTING = "{functions}\n" + ADDITIONAL_FUNCTION_PROMPT_FC

Mode = Literal["fc", "prompting"]


@dataclass
class ModelReply:
    """One model answer: what goes into the chat history, and what is recorded and decoded."""

    message: dict[str, Any]
    raw: Any
    tool_call_ids: list[str] = field(default_factory=list)


@dataclass
class DialogueRun:
    """The outcome of one dialogue: `result[turn][step]` is what the official result file stores."""

    result: list[list[Any]]
    force_quit: bool
    messages: list[dict[str, Any]]
    executor: MultiTurnExecutor
    # Per turn, per executed step: the decoded calls and their result texts (for logs and reports).
    executed: list[list[tuple[list[str], list[str]]]]


def load_func_docs(func_doc_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """The function docs of every class, from BFCL's `multi_turn_func_doc/` (one JSON object a line)."""
    docs = {}
    for class_name, file_name in FUNC_DOC_FILES.items():
        lines = (func_doc_dir / file_name).read_text(encoding="utf-8").splitlines()
        docs[class_name] = [json.loads(line) for line in lines if line.strip()]
    return docs


def dialogue_functions(
    entry: dict[str, Any], func_docs: dict[str, list[dict[str, Any]]]
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The docs offered from the start and the docs held out until a turn (keyed by turn index as text).

    All docs of the involved classes, in class order; each name listed in `missed_function` is
    moved (its first occurrence) to that turn's held-out list.
    """
    functions = [copy.deepcopy(doc) for name in entry["involved_classes"] for doc in func_docs[name]]
    held_out: dict[str, list[dict[str, Any]]] = {}
    for turn_key, names in entry.get("missed_function", {}).items():
        held_out[turn_key] = []
        for wanted in names:
            for index, doc in enumerate(functions):
                if doc["name"] == wanted:
                    held_out[turn_key].append(functions.pop(index))
                    break
    return functions, held_out


def fc_result_messages(reply: ModelReply, calls: list[str], results: list[str]) -> list[dict[str, Any]]:
    """Native-tool mode: one `tool` message per result, paired with the tool-call ids in order."""
    return [
        {"role": "tool", "content": result, "tool_call_id": call_id}
        for result, call_id in zip(results, reply.tool_call_ids, strict=False)
    ]


def prompting_result_messages(reply: ModelReply, calls: list[str], results: list[str]) -> list[dict[str, Any]]:
    """Prompting mode: all results in one user message, the repr of a list of tool records."""
    records = [{"role": "tool", "name": call, "content": result} for result, call in zip(results, calls, strict=False)]
    return [{"role": "user", "content": repr(records)}]


def run_dialogue(
    entry: dict[str, Any],
    ask: Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], ModelReply],
    decode: Callable[[Any], list[str]],
    func_docs: dict[str, list[dict[str, Any]]],
    *,
    mode: Mode = "fc",
    prepare_prompting: Callable[[list[dict[str, Any]], list[dict[str, Any]]], list[dict[str, Any]]] | None = None,
    model_name: str = "model",
    step_limit: int = MAXIMUM_STEP_LIMIT,
    world: SharedWorld | None = None,
) -> DialogueRun:
    """Run one BFCL multi-turn sample against the model, the official way.

    `prepare_prompting(first_turn_messages, functions)` (prompting mode) returns the first turn's
    messages with the system prompt that lists the functions. Exceptions raised by `ask` propagate:
    the official runner then records an error instead of a result list ("inference error").
    """
    functions, held_out = dialogue_functions(entry, func_docs)
    executor = MultiTurnExecutor(
        entry["id"],
        entry.get("initial_config", {}),
        entry["involved_classes"],
        model_name=model_name,
        eval_run=False,
        world=world,
    )
    executor.ensure_instances()
    add_results = fc_result_messages if mode == "fc" else prompting_result_messages
    messages: list[dict[str, Any]] = []
    result: list[list[Any]] = []
    executed: list[list[tuple[list[str], list[str]]]] = []
    force_quit = False

    for turn_index, turn_messages in enumerate(entry["question"]):
        turn_messages = copy.deepcopy(turn_messages)
        extra = held_out.get(str(turn_index))
        if extra is not None:
            if mode == "fc":
                functions.extend(extra)
                content = ADDITIONAL_FUNCTION_PROMPT_FC
            else:
                content = ADDITIONAL_FUNCTION_PROMPT_PROMPTING.format(functions=extra)
            turn_messages = [{"role": "user", "content": content}]
        if turn_index == 0 and mode == "prompting" and prepare_prompting is not None:
            turn_messages = prepare_prompting(turn_messages, functions)
        messages.extend(turn_messages)

        turn_raw: list[Any] = []
        turn_executed: list[tuple[list[str], list[str]]] = []
        steps = 0
        while True:
            reply = ask(list(messages), list(functions) if mode == "fc" else None)
            messages.append(reply.message)
            turn_raw.append(reply.raw)
            try:
                calls = decode(reply.raw)
            except Exception:
                break  # chat text or an undecodable answer ends the turn
            if is_empty_execute_response(calls):
                break
            outputs = executor.execute(calls)
            turn_executed.append((calls, outputs))
            messages.extend(add_results(reply, calls, outputs))
            steps += 1
            if steps > step_limit:
                force_quit = True
                break
        result.append(turn_raw)
        executed.append(turn_executed)
        if force_quit:
            break

    return DialogueRun(result=result, force_quit=force_quit, messages=messages, executor=executor, executed=executed)
