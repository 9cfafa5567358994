"""τ²-bench results files come in through the door (issue 31, findings 13 and 14): nested deeper than
the bound, they are one line naming the file (never a RecursionError); a task that names an attribute
of the tools object (``__init__``, ``__class__``) as a function is refused as a name not among the
tools, one line naming the file and the task."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.api import DataError
from pytest_toolcall.benchmarks.tau2.results_file import load_results

TELECOM = Path(__file__).parents[1] / "data" / "tau2" / "telecom" / "results_telecom.json.gz"


@pytest.fixture(scope="module")
def one_simulation() -> dict[str, Any]:
    data = json.loads(gzip.decompress(TELECOM.read_bytes()))
    simulation = data["simulations"][0]
    data["simulations"] = [simulation]
    data["tasks"] = [t for t in data["tasks"] if str(t["id"]) == str(simulation["task_id"])]
    return data


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "results.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_the_file_as_it_is_loads(one_simulation: dict[str, Any], tmp_path: Path) -> None:
    assert len(load_results(_write(tmp_path, one_simulation))) == 1


@pytest.mark.parametrize("deep", ["[" * 100_000 + "]" * 100_000, '{"a":' * 150 + "1" + "}" * 150])
def test_a_deep_file_is_one_line(tmp_path: Path, deep: str) -> None:
    with pytest.raises(DataError) as caught:
        load_results(_write(tmp_path, deep))
    assert "nested deeper than 100 levels" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["__init__", "__class__", "_get_line_by_phone", "__dict__", 5, None, "a b"])
@pytest.mark.parametrize("where", ["initialization_actions", "env_assertions"])
def test_an_attribute_is_no_function(one_simulation: dict[str, Any], tmp_path: Path, name: Any, where: str) -> None:
    data = copy.deepcopy(one_simulation)
    task = data["tasks"][0]
    function = {"env_type": "assistant", "func_name": name, "arguments": {}}
    if where == "initialization_actions":
        task["initial_state"]["initialization_actions"].insert(0, function)
    else:
        task["evaluation_criteria"]["env_assertions"] = [function]
    with pytest.raises(DataError) as caught:
        load_results(_write(tmp_path, data))
    message = str(caught.value)
    assert "unknown function" in message and "not among the tools" in message and "\n" not in message
    assert str(tmp_path / "results.json") in message
