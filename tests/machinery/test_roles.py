"""Model roles, the oracle chosen in one place, the stream mode, and shard costs read from plans.

- the model under test, the user simulator and the judge are resolved once from the options (their
  endpoints defaulting to the model's), and the models a plan gets carry their role;
- the name ``oracle`` is compared in ``model/oracle.py`` only (read from the source, nothing imported);
- ``--toolcall-stream``: which askings a unit gets, and that only the model under test is streamed
  (a user simulator on the same endpoint under the same name is not: it was, when "the model under
  test" was recognised by its name and endpoint);
- a unit's shard weight is what its plan says it sends: a ``steps: 40`` case weighs 40 one-shot
  cases, its attempts under repeats add up.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import pytest_toolcall
from pytest_toolcall.benchmarks.cases.benchmark import Cases
from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.types import Role
from pytest_toolcall.model import oracle
from pytest_toolcall.model.store import CachedModel, ResponseStore
from pytest_toolcall.runner import shards
from pytest_toolcall.runner.collect import repeated
from pytest_toolcall.runner.keys import UNIT
from pytest_toolcall.runner.models import RunModels, role_endpoints
from pytest_toolcall.runner.streamed import StreamMode

PACKAGE = Path(pytest_toolcall.__file__).parent


def settings(**raw: str) -> Settings:
    found = Settings.from_raw({k.replace("_", "-"): v for k, v in raw.items()}, benches=())
    assert found is not None
    return found


# --- roles ------------------------------------------------------------------------------------------


def test_each_role_defaults_its_endpoint_and_key_to_the_models() -> None:
    roles = role_endpoints(
        settings(model="m", base_url="http://a/v1", api_key_env="KEY", user_model="u", judge_model="j",
                 judge_base_url="http://b/v1", judge_api_key_env="JUDGE_KEY")
    )  # fmt: skip
    assert set(roles) == {Role.MODEL, Role.USER, Role.JUDGE}
    assert (roles[Role.USER].name, roles[Role.USER].base_url, roles[Role.USER].api_key_env) == (
        "u",
        "http://a/v1",
        "KEY",
    )
    assert (roles[Role.JUDGE].base_url, roles[Role.JUDGE].api_key_env) == ("http://b/v1", "JUDGE_KEY")
    assert [r.key_option for r in roles.values()] == ["api-key-env", "user-api-key-env", "judge-api-key-env"]
    assert not any(r.oracle for r in roles.values())


def test_a_role_not_given_is_absent_and_the_oracle_plays_the_user_under_the_oracle() -> None:
    assert set(role_endpoints(settings(model="m"))) == {Role.MODEL}
    roles = role_endpoints(settings(model="oracle"))
    assert set(roles) == {Role.MODEL, Role.USER}  # no judge: not measured, as without the oracle
    assert roles[Role.MODEL].oracle and roles[Role.USER].oracle
    mixed = role_endpoints(settings(model="m", user_model="oracle"))
    assert not mixed[Role.MODEL].oracle and mixed[Role.USER].oracle


def test_each_role_is_built_once_per_way_of_asking_and_only_the_model_under_test_takes_the_api(
    tmp_path: Path,
) -> None:
    """Read from the store keys' settings of each role's model (a replay: nothing is reached)."""
    store = ResponseStore(tmp_path / "store.sqlite3")
    run = settings(model="m", user_model="u", judge_model="oracle", api="responses", cache_mode="replay")
    models = RunModels(None, run, lambda: store)  # type: ignore[arg-type]
    plain, streamed = models.client(Role.MODEL), models.client(Role.MODEL, True)
    assert models.client(Role.MODEL) is plain and streamed is not plain
    assert isinstance(plain, CachedModel) and isinstance(streamed, CachedModel)
    assert (plain.sampling["api"], "stream" in plain.sampling) == ("responses", False)
    assert (streamed.sampling["api"], streamed.sampling["stream"]) == ("responses", True)
    user = models.client(Role.USER)
    assert isinstance(user, CachedModel) and (user.name, "api" in user.sampling) == ("u", False)
    other = models.client(Role.MODEL, False, "chat")  # another wire format, asked on purpose
    assert isinstance(other, CachedModel) and other is not plain and "api" not in other.sampling
    judge = models.client(Role.JUDGE)
    assert isinstance(judge, oracle.OracleModel) and judge.role is Role.JUDGE
    models.close()
    store.close()


def test_the_oracle_model_carries_its_role() -> None:
    assert oracle.chooses("oracle") and not oracle.chooses("oracle-7b") and not oracle.chooses(None)
    user = oracle.OracleModel(Role.USER)
    assert (user.role, user.oracle, user.name) == (Role.USER, True, "oracle")


def test_the_name_oracle_is_compared_in_one_module_only() -> None:
    """No string literal ``"oracle"`` and no comparison with a name holding it outside ``model/oracle.py``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "model" / "oracle.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value == "oracle":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: the literal 'oracle'")
            if isinstance(node, ast.Name) and node.id == "ORACLE":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: ORACLE")
    assert not found, "\n".join(found)
    # The rule is not vacuous: the one module holds the name.
    assert '"oracle"' in (PACKAGE / "model" / "oracle.py").read_text(encoding="utf-8")


