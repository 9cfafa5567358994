"""Hostile model output is data (issue: reliability and security, item 4).

Every output below comes back from the local server through the real ``openai`` client, as the
answer to normal single-turn, normal multi-turn and special ACEBench samples and to general_fc lines
(as content, as a tool call's arguments string and as its name). Each item must be *scored* and
fail (not pass, not error, not crash the scorer), within a bounded time, and nothing may run: a
marker file that every injection attempt would create never appears. The JSON report, the JUnit
file and the response store must take every output as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply
from tests.support.scripted_runs import WEATHER, load_report, run_with_deadline, warm_up_client

pytestmark = pytest.mark.slow  # each test takes seconds: it runs pytest, a server or a whole data set

warm_up_client()

API_KEY = "sk-hostile-0123456789"
MARKER_NAME = "PWNED_MARKER"
TEN_MB = 10_000_000
#: CPU seconds the whole run may take, every item included: about ten times what it needs (7 s measured
#: for the 10 MB output), far below what one unbounded output would take. CPU time, not the clock: a
#: busy machine slows the clock, not the work.
CPU_SECONDS = 60.0
DEADLINE = 120.0  # a hang guard: a run still going then is interrupted


@dataclass(frozen=True)
class Hostile:
    text: str  # the message content (ACEBench output; general_fc content and tool name)
    arguments: str | None = None  # a general_fc arguments string; the text when None

    @property
    def args(self) -> str:
        return self.text if self.arguments is None else self.arguments


def hostile_outputs(marker: str) -> dict[str, Hostile]:
    touch = f"__import__('os').system('touch {marker}')"
    return {
        # code injection, in every position of a call list
        "import-as-call": Hostile(f"[{touch}]"),
        "import-in-argument": Hostile(f"[getWeather(city={touch})]"),
        "import-as-argument-name": Hostile(f"[f(**{{'a': {touch}}})]"),
        "open-write": Hostile(f"[f(a=open('{marker}', 'w').write('x'))]"),
        "exec-and-eval": Hostile(f"[exec(source=\"open('{marker}', 'w')\"), eval(\"{touch}\")]"),
        "attribute-call": Hostile(f"[os.system(command='touch {marker}')]"),
        "dunder-chain": Hostile(
            "[f(a=().__class__.__base__.__subclasses__()[0].__init__.__globals__['sys'].modules['os']"
            f".system('touch {marker}'))]"
        ),
        "dunder-name": Hostile(f"[__builtins__.open(file='{marker}', mode='w')]"),
        "lambda": Hostile(f"[f(a=(lambda: {touch})())]"),
        "comprehension": Hostile(f"[f(a=[{touch} for _ in range(1)])]"),
        "generator-and-set": Hostile(f"[f(a=list({touch} for _ in 'x'), b={{{touch}}})]"),
        "f-string": Hostile(f'[f(a=f"{{{touch}}}")]'),
        "walrus-and-starred": Hostile(f"[f(a=(x := {touch}), b=[*{touch}])]"),
        "python-in-json-arguments": Hostile(f"[{touch}]", f'{{"city": {touch}}}'),
        # sizes
        "10 MB": Hostile("[getWeather(city='" + "x" * TEN_MB + "')]", '{"' + "x" * TEN_MB + '": 1}'),
        "100k nested brackets": Hostile(
            "[" * 100_000 + "]" * 100_000, '{"city": ' + "[" * 100_000 + "]" * 100_000 + "}"
        ),
        "100k nested parentheses in an argument": Hostile(
            "[f(a=" + "(" * 100_000 + "1" + ")" * 100_000 + ")]", '{"city": ' + "{" * 100_000 + "}" * 100_000 + "}"
        ),
        # bytes and characters
        "NUL bytes": Hostile("[f(a='\x00')]\x00\x00", '{"city": "a\x00"}'),
        "lone surrogate": Hostile("[f(a='\udcff')]\udcff", '{"\udcff": 1}'),
        # numbers
        "1e999999": Hostile("[f(a=1e999999, b=-1e999999)]", '{"city": 1e999999}'),
        "10**10**10": Hostile("[f(a=10**10**10, b=9**9**9**9)]", '{"city": 10**10**10}'),
        "5000 digits": Hostile("[f(a=" + "9" * 5000 + ")]", '{"city": ' + "9" * 5000 + "}"),
    }


GENERAL_FC_LINES = ("content", "arguments", "name", "python_arguments")


def write_general_fc(folder: Path) -> str:
    """One file per place the hostile output comes back in (``--toolcall-limit`` counts per file);
    every line expects a call. Returns the ``--toolcall-general-fc`` value."""
    paths = []
    for place in GENERAL_FC_LINES:
        path = folder / f"{place}.jsonl"
        line = {
            "messages": [{"role": "user", "content": f"line: {place}"}],
            "tools": [WEATHER],
            "should_call_tool": True,
        }
        path.write_text(json.dumps(line) + "\n", encoding="utf-8")
        paths.append(str(path))
    return ",".join(paths)


def responder(hostile: Hostile) -> Any:
    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        if body.get("tools"):  # general_fc
            if last == "line: content":
                return Reply(content=hostile.text)
            if last == "line: arguments":
                return Reply(tool_calls=[{"name": "get_weather", "arguments": hostile.args}])
            if last == "line: name":
                return Reply(tool_calls=[{"name": hostile.text, "arguments": '{"city": "Paris"}'}])
            return Reply(tool_calls=[{"name": "get_weather", "arguments": hostile.text}])
        return Reply(content=hostile.text)  # every ACEBench request

    return respond


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / MARKER_NAME
    yield path
    assert not path.exists(), "model output was executed"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def args(server: ChatServer, root: Path, general_fc: str, *extra: str) -> list[str]:
    return [
        "--toolcall-model=hostile-model",
        f"--toolcall-base-url={server.base_url}",
        f"--toolcall-data-dir={root}",
        "--toolcall-bench=acebench,general_fc",
        f"--toolcall-general-fc={general_fc}",
        "--toolcall-limit=1",  # one unit per category: single-turn, multi-turn dialogue, special
        "--toolcall-max-retries=0",
        "--toolcall-report=report.json",
        "--junitxml=junit.xml",
        "-m",
        "not agent",  # agent rollouts have their own hostile-output tests (test_agents_security.py)
        "-p",
        "no:randomly",
        *extra,
    ]


def assert_every_item_scored_and_failed(pytester: pytest.Pytester, result: pytest.RunResult) -> dict[str, Any]:
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    report = load_report(pytester.path / "report.json")
    samples = report["samples"]
    assert len(samples) == 15 + len(GENERAL_FC_LINES)
    wrong = {s["nodeid"]: (s["outcome"], s["score"], s.get("error")) for s in samples}
    wrong = {n: v for n, v in wrong.items() if v[:2] != ("failed", 0.0)}
    assert not wrong, f"not scored as failures: {wrong}"
    result.assert_outcomes(failed=len(samples))
    junit = ET.parse(pytester.path / "junit.xml").getroot()
    assert len(junit.findall(".//testcase/failure")) == len(samples)
    return report


@pytest.mark.parametrize("name", list(hostile_outputs("M")))
def test_hostile_output_is_scored_as_a_failure(
    pytester: pytest.Pytester, acebench_root: Path, marker: Path, name: str
) -> None:
    hostile = hostile_outputs(str(marker))[name]
    general_fc = write_general_fc(pytester.path)
    store = pytester.path / "store"
    with ChatServer(responder(hostile)) as server:
        cpu = time.process_time()  # the run is in this process: its scoring is counted here
        result, _ = run_with_deadline(
            pytester, DEADLINE, *args(server, acebench_root, general_fc, f"--toolcall-cache={store}")
        )
        cpu = time.process_time() - cpu
        assert result.ret != pytest.ExitCode.INTERRUPTED, f"{name}: still running after {DEADLINE:.0f}s"
        assert cpu < CPU_SECONDS, f"{name}: the run took {cpu:.1f}s of CPU"
        assert_every_item_scored_and_failed(pytester, result)
        # Failure messages clip what they show: neither the terminal nor the JUnit file is flooded.
        assert len(result.stdout.str()) < 200_000, f"{len(result.stdout.str())} characters of terminal output"
        assert (pytester.path / "junit.xml").stat().st_size < 500_000
        # Every response made it into the store as it came (15 units, 17 requests, 4 lines) ...
        with closing(sqlite3.connect(store / "responses.sqlite3")) as db:
            rows = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        assert rows == server.count
    # ... and reads back as it was: a replay without any server gives the same verdicts.
    replay, _ = run_with_deadline(
        pytester,
        DEADLINE,
        *args(server, acebench_root, general_fc, f"--toolcall-cache={store}"),
        "--toolcall-cache-mode=replay",
    )
    assert replay.ret != pytest.ExitCode.INTERRUPTED, f"{name}: the replay still ran after {DEADLINE:.0f}s"
    assert_every_item_scored_and_failed(pytester, replay)


# --- bytes that are not UTF-8 ------------------------------------------------------------------


class RawBytesServer(ChatServer):
    """Answers with a completion whose content holds bytes that are not UTF-8 (0xff 0xfe, a lone
    continuation byte): the JSON body itself cannot be decoded."""

    def _completion(self, body: dict[str, Any], reply: Reply) -> bytes:
        payload = super()._completion(body, reply)
        return payload.replace(b"INVALID_UTF8", b"\xff\xfe\x80 bad")


def test_a_body_that_is_not_utf8_is_an_unparseable_response(
    pytester: pytest.Pytester, acebench_root: Path, marker: Path
) -> None:
    """Not decodable is not a model answer: retried like any bad body, then an error with a clear cause."""
    general_fc = write_general_fc(pytester.path)
    retries = 1
    with RawBytesServer(lambda body: Reply(content="[f(a='INVALID_UTF8')]")) as server:
        result = pytester.runpytest(
            *args(server, acebench_root, general_fc, "--toolcall-cache=off", "-k", "normal_atom_bool or content"),
            f"--toolcall-max-retries={retries}",
        )
        assert server.count == 2 * (1 + retries)  # retried as an unparseable response
    result.assert_outcomes(errors=2)
    out = result.stdout.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out
    for sample in load_report(pytester.path / "report.json")["samples"]:
        assert sample["outcome"] == "error"
        assert "utf-8" in sample["error"].lower(), sample["error"]
        assert f"after {1 + retries} attempts" in sample["error"]


# --- memory --------------------------------------------------------------------------------------


#: conftest.py of the measured run: pytest's own peak resident memory since it started (VmHWM; unlike
#: the rusage of a child, it does not include the memory of the process that forked it).
PEAK_MEMORY_PROBE = """
from pathlib import Path


