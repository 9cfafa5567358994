"""The official BFCL single-turn verdict: AST checking of decoded calls and the relevance rules.

Every rule below reproduces the official checker's behaviour, quirks included, because the point is to
give the verdicts the leaderboard gives:

* strings are compared after dropping spaces and ``,./-_*^``, lower-casing and turning ``'`` into ``"``;
* each parameter of a possible answer lists its acceptable values; ``""`` among them means "may be
  omitted"; a parameter the model passes must appear in both the doc and the possible answer;
* an ``int`` is accepted where a Python ``float`` is declared (not the reverse, and not inside lists);
* a value whose type matches the possible answer's type instead of the declared one is a "variable"
  and is compared as is;
* parallel answers are matched greedily: each expected call, in order, takes the first unused model
  call that passes; ``multiple`` checks only the first call;
* Java/JavaScript arguments must be strings, converted by the declared type (see ``java_js_values``);
* in ``fc`` mode dotted function names are expected with underscores (what the tools carried);
* relevance categories: a reply "calls a function" when it decodes to a non-empty call list;
  ``irrelevance`` passes when it does not (a decoding failure passes), ``relevance`` when it does.

Where the official checker would crash on malformed data or a strange answer (e.g. an unknown declared
type), the verdict is invalid with error type ``checker_error``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from pytest_toolcall.benchmarks.bfcl.data import BfclSample, is_relevance_category, language_of
from pytest_toolcall.benchmarks.bfcl.decode import (
    DecodeError,
    ValueTooLarge,
    decode_ast,
    is_call_list,
    is_empty_decoded,
    official_result,
)
from pytest_toolcall.benchmarks.bfcl.java_js_values import JAVA_TYPES, JS_TYPES, java_value, js_value

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_PYTHON_NESTED = ("array", "tuple")
_CONVERTED_LISTS = ("Array", "ArrayList", "array")


@dataclass(frozen=True)
class Verdict:
    """``valid`` and, when invalid, the official ``error_type`` with readable messages."""

    valid: bool
    error_type: str | None = None
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "error_type": self.error_type, "errors": list(self.errors)}


class _Fail(Exception):
    """Internal: carries a failing verdict out of nested checks."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


def normalise_text(text: str) -> str:
    """The official string normalisation."""
    return re.sub(r"[ ,./\-_*^]", "", text).lower().replace("'", '"')


def _expected_type_of(options: list[Any]) -> type | None:
    """Type of the first acceptable value that is not the "may be omitted" marker."""
    for option in options:
        if option != "":
            return type(option)
    return None


# --------------------------------------------------------------------------------------------------
# Type check


def _type_check(param: str, value: Any, options: list[Any], declared: str, expected: type, inner: type | None):
    """(valid, is_variable, error_type, message), following the official one-level type check."""
    answer_type = _expected_type_of(options)
    is_variable = answer_type is not None and answer_type != expected
    nested_failed: type | None = None  # the element type that some element did not have
    if type(value) is expected:
        if inner is None:
            return True, is_variable, None, ""
        for option in options:
            ok = True
            if type(option) is list:
                for item in cast("Iterable[Any]", value):  # a list: ``type(value) is`` narrows it to object
                    if not _type_check(param, item, option, str(inner), inner, None)[0]:
                        ok = False
                        break
            if ok:
                return True, is_variable, None, ""
        nested_failed = inner
    if answer_type is not None and type(value) is answer_type:
        # Looks like the possible answer's own type: a variable name or the like. A failed nested check
        # still reports its error here, as officially.
        if nested_failed is not None:
            message = f"{param!r}: elements of {value!r} are not all {nested_failed.__name__}"
            return False, True, "type_error:nested", message
        return True, True, None, ""
    message = f"{param!r}: expected type {declared}, got {type(value).__name__} ({value!r})"
    return False, is_variable, "type_error:simple", message


# --------------------------------------------------------------------------------------------------
# Value checks


def _check_string(param: str, value: str, options: list[Any]) -> None:
    wanted = [normalise_text(option) for option in options if type(option) is str]
    if normalise_text(value) not in wanted:
        raise _Fail("value_error:string", f"{param!r}: {value!r} is not one of {options!r} (normalised)")


