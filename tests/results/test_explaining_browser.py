"""The item view of a real failed run in a real headless Chromium: for a failed item of every kind,
``report.html#item=<node id>`` opens a view that shows the prompt, the answer, the expected answer
and, for a dialogue, the transcript turn by turn."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.results.html import write_html
from tests.results.browser import Browser, chromium_or_skip
from tests.results.test_results_html_browser import assert_clean, detail_text
from tests.support.failing_runs import failing_report

pytestmark = pytest.mark.slow  # a run over four benchmarks, then a browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium_or_skip()) as running:
        yield running


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return failing_report(tmp_path_factory.mktemp("failing"))


def item_view(browser: Browser, report: dict[str, Any], nodeid: str, directory: Path) -> str:
    # A page of its own per item: a second address differing only by its fragment would not load anew.
    page = directory / f"report-{abs(hash(nodeid))}.html"
    write_html(report, page)
    browser.open(page, fragment="item=" + urllib.parse.quote(nodeid, safe=""))
    browser.wait_for("document.body.dataset.ready === 'true'")
    text = detail_text(browser)
    assert nodeid in text
    assert_clean(browser)
    return text


def headings(browser: Browser) -> list[str]:
    return browser.evaluate("[...document.querySelectorAll('#detail h3')].map(h => h.textContent)")


def test_a_failed_acebench_item_shows_prompt_answer_and_expected(
    browser: Browser, report: dict[str, Any], tmp_path: Path
) -> None:
    nodeid = "toolcall::acebench[en/normal_atom_bool_0]"
    sample = next(s for s in report["samples"] if s["nodeid"] == nodeid)
    text = item_view(browser, report, nodeid, tmp_path)
    assert {"why it failed", "request", "output", "expected"} <= set(headings(browser))
    assert sample["request"]["messages"][-1]["content"].strip().splitlines()[0] in text  # the prompt
    assert "[wrong_call(x=1)]" in text  # the answer
    first_expected = next(iter(sample["expected"]))  # the ground truth's function name
    assert first_expected in text
    assert sample["request"]["tools"] == []  # ACEBench describes its functions in the system prompt


@pytest.mark.parametrize(
    "nodeid", ["toolcall::acebench[en/agent_multi_turn_0]", "toolcall::bfcl[multi_turn_base/multi_turn_base_0]"]
)
def test_a_dialogue_shows_its_transcript_turn_by_turn(
    browser: Browser, report: dict[str, Any], tmp_path: Path, nodeid: str
) -> None:
    sample = next(s for s in report["samples"] if s["nodeid"] == nodeid)
    text = item_view(browser, report, nodeid, tmp_path)
    assert "transcript" in headings(browser) and "expected" in headings(browser)
    roles = browser.evaluate("[...document.querySelectorAll('#detail .msg')].map(d => d.firstChild.textContent)")
    assert roles[0] == "user" and "assistant" in roles and "tool" in roles
    assert sample["transcript"][0]["content"][:40] in text  # the user's first turn
    assert "wrong_call" in text
    # A loop (the same call and the same result again and again) shows once, with its count.
    assert len(roles) < len(sample["transcript"])
    assert "more time(s)" in text


@pytest.mark.parametrize("benchmark", ["general_fc", "cases"])
def test_a_single_answer_shows_request_calls_and_expected(
    browser: Browser, report: dict[str, Any], tmp_path: Path, benchmark: str
) -> None:
    sample = next(s for s in report["samples"] if s["benchmark"] == benchmark)
    text = item_view(browser, report, sample["nodeid"], tmp_path)
    assert {"why it failed", "request", "calls — tool_calls", "expected"} <= set(headings(browser))
    assert sample["request"]["messages"][-1]["content"][:40] in text
    assert '"name": "wrong_call"' in text and '"x": 1' in text  # the decoded call, arguments as JSON
    tools = browser.evaluate("document.querySelector('#detail details.fold summary').textContent")
    assert tools == f"{len(sample['request']['tools'])} tool(s)"  # folded
    if benchmark == "cases":
        assert '"city": "Paris"' in text
    else:
        assert '"should_call_tool"' in text


def test_identical_outputs_in_a_row_show_once_with_their_count(
    browser: Browser, report: dict[str, Any], tmp_path: Path
) -> None:
    nodeid = "toolcall::acebench[en/normal_atom_bool_0]"
    repeated = {**report, "samples": [dict(s) for s in report["samples"]]}
    sample = next(s for s in repeated["samples"] if s["nodeid"] == nodeid)
    sample["output"] = ["first turn"] + ["[same_call(x=1)]"] * 20 + ["last turn"]
    text = item_view(browser, repeated, nodeid, tmp_path)
    assert "output (22 turns)" in text.lower()  # (headings are shown in capitals)
    assert text.count("[same_call(x=1)]") == 1 and "… the same 19 more time(s)" in text
    assert "first turn" in text and "last turn" in text
