"""Nothing hangs, nothing is read whole (issue 11, items 2 and 6).

Before: a server sending one byte per second kept a request alive forever (``--toolcall-timeout``
applied per read); a 200 MB answer was read whole into memory; an HTML body said only
``JSONDecodeError: Expecting value``; a schema ``pattern`` with catastrophic backtracking stalled
an item for minutes. Every server here is on loopback and every run is bounded in time.
"""

from __future__ import annotations

import importlib.util
import json
import re
import time
import warnings
from collections.abc import Iterator

import pytest

from pytest_toolcall.core.safety import patterns
from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.general_fc_files import general_fc_args, line, write_lines
from tests.support.hostile_server import HostileServer, fixed, huge, trickle
from tests.support.scripted_runs import load_report, run_with_deadline

COMPLETION = json.dumps(
    {"choices": [{"message": {"role": "assistant", "content": "sunny"}, "finish_reason": "stop"}]}
).encode()


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hangs-0123456789")


def _run(pytester: pytest.Pytester, base_url: str, *extra: str, deadline: float = 60) -> tuple[pytest.RunResult, float]:
    path = write_lines(pytester.path / "calls.jsonl", [line("weather in Paris?", should_call_tool=False)])
    args = general_fc_args(base_url, path, "--toolcall-report=report.json", *extra)
    return run_with_deadline(pytester, deadline, *args)


@pytest.mark.slow
def test_a_trickling_server_is_cut_off_at_the_timeout(pytester: pytest.Pytester) -> None:
    with HostileServer(trickle(COMPLETION, every=0.5)) as server:
        result, _ = _run(pytester, server.base_url, "--toolcall-timeout=1.5")
    # The body takes ~80 s at that pace; every single read is quick, so only a whole-request
    # deadline ends it: the error says so, and the server sent only part of the body (the run's own
    # deadline, 60 s, is a hang guard).
    result.assert_outcomes(errors=1)
    (sample,) = load_report(pytester.path / "report.json")["samples"]
    assert "no complete answer within 1.5s" in sample["error"], sample["error"]
    assert server.bytes_sent < len(COMPLETION)


@pytest.mark.slow
def test_a_huge_answer_is_not_read_whole(pytester: pytest.Pytester) -> None:
    with HostileServer(huge(200 * 2**20)) as server:
        result, _ = _run(pytester, server.base_url, "--toolcall-timeout=60")
    result.assert_outcomes(errors=1)
    (sample,) = load_report(pytester.path / "report.json")["samples"]
    assert "answer larger than 32 MiB" in sample["error"], sample["error"]
    assert "after 1 attempt" in sample["error"]  # not retried: it would only be sent again
    # Reading stopped at the cap (plus what was in flight in the socket buffers), far from 200 MB.
    assert server.bytes_sent < 100 * 2**20, server.bytes_sent


@pytest.mark.slow
@pytest.mark.parametrize(
    ("status", "content_type", "body"),
    [
        ("200 OK", "text/html; charset=utf-8", b"<html><body>Bad gateway</body></html>"),
        ("200 OK", "text/plain", b"upstream timed out"),
    ],
)
def test_a_body_that_is_not_json_is_named_by_status_and_content_type(
    pytester: pytest.Pytester, status: str, content_type: str, body: bytes
) -> None:
    with HostileServer(fixed(status, content_type, body)) as server:
        result, _ = _run(pytester, server.base_url)
    result.assert_outcomes(errors=1)
    (sample,) = load_report(pytester.path / "report.json")["samples"]
    assert f"HTTP 200 answer is not JSON ({content_type}; Expecting value)" in sample["error"], sample["error"]
    assert body.decode()[:20] in sample["error"]


# --- schema patterns in bounded time ------------------------------------------------------------

CATASTROPHIC = "^(a+)+$"
EVIL = "a" * 34 + "!"


