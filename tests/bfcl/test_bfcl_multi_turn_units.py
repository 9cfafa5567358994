"""Unit tests of the BFCL multi-turn backends, executor, checker and loop, on hand-made dialogues.

Expected values are worked out by hand from the documented official behaviour (and Python's own
error messages), not taken from the code under test.
"""

from __future__ import annotations

import importlib.util
import json
import random
from typing import Any

import pytest

from pytest_toolcall.benchmarks.bfcl.backends import SharedWorld, public_state
from pytest_toolcall.benchmarks.bfcl.multi_turn_check import (
    EMPTY_TURN,
    FORCE_TERMINATED,
    INFERENCE_ERROR,
    RESPONSE_MISMATCH,
    STATE_MISMATCH,
    check_irrelevance,
    check_multi_turn,
    ground_truth_turns,
    missing_results,
    score_multi_turn_result,
)
from pytest_toolcall.benchmarks.bfcl.multi_turn_execute import (
    MultiTurnExecutor,
    execute_calls,
    instance_name,
    is_long_context,
    result_text,
)
from pytest_toolcall.benchmarks.bfcl.multi_turn_loop import (
    ADDITIONAL_FUNCTION_PROMPT_FC,
    ModelReply,
    dialogue_functions,
    run_dialogue,
)

FILES = {
    "root": {
        "alex": {
            "type": "directory",
            "contents": {
                "docs": {
                    "type": "directory",
                    "contents": {"a.txt": {"type": "file", "content": "one\ntwo"}},
                },
                "notes.txt": {"type": "file", "content": "hello world"},
            },
        }
    }
}


def fs_entry(entry_id: str = "multi_turn_base_7", **extra: Any) -> dict[str, Any]:
    return {
        "id": entry_id,
        "initial_config": {"GorillaFileSystem": FILES},
        "involved_classes": ["GorillaFileSystem"],
        **extra,
    }


def run(calls: list[str], entry: dict[str, Any] | None = None) -> list[str]:
    return execute_calls(calls, entry or fs_entry())[0]


# -- executor ------------------------------------------------------------------------------------


def test_result_text_follows_the_official_conversion() -> None:
    assert result_text("plain") == "plain"
    assert result_text({"a": 1, 2: [True, None]}) == '{"a": 1, "2": [true, null]}'
    assert result_text({"s": {1}}) == "{'s': {1}}"  # not JSON-serialisable: str()
    assert result_text(["x"]) == "['x']"
    assert result_text(None) == "None"


def test_tool_results_and_python_errors() -> None:
    assert run(["cd(folder='docs')", "ls()", "pwd()"]) == [
        '{"current_working_directory": "docs"}',
        '{"current_directory_content": ["a.txt"]}',
        # The root's own name is part of the path in the official pwd.
        '{"current_working_directory": "/alex/docs"}',
    ]
    assert run(["cd(folder='docs', depth=2)", "cd()", "ls(True, False)"]) == [
        "Error during execution: GorillaFileSystem.cd() got an unexpected keyword argument 'depth'",
        "Error during execution: GorillaFileSystem.cd() missing 1 required positional argument: 'folder'",
        "Error during execution: GorillaFileSystem.ls() takes from 1 to 2 positional arguments but 3 were given",
    ]
    assert run(["cd(folder=3)"]) == ["Error during execution: 'int' object has no attribute 'rstrip'"]


def test_unknown_refused_qualified_and_malformed_calls() -> None:
    assert run(["get_weather(city='Paris')"]) == ["Error during execution: name 'get_weather' is not defined"]
    assert run(["GorillaFileSystem.ls()"]) == ["Error during execution: name 'GorillaFileSystem' is not defined"]
    assert run(["exit()", "remove(x=1)"]) == [
        "Error during execution: Function call exit is not allowed.",
        "Error during execution: Function call remove is not allowed.",
    ]
    assert run(["ls(", "ls(a=True, a=False)", ""]) == [
        "Error during execution: '(' was never closed (<string>, line 1)",
        "Error during execution: keyword argument repeated: a (<string>, line 1)",
        "Error during execution: invalid syntax (<string>, line 0)",
    ]
    assert run(["  ls()", "'text'", "ls"]) == [
        '{"current_directory_content": ["docs", "notes.txt"]}',
        "text",
        "Error during execution: name 'ls' is not defined",
    ]
    assert run(["print('x')"])[0].startswith("Error during execution: ")


