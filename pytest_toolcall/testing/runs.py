"""Runs of a benchmark for its own tests, and the reports they write.

``run_oracle("calc", cwd=tmp_path)`` runs ``pytest --toolcall-model=oracle --toolcall-bench=calc`` in a
process of its own (as a user types it: the installed plugin, its entry points, the benchmark's
options) and returns the exit status, the output and the JSON report read back. ``run_benchmark``
does the same against a model: the scripted ``ChatServer`` of ``pytest_toolcall.testing`` or any
OpenAI-compatible endpoint.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.core.safety.reports import read_report as _read_checked
from pytest_toolcall.model import oracle

#: Where a run of these helpers writes its JSON report (relative to its folder).
REPORT = "toolcall-report.json"


@dataclass(frozen=True)
class Report:
    """A JSON report (docs/report-schema.md) read back: its sections, and its samples by key."""

    document: dict[str, Any]

    @property
    def run(self) -> dict[str, Any]:
        return dict(self.document["run"])

    @property
    def metrics(self) -> dict[str, Any]:
        """Every metrics block by name (``calc``, ``acebench/en``...)."""
        return dict(self.document["metrics"])

    @property
    def samples(self) -> list[dict[str, Any]]:
        return list(self.document["samples"])

    def block(self, name: str) -> dict[str, Any]:
        """One metrics block (``KeyError`` naming the blocks there are)."""
        try:
            return dict(self.document["metrics"][name])
        except KeyError:
            raise KeyError(f"no block {name!r} in the report: it has {sorted(self.document['metrics'])}") from None

    def outcomes(self, benchmark: str | None = None) -> dict[str, str]:
        """Each sample's key -> outcome (``passed``, ``failed``, ``error``, ``skipped``, ``xfailed``), of
        one benchmark or of all; a repeated unit's attempts are keyed ``key@k``."""
        return {_key(s): s.get("outcome", "") for s in self._of(benchmark)}

    def sample(self, key: str, benchmark: str | None = None) -> dict[str, Any]:
        """The record of the sample with this key (``KeyError`` when there is none)."""
        for sample in self._of(benchmark):
            if _key(sample) == key:
                return dict(sample)
        raise KeyError(f"no sample {key!r} in the report")

    def _of(self, benchmark: str | None) -> Iterator[dict[str, Any]]:
        return (s for s in self.document["samples"] if benchmark is None or s.get("benchmark") == benchmark)


def _key(sample: Mapping[str, Any]) -> str:
    """The unit's key, from its node id ``...[key]`` (the parameter of the item)."""
    nodeid = str(sample["nodeid"])
    return nodeid[nodeid.index("[") + 1 : -1] if nodeid.endswith("]") and "[" in nodeid else nodeid


def read_report(path: str | Path) -> Report:
    """A JSON report, checked as the offline tools check it (``ReportError`` naming the file and the
    field when it is not one)."""
    return Report(_read_checked(Path(path)))


@dataclass(frozen=True)
class RunOutcome:
    """What a run of pytest gave: its exit status (``pytest.ExitCode``), its output, its report."""

    returncode: int
    stdout: str
    stderr: str
    #: The JSON report the run wrote; None when it wrote none (a usage error, an interruption).
    report: Report | None

    @property
    def output(self) -> str:
        """stdout and stderr together, for assertion messages."""
        return self.stdout + self.stderr


def run_benchmark(
    bench: str,
    *args: str,
    cwd: str | Path,
    model: str = oracle.NAME,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> RunOutcome:
    """``pytest --toolcall-model=MODEL --toolcall-bench=BENCH ARGS...`` in a new process in ``cwd``,
    writing its JSON report there. With ``base_url`` (a ``ChatServer``'s), requests go there with no
    API key and no response store, so every answer is the server's. ``env`` adds to the environment."""
    folder = Path(cwd)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--toolcall-model={model}"]
    command += [f"--toolcall-bench={bench}", f"--toolcall-report={REPORT}"]
    if base_url is not None:
        command += [f"--toolcall-base-url={base_url}", "--toolcall-api-key-env=", "--toolcall-cache=off"]
    environment = {**os.environ, **(env or {})}
    environment.pop("PYTEST_XDIST_WORKER", None)  # a run of its own, not a worker of the caller's
    (folder / REPORT).unlink(missing_ok=True)
    done = subprocess.run(
        [*command, *args], cwd=folder, env=environment, capture_output=True, text=True, timeout=timeout, check=False
    )
    report = read_report(folder / REPORT) if (folder / REPORT).exists() else None
    return RunOutcome(done.returncode, done.stdout, done.stderr, report)


def run_oracle(bench: str, *args: str, cwd: str | Path, **kwargs: Any) -> RunOutcome:
    """``run_benchmark`` with the oracle: every request answered with the reference the plan attached,
    so every unit whose reference the scorer accepts passes (the benchmark's ceiling, end to end)."""
    return run_benchmark(bench, *args, cwd=cwd, model=oracle.NAME, **kwargs)