@pytest.mark.slow
def test_a_catastrophic_pattern_is_scored_at_once(pytester: pytest.Pytester) -> None:
    """The model's argument against ``^(a+)+$`` would take minutes in ``re``; scored in moments, with
    ``re.search``'s verdict (no match: the call is invalid)."""
    tool = {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string", "pattern": CATASTROPHIC}},
                "required": ["code"],
            },
        },
    }
    answers = {
        "hostile": Reply(tool_calls=[{"name": "lookup", "arguments": {"code": EVIL}}]),
        "fine": Reply(tool_calls=[{"name": "lookup", "arguments": {"code": "aaaa"}}]),
    }
    path = write_lines(pytester.path / "patterns.jsonl", [line("hostile", tools=[tool]), line("fine", tools=[tool])])
    with ChatServer(lambda body: answers[body["messages"][-1]["content"]]) as server:
        cpu = time.process_time()
        result, _ = run_with_deadline(
            pytester, 60, *general_fc_args(server.base_url, path, "--toolcall-report=report.json")
        )
        cpu = time.process_time() - cpu
    # In CPU time, not on the clock: the whole in-process run takes about a second of it, ``re`` on
    # this argument would take minutes.
    assert cpu < 30, f"the run took {cpu:.1f}s of CPU"
    result.assert_outcomes(passed=1, failed=1)
    samples = {s["index"]: s for s in load_report(pytester.path / "report.json")["samples"]}
    assert samples[0]["schema_valid"] is False and samples[0]["reason_kind"] == "schema_error"
    assert "does not match '^(a+)+$'" in samples[0]["reason"]
    assert samples[1]["schema_valid"] is True


def test_re2_answers_catastrophic_patterns_in_linear_time() -> None:
    pytest.importorskip("re2")
    cpu = time.process_time()
    assert patterns.search(CATASTROPHIC, "a" * 5000 + "!") is False
    assert patterns.search("(x+x+)+y", "x" * 5000) is False
    # Milliseconds of CPU for RE2; backtracking on 5,000 characters would never end.
    assert time.process_time() - cpu < 5.0


@pytest.mark.slow
def test_a_pattern_re2_cannot_take_falls_back_to_re_and_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A backreference is outside RE2: ``re`` decides, in a helper process that is abandoned after
    the bound; the validator then reports the call as not validated (never a hang)."""
    assert patterns.search(r"^(ab)\1$", "abab") is True  # the fallback gives re's verdicts
    monkeypatch.setattr(patterns, "FALLBACK_SECONDS", 1.0)
    # The pattern alone would run for hours: the call returns only because the helper was killed at
    # the bound, which the message names (no clock is read here: a loaded machine changes nothing).
    with pytest.raises(patterns.PatternTimeout, match=r"not matched within 1s"):
        patterns.search(r"^(a+)+\1$", "a" * 40 + "!")
    assert patterns.search(r"^(a)\1$", "aa") is True  # a new helper after the stuck one was killed


@pytest.mark.slow
def test_a_pattern_that_times_out_makes_the_call_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_toolcall.benchmarks.general_fc.scoring import OTHER, validate_tool_calls

    monkeypatch.setattr(patterns, "FALLBACK_SECONDS", 1.0)
    tool = {"function": {"name": "f", "parameters": {"properties": {"x": {"pattern": r"^(a+)+\1$"}}}}}
    failure = validate_tool_calls([tool], [{"name": "f", "arguments": json.dumps({"x": "a" * 40 + "!"})}])
    assert failure is not None and failure.kind == OTHER
    assert "not matched within 1s" in failure.message


def _cases() -> Iterator[tuple[str, str]]:
    """Patterns and texts where a careless translation to RE2 would change the verdict."""
    pattern_list = [
        r"^\d{4}-\d{2}-\d{2}$", r"\w+", r"^\s*$", r"\bcat\b", r"(?i)^paris$", r"^[A-Z]{3}$", r"a{,3}b",
        r"[[:alpha:]]", r"^abc$", r"abc\Z", r"^(a|ab)(c|bcd)(d*)$", r"[^]a]", r"^.+$", r"(?m)^b$",
        r"\D+", r"\S", r"\W", "^[\u4e00-\u9fff]+$", r"^(a+)+$", r"x*", r"^\$\d+(\.\d\d)?$", r"caf\u00e9",
    ]  # fmt: skip
    texts = [
        "2024-01-02", "٢٠٢٤-٠١-٠٢", "abc", "abc\n", "a\nb", "héllo", "\x0b", "\x1c", " \t", "cat", "concat",
        "PARIS", "Paris", "K", "\u212a", "aaab", "b", "{,3}b", ":", "巴黎", "", "]", "$12.50", "café", "a" * 30,
    ]  # fmt: skip
    for pattern in pattern_list:
        for text in texts:
            yield pattern, text


@pytest.mark.slow
def test_bounded_search_gives_re_search_verdicts() -> None:
    """Independently of how the engines are chosen: every verdict equals ``re.search``'s."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # re's warning about "[[:", which it reads as a set
        for pattern, text in _cases():
            assert patterns.search(pattern, text) == (re.search(pattern, text) is not None), (pattern, text)
    if importlib.util.find_spec("re2") is not None:  # both engines were exercised
        assert patterns._re2(r"^\d{4}-\d{2}-\d{2}$") is not None and patterns._re2(r"abc\Z") is None
