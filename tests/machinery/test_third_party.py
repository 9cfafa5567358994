"""The installation as a third party meets it, in real pytest processes: a benchmark installed beside
the built-ins (a ``dist-info`` on ``PYTHONPATH``, found through its entry points like any installed
distribution) that declares ``Option("lang")``, another that cannot be imported; what a run without a
model imports; gate names checked before any request; and requests that carry only the sampling the
benchmark declares."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_toolcall.testing.server import ChatServer, Reply

pytestmark = pytest.mark.slow

BENCHMARK = """
from pytest_toolcall.api import Benchmark, ChatRequest, Loaded, Requests, Unit, Verdict

from .options import OPTIONS


class Lang3p(Benchmark):
    name = "lang3p"
    options = OPTIONS

    def __init__(self, settings):
        super().__init__(settings)
        self.lang = settings.option("lang")

    def load(self):
        return Loaded(units=[Unit(self.name, self.lang, "greeting", self.lang)])

    def plan(self, unit, models):
        reference = "hello" if models.oracle else None
        return Requests([ChatRequest([{"role": "user", "content": "Say hello"}], reference=reference)])

    def score(self, unit, answer):
        return Verdict(True)
"""
OPTIONS = """
from pytest_toolcall.api import Option

OPTIONS = (Option("lang", "the greeting's language", default="en"),)
"""
ENTRY_POINTS = """
[pytest_toolcall.benchmarks]
lang3p = lang3p.benchmark:Lang3p
broken3p = broken3p.benchmark:Broken

