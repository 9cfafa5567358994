"""A BFCL multi-turn dialogue as the plugin runs it: the official loop (``multi_turn_loop``) with the
model under test behind it in the selected mode, or the oracle's ground-truth replies; and its verdict
by the official multi-turn evaluation (``multi_turn_check``).

Requests as the official OpenAI-compatible handlers build them: in ``fc`` mode the current function
docs (held-out ones added at their turn) become tools after the official language notes, the
assistant message is kept in the history with its tool calls, and each result goes back as a
``tool`` message; in ``prompting`` mode the docs are listed in the default system prompt of the first
turn and the results go back in one user message. Replies are decoded by the official
``decode_execute`` rules; calls run only through the backends' dispatch table (``multi_turn_execute``).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

from pytest_toolcall.api import ChatRequest, ChatResponse, Model
from pytest_toolcall.benchmarks.bfcl.data import DATA_DIR, MultiTurnSample
from pytest_toolcall.benchmarks.bfcl.decode import decode_execute
from pytest_toolcall.benchmarks.bfcl.multi_turn_loop import DialogueRun, ModelReply, load_func_docs, run_dialogue
from pytest_toolcall.benchmarks.bfcl.request import hinted_functions, openai_tools, with_system_prompt

#: The model name the backends' instances are named after (it changes no result).
MODEL_NAME = "model"
#: What the oracle says to end a turn: text, which no decoder reads as a call.
END_OF_TURN = "Done."

_FUNC_DOCS: dict[str, list[dict[str, Any]]] | None = None


def func_docs() -> dict[str, list[dict[str, Any]]]:
    """The shipped function docs of the eight backends, read once per process."""
    global _FUNC_DOCS
    if _FUNC_DOCS is None:
        _FUNC_DOCS = load_func_docs(DATA_DIR / "multi_turn_func_doc")
    return _FUNC_DOCS


def decoder(mode: str) -> Callable[[Any], list[str]]:
    return lambda raw: decode_execute(raw, mode)


#: How a reply of ``tool_calls: []`` is read: ``official`` as 6ea5797's handler reads it (the step's
#: recorded response is the empty list, its text is lost), ``fixed`` as the upstream fixes read it
#: (the text is kept, as for ``tool_calls: null``).
EMPTY_TOOL_CALLS = ("official", "fixed")


def run_with_model(
    sample: MultiTurnSample, mode: str, model: Model, sampling: dict[str, Any], empty_tool_calls: str = "official"
) -> DialogueRun:
    """The dialogue against ``model`` (a request that fails after retries raises: the item errors)."""

    def ask(messages: list[dict[str, Any]], functions: list[dict[str, Any]] | None) -> ModelReply:
        tools = openai_tools(hinted_functions(functions, sample.category)) if functions is not None else None
        response: ChatResponse = model.submit(ChatRequest(messages, tools=tools or None, sampling=sampling)).result()
        return model_reply(response, mode, empty_tool_calls)

    return _run(sample, mode, ask)


def model_reply(response: ChatResponse, mode: str, empty_tool_calls: str = "official") -> ModelReply:
    """What goes into the history and what is recorded, as the official handler keeps them. The
    history keeps the message as the endpoint sent it, so an empty ``tool_calls`` list stays in it
    under both readings; only what is recorded differs."""
    if mode == "fc" and not response.tool_calls and response.empty_tool_calls:
        kept: dict[str, Any] = {"role": "assistant", "content": response.content, "tool_calls": []}
        return ModelReply(message=kept, raw=[] if empty_tool_calls == "official" else response.content)
    if mode == "fc" and response.tool_calls:
        ids = [str(call.get("id") or f"call_{n}") for n, call in enumerate(response.tool_calls)]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": response.content,
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}
                for call_id, call in zip(ids, response.tool_calls, strict=True)
            ],
        }
        raw = [{call["name"]: call["arguments"]} for call in response.tool_calls]
        return ModelReply(message=message, raw=raw, tool_call_ids=ids)
    return ModelReply(message={"role": "assistant", "content": response.content}, raw=response.content)


def run_with_oracle(sample: MultiTurnSample, mode: str) -> DialogueRun:
    """The dialogue with the ground truth as the model: each turn's calls in one step, then text."""
    params = {
        doc["name"]: list(doc["parameters"]["properties"])
        for name in sample.entry["involved_classes"]
        for doc in func_docs().get(name, [])
    }
    script: list[ModelReply] = []
    for calls in sample.ground_truth:
        if calls:
            script.append(_oracle_calls([_keyword_call(call, params) for call in calls], mode))
        script.append(ModelReply(message={"role": "assistant", "content": END_OF_TURN}, raw=END_OF_TURN))

    def ask(messages: list[dict[str, Any]], functions: list[dict[str, Any]] | None) -> ModelReply:
        # The loop asks exactly once per scripted reply (calls execute, text ends the turn); past
        # the script (which the step limit would need) the oracle keeps ending turns.
        return script.pop(0) if script else ModelReply({"role": "assistant", "content": END_OF_TURN}, END_OF_TURN)

    return _run(sample, mode, ask)


