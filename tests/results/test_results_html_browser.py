"""The HTML report in a real headless Chromium: it runs without errors, lists every item, filters,
shows an item's detail on a click, keeps hostile model output as text, and stays fast with 10,000 items.

The browser is driven over the DevTools protocol (``tests/results/browser.py``). These tests skip only
when chromium is missing outside CI; in CI (``CI=true``) a missing chromium fails them.
"""

from __future__ import annotations

import json
import struct
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.results.html import write_html
from tests.results.browser import Browser, chromium_or_skip
from tests.results.test_results_html import HOSTILE, KINDS, nodeid_of, run_oracle_report, sample_rule, synthetic_report

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

LARGE = 10_000
#: A hang guard only: seconds the 10,000-item page may take to say it is ready (it takes about 1 s). What
#: keeps it fast is bounded by size below: one page of rows in the document, not ten thousand.
READY_TIMEOUT_S = 60.0
#: Elements in the whole document once ready: the summary, the filters and one page of 100 rows (about
#: 1,200 when measured); a page that rendered every item would hold over 50,000.
MAX_ELEMENTS = 5_000

# Every node id the list shows, page by page, starting from the first page.
ALL_LISTED = """(() => {
  document.getElementById('p-first').click();
  const ids = [];
  for (;;) {
    document.querySelectorAll('#item-rows td.nodeid').forEach(td => ids.push(td.textContent));
    const next = document.getElementById('p-next');
    if (next.disabled) break;
    next.click();
  }
  document.getElementById('p-first').click();
  return ids;
})()"""


def choose(browser: Browser, select_id: str, value: str) -> None:
    """Pick an option of a filter the way a user's choice arrives: value set, then a change event."""
    chosen = browser.evaluate(
        f"(() => {{ const s = document.getElementById({json.dumps(select_id)}); s.value = {json.dumps(value)};"
        " s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()"
    )
    assert chosen == value, f"{select_id} has no option {value!r}"


def count_text(browser: Browser) -> str:
    return browser.evaluate("document.getElementById('count').textContent")


def detail_text(browser: Browser) -> str:
    return browser.evaluate("document.getElementById('detail').innerText")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium_or_skip()) as running:
        yield running


@pytest.fixture(scope="module")
def large_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "large.html"
    write_html(synthetic_report(LARGE), path)
    return path