[pytest_toolcall.options]
lang3p = lang3p.options
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two third-party benchmarks, installed as a distribution on ``PYTHONPATH`` would be."""
    root = tmp_path_factory.mktemp("site")
    files = {
        "lang3p/__init__.py": "",
        "lang3p/options.py": OPTIONS,
        "lang3p/benchmark.py": BENCHMARK,
        "broken3p/__init__.py": "",
        "broken3p/benchmark.py": "import a_module_nobody_installed\n",
        "third_party-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: third-party\nVersion: 0.1\n",
        "third_party-0.1.dist-info/entry_points.txt": ENTRY_POINTS,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def run(site: Path | None, folder: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TOOLCALL_"))}
    env["OPENAI_API_KEY"] = "sk-test"
    if site is not None:
        env["PYTHONPATH"] = str(site)
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "pytest", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An unrelated project: one test, nothing of pytest-toolcall in its configuration."""
    (tmp_path / "test_unrelated.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return tmp_path


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer(lambda body: Reply(content="hello")).start()
    yield chat
    chat.stop()


def test_every_run_stays_clean_and_a_broken_benchmark_is_one_warning_line(site: Path, folder: Path) -> None:
    result = run(site, folder, "-p", "no:cacheprovider", "-rw")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 1 warning" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    warned = [line for line in result.stdout.splitlines() if "broken3p" in line]
    assert len(warned) == 1
    assert "benchmark broken3p (broken3p.benchmark:Broken): cannot import it (ModuleNotFoundError" in warned[0]
    # The options of the healthy one are there, in its namespace, beside ACEBench's own ``lang``.
    shown = run(site, folder, "--help").stdout
    assert "--toolcall-lang3p-lang" in shown and "--toolcall-acebench-lang" in shown


def test_its_option_drives_it_and_selecting_the_broken_one_is_a_usage_error(site: Path, folder: Path) -> None:
    args = ("-p", "no:cacheprovider", "--toolcall-model=oracle", "--toolcall-bench=lang3p", "-v")
    result = run(site, folder, *args, "--toolcall-lang3p-lang=xx")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "toolcall::lang3p[xx] PASSED" in result.stdout
    assert "toolcall::lang3p[en] PASSED" in run(site, folder, *args).stdout  # its own default
    refused = run(site, folder, "--toolcall-model=oracle", "--toolcall-bench=broken3p")
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR
    assert refused.stderr.strip().splitlines()[-1].startswith("ERROR: --toolcall-bench: benchmark broken3p ")
    assert "Traceback" not in refused.stderr


def test_a_gate_name_it_cannot_produce_is_refused_before_any_request(
    site: Path, folder: Path, server: ChatServer
) -> None:
    result = run(
        site,
        folder,
        "--toolcall-model=m",
        f"--toolcall-base-url={server.base_url}",
        "--toolcall-bench=lang3p",
        "--toolcall-fail-under=overall=0.9",
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert "unknown metric 'overall'" in result.stderr and "lang3p.overall, lang3p.<category>" in result.stderr
    assert server.requests == []
    passing = run(
        site, folder, "--toolcall-model=oracle", "--toolcall-bench=lang3p", "--toolcall-fail-under=lang3p.overall=0.9"
    )
    assert passing.returncode == 0, passing.stdout + passing.stderr


def test_its_requests_carry_only_the_sampling_it_declares(site: Path, folder: Path, server: ChatServer) -> None:
    args = ("--toolcall-model=m", f"--toolcall-base-url={server.base_url}", "--toolcall-bench=lang3p")
    result = run(site, folder, *args, "--toolcall-report=plain.json", "--toolcall-cache=off")
    assert result.returncode == 0, result.stdout + result.stderr
    (body,) = server.requests
    assert "temperature" not in body and "max_tokens" not in body  # (ACEBench's 0.7 and 1200 were sent)
    assert json.loads((folder / "plain.json").read_text())["run"]["settings"]["sampling"]["lang3p"] == {}
    given = run(site, folder, *args, "--toolcall-max-tokens=7", "--toolcall-report=given.json", "--toolcall-cache=off")
    assert given.returncode == 0, given.stdout + given.stderr
    assert (server.requests[1].get("temperature"), server.requests[1]["max_tokens"]) == (None, 7)
    report = json.loads((folder / "given.json").read_text())
    assert report["run"]["settings"]["sampling"]["lang3p"] == {"max_tokens": 7}


MODULES = """
import json, sys
import pytest
code = pytest.main(sys.argv[1:])
print("MODULES " + json.dumps(sorted(sys.modules)))
"""


def test_an_unused_installation_imports_no_benchmark(folder: Path) -> None:
    """Installed and given no model, the plugin imports its options and the benchmarks' light
    declarations, never a benchmark, nor what benchmarks need (pydantic, YAML, jsonschema, the SDK)."""

    def modules(*args: str) -> set[str]:
        result = run(None, folder, "-q", "-p", "no:cacheprovider", *args, code=MODULES)
        assert "1 passed" in result.stdout, result.stdout + result.stderr
        (line,) = [line for line in result.stdout.splitlines() if line.startswith("MODULES ")]
        return set(json.loads(line.removeprefix("MODULES ")))

    added = modules() - modules("-p", "no:toolcall")
    ours = sorted(m for m in added if m.startswith("pytest_toolcall"))
    assert "pytest_toolcall.plugin" in ours  # (the comparison is between runs with and without it)
    benchmark_modules = [m for m in ours if m.startswith("pytest_toolcall.benchmarks.") and m.count(".") > 2]
    assert benchmark_modules and all(m.endswith(("options", "conformance_options")) for m in benchmark_modules)
    assert not {"pydantic", "yaml", "jsonschema", "openai", "tabulate", "mpmath", "re2", "httpx"} & added
    # The settings of an active run (a dataclass of every field, URL redaction) are not built either.
    assert "pytest_toolcall.config.settings" not in ours
    assert len(ours) <= 30, ours  # 27 when written: the plugin, config/, two protocol modules, declarations


def test_a_run_imports_only_the_benchmarks_it_selects(folder: Path) -> None:
    result = run(
        None,
        folder,
        "-q",
        "-p",
        "no:cacheprovider",
        "--toolcall-model=oracle",
        "--toolcall-bench=general_fc",
        "--toolcall-limit=1",
        code=MODULES,
    )
    assert "1 passed" in result.stdout, result.stdout + result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("MODULES ")]
    modules = set(json.loads(line.removeprefix("MODULES ")))
    assert "pytest_toolcall.benchmarks.general_fc.benchmark" in modules
    # τ²-bench and BFCL are installed, not selected: neither they nor pydantic are imported.
    assert not {
        m for m in modules if m.startswith(("pytest_toolcall.benchmarks.tau2.", "pytest_toolcall.benchmarks.bfcl."))
    } - {
        "pytest_toolcall.benchmarks.tau2.options",
        "pytest_toolcall.benchmarks.bfcl.options",
    }
    assert "pydantic" not in modules and "mpmath" not in modules