def test_nested_calls_and_the_rewrite_inside_strings() -> None:
    # The inner call runs first and its raw dict is the argument.
    assert run(["echo(content=ls())"]) == ['{"terminal_output": {"current_directory_content": ["docs", "notes.txt"]}}']
    qualified = instance_name("model", "multi_turn_base_7", "GorillaFileSystem", eval_run=True)
    assert qualified == "model_eval_multi_turn_base_7_GorillaFileSystem_instance"
    assert run(["echo(content='run ls() now')"]) == [json.dumps({"terminal_output": f"run {qualified}.ls() now"})]


def test_instances_persist_across_execute_calls_and_long_context_follows_the_id() -> None:
    executor = MultiTurnExecutor("multi_turn_long_context_3", {"GorillaFileSystem": FILES}, ["GorillaFileSystem"])
    executor.execute(["cd(folder='docs')"])
    assert executor.execute(["pwd()"]) == ['{"current_working_directory": "/alex/docs"}']
    assert is_long_context("multi_turn_long_context_3") and is_long_context("multi_turn_composite_1")
    assert not is_long_context("multi_turn_miss_param_3")
    # The bottom-most folder gets filler files in long-context dialogues.
    listing = json.loads(executor.execute(["ls()"])[0])["current_directory_content"]
    assert listing[0] == "a.txt" and len(listing) > 10


# -- backends ------------------------------------------------------------------------------------


def test_file_system_quirks() -> None:
    results = run(["mkdir(dir_name='docs2')", "cp(source='notes.txt', destination='docs2')", "cd(folder='docs2')",
                   "cd(folder='..')", "cp(source='notes.txt', destination='docs2')", "cd(folder='..')"])  # fmt: skip
    assert results[1] == "{\"result\": \"'notes.txt' copied to 'docs2/notes.txt'\"}"
    # A second copy into the folder reaches the directory's add-file check and raises.
    assert results[4] == "Error during execution: File 'notes.txt' already exists in directory 'docs2'."
    assert results[5] == '{"error": "Current directory is already the root. Cannot go back."}'
    assert run(["echo(content='x', file_name='docs')"]) == [
        "Error during execution: 'Directory' object has no attribute '_write'"
    ]
    assert run(["tail(file_name='notes.txt', lines=0)"]) == ['{"last_lines": "hello world"}']


def test_message_ids_come_from_the_seeded_generator() -> None:
    entry = {"id": "multi_turn_base_1", "initial_config": {"MessageAPI": {}}, "involved_classes": ["MessageAPI"]}
    calls = ["message_login(user_id='USR001')", "send_message(receiver_id='USR002', message='hi')"]
    results, instances = execute_calls(calls, entry)
    expected_id = random.Random(200191).randint(10000, 99999)
    assert json.loads(results[1])["message_id"] == {"new_id": expected_id}
    assert public_state(instances["MessageAPI"])["message_count"] == 4


def test_default_tweet_lists_are_shared_within_one_world() -> None:
    entry = {
        "id": "multi_turn_base_2",
        "initial_config": {"TwitterAPI": {"authenticated": True}},
        "involved_classes": ["TwitterAPI"],
    }
    world = SharedWorld()
    results, _ = execute_calls(
        ["post_tweet(content='a')", "mention(tweet_id=0, mentioned_usernames=['bob'])", "post_tweet(content='b')"],
        entry,
        world=world,
    )
    assert json.loads(results[2])["mentions"] == ["bob"]
    # Another world starts clean.
    assert json.loads(execute_calls(["post_tweet(content='c')"], entry)[0][0])["mentions"] == []