def _keyword_call(call: str, params: dict[str, list[str]]) -> tuple[str, dict[str, Any]]:
    """A ground-truth call string as (name, keyword arguments): a model is asked for keyword
    arguments, and the official decoders drop positional ones, so those are named after the doc's
    parameters in order. The ground truth is the dataset's text, parsed as literals, never run."""
    node = ast.parse(call, mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call of a function name: {call}")
    name = node.func.id
    arguments = {params.get(name, [])[index]: ast.literal_eval(arg) for index, arg in enumerate(node.args)}
    arguments.update({kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg is not None})
    return name, arguments


def _oracle_calls(calls: list[tuple[str, dict[str, Any]]], mode: str) -> ModelReply:
    if mode == "prompting":
        text = (
            "[" + ", ".join(f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in calls) + "]"
        )
        return ModelReply(message={"role": "assistant", "content": text}, raw=text)
    pairs = [(name, json.dumps(arguments)) for name, arguments in calls]
    ids = [f"call_{n}" for n in range(len(pairs))]
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, (name, arguments) in zip(ids, pairs, strict=True)
        ],
    }
    return ModelReply(message=message, raw=[{name: arguments} for name, arguments in pairs], tool_call_ids=ids)


def _run(sample: MultiTurnSample, mode: str, ask: Callable[..., ModelReply]) -> DialogueRun:
    def prepare(messages: list[dict[str, Any]], functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return with_system_prompt(messages, hinted_functions(functions, sample.category))

    return run_dialogue(
        sample.entry,
        ask,
        decoder(mode),
        func_docs(),
        mode=mode,  # type: ignore[arg-type]
        prepare_prompting=prepare,
        model_name=MODEL_NAME,
    )


def evaluate(sample: MultiTurnSample, run: DialogueRun, mode: str) -> dict[str, Any]:
    """The official multi-turn verdict of a dialogue: ``{"valid": True}`` or the failure dict."""
    from pytest_toolcall.benchmarks.bfcl.multi_turn_check import score_multi_turn_result

    return score_multi_turn_result(run.result, sample.ground_truth, sample.entry, decoder(mode), model_name=MODEL_NAME)


def transcript(run: DialogueRun, limit: int = 40) -> str:
    """The executed calls and their results, turn by turn, for a failure message."""
    from pytest_toolcall.api.text import clip

    lines = []
    for turn, steps in enumerate(run.executed):
        lines.append(f"turn {turn}: {len(steps)} step(s) with calls")
        executed = [
            f"  {clip(call, 160)} -> {clip(result, 160)}"
            for calls, results in steps
            for call, result in zip(calls, results, strict=False)
        ]
        lines += _collapsed(executed)
    if run.force_quit:
        lines.append("force-quit: more than the step limit in one turn")
    if len(lines) > limit:
        lines = [*lines[:limit], f"... {len(lines) - limit} more line(s)"]
    return "\n".join(lines)


#: A run of at least this many identical executed calls (a model looping until the step limit) is shown once.
REPEATS_SHOWN_ONCE = 3


def _collapsed(lines: list[str]) -> list[str]:
    """The lines with each run of ``REPEATS_SHOWN_ONCE`` or more identical ones shown once, with its count."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        times = 1
        while i + times < len(lines) and lines[i + times] == lines[i]:
            times += 1
        if times >= REPEATS_SHOWN_ONCE:
            out += [lines[i], f"  ... the same call and result {times - 1} more time(s)"]
        else:
            out += lines[i : i + times]
        i += times
    return out
