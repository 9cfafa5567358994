"""Bad data gets one clear message, never a traceback, never a silent skip (issue: reliability and
security, item 3).

ACEBench files are broken one way at a time in a copy of the data root; each problem must be a
collection error naming the file and line, and the rest of the data must still run. Options with
unknown values are usage errors naming the option.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

EN = Path("data_all/data_en")
ANSWERS = EN / "possible_answer"


def copy_root(source: Path, target: Path) -> Path:
    """A data root of the English data: files linked, so that a test replaces only what it breaks."""
    for path in (source / EN).rglob("*.json"):
        link = target / path.relative_to(source)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path)
    (target / "prompts.json").symlink_to(source / "prompts.json")
    return target


def rewrite(path: Path, edit: Callable[[list[str]], list[str]]) -> Path:
    """Replace a (linked) file by an edited copy of its lines."""
    lines = path.read_text(encoding="utf-8").splitlines()
    path.unlink()
    path.write_text("\n".join(edit(lines)) + "\n", encoding="utf-8")
    return path


def set_line(index: int, text: str) -> Callable[[list[str]], list[str]]:
    def edit(lines: list[str]) -> list[str]:
        lines[index] = text
        return lines

    return edit


def edit_field(index: int, **fields: Any) -> Callable[[list[str]], list[str]]:
    def edit(lines: list[str]) -> list[str]:
        row = json.loads(lines[index])
        row.update(fields)
        lines[index] = json.dumps(row, ensure_ascii=False)
        return lines

    return edit


def drop_field(index: int, name: str) -> Callable[[list[str]], list[str]]:
    def edit(lines: list[str]) -> list[str]:
        row = json.loads(lines[index])
        del row[name]
        lines[index] = json.dumps(row, ensure_ascii=False)
        return lines

    return edit


@pytest.fixture
def root(pytester: pytest.Pytester, acebench_root: Path) -> Path:
    return copy_root(acebench_root, pytester.path / "data")


def run_oracle(pytester: pytest.Pytester, root: Path, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        "--toolcall-model=oracle",
        f"--toolcall-data-dir={root}",
        "--toolcall-limit=1",
        "--toolcall-report=report.json",
        "-m",
        "not agent",
        "-p",
        "no:randomly",
        *extra,
    )


def assert_no_traceback(result: pytest.RunResult) -> None:
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out, out[-3000:]
    assert "INTERNALERROR" not in out, out[-3000:]


# --- ACEBench files -------------------------------------------------------------------------------


def break_data_line(root: Path) -> str:
    path = rewrite(root / EN / "data_normal_atom_enum.json", lambda lines: [*lines[:6], lines[6][:-5], *lines[7:]])
    return f"{path}:7: not valid JSON"


def break_answer_line(root: Path) -> str:
    path = rewrite(root / ANSWERS / "data_normal_atom_number.json", set_line(2, '{"id": "normal_atom_number_2", '))
    return f"{path}:3: not valid JSON"


def data_line_not_an_object(root: Path) -> str:
    path = rewrite(root / EN / "data_normal_atom_object_deep.json", set_line(4, "[1, 2, 3]"))
    return f"{path}:5: expected a JSON object, got list"


def data_line_missing_a_field(root: Path) -> str:
    path = rewrite(root / EN / "data_normal_single_turn_single_function.json", drop_field(1, "question"))
    return f"{path}:2: missing field(s) question"


def answer_line_missing_ground_truth(root: Path) -> str:
    path = rewrite(root / ANSWERS / "data_special_error_param.json", drop_field(3, "ground_truth"))
    return f"{path}:4: missing field ground_truth"


def missing_answer_file(root: Path) -> str:
    path = root / ANSWERS / "data_special_incomplete.json"
    path.unlink()
    return f"{path}: file not found"


def missing_data_file(root: Path) -> str:
    path = root / EN / "data_normal_similar_api.json"
    path.unlink()
    return f"{path}: file not found"


def count_mismatch(root: Path) -> str:
    answers = rewrite(root / ANSWERS / "data_normal_atom_list.json", lambda lines: lines[:-1])
    return f"{root / EN / 'data_normal_atom_list.json'} has 50 lines but {answers} has 49"


def id_mismatch(root: Path) -> str:
    answers = rewrite(root / ANSWERS / "data_normal_atom_bool.json", edit_field(4, id="normal_atom_bool_99"))
    data = root / EN / "data_normal_atom_bool.json"
    return f"{answers}:5: id 'normal_atom_bool_99' does not match 'normal_atom_bool_4' at {data}:5"


def answer_file_not_utf8(root: Path) -> str:
    path = root / ANSWERS / "data_normal_preference.json"
    content = path.read_bytes()
    path.unlink()
    path.write_bytes(content.replace(b"normal_preference_1", b"normal_preference_\xff", 1))
    return f"{path}: cannot read"


BREAKAGES: dict[str, Callable[[Path], str]] = {
    "malformed data line": break_data_line,
    "malformed answer line": break_answer_line,
    "data line not an object": data_line_not_an_object,
    "data line missing a field": data_line_missing_a_field,
    "answer line missing ground_truth": answer_line_missing_ground_truth,
    "missing answer file": missing_answer_file,
    "missing data file": missing_data_file,
    "count mismatch": count_mismatch,
    "id mismatch": id_mismatch,
    "answer file not utf-8": answer_file_not_utf8,
}


@pytest.mark.slow
@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_a_data_problem_is_one_collection_error_naming_file_and_line(
    pytester: pytest.Pytester, root: Path, breakage: str
) -> None:
    message = BREAKAGES[breakage](root)
    result = run_oracle(pytester, root)
    assert_no_traceback(result)
    assert message in result.stdout.str()
    result.assert_outcomes(passed=14, errors=1)  # the broken category is an error; the other 14 still run
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # never a silent skip
    assert "incomplete: 1 part(s) of the data could not be loaded" in result.stdout.str()
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert len(report["run"]["data_problems"]) == 1


@pytest.mark.slow
def test_every_problem_gets_its_own_message_and_the_gate_fails(pytester: pytest.Pytester, root: Path) -> None:
    messages = [breakage(root) for breakage in BREAKAGES.values()]
    result = run_oracle(pytester, root, "--toolcall-fail-under=overall=0")
    assert_no_traceback(result)
    out = result.stdout.str()
    for message in messages:
        assert message in out
    result.assert_outcomes(passed=15 - len(messages), errors=len(messages))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "toolcall gate FAILED" in out


@pytest.mark.slow
def test_a_root_without_prompts_json(pytester: pytest.Pytester, root: Path) -> None:
    (root / "prompts.json").unlink()
    result = run_oracle(pytester, root)
    assert_no_traceback(result)
    out = result.stdout.str() + result.stderr.str()
    assert f"{root / 'prompts.json'}: file not found" in out
    assert result.ret in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)
    assert not result.parseoutcomes().get("passed")


@pytest.mark.slow
def test_a_prompts_json_that_is_not_one(pytester: pytest.Pytester, root: Path) -> None:
    (root / "prompts.json").unlink()
    (root / "prompts.json").write_text('{"files": ', encoding="utf-8")
    result = run_oracle(pytester, root)
    assert_no_traceback(result)
    out = result.stdout.str() + result.stderr.str()
    assert f"{root / 'prompts.json'}: not a prompts file" in out
    assert result.ret != pytest.ExitCode.OK


@pytest.mark.slow
def test_a_general_fc_line_that_is_not_json(pytester: pytest.Pytester) -> None:
    path = pytester.path / "calls.jsonl"
    tool = {"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
    good = {"messages": [{"role": "user", "content": "hi"}], "tools": [tool], "should_call_tool": False}
    path.write_text(json.dumps(good) + "\n" + '{"messages": [\n', encoding="utf-8")
    result = pytester.runpytest(
        "--toolcall-model=oracle", "--toolcall-bench=general_fc", f"--toolcall-general-fc={path}", "-p", "no:randomly"
    )
    assert_no_traceback(result)
    assert f"{path}:2: not valid JSON" in result.stdout.str()
    result.assert_outcomes(passed=1, errors=1)


# --- options ----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--toolcall-lang=fr"], "--toolcall-lang: unknown value fr; choose from en, zh"),
        (["--toolcall-lang=en,klingon"], "--toolcall-lang: unknown value klingon"),
        (
            ["--toolcall-bench=nope"],
            "--toolcall-bench: unknown value nope; choose from acebench, bfcl, cases, conformance, general_fc",
        ),
        (["--toolcall-fail-under=normal_atom_boool=0.5"], "unknown metric 'normal_atom_boool'"),
        (["--toolcall-fail-under=fr.overall=0.5"], "unknown language 'fr'"),
        (["--toolcall-cache-mode=sometimes"], "--toolcall-cache-mode: unknown value sometimes"),
        (["--toolcall-max-retries=-1"], "--toolcall-max-retries: must be at least 0"),
        (["--toolcall-timeout=soon"], "--toolcall-timeout: expected a number"),
    ],
)
def test_an_unknown_option_value_is_a_usage_error_naming_the_option(
    pytester: pytest.Pytester, root: Path, options: list[str], message: str
) -> None:
    result = run_oracle(pytester, root, *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert_no_traceback(result)


@pytest.mark.slow
def test_an_unknown_language_in_the_ini_file_is_a_usage_error(pytester: pytest.Pytester, root: Path) -> None:
    pytester.makeini("[pytest]\ntoolcall_lang = fr\n")
    result = run_oracle(pytester, root)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--toolcall-lang: unknown value fr" in result.stderr.str()
    assert_no_traceback(result)


@pytest.mark.parametrize("folder", ["missing", "empty"])
@pytest.mark.slow
def test_a_data_dir_that_is_not_a_root(pytester: pytest.Pytester, folder: str) -> None:
    path = pytester.path / folder
    if folder == "empty":
        path.mkdir()
    result = run_oracle(pytester, path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--toolcall-data-dir: {path} has no data_all/ folder" in result.stderr.str()
    assert_no_traceback(result)
