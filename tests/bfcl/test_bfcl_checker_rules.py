"""The official checking rules, one quirk at a time, on small hand-made samples."""

from __future__ import annotations

import json
from typing import Any

from pytest_toolcall.benchmarks.bfcl.checker import Verdict, check_answer, normalise_text
from pytest_toolcall.benchmarks.bfcl.data import BfclSample

WEATHER = {
    "name": "weather.get",
    "description": "Weather.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": "City."},
            "days": {"type": "integer", "description": "Days."},
            "scale": {"type": "float", "description": "Scale."},
            "hours": {"type": "array", "items": {"type": "float"}, "description": "Hours."},
            "unit": {"type": "string", "description": "Unit."},
            "opts": {"type": "dict", "description": "Options."},
        },
        "required": ["city"],
    },
}
TRUTH = {
    "weather.get": {
        "city": ["New York, NY", "NYC"],
        "days": [3],
        "scale": [1.0],
        "hours": [[1.5, 2.0], ""],
        "unit": ["", "celsius"],
        "opts": [{"detail": ["high"], "lang": ["", "en"]}, ""],
    }
}


def sample(category: str = "simple_python", docs: list | None = None, truth: list | None = None) -> BfclSample:
    return BfclSample(
        id=f"{category}_0",
        category=category,
        question=[[{"role": "user", "content": "q"}]],
        functions=docs or [WEATHER],
        ground_truth=truth if truth is not None else [TRUTH],
    )


def fc(*calls: tuple[str, dict[str, Any]], category: str = "simple_python", **kw: Any) -> Verdict:
    tool_calls = [{"name": name, "arguments": json.dumps(args)} for name, args in calls]
    return check_answer(sample(category, **kw), None, tool_calls, "fc")


def prompt(text: str, category: str = "simple_python", **kw: Any) -> Verdict:
    return check_answer(sample(category, **kw), text, [], "prompting")


BASE = {"city": "NYC", "days": 3, "scale": 1.0}


def test_oracle_like_answers_pass_in_both_modes() -> None:
    assert fc(("weather_get", BASE)).valid
    assert prompt("[weather.get(city='NYC', days=3, scale=1.0)]").valid


def test_names_follow_the_mode() -> None:
    assert fc(("weather.get", BASE)).error_type == "simple_function_checker:wrong_func_name"
    assert (
        prompt("[weather_get(city='NYC', days=3, scale=1.0)]").error_type == "simple_function_checker:wrong_func_name"
    )


def test_strings_are_normalised() -> None:
    assert normalise_text("New York, NY") == "newyorkny"
    assert fc(("weather_get", {**BASE, "city": "new york ny"})).valid
    assert fc(("weather_get", {**BASE, "city": "NEW-YORK_NY."})).valid
    assert fc(("weather_get", {**BASE, "city": "New Jersey"})).error_type == "value_error:string"


def test_int_accepted_for_float_not_the_reverse() -> None:
    assert fc(("weather_get", {**BASE, "scale": 1})).valid
    verdict = fc(("weather_get", {**BASE, "days": 3.0}))
    assert verdict.error_type == "type_error:simple" and "'days'" in verdict.errors[0]
    # Inside lists there is no such tolerance: 2 is not a float...
    strict = [{"weather.get": {**TRUTH["weather.get"], "hours": [[1.5, 2.0]]}}]
    assert fc(("weather_get", {**BASE, "hours": [1.5, 2.0]}), truth=strict).valid
    assert fc(("weather_get", {**BASE, "hours": [1.5, 2]}), truth=strict).error_type == "type_error:nested"
    # ...unless the parameter may be omitted: the "" option satisfies the element type check.
    assert fc(("weather_get", {**BASE, "hours": [1.5, 2]})).valid


def test_optional_parameters_are_judged_by_the_possible_answer() -> None:
    assert fc(("weather_get", {**BASE, "unit": "celsius"})).valid
    assert fc(("weather_get", {"city": "NYC", "days": 3})).error_type == "simple_function_checker:missing_optional"
    assert fc(("weather_get", {"days": 3, "scale": 1.0})).error_type == "simple_function_checker:missing_required"
    verdict = fc(("weather_get", {**BASE, "verbose": True}))
    assert verdict.error_type == "simple_function_checker:unexpected_param" and "'verbose'" in verdict.errors[0]


