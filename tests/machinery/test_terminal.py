"""What a person sees in the terminal: failures by --tb style, node ids pasted from pytest's output,
hints when -m/-k select nothing, expected failures explained, --help, the header, JUnit classnames."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

ORACLE = ["--toolcall-model=oracle", "-p", "no:randomly"]
#: A unit whose reference answer the official scorer rejects: with --runxfail it fails for the oracle.
PREFERENCE_40 = "toolcall::acebench[en/normal_preference_40]"
REASON = "param 'UserDietaryPreferences': expected an object, got 'None'"
PARALLEL_42 = "toolcall::acebench[en/normal_single_turn_parallel_function_42]"  # another such unit


@pytest.fixture(params=[[], ["-n", "2"]], ids=["no-xdist", "n2"])
def dist(request: pytest.FixtureRequest) -> list[str]:
    return request.param


def failures_section(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "= FAILURES =" in line)
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("="))
    return lines[start + 1 : end]


@pytest.mark.slow
def test_tb_line_is_one_line_naming_the_data_the_item_and_the_reason(
    pytester: pytest.Pytester, dist: list[str]
) -> None:
    result = pytester.runpytest(*ORACLE, PREFERENCE_40, PARALLEL_42, "--runxfail", "--tb=line", *dist)
    result.assert_outcomes(failed=2)
    # One line per failure, under xdist too (no line naming the worker).
    preference, parallel = sorted(failures_section(result), key=lambda line: "parallel" in line)
    assert re.fullmatch(
        rf".*/data_en/data_normal_preference\.json:41: en/normal_preference_40: {re.escape(REASON)}", preference
    )
    assert re.fullmatch(r".*/data_normal_single_turn_parallel_function\.json:43: en/normal_single_turn_.*", parallel)


@pytest.mark.slow
def test_tb_short_gives_the_reason_and_the_output_long_everything(pytester: pytest.Pytester) -> None:
    short = failures_section(pytester.runpytest(*ORACLE, PREFERENCE_40, "--runxfail", "--tb=short"))
    assert short[1:] == [REASON, short[2]] and short[2].startswith("    output:   [submitReview(")
    long = failures_section(pytester.runpytest(*ORACLE, PREFERENCE_40, "--runxfail", "--tb=long"))
    assert [line.split(":")[0].strip() for line in long[1:]] == [REASON.split(":")[0], "output", "decoded", "expected"]


@pytest.mark.slow
def test_node_ids_from_pytest_output_select_those_items(pytester: pytest.Pytester, dist: list[str]) -> None:
    ids = ["toolcall::acebench[en/normal_atom_bool_1]", "toolcall::acebench[en/special_incomplete_7]"]
    result = pytester.runpytest(*ORACLE, *ids, "-v", *dist)
    result.assert_outcomes(passed=2)
    passed = re.findall(
        r"(?:(toolcall::acebench\[[^\]]+\]) PASSED|PASSED (toolcall::acebench\[[^\]]+\]))", result.stdout.str()
    )
    assert sorted(a or b for a, b in passed) == sorted(ids)  # (xdist writes the outcome first)


@pytest.mark.slow
def test_an_unknown_node_id_is_a_usage_error(pytester: pytest.Pytester, dist: list[str]) -> None:
    """Under xdist too: the controller says it (a worker raising it in its collection crashed, an
    INTERNALERROR), and a known id asked for beside it does not hide it."""
    known, unknown = "toolcall::acebench[en/normal_atom_bool_1]", "toolcall::acebench[zh/normal_atom_bool_1]"
    result = pytester.runpytest(*ORACLE, known, unknown, *dist)  # zh is not loaded
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"no benchmark item {unknown} in this run" in result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("selection", "hint"),
    [
        (["-m", "zh and special"], "zh items are loaded with --toolcall-lang=zh (or all)"),
        (["-k", "zh"], "zh items are loaded with --toolcall-lang=zh (or all)"),
        (["-m", "general_fc"], "general_fc items are loaded with --toolcall-bench=general_fc"),
    ],
)
def test_a_selection_of_nothing_says_which_option_loads_it(
    pytester: pytest.Pytester, selection: list[str], hint: str
) -> None:
    result = pytester.runpytest(*ORACLE, *selection)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert f"selected no benchmark item: {hint}" in result.stdout.str()


@pytest.mark.slow
def test_no_hint_when_the_selection_finds_items(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ORACLE, "-m", "special", "--toolcall-limit=1", "--toolcall-lang=all")
    result.assert_outcomes(passed=6)
    assert "selected no benchmark item" not in result.stdout.str()


@pytest.mark.slow
def test_the_oracle_run_is_green_and_says_what_the_expected_failures_are(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*ORACLE, "-k", "preference", "-rx")
    result.assert_outcomes(passed=49, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    out = result.stdout.str()
    assert "1 expected failure(s) (xfailed): units whose own reference answer the official scorer rejects" in out
    assert f"XFAIL {PREFERENCE_40} - the dataset's reference answer fails the official scorer: {REASON}" in out


@pytest.mark.slow
def test_help_shows_defaults_and_plain_placeholders(pytester: pytest.Pytester) -> None:
    help_text = " ".join(pytester.runpytest("--help").stdout.str().split())
    assert "--toolcall-lang=en|zh|all ACEBench language: en, zh or all (default: en)" in help_text
    assert "--toolcall-concurrency=N model requests in flight per process (default: 8)" in help_text
    assert "TOOLCALL_" not in help_text.replace("$TOOLCALL_DATA_DIR", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "endpoint"),
    [
        ([], "none (oracle)"),
        (["--toolcall-model=m", "--toolcall-base-url=http://127.0.0.1:9/v1"], "http://127.0.0.1:9/v1"),
        (["--toolcall-model=m"], "https://api.openai.com/v1 (the SDK's default)"),
    ],
)
def test_header_shows_the_endpoint(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str], endpoint: str
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = pytester.runpytest(*ORACLE, *args, "--collect-only", "-q", "--toolcall-limit=1", "-v")
    assert f"endpoint={endpoint} bench=acebench" in result.stdout.str()


@pytest.mark.slow
def test_junit_classnames_and_failure_kinds(pytester: pytest.Pytester, dist: list[str]) -> None:
    items = ["toolcall::acebench[en/normal_atom_bool_1]", PREFERENCE_40]
    result = pytester.runpytest(*ORACLE, *items, "--runxfail", "--junitxml=j.xml", *dist)
    result.assert_outcomes(passed=1, failed=1)
    cases = {c.get("name"): c for c in ET.parse(pytester.path / "j.xml").getroot().iter("testcase")}
    assert {name: c.get("classname") for name, c in cases.items()} == {
        "acebench[en/normal_atom_bool_1]": "toolcall.acebench.en.normal_atom_bool",
        "acebench[en/normal_preference_40]": "toolcall.acebench.en.normal_preference",
    }
    props = {p.get("name"): p.get("value") for p in cases["acebench[en/normal_preference_40]"].iter("property")}
    assert props["failure_kind"] == "value_error"  # the official checker's error type
