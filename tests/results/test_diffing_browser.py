"""``pytest-toolcall diff`` and ``compare`` pages of real runs in a real headless Chromium: a regressed
unit's two answers side by side with the differing call marked; three runs with all three models,
their intervals and the per-item matrix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cli import main
from tests.results.browser import Browser, chromium_or_skip
from tests.results.test_results_html_browser import assert_clean
from tests.support.failing_runs import failing_report, paris_reply, wrong_reply

pytestmark = pytest.mark.slow  # real runs over four benchmarks, then a browser

CASE = "weather.toolcall.yaml::paris"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium_or_skip()) as running:
        yield running


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two real runs of the same data: ``good`` answers the weather case right, ``bad`` does not."""
    paths = {}
    for name, reply in (("good", paris_reply), ("bad", wrong_reply)):
        directory = tmp_path_factory.mktemp(name)
        failing_report(directory, reply=reply, name=f"{name}.json", model=f"{name}-model")
        paths[name] = directory / f"{name}.json"
    return paths


def test_a_regressed_unit_shows_both_answers_side_by_side(
    browser: Browser, runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "diff.html"
    assert main(["diff", str(runs["good"]), str(runs["bad"]), "-o", str(page)]) == 0
    assert capsys.readouterr().out.startswith("1 regressed, 0 fixed, ")
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    change = f"document.querySelector('.change[data-nodeid=\"{CASE}\"]')"
    assert browser.evaluate(f"{change}.dataset.status") == "regressed"
    columns = browser.evaluate(f"[...{change}.querySelectorAll('.side > div')].map(d => d.innerText)")
    assert len(columns) == 2
    assert columns[0].startswith("good.json") and "get_weather" in columns[0] and "Paris" in columns[0]
    assert columns[1].startswith("bad.json") and "wrong_call" in columns[1] and "unknown_tool" in columns[1]
    marked = browser.evaluate(f"[...{change}.querySelectorAll('.differs')].map(d => d.textContent)")
    assert "wrong_call" in marked  # the call that differs from the base's
    # The filter shows the regressed units only.
    browser.evaluate(
        "(() => { const s = document.getElementById('f-status'); s.value = 'regressed';"
        " s.dispatchEvent(new Event('change')); })()"
    )
    shown = browser.evaluate(
        "[...document.querySelectorAll('.change')].filter(c => !c.hidden).map(c => c.dataset.nodeid)"
    )
    assert shown == [CASE]
    assert_clean(browser)


def report_of(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_three_runs_compared_show_every_model_with_intervals_and_the_matrix(
    browser: Browser,
    runs: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    third = tmp_path_factory.mktemp("third")
    failing_report(third, reply=paris_reply, name="third.json", model="third-model")
    paths = [runs["bad"], runs["good"], third / "third.json"]
    page = third / "compare.html"
    assert main(["compare", *map(str, paths), "-o", str(page)]) == 0
    table = capsys.readouterr().out
    assert "cases.overall" in table and "p=" in table
    browser.open(page)
    browser.wait_for("document.body.dataset.ready === 'true'")
    runs_table = browser.evaluate("document.getElementById('runs').innerText")
    for model in ("bad-model", "good-model", "third-model"):
        assert model in runs_table
    cases = report_of(paths[0])["metrics"]["cases"]
    low, high = cases["overall_ci95"]
    assert f"[{low:.3f}, {high:.3f}]" in runs_table  # the first run's interval
    row = browser.evaluate(
        f"[...document.querySelector('tr.unit[data-nodeid=\"{CASE}\"]').children].slice(1).map(td => td.textContent)"
    )
    assert row == ["fail", "pass", "pass"]
    browser.click(f'tr.unit[data-nodeid="{CASE}"] summary')
    answers = browser.evaluate(f"document.querySelector('tr.unit[data-nodeid=\"{CASE}\"] .side').innerText")
    assert "wrong_call" in answers and answers.count("get_weather") >= 2
    assert_clean(browser)
