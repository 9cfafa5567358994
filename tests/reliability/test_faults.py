"""Transport faults never cost a result (issue: reliability and security, items 1 and 6).

Every run goes through the real ``openai`` client against the local chat server, which injects
faults with fixed seeds: 429s with Retry-After, 500/503s, connection resets, hangs past the
timeout and truncated JSON bodies. With retries the verdicts and metrics equal those of the same
run without faults; without retries every faulted item is an *error* (never a failure, never a
pass) and the gate fails naming the errors. 4xx other than 429 are not retried.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import FAULT_KINDS, FaultPlan, Reply
from tests.support.scripted_runs import (
    WEATHER,
    AnswerTable,
    RecordingServer,
    acebench_answers,
    load_report,
    outcomes,
    records_by_nodeid,
    verdicts,
    warm_up_client,
)

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

warm_up_client()

API_KEY = "sk-faults-0123456789"
LIMIT = 3  # units per category: 45 items, 52 requests
WRONG = frozenset({"normal_atom_enum_1", "special_irrelevant_0", "normal_multi_turn_user_switch_1"})
# --toolcall-timeout, just below the server's hang. An answer here takes ~0.1 s, and over a second on a
# loaded machine: a 1 s timeout then cut answers that no fault delayed.
TIMEOUT = 3.0
HANG = 3.5
RATE = 0.3
SEEDS = (8, 36)  # each injects every kind; up to 3 faults in a row for one request

ServerFactory = Callable[..., RecordingServer]


@pytest.fixture(scope="module")
def table(acebench_root: Path) -> AnswerTable:
    return acebench_answers(acebench_root, LIMIT, WRONG)


@pytest.fixture
def make_server(table: AnswerTable) -> Iterator[ServerFactory]:
    """Fresh servers (a fault plan draws per body and attempt: a reused server would fault differently)."""
    servers: list[RecordingServer] = []

    def make(
        responder: Callable[[dict[str, Any]], Reply] | None = None, faults: FaultPlan | None = None
    ) -> RecordingServer:
        server = RecordingServer(responder or table, faults=faults).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def plan(seed: int, rate: float = RATE, kinds: tuple[str, ...] = FAULT_KINDS, retry_after: float = 0.05) -> FaultPlan:
    return FaultPlan(rate=rate, kinds=kinds, seed=seed, retry_after=retry_after, hang=HANG)


def run(
    pytester: pytest.Pytester,
    server: RecordingServer,
    root: Path,
    *extra: str,
    report: str = "report.json",
    retries: int = 4,
) -> tuple[pytest.RunResult, dict[str, Any]]:
    result = pytester.runpytest(
        "--toolcall-model=fault-model",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-data-dir={root}",
        f"--toolcall-limit={LIMIT}",
        "--toolcall-cache=off",
        f"--toolcall-timeout={TIMEOUT}",
        f"--toolcall-max-retries={retries}",
        f"--toolcall-report={report}",
        "-m",
        "not agent",  # the agent rollouts are not what this file is about
        "-p",
        "no:randomly",
        *extra,
    )
    return result, load_report(pytester.path / report)


# --- with retries: the same results as without faults ------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_faults_at_30_percent_change_no_verdict(
    pytester: pytest.Pytester, make_server: ServerFactory, table: AnswerTable, acebench_root: Path, seed: int
) -> None:
    clean_server = make_server()
    clean, clean_report = run(pytester, clean_server, acebench_root, report="clean.json")
    assert clean_server.count == table.total  # the baseline: one request per step, no fault
    assert set(outcomes(clean_report).values()) == {"passed", "failed"}
    assert {n for n, o in outcomes(clean_report).items() if o == "failed"} >= {
        f"toolcall::acebench[en/{i}]" for i in WRONG
    }

    faulty_server = make_server(faults=plan(seed))
    faulty, faulty_report = run(pytester, faulty_server, acebench_root, "--toolcall-fail-under=overall=0")
    injected = faulty_server.faults_injected
    assert set(injected) == set(FAULT_KINDS), f"seed {seed} must inject every kind of fault: {injected}"
    assert sum(injected.values()) >= 0.2 * table.total

    assert verdicts(faulty_report) == verdicts(clean_report)
    assert faulty_report["metrics"] == clean_report["metrics"]
    assert faulty.parseoutcomes() == clean.parseoutcomes()
    assert faulty.ret == pytest.ExitCode.OK  # no error left: the gate holds
    assert "toolcall gate passed" in faulty.stdout.str()
    # Every retry was a retry of a faulted attempt: nothing was asked twice after an answer.
    for attempts in faulty_server.by_body().values():
        assert all(a.fault is not None for a in attempts[:-1])
        assert attempts[-1].fault is None


# --- without retries: every faulted item is an error --------------------------------------------

CAUSE = {
    "429": re.compile(r"HTTP 429"),
    "500": re.compile(r"HTTP 500"),
    "503": re.compile(r"HTTP 503"),
    "hang": re.compile(r"time(d)? ?out", re.I),
    "reset": re.compile(r"connection", re.I),
    "truncated": re.compile(r"json|body|chat completion", re.I),
}


def test_without_retries_every_faulted_item_is_an_error(
    pytester: pytest.Pytester, make_server: ServerFactory, table: AnswerTable, acebench_root: Path
) -> None:
    clean_server = make_server()
    _, clean_report = run(pytester, clean_server, acebench_root, report="clean.json")

    server = make_server(faults=plan(SEEDS[0]))
    result, report = run(pytester, server, acebench_root, "--toolcall-fail-under=overall=0", retries=0)
    assert server.count == table.total  # no request was sent twice
    # item -> (step, kind) of its first faulted step: the step whose error the item reports
    faulted: dict[str, tuple[int, str]] = {}
    for arrival in server.arrivals:
        if arrival.fault is not None and arrival.body is not None:
            item, step = table.item_of(arrival.body), table.step_of(arrival.body)
            faulted[item] = min(faulted.get(item, (step, arrival.fault)), (step, arrival.fault))
    first_fault = {item: kind for item, (_, kind) in faulted.items()}
    assert set(first_fault.values()) == set(FAULT_KINDS)

    got = outcomes(report)
    records = records_by_nodeid(report)
    expected = {n: ("error" if n in first_fault else o) for n, o in outcomes(clean_report).items()}
    assert got == expected  # faulted: error (never failed, never passed); the rest as without faults
    for nodeid, kind in first_fault.items():
        error = records[nodeid]["error"]
        assert CAUSE[kind].search(error), f"{nodeid} ({kind}): {error}"
        assert "after 1 attempt" in error
        assert records[nodeid]["score"] is None  # never scored

    errors = len(first_fault)
    block = report["metrics"]["acebench/en"]
    assert block["errors"] == errors
    assert block["partial"] is True  # the numbers are marked incomplete
    out = result.stdout.str()
    assert f"{errors} item(s) errored" in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert f"{errors} request error(s), more than --toolcall-max-errors=0" in out
    assert "toolcall gate FAILED" in out
    result.assert_outcomes(
        passed=list(got.values()).count("passed"), failed=list(got.values()).count("failed"), errors=errors
    )

    # --toolcall-max-errors=N lets an incomplete run through the gate; N-1 does not.
    for allowed, status in ((errors, pytest.ExitCode.OK), (errors - 1, pytest.ExitCode.TESTS_FAILED)):
        again = make_server(faults=plan(SEEDS[0]))
        gated, _ = run(
            pytester,
            again,
            acebench_root,
            "--toolcall-fail-under=overall=0",
            f"--toolcall-max-errors={allowed}",
            retries=0,
            report=f"gated-{allowed}.json",
        )
        assert gated.ret == status, gated.stdout.str()[-2000:]


def test_errors_without_a_gate_fail_the_run(
    pytester: pytest.Pytester, make_server: ServerFactory, acebench_root: Path
) -> None:
    server = make_server(faults=plan(SEEDS[0], rate=1.0, kinds=("500",)))
    result, report = run(pytester, server, acebench_root, "-k", "normal_atom_bool", retries=0)
    result.assert_outcomes(errors=LIMIT)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert set(outcomes(report).values()) == {"error"}
    assert "request failed: HTTP 500" in result.stdout.str()


# --- what is retried, and how -------------------------------------------------------------------


#: HTTP status of the reply to each item of ``-k normal_atom_bool or normal_atom_enum or ...``.
# (401, 403 and 404 stop the whole run since issue 11: tests/reliability/test_fail_fast.py.)
STATUSES = {
    "normal_atom_bool_0": 400,
    "normal_atom_bool_1": 409,
    "normal_atom_bool_2": 413,
    "normal_atom_enum_0": 410,
    "normal_atom_enum_1": 422,
    "normal_atom_enum_2": 429,
    "normal_atom_number_0": 500,
    "normal_atom_number_1": 502,
    "normal_atom_number_2": 503,
}


def test_only_429_and_5xx_replies_are_retried(
    pytester: pytest.Pytester, make_server: ServerFactory, table: AnswerTable, acebench_root: Path
) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        status = STATUSES[table.item_of(body).split("/")[1].rstrip("]")]
        return Reply(status=status, content=f"refused with {status}")

    server = make_server(respond)
    retries = 1
    selection = "normal_atom_bool or normal_atom_enum or normal_atom_number"
    result, report = run(pytester, server, acebench_root, "-k", selection, retries=retries)
    result.assert_outcomes(errors=len(STATUSES))
    sent = {table.item_of(attempts[0].body or {}): len(attempts) for attempts in server.by_body().values()}
    records = records_by_nodeid(report)
    for sample_id, status in STATUSES.items():
        nodeid = f"toolcall::acebench[en/{sample_id}]"
        retried = status == 429 or status >= 500
        attempts = 1 + retries if retried else 1
        assert sent[nodeid] == attempts, f"HTTP {status}: {sent[nodeid]} request(s)"
        error = records[nodeid]["error"]
        assert records[nodeid]["outcome"] == "error"
        assert f"HTTP {status}" in error
        assert f"refused with {status}" in error  # the server's own message
        assert f"after {attempts} attempt" in error
        if retried:
            assert "not retried" not in error
        else:
            assert "not retried" in error and "4xx" in error, error
    assert "not retried: a 4xx" in result.stdout.str()


def test_retry_after_is_honoured(pytester: pytest.Pytester, make_server: ServerFactory, acebench_root: Path) -> None:
    wait = 1.2
    server = make_server(faults=plan(SEEDS[0], rate=1.0, kinds=("429",), retry_after=wait))
    result, report = run(pytester, server, acebench_root, "-k", "normal_atom_bool_0", retries=1)
    result.assert_outcomes(errors=1)
    (attempts,) = server.by_body().values()
    assert [a.fault for a in attempts] == ["429", "429"]
    gap = attempts[1].at - attempts[0].at
    # At least the wait: the SDK's own backoff (0.5 s) is shorter. The upper bound only guards
    # against a retry that never comes on time, with room for a busy machine.
    assert wait - 0.01 <= gap < wait + 10.0, f"retried {gap:.3f}s after a 429 with Retry-After: {wait}"
    (record,) = report["samples"]
    assert "HTTP 429" in record["error"] and "after 2 attempts" in record["error"]


def test_backoff_grows_with_jitter_and_the_last_cause_is_reported(
    pytester: pytest.Pytester, make_server: ServerFactory, table: AnswerTable, acebench_root: Path
) -> None:
    server = make_server(faults=plan(SEEDS[0], rate=1.0, kinds=("500", "503")))
    retries = 3
    selection = "normal_atom_bool or normal_atom_enum"
    result, report = run(pytester, server, acebench_root, "-k", selection, retries=retries)
    result.assert_outcomes(errors=2 * LIMIT)
    records = records_by_nodeid(report)
    first_gaps = []
    for attempts in server.by_body().values():
        assert len(attempts) == 1 + retries
        gaps = [b.at - a.at for a, b in itertools.pairwise(attempts)]
        # The wait before retry n is at least half of 0.5 s * 2**n (the jitter's low end): a busy
        # machine only lengthens gaps, so lower bounds that double are the load-proof test of growth.
        for n, gap in enumerate(gaps):
            assert gap >= 0.25 * 2**n - 0.01, f"backoff does not grow: {gaps}"
        first_gaps.append(gaps[0])
        error = records[table.item_of(attempts[0].body or {})]["error"]
        last = attempts[-1].fault
        assert f"HTTP {last}" in error, f"the last cause is HTTP {last}: {error}"
        assert f"after {1 + retries} attempts" in error
    assert max(first_gaps) - min(first_gaps) > 0.01, f"no jitter: {first_gaps}"


def test_hang_is_cut_by_the_timeout(pytester: pytest.Pytester, make_server: ServerFactory, acebench_root: Path) -> None:
    server = make_server(faults=FaultPlan(rate=1.0, kinds=("hang",), seed=1, hang=300.0))
    result, report = run(pytester, server, acebench_root, "-k", "normal_atom_bool_0", retries=1)
    result.assert_outcomes(errors=1)
    (attempts,) = server.by_body().values()
    assert len(attempts) == 2
    # Cut at the timeout, long before the 300 s hang (stopping the server wakes it); the wide
    # margin is for a loaded CI machine, and still tells a cut from a wait for the answer.
    assert TIMEOUT - 0.01 <= attempts[1].at - attempts[0].at < TIMEOUT + 60.0
    (record,) = report["samples"]
    assert CAUSE["hang"].search(record["error"]), record["error"]


def test_unparseable_body_is_retried_then_an_error(
    pytester: pytest.Pytester, make_server: ServerFactory, acebench_root: Path
) -> None:
    bodies = iter(["<html>bad gateway</html>", '{"choices": []}', '{"id": "x"}'])
    server = make_server(lambda body: Reply(body=next(bodies, "not json")))
    result, report = run(pytester, server, acebench_root, "-k", "normal_atom_bool_0", retries=2)
    result.assert_outcomes(errors=1)
    assert server.count == 3
    (record,) = report["samples"]
    assert "after 3 attempts" in record["error"]
    assert "chat completion" in record["error"]  # the last body: JSON, but not a completion


# --- general_fc ----------------------------------------------------------------------------------


def gfc_call(arguments: str) -> Reply:
    return Reply(tool_calls=[{"name": "get_weather", "arguments": arguments}])


GENERAL_FC: list[tuple[str, bool, Reply]] = [
    *[(f"weather in city {i}", True, gfc_call(json.dumps({"city": f"c{i}"}))) for i in range(8)],
    *[(f"chat {i}", False, Reply(content="Nice to talk.")) for i in range(6)],
    ("missed call", True, Reply(content="I will not call.")),
    ("bad arguments", True, gfc_call('{"city": ')),
    ("wrong type", True, gfc_call('{"city": 5}')),
    ("unwanted call", False, gfc_call('{"city": "Rome"}')),
]


def test_general_fc_under_faults(pytester: pytest.Pytester, make_server: ServerFactory) -> None:
    path = pytester.path / "calls.jsonl"
    path.write_text(
        "".join(
            json.dumps({"messages": [{"role": "user", "content": text}], "tools": [WEATHER], "should_call_tool": label})
            + "\n"
            for text, label, _ in GENERAL_FC
        ),
        encoding="utf-8",
    )
    replies = {text: reply for text, _, reply in GENERAL_FC}

    def respond(body: dict[str, Any]) -> Reply:
        return replies[body["messages"][-1]["content"]]

    def gfc(server: RecordingServer, report: str, retries: int) -> tuple[pytest.RunResult, dict[str, Any]]:
        result = pytester.runpytest(
            "--toolcall-model=fault-model",
            f"--toolcall-base-url={server.base_url}",
            "--toolcall-bench=general_fc",
            f"--toolcall-general-fc={path}",
            "--toolcall-cache=off",
            f"--toolcall-timeout={TIMEOUT}",
            f"--toolcall-max-retries={retries}",
            f"--toolcall-report={report}",
            "-p",
            "no:randomly",
        )
        return result, load_report(pytester.path / report)

    clean, clean_report = gfc(make_server(respond), "clean.json", 4)
    clean.assert_outcomes(passed=14, failed=4)
    faulty_server = make_server(respond, faults=plan(SEEDS[1]))
    faulty, faulty_report = gfc(faulty_server, "faulty.json", 4)
    assert sum(faulty_server.faults_injected.values()) >= 3
    assert verdicts(faulty_report) == verdicts(clean_report)
    assert faulty_report["metrics"] == clean_report["metrics"]
    assert faulty.parseoutcomes() == clean.parseoutcomes()

    bare_server = make_server(respond, faults=plan(SEEDS[1]))
    _, bare_report = gfc(bare_server, "bare.json", 0)
    faulted = {
        f"toolcall::general_fc[calls/{[t for t, _, _ in GENERAL_FC].index(a.body['messages'][-1]['content'])}]"
        for a in bare_server.arrivals
        if a.fault is not None and a.body is not None
    }
    assert faulted
    expected = {n: ("error" if n in faulted else o) for n, o in outcomes(clean_report).items()}
    assert outcomes(bare_report) == expected
    metrics = bare_report["metrics"]["general_fc"]
    assert metrics["errors"] == len(faulted)
    assert metrics["scored"] == len(GENERAL_FC) - len(faulted)


# --- the client process itself -------------------------------------------------------------------


def test_a_dead_client_process_makes_the_rest_errors_that_say_so(
    pytester: pytest.Pytester, make_server: ServerFactory, acebench_root: Path
) -> None:
    """The SDK's process killed after the third item: the items that have no answer yet are errors
    naming it, the run ends, and the answers that came first are kept."""
    pytester.makeconftest(
        "import os, signal\n"
        "from pytest_toolcall.model import sdk_process as gateway\n"
        "seen = []\n"
        "def pytest_runtest_teardown(item):\n"
        "    seen.append(item)\n"
        "    if len(seen) == 3:\n"
        "        os.kill(gateway._client.child.pid, signal.SIGKILL)\n"
    )
    server = make_server()
    server.latency = 0.2  # one request in flight at a time: the fourth is out when the process dies
    selection = ("-k", "normal_atom_bool or normal_atom_enum", "--toolcall-concurrency=1")
    result, report = run(pytester, server, acebench_root, *selection)
    result.assert_outcomes(passed=LIMIT, errors=LIMIT, deselected=result.parseoutcomes()["deselected"])
    # Exact lines: the short summary repeats the message too, as far as the terminal's width allows.
    assert result.stdout.lines.count("request failed: the model client process exited (code -9)") == LIMIT
    assert [outcome for _, outcome in sorted(outcomes(report).items())] == ["passed"] * LIMIT + ["error"] * LIMIT