@pytest.fixture
def large(browser: Browser, large_page: Path) -> Browser:
    browser.open(large_page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    return browser


def assert_clean(browser: Browser) -> None:
    assert browser.errors() == []
    assert [u for u in browser.requested_urls() if not u.startswith("file://")] == []


def test_a_real_report_lists_every_item(browser: Browser, tmp_path: Path) -> None:
    report = run_oracle_report(tmp_path)
    page = tmp_path / "oracle.html"
    write_html(report, page)
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    assert browser.evaluate(ALL_LISTED) == [s["nodeid"] for s in report["samples"]]
    assert count_text(browser) == f"{len(report['samples'])} of {len(report['samples'])} items"
    # Each block's heading is on the page.
    headings = browser.evaluate("[...document.querySelectorAll('section.block h2')].map(h => h.textContent)")
    assert headings == ["acebench/en", "acebench/zh", "general_fc"]
    # An agent item shows the calls it made and the environment's end state.
    agent = next(s for s in report["samples"] if s["category"] == "agent_multi_step")
    browser.type_text("#f-search", agent["nodeid"])
    browser.wait_for("document.getElementById('count').textContent.startsWith('1 of')")
    browser.click("#item-rows tr td.nodeid")
    titles = browser.evaluate("[...document.querySelectorAll('#detail h3')].map(h => h.textContent)")
    assert {"calls — process_calls", "transcript — end_state"} <= set(titles)
    assert agent["process_calls"][0] in detail_text(browser)
    assert_clean(browser)


def test_ten_thousand_items_render_one_page_and_are_all_listed(browser: Browser, large_page: Path) -> None:
    browser.open(large_page)
    browser.wait_for("document.body.dataset.ready === 'true'", timeout=READY_TIMEOUT_S)
    assert count_text(browser) == f"{LARGE} of {LARGE} items"
    elements = browser.evaluate("document.getElementsByTagName('*').length")
    assert elements < MAX_ELEMENTS, f"{elements} elements in the document"
    # The summary's markup nests as written (a bar inside a <p> would be pushed out of it by the parser):
    # one headline bar per block, every bar in its table cell or headline.
    assert browser.evaluate("document.querySelectorAll('section.block > div.overall > .bar').length") == 4
    assert browser.evaluate("[...document.querySelectorAll('.bar')].every(b => b.closest('td, div.overall'))")
    # One page of rows in the document, not ten thousand, and no detail until an item is clicked.
    assert browser.evaluate("document.querySelectorAll('#item-rows tr').length") == 100
    assert browser.evaluate("document.querySelectorAll('#detail pre, #detail table').length") == 0
    assert browser.evaluate(ALL_LISTED) == [nodeid_of(i) for i in range(LARGE)]
    assert_clean(browser)


def test_filters_narrow_the_list(large: Browser) -> None:
    choose(large, "f-block", "general_fc")
    choose(large, "f-outcome", "failed")
    expected = [
        nodeid_of(i)
        for i in range(LARGE)
        if sample_rule(i)["block"] == "general_fc" and sample_rule(i)["outcome"] == "failed"
    ]
    assert count_text(large) == f"{len(expected)} of {LARGE} items"
    assert large.evaluate(ALL_LISTED) == expected

    choose(large, "f-block", "acebench/zh")
    choose(large, "f-kind", KINDS[1])
    choose(large, "f-category", "special_incomplete")
    expected = [
        nodeid_of(i)
        for i in range(LARGE)
        if sample_rule(i)["block"] == "acebench/zh"
        and sample_rule(i)["kind"] == KINDS[1]
        and sample_rule(i)["category"] == "special_incomplete"
    ]
    assert expected and large.evaluate(ALL_LISTED) == expected

    large.click("#f-reset")
    choose(large, "f-compare", "regressed")
    assert large.evaluate(ALL_LISTED) == [nodeid_of(3), nodeid_of(10)]

    large.click("#f-reset")
    assert count_text(large) == f"{LARGE} of {LARGE} items"
    large.type_text("#f-search", "synthetic/1006]")
    large.wait_for("document.getElementById('count').textContent.startsWith('1 of')")
    assert large.evaluate(ALL_LISTED) == [nodeid_of(1006)]
    assert_clean(large)


def test_clicking_an_item_shows_its_detail(large: Browser) -> None:
    # A failed general_fc item far from the first page: it has messages, tool calls and a reason.
    index = next(
        i
        for i in range(1000, LARGE)
        if sample_rule(i)["block"] == "general_fc" and sample_rule(i)["outcome"] == "failed"
    )
    large.type_text("#f-search", nodeid_of(index))
    large.wait_for("document.getElementById('count').textContent.startsWith('1 of')")
    assert "Click an item" in detail_text(large)
    large.click("#item-rows tr td.nodeid")
    text = detail_text(large)
    assert nodeid_of(index) in text
    assert f"[get_weather(city='City {index}')]" in text  # the raw output
    assert f"expected city 'Paris', got 'City {index}'" in text  # the verdict's reason
    assert f"Weather in city {index}?" in text  # the request messages
    assert f'"city": "City {index}"' in text  # the decoded tool calls, arguments read as JSON
    assert '"city": "Paris"' in text  # the expected answer
    assert sample_rule(index)["kind"] in text
    assert large.evaluate("document.querySelectorAll('#item-rows tr.selected').length") == 1

    # A multi-turn item shows its steps as a table.
    large.click("#f-reset")
    step_item = next(i for i in range(LARGE) if sample_rule(i)["category"] == "normal_multi_turn_user_adjust")
    large.type_text("#f-search", nodeid_of(step_item))
    large.wait_for("document.getElementById('count').textContent.startsWith('1 of')")
    large.click("#item-rows tr td.nodeid")
    steps = large.evaluate("[...document.querySelectorAll('#detail table.steps tr')].map(r => r.innerText)")
    assert len(steps) == 3 and f"{step_item}_0" in steps[1] and f"{step_item}_1" in steps[2]
    assert_clean(large)


def test_summary_links_filter_and_open_items(large: Browser) -> None:
    large.click('a.kind-link[data-block="cases"][data-kind="invalid_json"]')
    expected = [
        nodeid_of(i)
        for i in range(LARGE)
        if sample_rule(i)["block"] == "cases" and sample_rule(i)["kind"] == "invalid_json"
    ]
    assert count_text(large) == f"{len(expected)} of {LARGE} items"
    assert large.evaluate(ALL_LISTED) == expected

    large.click(f'a.item-link[data-nodeid="{nodeid_of(10)}"]')
    assert large.evaluate(ALL_LISTED) == [nodeid_of(10)]
    assert "regressed (pass → fail)" in detail_text(large)
    assert large.evaluate("decodeURIComponent(location.hash)") == f"#item={nodeid_of(10)}"
    assert_clean(large)


def test_hostile_output_stays_text(browser: Browser, tmp_path: Path) -> None:
    report = synthetic_report(50, hostile=True)
    report["run"]["model"] = HOSTILE
    report["samples"][2]["failure_kind"] = HOSTILE
    page = tmp_path / "hostile.html"
    write_html(report, page)
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    assert browser.evaluate(ALL_LISTED) == [nodeid_of(i) for i in range(50)]
    browser.type_text("#f-search", nodeid_of(2))
    browser.wait_for("document.getElementById('count').textContent.startsWith('1 of')")
    browser.click("#item-rows tr td.nodeid")
    shown = browser.evaluate("[...document.querySelectorAll('#detail pre')].map(p => p.textContent)")
    assert f"{HOSTILE} #2" in shown
    assert browser.evaluate("document.querySelectorAll('img, iframe, script[src]').length") == 0
    assert browser.evaluate("document.querySelectorAll('script').length") == 2
    assert HOSTILE in browser.evaluate("document.querySelector('header .model').textContent")
    assert_clean(browser)  # no dialog: alert() never ran


def test_an_address_names_an_item_and_the_keyboard_opens_one(browser: Browser, tmp_path: Path) -> None:
    report = synthetic_report(300, comparison=False)
    page = tmp_path / "address.html"
    write_html(report, page)
    target = nodeid_of(250)  # on the third page of the unfiltered list
    browser.open(page, fragment="item=" + urllib.parse.quote(target, safe=""))
    browser.wait_for("document.body.dataset.ready === 'true'")
    assert browser.evaluate(ALL_LISTED) == [target]
    assert target in detail_text(browser)
    # Without a baseline the regressed/fixed filter is not offered.
    assert browser.evaluate("document.getElementById('f-compare').closest('label').hidden") is True

    browser.click("#f-reset")
    browser.evaluate("document.querySelector('#item-rows tr:nth-child(5)').focus()")
    browser.press_enter()
    assert nodeid_of(4) in detail_text(browser)
    assert browser.evaluate("decodeURIComponent(location.hash)") == f"#item={nodeid_of(4)}"
    assert_clean(browser)


def test_a_transcript_of_messages_reads_as_a_dialogue(browser: Browser, tmp_path: Path) -> None:
    report = synthetic_report(3)
    report["samples"][1]["transcript"] = [
        {"role": "user", "content": "Book a table for two."},
        {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "book", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "booked"},
    ]
    page = tmp_path / "transcript.html"
    write_html(report, page)
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    browser.click("#item-rows tr:nth-child(2) td.nodeid")
    roles = browser.evaluate("[...document.querySelectorAll('#detail .msg-role')].map(d => d.textContent)")
    assert roles == ["user", "assistant", "tool", "tool_call_id: c1"]
    assert "Book a table for two." in detail_text(browser)
    assert_clean(browser)


def test_the_helper_sees_errors_dialogs_and_requests(browser: Browser, tmp_path: Path) -> None:
    """The checks above are only worth something if a broken page would fail them."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><body><img src='http://127.0.0.1:9/x.png'>"
        "<script>console.error('said so'); setTimeout(() => { throw new Error('boom'); }, 0);</script>"
        "</body></html>",
        encoding="utf-8",
    )
    browser.open(page)
    browser.wait_for("new Promise(r => setTimeout(() => r(true), 100))")
    errors = "\n".join(browser.errors())
    assert "said so" in errors and "boom" in errors
    assert "http://127.0.0.1:9/x.png" in browser.requested_urls()


def test_missing_chromium_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        chromium_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        chromium_or_skip()


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_screenshot(browser: Browser, tmp_path: Path) -> None:
    report: dict[str, Any] = synthetic_report(400)
    page = tmp_path / "shot.html"
    write_html(report, page)
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    top = tmp_path / "report-top.png"
    browser.screenshot(top)
    assert png_size(top) == (browser.width, browser.height)
    choose(browser, "f-outcome", "failed")
    browser.click("#item-rows tr:nth-child(2) td.nodeid")
    items = tmp_path / "report-items.png"
    browser.screenshot(items)
    assert png_size(items) == (browser.width, browser.height)
    # A blank page compresses to almost nothing; a page with tables and bars does not.
    assert top.stat().st_size > 20_000 and items.stat().st_size > 20_000
    assert_clean(browser)


def test_columns_sort_on_a_click(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "sort.html"
    write_html(synthetic_report(30), page)
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    rows = "[...document.querySelectorAll('#item-rows tr')].map(tr => tr.children[0].textContent)"
    browser.click("#item-table thead th:nth-child(1)")
    ascending = browser.evaluate(rows)
    assert ascending == sorted(ascending) and len(set(ascending)) > 1
    browser.click("#item-table thead th:nth-child(1)")
    assert browser.evaluate(rows) == sorted(ascending, reverse=True)
    assert_clean(browser)