def pytest_unconfigure(config):
    status = Path("/proc/self/status").read_text()
    peak = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    Path("peak_kb.txt").write_text(peak)
"""


def test_the_heaviest_outputs_run_in_bounded_memory(
    pytester: pytest.Pytester, acebench_root: Path, tmp_path: Path
) -> None:
    """One process answers every item with a 10 MB, a deeply nested or a huge-number output; its peak
    memory stays bounded (measured on the child process alone)."""
    marker = tmp_path / MARKER_NAME
    outputs = hostile_outputs(str(marker))
    heavy = ["10 MB", "100k nested brackets", "100k nested parentheses in an argument", "10**10**10", "5000 digits"]
    # general_fc: one heavy output per line; ACEBench: spread over the units by their messages' hash.
    by_line = dict(zip(("content", "arguments", "name", "python_arguments"), heavy[:4], strict=True))

    def respond(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]["content"]
        if body.get("tools"):
            return responder(outputs[by_line[last.removeprefix("line: ")]])(body)
        index = int(hashlib.sha256(last.encode()).hexdigest(), 16) % len(heavy)
        return responder(outputs[heavy[index]])(body)

    general_fc = write_general_fc(pytester.path)
    pytester.makeconftest(PEAK_MEMORY_PROBE)
    with ChatServer(respond) as server:
        command = [sys.executable, "-m", "pytest", *args(server, acebench_root, general_fc, "--toolcall-cache=off")]
        env = {**os.environ, "OPENAI_API_KEY": API_KEY}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            proc = subprocess.run(
                command, cwd=pytester.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=DEADLINE
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"the run did not finish within {DEADLINE:.0f} s")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # The child's CPU time and that of the processes it waited for (its model client).
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    peak_mb = int((pytester.path / "peak_kb.txt").read_text()) / 1024
    text = proc.stdout.decode("utf-8", "replace")
    assert peak_mb < 1024, f"peak memory {peak_mb:.0f} MB"
    assert cpu < CPU_SECONDS, f"the run took {cpu:.1f}s of CPU"
    assert not marker.exists()
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, text[-3000:]
    assert "Traceback" not in text and "INTERNALERROR" not in text, text[-3000:]
    samples = load_report(pytester.path / "report.json")["samples"]
    assert {(s["outcome"], s["score"]) for s in samples} == {("failed", 0.0)}
