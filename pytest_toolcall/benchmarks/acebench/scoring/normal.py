"""The ACEBench normal checker, verdict for verdict the official one (56dd66c, ``model_eval/checker.py``).

The comments below name the quirks of the official checker that this code keeps on purpose.
Where the official checker raises (and so aborts its whole run), the call is judged invalid
with ``error_type`` ``"crash"``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, cast

from pytest_toolcall.api.text import show
from pytest_toolcall.benchmarks.acebench.dataset import api_name
from pytest_toolcall.benchmarks.acebench.decode import Call
from pytest_toolcall.benchmarks.acebench.scoring.verdict import Verdict

# Declared JSON-ish type -> the Python type the official checker demands. ``number`` maps to int and
# ``enum`` to a type nothing has, both as in the original table.
_TYPES: dict[str, type] = {
    "string": str,
    "any": str,
    "integer": int,
    "int": int,
    "number": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "list": list,
    "list(string)": list,
    "list(enum)": list,
    "objectArray": list,
    "object": dict,
    "dict": dict,
    "enum": enumerate,
}
# Declared types whose elements (or values) get an inner type.
_CONTAINER_TYPES = {"array", "tuple", "list(string)", "list(enum)", "object", "objectArray"}
_STANDARDIZE = re.compile(r"[ ,./\-_*^]")


class _Invalid(Exception):
    """Raised inside the checker to stop at the first failed rule."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


def standardize(text: str) -> str:
    """Delete `` ,./-_*^`` (U+0020 only), lowercase, and turn ``'`` into ``"``."""
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


def check_normal(functions: list[dict], calls: list[Call], ground_truth: dict | list[dict]) -> Verdict:
    """Valid iff the calls pass any ground-truth alternative; otherwise the first alternative's error."""
    alternatives = ground_truth if isinstance(ground_truth, list) else [ground_truth]
    first_error: Verdict | None = None
    for alternative in alternatives:
        verdict = _check_alternative(functions, calls, alternative)
        if verdict.valid:
            return verdict
        first_error = first_error or verdict
    assert first_error is not None, "ground truth without alternatives"
    return first_error


def _check_alternative(functions: list[dict], calls: list[Call], expected: dict) -> Verdict:
    try:
        _check_call_list(functions, calls, expected)
    except _Invalid as exc:
        return Verdict(False, exc.error_type, exc.message)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        return Verdict(False, "crash", f"the official checker raises {type(exc).__name__} here: {exc}")
    return Verdict(True)


def _check_call_list(functions: list[dict], calls: list[Call], expected: dict) -> None:
    if len(calls) != len(expected):
        raise _Invalid("wrong functions number", f"expected {len(expected)} call(s), got {len(calls)}")
    # The ``_<digits>`` suffix is stripped from every ground-truth key, even when it is part of the
    # real function name; the spec is still looked up with the unstripped key.
    entries = [(key, api_name(key), params) for key, params in expected.items()]
    got_names = Counter(call.name for call in calls)
    want_names = Counter(name for _, name, _ in entries)
    if got_names != want_names:
        raise _Invalid(
            "function_mismatch",
            f"called {_names(got_names)}, expected {_names(want_names)}",
        )
    for key, name, params in entries:
        spec = _find_spec(functions, key)
        # Order-insensitive and non-exclusive: one call may satisfy several entries.
        failure: _Invalid | None = None
        for call in calls:
            if call.name != name:
                continue
            try:
                _check_call(spec, call, params)
                break
            except _Invalid as exc:
                failure = failure or exc
        else:
            assert failure is not None  # the name multisets are equal, so some call had this name
            raise failure


def _names(counter: Counter[str]) -> str:
    return ", ".join(f"{name}×{n}" if n > 1 else name for name, n in sorted(counter.items())) or "nothing"


def _find_spec(functions: list[dict], key: str) -> dict:
    """The first function whose name is a substring of the (unstripped) ground-truth key."""
    for function in functions:
        if function["name"] in key:
            return function
    raise TypeError(f"no function spec matches ground-truth key {key!r}")


def _check_call(spec: dict, call: Call, expected: dict) -> None:
    parameters = spec["parameters"]
    if call.args == {} or parameters == {}:
        if call.args == {} and parameters == {}:
            return
        raise _Invalid("wrong_param", f"{call.name}: called without arguments")
    if expected == parameters["properties"]:
        return  # degenerate shortcut of the original; never met in the data
    if expected == {}:
        raise _Invalid("wrong_param", f"{call.name}: ground truth has no parameters")
    if call.name != spec["name"]:
        raise _Invalid("wrong_function_name", f"expected {spec['name']}, got {call.name}")
    properties = parameters["properties"]
    for name in parameters["required"]:
        if name not in call.args:
            raise _Invalid("lack_args", f"{call.name}: missing required param {name!r}")
    for name, value in call.args.items():
        # An argument must be both a schema property and in the ground truth: extra optional
        # arguments are fatal, omitted optional ones are fine.
        if name not in properties or name not in expected:
            shown = "**" if name is None else repr(name)
            raise _Invalid("addition_args", f"{call.name}: unexpected param {shown}")
        _check_param(call.name, name, value, properties[name], expected[name])