def _check_list(param: str, value: list[Any], options: list[Any]) -> None:
    got = [normalise_text(item) if type(item) is str else item for item in value]
    wanted = [[normalise_text(item) if type(item) is str else item for item in option] for option in options]
    if got not in wanted:
        raise _Fail("value_error:list/tuple", f"{param!r}: {value!r} is not one of {options!r}")


def _check_dict(param: str, value: dict[str, Any], options: list[Any]) -> None:
    """Passes when some non-empty option accepts every key and value; otherwise the last option's failure."""
    failure = _Fail("dict_checker:unclear", f"{param!r}: no acceptable dictionary")
    for option in options:
        if option == "":
            continue
        problem: _Fail | None = None
        for key, item in value.items():
            if key not in option:
                problem = _Fail("value_error:dict_key", f"{param!r}: unexpected key {key!r}")
                break
            got = normalise_text(item) if type(item) is str else item
            wanted = [normalise_text(v) if type(v) is str else v for v in option[key]]
            if got not in wanted:
                problem = _Fail("value_error:dict_value", f"{param!r}: key {key!r} has {item!r}, expected {wanted!r}")
                break
        for key, allowed in option.items():
            if key not in value and "" not in allowed:
                problem = _Fail("value_error:dict_key", f"{param!r}: missing key {key!r}")
                break
        if problem is None:
            return
        failure = problem
    raise failure


def _check_dict_list(param: str, value: list[Any], options: list[Any]) -> None:
    failure = _Fail("list_dict_checker:unclear", f"{param!r}: no acceptable list of dictionaries")
    for option in options:
        if len(value) != len(option):
            failure = _Fail(
                "value_error:list_dict_count", f"{param!r}: {len(value)} dictionaries, expected {len(option)}"
            )
            continue
        ok = True
        for item, wanted in zip(value, option, strict=True):
            try:
                _check_dict(param, item, [wanted])
            except _Fail as exc:
                failure = exc
                ok = False
                break
        if ok:
            return
    raise failure


# --------------------------------------------------------------------------------------------------
# One call


def expected_name(name: str, mode: str) -> str:
    """The name a model is expected to use: the tools of fc mode carried dots as underscores."""
    return name.replace(".", "_") if mode == "fc" and "." in name else name


def _check_call(doc: dict[str, Any], call: dict[str, Any], expected: dict[str, Any], language: str, mode: str) -> None:
    """Raise :class:`_Fail` unless ``call`` ({name: params}) satisfies ``expected`` ({name: options})."""
    options_by_param = next(iter(expected.values()))
    declared_params = doc["parameters"]["properties"]
    required = doc["parameters"]["required"]
    name = expected_name(doc["name"], mode)
    if name not in call:
        raise _Fail("simple_function_checker:wrong_func_name", f"function {name!r} not called")
    params = call[name]
    for param in required:
        if param not in params:
            raise _Fail("simple_function_checker:missing_required", f"missing required parameter {param!r}")
    for param, value in params.items():
        if param not in declared_params or param not in options_by_param:
            raise _Fail("simple_function_checker:unexpected_param", f"unexpected parameter {param!r}")
        options = options_by_param[param]
        declared = declared_params[param]["type"]
        inner: type | None = None
        if language == "java" or language == "javascript":
            table = JAVA_TYPES if language == "java" else JS_TYPES
            convert = java_value if language == "java" else js_value
            expected_type = table[declared]
            if type(value) is not str:
                raise _Fail(
                    f"type_error:{'java' if language == 'java' else 'js'}",
                    f"{param!r}: expected a string, got {type(value).__name__} ({value!r})",
                )
            if declared in _CONVERTED_LISTS:
                element = declared_params[param]["items"]["type"]
                inner = table[element]
                value = convert(value, declared, element)
            else:
                value = convert(value, declared)
        else:
            expected_type = PYTHON_TYPES[declared]
            if declared in _PYTHON_NESTED:
                inner = PYTHON_TYPES[declared_params[param]["items"]["type"]]
        if declared == "tuple" and type(value) is tuple:
            value = list(value)
        if language == "python" and declared == "float" and type(value) is int:
            value = float(value)
        ok, is_variable, error_type, message = _type_check(param, value, options, declared, expected_type, inner)
        if not ok:
            raise _Fail(error_type or "type_error:simple", message)
        if not is_variable:
            if expected_type is dict:
                _check_dict(param, value, options)
                continue
            if expected_type is list and inner is dict:
                _check_dict_list(param, value, options)
                continue
            if expected_type is str:
                _check_string(param, value, options)
                continue
            if expected_type is list:
                _check_list(param, value, options)
                continue
        if value not in options:
            raise _Fail("value_error:others", f"{param!r}: {value!r} is not one of {options!r}")
    for param, options in options_by_param.items():
        if param not in params and "" not in options:
            raise _Fail("simple_function_checker:missing_optional", f"parameter {param!r} missing and not optional")