def test_vehicle_and_travel_and_trading_details() -> None:
    car = {"id": "multi_turn_base_3", "initial_config": {}, "involved_classes": ["VehicleControlAPI"]}
    assert run(["startEngine(ignitionMode='START')"], car) == [
        '{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: '
        'driver, passenger, rear_left, rear_right"}'
    ]
    travel = {"id": "multi_turn_long_context_4", "initial_config": {"TravelAPI": {}},
              "involved_classes": ["TravelAPI"]}  # fmt: skip
    cards = json.loads(run(["get_all_credit_cards()"], travel)[0])["credit_card_list"]
    assert len(cards) > 10  # the long-context filler cards
    assert run(["compute_exchange_rate(base_currency='EUR', target_currency='USD', value=8)"], travel) == [
        '{"exchanged_value": 10.0}'
    ]
    trading = {"id": "multi_turn_long_context_5", "initial_config": {"TradingBot": {"authenticated": True}},
               "involved_classes": ["TradingBot"]}  # fmt: skip
    watch = run(["get_watchlist()"], trading)[0]
    assert watch.startswith("['NVDA', ") and watch.endswith(", Ellipsis]")


def test_mpmath_is_installed_for_the_official_logarithm() -> None:
    # Ground truths of several samples call MathAPI.logarithm, whose official result is an mpmath
    # number; without mpmath those samples cannot pass (the ceiling drops below 100%).
    assert importlib.util.find_spec("mpmath") is not None, "mpmath must be installed (a BFCL dependency)"
    maths = {"id": "multi_turn_base_6", "initial_config": {}, "involved_classes": ["MathAPI"]}
    assert run(["logarithm(value=8, base=2, precision=5)", "square_root(number=2, precision=3)"], maths) == [
        "{'result': mpf('3.0')}",
        "{'result': Decimal('1.41')}",
    ]


# -- checker -------------------------------------------------------------------------------------

TRUTH = [["cd(folder='docs')", "mkdir(dir_name='new')"], [], ["cat(file_name='a.txt')"]]


def test_ground_truth_passes_and_splitting_into_steps_does_not_matter() -> None:
    entry = fs_entry()
    assert ground_truth_turns(TRUTH) == [[TRUTH[0]], [], [TRUTH[2]]]
    assert check_multi_turn(ground_truth_turns(TRUTH), TRUTH, entry) == {"valid": True}
    split = [[["cd(folder='docs')"], ["mkdir(dir_name='new')"]], [], [["cat(file_name='a.txt')"]]]
    assert check_multi_turn(split, TRUTH, entry) == {"valid": True}


def test_empty_turn_state_and_response_failures() -> None:
    entry = fs_entry()
    empty = check_multi_turn([[], [], []], TRUTH, entry)
    assert (empty["error_type"], empty["error_message"]) == (EMPTY_TURN, "Model response list is empty for turn 0")

    wrong_dir = check_multi_turn([[["cd(folder='docs')", "mkdir(dir_name='old')"]], [], []], TRUTH, entry)
    assert wrong_dir["error_type"] == STATE_MISMATCH
    assert wrong_dir["error_message"] == (
        "Model instance for GorillaFileSystem does not match the state with ground truth instance."
    )
    assert list(wrong_dir["details"]["differences"]) == ["root"]

    # Failed extra calls do not matter as long as state and results are there.
    extra = [[["mkdir(dir_name='docs/new')", "cd(folder='docs')", "mkdir(dir_name='new')"]]]
    assert check_multi_turn(extra, TRUTH[:1], entry) == {"valid": True}
    # Doing turn 0's work only in turn 2 fails at turn 0.
    late = [[["ls()"]], [], [["cd(folder='docs')", "mkdir(dir_name='new')", "cat(file_name='a.txt')"]]]
    assert check_multi_turn(late, TRUTH, entry)["error_type"] == STATE_MISMATCH