def _check_param(func: str, name: str, value: Any, schema: dict, expected: Any) -> None:
    declared = schema["type"]
    mapped = _TYPES[declared]
    inner = None
    if declared in _CONTAINER_TYPES:
        try:
            inner_name = schema["items"]["type"]
        except (KeyError, TypeError):
            # No ``items``: "string"/"enum" from the type name, else objects. So an ``array``
            # without ``items`` is an array of objects.
            inner_name = "string" if "string" in declared else "enum" if "enum" in declared else "dict"
        inner = _TYPES[inner_name]
    if declared == "tuple" and type(value) is tuple:
        value = list(value)
    if declared == "float" and type(value) is int:
        value = float(value)

    where = f"param {name!r}"
    ok, is_variable = _type_ok(value, expected, mapped, inner)
    if not ok:
        raise _Invalid("type_error", f"{where}: expected {_type_name(mapped)}, got {show(value)}")
    if is_variable:
        return  # the ground truth's type differs from the declared one: value not checked
    if mapped is dict:
        _check_object(where, value, expected)
    elif mapped is list and inner is dict:
        if len(value) != len(expected):
            raise _Invalid("value_error", f"{where}: expected {len(expected)} item(s), got {len(value)}")
        if declared == "objectArray" and value:
            raise TypeError("objectArray items crash the official checker")
        for got_item, want_item in zip(value, expected, strict=True):
            _check_object(where, got_item, want_item)
    elif mapped is str:
        if standardize(expected) not in standardize(value):
            raise _Invalid("value_error:string", f"{where}: expected {show(expected)}, got {show(value)}")
    elif mapped is list:
        if _standardize_items(value) != _standardize_items(expected):
            raise _Invalid("value_error:list/tuple", f"{where}: expected {show(expected)}, got {show(value)}")
    # int, float and bool values are never value-checked.


def _type_ok(value: Any, expected: Any, mapped: type, inner: type | None) -> tuple[bool, bool]:
    """The official type check: (passes, is_variable). ``is_variable`` skips the value check."""
    expected_type = None if expected == "" else type(expected)
    is_variable = expected_type is not None and expected_type is not mapped
    if value == "true":
        value = True
    elif value == "false":
        value = False
    if type(value) is mapped:
        if inner is None:
            return True, is_variable
        # Elements are only type-checked against ground-truth elements that are lists; any other
        # first element passes at once. An empty ground-truth container fails whatever is sent.
        items = cast("Iterable[Any]", value)  # of the mapped container type (``type(value) is`` narrows to object)
        for expected_item in expected:
            if type(expected_item) is not list or all(_type_ok(item, expected_item, inner, None)[0] for item in items):
                return True, is_variable
        return False, is_variable
    if expected_type is not None and (type(value) is expected_type or expected == value):
        return True, True
    return False, is_variable


def _check_object(where: str, value: Any, expected: dict) -> None:
    """Same key count; leaves compared by substring of their (standardized) text."""
    if not isinstance(value, dict):
        raise _Invalid("value_error", f"{where}: expected an object, got {show(value)}")
    if len(value) != len(expected.keys()):
        raise _Invalid("value_error", f"{where}: expected keys {sorted(expected)}, got {_keys(value)}")
    for key, item in value.items():
        if item == "true":
            item = True
        elif item == "false":
            item = False
        if key not in expected:
            raise _Invalid("value_error", f"{where}: unexpected key {key!r}")
        want = expected[key]
        if isinstance(want, dict):
            _check_object(f"{where}.{key}", item, want)
            continue
        got_text = str(standardize(item) if type(item) is str else item)
        want_text = str(standardize(want) if type(want) is str else want)
        if want_text not in got_text:
            raise _Invalid("value_error", f"{where}.{key}: expected {show(want)}, got {show(item)}")


def _standardize_items(items: Any) -> list[Any]:
    return [standardize(item) if type(item) is str else item for item in items]


def _keys(value: dict) -> list[str]:
    return sorted(map(str, value))


def _type_name(mapped: type) -> str:
    return "enum" if mapped is enumerate else mapped.__name__
