"""The official BFCL multi-turn verdict: state check and response check after every turn.

Given the model's decoded calls (per turn, per step, a list of call strings) and the ground-truth
calls per turn, both are executed in fresh backends of their own, turn by turn. After each turn
whose ground truth is not empty:

* the model must have produced some calls in that turn ("empty turn" otherwise);
* state check: every public attribute of every ground-truth instance must equal the model
  instance's attribute;
* response check: every ground-truth result of this turn must appear, as a multiset and in any
  order, among the results of *all* the model's calls so far (earlier turns included).

Turns whose ground truth is empty (the "missing function / parameter" turns) are executed but not
checked, exactly like the official checker (which leaves its irrelevance check unused).

`score_multi_turn_result` adds the official evaluation-runner steps in front: the result must be a
list with one entry per turn ("force-terminated" otherwise), and every step's raw model output is
decoded, with undecodable or empty steps skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends import SharedWorld, public_state
from pytest_toolcall.benchmarks.bfcl.backends.file_system import Directory, File
from pytest_toolcall.benchmarks.bfcl.multi_turn_execute import MultiTurnExecutor

EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESPONSE_MISMATCH = "multi_turn:execution_response_mismatch"
FORCE_TERMINATED = "multi_turn:force_terminated"
INFERENCE_ERROR = "multi_turn:inference_error"
IRRELEVANCE_ERROR = "multi_turn:irrelevance_error:decoder_success"


def is_empty_execute_response(calls: list) -> bool:
    """The official emptiness test of a decoded step (or of a turn's list of steps)."""
    return len(calls) == 0 or (len(calls) == 1 and len(calls[0]) == 0)


def snapshot(value: Any) -> Any:
    """A JSON-friendly copy of state values, for reports (files and folders become dicts)."""
    if isinstance(value, File):
        return {"name": value.name, "content": value.content}
    if isinstance(value, Directory):
        return {"name": value.name, "contents": {key: snapshot(item) for key, item in value.contents.items()}}
    if isinstance(value, dict):
        return {str(key): snapshot(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [snapshot(item) for item in value]
    if isinstance(value, set):
        return sorted((snapshot(item) for item in value), key=repr)
    return value


def _state_differences(model_instance: Any, truth_instance: Any) -> dict[str, dict[str, Any]]:
    differences = {}
    for name, truth_value in public_state(truth_instance).items():
        model_value = getattr(model_instance, name)
        if model_value != truth_value:
            differences[name] = {"model": snapshot(model_value), "ground_truth": snapshot(truth_value)}
    return differences


def check_state(model_instances: dict[str, Any], truth_instances: dict[str, Any]) -> dict[str, Any]:
    """The official state check: the first class whose public attributes differ fails the turn."""
    for class_name, truth_instance in truth_instances.items():
        model_instance = model_instances[class_name]
        differences = _state_differences(model_instance, truth_instance)
        if differences:
            return {
                "valid": False,
                "error_message": f"Model instance for {class_name} does not match the state with ground truth instance.",  # noqa: E501
                "error_type": STATE_MISMATCH,
                "details": {
                    "differences": differences,
                    "model_instance_state": snapshot(public_state(model_instance)),
                    "ground_truth_instance_state": snapshot(public_state(truth_instance)),
                },
            }
    return {"valid": True}


def missing_results(expected: list[str], produced: list[str]) -> list[str]:
    """Expected results not found in `produced`, each produced result used at most once."""
    available = list(produced)
    missing = []
    for item in expected:
        if item in available:
            available.remove(item)
        else:
            missing.append(item)
    return missing


def check_response(model_results: list[str], truth_results: list[str], turn_index: int) -> dict[str, Any]:
    """The official response check (unordered multiset containment)."""
    missing = missing_results(truth_results, model_results)
    if missing:
        return {
            "valid": False,
            "error_message": f"Model response execution results so far does not contain all the ground truth response execution results for turn {turn_index}.",  # noqa: E501
            "error_type": RESPONSE_MISMATCH,
            "details": {
                "missing_items": missing,
                "model_response (including all previous turns)": model_results,
                "ground_truth_response (only the current turn)": truth_results,
            },
        }
    return {"valid": True}


def check_multi_turn(
    model_turns: list[list[list[str]]],
    ground_truth: list[list[str]],
    entry: dict[str, Any],
    *,
    model_name: str = "model",
) -> dict[str, Any]:
    """The official multi-turn check of decoded model calls against the ground truth.

    `model_turns[turn][step]` is the list of call strings the model made in one step;
    `ground_truth[turn]` the official call strings; `entry` the BFCL sample (`id`,
    `initial_config`, `involved_classes`). Returns `{"valid": True}` or the official failure dict
    (`valid`, `error_type`, `error_message`, `details`).
    """
    world = SharedWorld()  # both sides share the official module-level objects of one run
    config = entry.get("initial_config", {})
    classes = entry["involved_classes"]
    model_side = MultiTurnExecutor(entry["id"], config, classes, model_name=model_name, world=world)
    truth_side = MultiTurnExecutor(entry["id"], config, classes, model_name=f"{model_name}_ground_truth", world=world)
    all_model_results: list[str] = []
    execution_results: list[dict[str, Any]] = []

    for turn_index, truth_calls in enumerate(ground_truth):
        steps = model_turns[turn_index]
        turn_results: list[str] = []
        per_step: list[list[str]] = []
        for step in steps:
            step_results = model_side.execute(step)
            turn_results.extend(step_results)
            per_step.append(step_results)
        truth_results = truth_side.execute(truth_calls)
        all_model_results.extend(turn_results)
        execution_results.append({"model": per_step, "ground_truth": truth_results})

        if not truth_calls:
            # A turn the model is expected not to fulfil: its calls still change the state.
            continue
        if not steps or is_empty_execute_response(steps):
            return {
                "valid": False,
                "error_message": f"Model response list is empty for turn {turn_index}",
                "error_type": EMPTY_TURN,
                "details": {"execution_result": execution_results},
            }
        state = check_state(model_side.instances, truth_side.instances)
        if not state["valid"]:
            state["execution_result"] = execution_results
            return state
        response = check_response(all_model_results, truth_results, turn_index)
        if not response["valid"]:
            return response
    return {"valid": True}


def ground_truth_turns(ground_truth: list[list[str]]) -> list[list[list[str]]]:
    """The ground truth in the shape of decoded model turns (one step per non-empty turn): the
    oracle's answer, and what the official ceiling check runs."""
    return [[list(calls)] if calls else [] for calls in ground_truth]


def check_irrelevance(model_turns: list[list[list[str]]], ground_truth: list[list[str]]) -> dict[str, Any]:
    """The official (but unused by the official runner) check that empty-truth turns have no calls."""
    for turn_index, truth_calls in enumerate(ground_truth):
        steps = model_turns[turn_index]
        if not truth_calls and not is_empty_execute_response(steps):
            return {
                "valid": False,
                "error_message": f"Model outputs valid function calls when it should not for turn {turn_index}.",
                "error_type": IRRELEVANCE_ERROR,
                "details": {"model response decoded": steps},
            }
    return {"valid": True}


def decode_turns(raw_turns: list[list[Any]], decode: Callable[[Any], list[str]]) -> list[list[list[str]]]:
    """Decode every step's raw model output; steps that fail to decode or decode to nothing are dropped."""
    decoded_turns = []
    for raw_steps in raw_turns:
        decoded_steps = []
        for raw in raw_steps:
            try:
                calls = decode(raw)
            except Exception:
                continue  # the model chatted or produced something undecodable: not a call
            if is_empty_execute_response(calls):
                continue
            decoded_steps.append(calls)
        decoded_turns.append(decoded_steps)
    return decoded_turns


def score_multi_turn_result(
    result: Any,
    ground_truth: list[list[str]],
    entry: dict[str, Any],
    decode: Callable[[Any], list[str]],
    *,
    model_name: str = "model",
) -> dict[str, Any]:
    """The official evaluation of one multi-turn entry's inference result.

    `result[turn][step]` is the raw model output of one step (what the official inference loop
    records); `decode` turns one into call strings (the official `decode_execute`), raising when it
    cannot. The returned dict is `{"valid": True}` or the failure with `error_type`/`error_message`.
    """
    if type(result) is not list:
        return {
            "valid": False,
            "error_message": ["Error during inference phase. Model did not output a list of model responses."],
            "error_type": INFERENCE_ERROR,
        }
    if len(result) != len(ground_truth):
        return {
            "valid": False,
            "error_message": [
                "Model was force-terminated during inference phase. The length of the model result turns "
                f"({len(result)}) does not match the length of the ground truth turns ({len(ground_truth)})."
            ],
            "error_type": FORCE_TERMINATED,
        }
    decoded = decode_turns(result, decode)
    verdict = check_multi_turn(decoded, ground_truth, entry, model_name=model_name)
    if not verdict["valid"]:
        verdict["model_result_decoded"] = decoded
    return verdict