def test_calls_in_an_empty_truth_turn_still_change_the_state() -> None:
    entry = fs_entry()
    model = [[TRUTH[0]], [["touch(file_name='extra.txt')"]], [TRUTH[2]]]
    verdict = check_multi_turn(model, TRUTH, entry)
    assert verdict["error_type"] == STATE_MISMATCH
    assert "turn" not in verdict["error_message"]  # the state message names the class only
    assert check_irrelevance(model, TRUTH)["error_message"] == (
        "Model outputs valid function calls when it should not for turn 1."
    )


def test_response_check_is_an_unordered_multiset_over_all_turns() -> None:
    assert missing_results(["a", "b", "a"], ["b", "a", "x"]) == ["a"]
    assert missing_results(["a", "b"], ["b", "a"]) == []
    entry = fs_entry()
    truth = [["cat(file_name='notes.txt')", "cat(file_name='notes.txt')"]]
    once = check_multi_turn([[["cat(file_name='notes.txt')"]]], truth, entry)
    assert once["error_type"] == RESPONSE_MISMATCH
    assert once["error_message"].endswith("execution results for turn 0.")
    assert once["details"]["missing_items"] == ['{"file_content": "hello world"}']


def test_evaluation_runner_steps() -> None:
    entry = fs_entry()

    def decode(raw: Any) -> list[str]:
        if not isinstance(raw, list):
            raise ValueError("chat text")
        return raw

    assert score_multi_turn_result("boom", TRUTH, entry, decode)["error_type"] == INFERENCE_ERROR
    short = score_multi_turn_result([[TRUTH[0]]], TRUTH, entry, decode)
    assert short["error_type"] == FORCE_TERMINATED
    assert short["error_message"] == [
        "Model was force-terminated during inference phase. The length of the model result turns (1) does not "
        "match the length of the ground truth turns (3)."
    ]
    # Chat text and empty steps are dropped before checking.
    result = [["thinking...", TRUTH[0], []], ["I cannot do that"], [TRUTH[2], "done"]]
    assert score_multi_turn_result(result, TRUTH, entry, decode) == {"valid": True}


# -- loop ----------------------------------------------------------------------------------------

DOCS = {
    "GorillaFileSystem": [{"name": name, "description": name, "parameters": {}} for name in ("cd", "ls", "mkdir")],
}