def _find_doc(docs: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    for doc in docs:
        if doc["name"] == name:
            return doc
    return None


def _check_calls(
    docs: list[dict[str, Any]], calls: list[Any], ground_truth: list[Any], category: str, language: str, mode: str
) -> None:
    if "parallel" in category:
        if len(calls) != len(ground_truth):
            raise _Fail(
                "parallel_function_checker_no_order:wrong_count", f"{len(calls)} calls, expected {len(ground_truth)}"
            )
        used: list[int] = []
        for position, expected in enumerate(ground_truth):
            doc = _find_doc(docs, next(iter(expected)))
            if doc is None:
                raise TypeError("expected function has no doc")
            matched = False
            for index, call in enumerate(calls):
                if index in used:
                    continue
                try:
                    _check_call(doc, call, expected, language, mode)
                except _Fail:
                    continue
                used.append(index)
                matched = True
                break
            if not matched:
                raise _Fail(
                    "parallel_function_checker_no_order:cannot_find_match",
                    f"no remaining call matches expected call {position} ({next(iter(expected))})",
                )
        return
    if "multiple" in category:
        if len(calls) != len(ground_truth):
            raise _Fail("multiple_function_checker:wrong_count", f"{len(calls)} calls, expected {len(ground_truth)}")
        doc = _find_doc(docs, next(iter(ground_truth[0])))
        if doc is None:
            raise TypeError("expected function has no doc")
        _check_call(doc, calls[0], ground_truth[0], language, mode)
        return
    if len(calls) != 1:
        raise _Fail("simple_function_checker:wrong_count", f"{len(calls)} calls, expected 1")
    _check_call(docs[0], calls[0], ground_truth[0], language, mode)


def check_decoded(
    functions: list[dict[str, Any]], decoded: list[Any], ground_truth: list[Any], category: str, mode: str
) -> Verdict:
    """The official ``ast_checker`` verdict for calls already decoded and in call-list format."""
    try:
        _check_calls(functions, decoded, ground_truth, category, language_of(category), mode)
    except _Fail as failure:
        return Verdict(False, failure.error_type, [failure.message])
    except Exception as exc:  # where the official checker itself would crash
        return Verdict(False, "checker_error", [f"{type(exc).__name__}: {exc}"])
    return Verdict(True)


def check_result(sample: BfclSample, result: Any, mode: str) -> Verdict:
    """Verdict for an official-form result (see ``decode.official_result``) of ``sample`` in ``mode``."""
    if is_relevance_category(sample.category):
        try:
            calls = not is_empty_decoded(decode_ast(result, mode, "python"))
            reason = ""
        except ValueTooLarge:  # the official decoder computes the value: the reply calls a function
            calls, reason = True, ""
        except DecodeError as exc:
            calls, reason = False, str(exc)
        if "irrelevance" in sample.category:
            if calls:
                return Verdict(False, "irrelevance_error:decoder_success", ["the reply calls a function"])
            return Verdict(True)
        if not calls:
            return Verdict(False, "relevance_error:decoder_failed", [f"the reply calls no function. {reason}".strip()])
        return Verdict(True)
    try:
        decoded = decode_ast(result, mode, language_of(sample.category))
    except DecodeError as exc:
        return Verdict(False, "ast_decoder:decoder_failed", [f"cannot decode the reply: {exc}"])
    if not is_call_list(decoded):
        return Verdict(False, "ast_decoder:decoder_wrong_output_format", ["the reply is not a list of calls"])
    assert sample.ground_truth is not None
    return check_decoded(sample.functions, decoded, sample.ground_truth, sample.category, mode)


def check_answer(
    sample: BfclSample, content: str | None, tool_calls: list[dict[str, Any]] | None, mode: str
) -> Verdict:
    """Verdict for a chat answer: ``content`` and ``tool_calls`` ``[{"name", "arguments" (raw JSON)}]``."""
    return check_result(sample, official_result(content, tool_calls, mode), mode)