def test_dict_parameters() -> None:
    assert fc(("weather_get", {**BASE, "opts": {"detail": "HIGH"}})).valid
    assert fc(("weather_get", {**BASE, "opts": {"detail": "low"}})).error_type == "value_error:dict_value"
    assert fc(("weather_get", {**BASE, "opts": {"detail": "high", "x": 1}})).error_type == "value_error:dict_key"
    assert fc(("weather_get", {**BASE, "opts": {}})).error_type == "value_error:dict_key"


def test_call_counts() -> None:
    assert fc(("weather_get", BASE), ("weather_get", BASE)).error_type == "simple_function_checker:wrong_count"
    assert check_answer(sample("multiple"), "", [], "fc").error_type == "multiple_function_checker:wrong_count"


PAIR = {
    "name": "pick",
    "description": "Pick.",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer", "description": "x"}}, "required": ["x"]},
}


def test_parallel_matching_is_greedy_and_order_dependent() -> None:
    truth = [{"pick": {"x": [1, 2]}}, {"pick": {"x": [1]}}]
    kw = {"docs": [PAIR], "truth": truth, "category": "parallel"}
    # The first expected call takes x=1, leaving x=2 for the second: no match, though a pairing exists.
    assert fc(("pick", {"x": 1}), ("pick", {"x": 2}), **kw).error_type == (
        "parallel_function_checker_no_order:cannot_find_match"
    )
    assert fc(("pick", {"x": 2}), ("pick", {"x": 1}), **kw).valid
    assert fc(("pick", {"x": 2}), **kw).error_type == "parallel_function_checker_no_order:wrong_count"


def test_relevance_rules() -> None:
    irrelevant = sample("irrelevance", truth=[])
    relevant = sample("live_relevance", truth=[])
    assert check_answer(irrelevant, "I can't.", [], "prompting").valid  # decode failure passes
    assert check_answer(irrelevant, "[]", [], "prompting").valid  # empty call list passes
    assert check_answer(irrelevant, None, [], "fc").valid
    called = check_answer(irrelevant, None, [{"name": "f", "arguments": "{}"}], "fc")
    assert called.error_type == "irrelevance_error:decoder_success"
    assert check_answer(relevant, "[f()]", [], "prompting").valid
    assert check_answer(relevant, "[]", [], "prompting").error_type == "relevance_error:decoder_failed"
    assert check_answer(relevant, None, [{"name": "f", "arguments": "[1]"}], "fc").error_type == (
        "relevance_error:decoder_failed"
    )


def test_decoding_failures_and_wrong_shapes() -> None:
    assert prompt("Sorry, no.").error_type == "ast_decoder:decoder_failed"
    assert fc(("weather_get", BASE), category="simple_python").valid
    shape = check_answer(sample(), None, [{"name": "weather_get", "arguments": "[1]"}], "fc")
    assert shape.error_type == "ast_decoder:decoder_wrong_output_format"
    assert check_answer(sample(), "", [], "fc").error_type == "simple_function_checker:wrong_count"


JAVA = {
    "name": "Calc.add",
    "description": "Add.",
    "parameters": {
        "type": "dict",
        "properties": {
            "count": {"type": "integer", "description": "n"},
            "big": {"type": "long", "description": "b"},
            "names": {"type": "ArrayList", "items": {"type": "String"}, "description": "names"},
        },
        "required": ["count"],
    },
}
JAVA_TRUTH = [{"Calc.add": {"count": [5], "big": [7, ""], "names": [["a", "b"], ""]}}]


def test_java_arguments_are_strings_converted_by_type() -> None:
    kw = {"docs": [JAVA], "truth": JAVA_TRUTH, "category": "simple_java"}
    assert fc(("Calc_add", {"count": "5"}), **kw).valid
    assert fc(("Calc_add", {"count": 5}), **kw).error_type == "type_error:java"
    assert fc(("Calc_add", {"count": "5", "big": "7L"}), **kw).valid
    assert fc(("Calc_add", {"count": "5", "big": "7"}), **kw).error_type == "type_error:simple"
    names = 'new ArrayList<>(Arrays.asList("a", "b"))'
    assert fc(("Calc_add", {"count": "5", "names": names}), **kw).valid


def test_unknown_declared_type_is_a_checker_error() -> None:
    doc = {**PAIR, "parameters": {**PAIR["parameters"], "properties": {"x": {"type": "number", "description": "x"}}}}
    verdict = fc(("pick", {"x": 1}), docs=[doc], truth=[{"pick": {"x": [1]}}])
    assert not verdict.valid and verdict.error_type == "checker_error"