class ScriptedModel:
    """Answers from a script; every answer is a list of calls (or text), with one tool-call id each."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[list[dict[str, Any]], list[str] | None]] = []

    def ask(self, messages: list[dict[str, Any]], functions: list[dict[str, Any]] | None) -> ModelReply:
        self.seen.append((messages, None if functions is None else [f["name"] for f in functions]))
        answer = self.answers.pop(0)
        ids = [f"call_{index}" for index in range(len(answer))] if isinstance(answer, list) else []
        return ModelReply(message={"role": "assistant", "content": str(answer)}, raw=answer, tool_call_ids=ids)


def decode_list(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        raise ValueError("not a call")
    return raw


def test_held_out_functions_join_at_their_turn() -> None:
    entry = fs_entry(
        "multi_turn_miss_func_9",
        question=[[{"role": "user", "content": "go to docs"}], []],
        missed_function={"1": ["mkdir"]},
    )
    functions, held_out = dialogue_functions(entry, DOCS)
    assert [f["name"] for f in functions] == ["cd", "ls"] and [f["name"] for f in held_out["1"]] == ["mkdir"]
    model = ScriptedModel([["cd(folder='docs')"], "ok", ["mkdir(dir_name='x')"], []])
    run_ = run_dialogue(entry, model.ask, decode_list, DOCS)
    assert run_.result == [[["cd(folder='docs')"], "ok"], [["mkdir(dir_name='x')"], []]]
    assert not run_.force_quit
    with_mkdir = ["cd", "ls", "mkdir"]
    assert [names for _, names in model.seen] == [["cd", "ls"], ["cd", "ls"], with_mkdir, with_mkdir]
    second_turn_messages = model.seen[2][0]
    assert second_turn_messages[-1] == {"role": "user", "content": ADDITIONAL_FUNCTION_PROMPT_FC}
    tool_message = model.seen[1][0][-1]
    assert tool_message == {
        "role": "tool",
        "content": '{"current_working_directory": "docs"}',
        "tool_call_id": "call_0",
    }


def test_step_limit_force_quits_the_dialogue() -> None:
    question = [[{"role": "user", "content": "loop"}], [{"role": "user", "content": "never asked"}]]
    entry = fs_entry(question=question)
    model = ScriptedModel([["ls()"]] * 30)
    run_ = run_dialogue(entry, model.ask, decode_list, DOCS, step_limit=3)
    assert run_.force_quit
    assert len(run_.result) == 1 and len(run_.result[0]) == 4  # the 4th executed step exceeds the limit of 3


def test_a_force_quit_loop_is_shown_once_with_its_count() -> None:
    from pytest_toolcall.benchmarks.bfcl.multi_turn_dialogue import transcript

    entry = fs_entry(question=[[{"role": "user", "content": "loop"}]])
    model = ScriptedModel([["pwd()"], ["pwd()"], ["ls()"]] + [["ls()"]] * 30)
    run_ = run_dialogue(entry, model.ask, decode_list, DOCS, step_limit=20)
    steps = len(run_.executed[0])
    assert run_.force_quit and steps == 21
    lines = transcript(run_).splitlines()
    # Two identical lines stay as they are; the 19 identical ls() lines are one line and a count.
    assert sum(line.startswith("  pwd()") for line in lines) == 2
    assert sum(line.startswith("  ls()") for line in lines) == 1
    assert f"  ... the same call and result {steps - 3} more time(s)" in lines
    assert lines[-1] == "force-quit: more than the step limit in one turn"


def test_prompting_mode_sends_results_as_one_user_message() -> None:
    entry = fs_entry(question=[[{"role": "user", "content": "list"}]])
    model = ScriptedModel([["ls()", "pwd()"], "done"])

    def prepare(messages: list[dict[str, Any]], functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"role": "system", "content": f"{len(functions)} tools"}, *messages]

    run_ = run_dialogue(entry, model.ask, decode_list, DOCS, mode="prompting", prepare_prompting=prepare)
    messages, functions = model.seen[1]
    assert functions is None and messages[0] == {"role": "system", "content": "3 tools"}
    expected = repr([
        {"role": "tool", "name": "ls()", "content": '{"current_directory_content": ["docs", "notes.txt"]}'},
        {"role": "tool", "name": "pwd()", "content": '{"current_working_directory": "/alex"}'},
    ])  # fmt: skip
    assert messages[-1] == {"role": "user", "content": expected}
    assert run_.result == [[["ls()", "pwd()"], "done"]]


@pytest.mark.parametrize("answer", ["", [], [""]])
def test_empty_decodes_end_the_turn(answer: Any) -> None:
    entry = fs_entry(question=[[{"role": "user", "content": "x"}]])
    model = ScriptedModel([answer])
    assert run_dialogue(entry, model.ask, decode_list, DOCS).result == [[answer]]


def test_maths_that_would_take_minutes_fails_fast() -> None:
    maths = {"id": "multi_turn_base_6", "initial_config": {}, "involved_classes": ["MathAPI"]}
    too_long = (
        "Error during execution: Exceeds the limit (4300 digits) for integer string conversion; "
        "use sys.set_int_max_str_digits() to increase the limit"
    )
    # The official executor computes 10**10**9 and then fails to print it; we fail at once.
    results = run(["power(base=10, exponent=1000000000)", "power(base=10, exponent=3)",
                   "square_root(number=2, precision=1000000000)"], maths)  # fmt: skip
    assert results[:2] == [too_long, '{"result": 1000}']
    assert results[2].startswith("Error during execution: precision above")
