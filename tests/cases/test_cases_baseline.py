"""A regression of the ``cases`` block against a baseline is found, named and gated as ACEBench's is,
in a run (``--toolcall-baseline`` + ``--toolcall-fail-on-regression``) and offline (``pytest-toolcall
gate --baseline``): the run of the issue, cases.overall 0.667 -> 0.083 with 7 cases pass -> fail and
none fail -> pass, once printed "no metric changed" and passed the gate.

Real runs through the ``openai`` client against the tests' chat server, each case answered as
scripted; McNemar's exact p-value is computed here by hand."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall import cli
from pytest_toolcall.testing.server import ChatServer, Reply

CASES = 12
GOOD = Reply(tool_calls=[{"name": "get_weather", "arguments": '{"city": "Paris"}'}])
BAD = Reply(content="no idea")
pytestmark = pytest.mark.slow


def case_file() -> str:
    lines = [
        "defaults:",
        "  tags: [weather]",
        "  tools:",
        "    - type: function",
        "      function:",
        "        name: get_weather",
        "        parameters: {type: object, properties: {city: {type: string}}, required: [city]}",
        "cases:",
    ]
    for i in range(CASES):
        lines += [
            f"  - id: q{i}",
            f"    prompt: 'q{i}'",
            "    expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A server passing the cases whose prompt is in ``passing``, failing the others."""
    monkeypatch.setenv("TOOLCALL_TEST_KEY", "sk-test-key")
    servers: list[ChatServer] = []

    def start(passing: set[str]) -> ChatServer:
        server = ChatServer(lambda body: GOOD if body["messages"][-1]["content"] in passing else BAD).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def args(server: ChatServer, *extra: str) -> list[str]:
    return [
        "--toolcall-model=scripted",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-api-key-env=TOOLCALL_TEST_KEY",
        "--toolcall-max-retries=0",
        "--toolcall-cache=off",
        "-p",
        "no:cacheprovider",
        "weather.toolcall.yaml",
        *extra,
    ]


def mcnemar_by_hand(b: int, c: int) -> float:
    m = b + c
    return min(1.0, 2 * sum(math.comb(m, i) for i in range(min(b, c) + 1)) / 2**m)


def test_a_cases_regression_is_found_named_and_gated(
    pytester: pytest.Pytester, serve: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makefile(".toolcall.yaml", weather=case_file())
    before = {f"q{i}" for i in range(8)}  # 8 of 12 pass: 0.667
    after = {"q0"}  # 1 of 12: 0.083; 7 pass -> fail, 0 fail -> pass
    pytester.runpytest(*args(serve(before), "--toolcall-report=base.json"))
    second = serve(after)
    result = pytester.runpytest(
        *args(second, "--toolcall-baseline=base.json", "--toolcall-fail-on-regression", "--toolcall-report=now.json")
    )
    comparison = json.loads((pytester.path / "now.json").read_text(encoding="utf-8"))["comparison"]
    overall = comparison["metrics"]["cases.overall"]
    assert overall["gated"]
    assert (overall["baseline"], overall["now"]) == (pytest.approx(8 / 12), pytest.approx(1 / 12))
    assert (overall["regressed"], overall["fixed"], overall["paired"]) == (7, 0, 12)
    assert overall["p_value"] == pytest.approx(mcnemar_by_hand(7, 0))
    assert sorted(comparison["regressed"]) == sorted(f"weather.toolcall.yaml::q{i}" for i in range(1, 8))
    assert result.ret == 1
    out = result.stdout.str()
    line = f"cases.overall regressed: 0.6667 -> 0.0833 (p = {mcnemar_by_hand(7, 0):.4g} < 0.05; 7 unit(s) pass->fail"
    assert line in out
    assert "no metric changed" not in out
    # Only the headline is gated unless a threshold names another metric.
    assert "cases.tag.weather regressed" not in out
    named = pytester.runpytest(
        *args(
            second,
            "--toolcall-baseline=base.json",
            "--toolcall-fail-on-regression",
            "--toolcall-fail-under=cases.tag.weather=0",
        )
    )
    assert "cases.tag.weather regressed: 0.6667 -> 0.0833" in named.stdout.str()

    capsys.readouterr()
    status = cli.main(
        [
            "gate",
            str(pytester.path / "now.json"),
            "--baseline",
            str(pytester.path / "base.json"),
            "--fail-on-regression",
        ]
    )
    assert status == 1
    assert line in capsys.readouterr().out


def test_a_run_with_a_baseline_writes_the_side_by_side_diff_beside_its_html(
    pytester: pytest.Pytester, serve: Any
) -> None:
    pytester.makefile(".toolcall.yaml", weather=case_file())
    pytester.runpytest(*args(serve({"q0", "q1"}), "--toolcall-report=base.json"))
    now = serve({"q0"})
    result = pytester.runpytest(*args(now, "--toolcall-baseline=base.json", "--toolcall-html=out/report.html"))
    page = (pytester.path / "out" / "report.diff.html").read_text(encoding="utf-8")
    result.stdout.fnmatch_lines(["toolcall HTML diff against the baseline: *out/report.diff.html"])
    # The one regressed case is there with both of its answers: the baseline's call and today's text.
    assert "weather.toolcall.yaml::q1" in page and "weather.toolcall.yaml::q0" not in page
    assert "get_weather" in page and "no idea" in page
    # Without a baseline no diff is written.
    pytester.runpytest(*args(serve({"q0"}), "--toolcall-html=alone/report.html"))
    assert (pytester.path / "alone" / "report.html").exists()
    assert not (pytester.path / "alone" / "report.diff.html").exists()