# --- the stream mode ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "askings"),
    [("off", [(False, True)]), ("on", [(True, True)]), ("both", [(False, True), (True, False)])],
)
def test_the_stream_mode_decides_how_a_unit_is_asked(mode: str, askings: list[tuple[bool, bool]]) -> None:
    stream = StreamMode.of(mode)
    assert [(a.streamed, a.scored) for a in stream.askings] == askings
    assert stream.scored is stream.askings[0] and stream.compares == (mode == "both")
    for asking in stream.askings:
        assert asking.streams(Role.MODEL) == asking.streamed
        assert not asking.streams(Role.USER) and not asking.streams(Role.JUDGE)


# --- shard costs from the plan ---------------------------------------------------------------------------

STEPS_40 = """cases:
  - id: long
    prompt: "Plan the trip."
    steps: 40
    tool_results: {book: ok}
    tools:
      - type: function
        function: {name: book, parameters: {type: object, properties: {}}}
    expect: {trajectory: {calls: [{name: book}], match: superset, args: ignore}}
  - id: short
    prompt: "Say hello."
    expect: {no_call: true}
"""


class FakeItem:
    def __init__(self, nodeid: str, unit: Any) -> None:
        self.nodeid = nodeid
        self.stash = pytest.Stash()
        self.stash[UNIT] = unit


def case_items(tmp_path: Path, repeat: int) -> tuple[Cases, list[FakeItem]]:
    path = tmp_path / "trip.toolcall.yaml"
    path.write_text(STEPS_40, encoding="utf-8")
    cases = Cases(settings(model="m", cache="off"))
    loaded = repeated(cases.load_file(path, "trip.toolcall.yaml"), repeat)
    assert not loaded.problems, loaded.problems
    return cases, [FakeItem(unit.nodeid, unit) for unit in loaded.units]


@pytest.mark.parametrize("repeat", [1, 3])
def test_a_case_of_40_steps_weighs_40_one_shot_cases_and_repeats_add_up(tmp_path: Path, repeat: int) -> None:
    """(The attempts of a unit of a user's file, ``file::key@k``, are one group too: never split.)"""
    cases, items = case_items(tmp_path, repeat)
    weights = shards.weights(items, {"cases": cases})  # type: ignore[arg-type]
    assert weights == {"trip.toolcall.yaml::long": 40.0 * repeat, "trip.toolcall.yaml::short": 1.0 * repeat}
    cases.close()


def test_a_unit_is_weighed_without_asking_anything(tmp_path: Path) -> None:
    cases, items = case_items(tmp_path, 1)
    # The models a cost is read with refuse to be asked: planning alone sends nothing.
    models = shards.UnaskedModels([Role.MODEL, Role.USER])
    with pytest.raises(AssertionError, match="asked its model"):
        models.model.submit(None)  # type: ignore[arg-type]
    assert models.user is not None and models.judge is None and models.user.role is Role.USER
    unit = items[0].stash[UNIT]
    assert shards.unit_cost(cases, unit, models) == 40.0
    cases.close()


# --- a user simulator on the model's own endpoint is not streamed -----------------------------------------


@pytest.mark.slow
def test_a_user_simulator_with_the_models_name_and_endpoint_is_not_streamed(
    pytester: pytest.Pytester, acebench_root: Path
) -> None:
    from pytest_toolcall.testing.server import ChatServer, Reply

    with ChatServer(lambda body: Reply(content="finish conversation")) as server:
        result = pytester.runpytest(
            "--toolcall-model=m",
            f"--toolcall-base-url={server.base_url}",
            "--toolcall-api-key-env=",
            "--toolcall-user-model=m",  # the same model on the same endpoint plays the user
            "--toolcall-stream=on",
            "--toolcall-cache=off",
            f"--toolcall-data-dir={acebench_root}",
            "--toolcall-limit=1",
            "-k",
            "agent_multi_turn",
            "--toolcall-report=report.json",
            "-p",
            "no:randomly",
        )
        bodies = list(server.requests)
    sample = json.loads((pytester.path / "report.json").read_text())["samples"][0]
    assert sample["category"] == "agent_multi_turn", result.stdout.str()
    # The dialogue: the user opens, the agent answers, the user again, the agent finishes.
    assert [bool(body.get("stream")) for body in bodies] == [False, True, False, True]
