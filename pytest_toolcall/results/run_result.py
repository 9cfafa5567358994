"""The result of one run, built once: at the end of a run (``RunResult.of_run``), by the offline
tools from its JSON report (``RunResult.of_report``), or from the reports of its shards
(``RunResult.merge``, for ``pytest-toolcall merge``). Everything downstream takes it: the terminal
summary and the GitHub step summary (``results/summary.py``, ``results/github.py``), the JSON report
(``document``), the HTML, JUnit's suite properties and the gate (``results/gate.py``, in-run and
offline alike). What the gate judges besides the metrics (items not run, other tests that failed,
an interruption) is read from the report's ``run`` section in both cases, so a report is judged
offline exactly as the run judged itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_toolcall.config.settings import parse_price
from pytest_toolcall.core.protocol.benchmark import Benchmark
from pytest_toolcall.core.protocol.tables import Part
from pytest_toolcall.core.safety.reports import SCHEMA
from pytest_toolcall.results.aggregate import aggregate, all_blocks, run_usage
from pytest_toolcall.results.baseline import compare_run
from pytest_toolcall.results.merge import check_shards, merged_run, rebuild_benchmarks

if TYPE_CHECKING:
    from pytest_toolcall.results.gate import GateVerdict


@dataclass
class RunResult:
    #: The report's ``run`` section: who ran what, how much was selected, what did not run.
    run: dict[str, Any]
    #: One record per benchmark item (and per repeat), as in the report.
    samples: list[dict[str, Any]]
    #: Every metrics block by block name, as the report lists them (what the gate checks).
    blocks: dict[str, Any]
    usage: dict[str, Any] | None = None
    #: Against the baseline (``--toolcall-baseline``, ``gate --baseline``), or None.
    comparison: dict[str, Any] | None = None
    #: The benchmarks that made the blocks, and their blocks by benchmark: known in a run, and
    #: offline when the benchmarks are rebuilt from the report (else empty: no tables to render).
    benchmarks: Mapping[str, Benchmark] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Sampling price (prompt, completion USD per million tokens) and budget of the run, if given.
    price: tuple[float, float] | None = None
    budget: float | None = None
    #: Outputs that could not be written (the run fails; empty offline). Appended to while the run
    #: writes its outputs (``output_lost``), after the result was built.
    output_failures: list[str] = field(default_factory=list)
    #: The gate's verdict on this result, once decided (in a run: before its outputs are written);
    #: None without a gate.
    verdict: GateVerdict | None = None
    #: The significance level regressions against the baseline are judged at, when they gate.
    alpha: float | None = None

    @classmethod
    def of_run(
        cls,
        run: dict[str, Any],
        samples: list[dict[str, Any]],
        benchmarks: Mapping[str, Benchmark],
        *,
        baseline: Mapping[str, Any] | None = None,
        price: tuple[float, float] | None = None,
        budget: float | None = None,
        output_failures: list[str] | None = None,
    ) -> RunResult:
        """Aggregate the samples with their benchmarks, compare with the baseline if there is one."""
        metrics = aggregate(benchmarks, samples)
        comparison = compare_run(baseline, run, samples, metrics, benchmarks) if baseline is not None else None
        return cls(
            run=run,
            samples=samples,
            blocks=all_blocks(metrics),
            usage=run_usage(samples, price, run.get("other_requests")),
            comparison=comparison,
            benchmarks=benchmarks,
            metrics=metrics,
            price=price,
            budget=budget,
            output_failures=[] if output_failures is None else output_failures,
        )

    @classmethod
    def of_report(
        cls,
        document: Mapping[str, Any],
        *,
        benchmarks: Mapping[str, Benchmark] | None = None,
        baseline: Mapping[str, Any] | None = None,
    ) -> RunResult:
        """A report's result as written. With its benchmarks (``merge.rebuild_benchmarks``), their
        blocks are recomputed by the run's own code path (for the tables, and for a comparison with
        ``baseline``, which needs them); the gate still checks the blocks the report holds."""
        run, samples = dict(document["run"]), list(document["samples"])
        metrics: dict[str, dict[str, Any]] = {}
        comparison = document.get("comparison")
        if benchmarks is not None:
            metrics = aggregate(benchmarks, samples)
            if baseline is not None:
                comparison = compare_run(baseline, run, samples, metrics, benchmarks)
        elif baseline is not None:
            raise ValueError("comparing a report with a baseline needs its benchmarks")
        return cls(
            run=run,
            samples=samples,
            blocks=dict(document["metrics"]),
            usage=document.get("usage"),
            comparison=comparison,
            benchmarks=benchmarks or {},
            metrics=metrics,
            price=_recorded(run, "price", parse_price),
            budget=_recorded(run, "budget", float),
        )

    @classmethod
    def merge(cls, reports: Sequence[tuple[Path, Mapping[str, Any]]], *, allow_partial: bool = False) -> RunResult:
        """The result of the run whose shards wrote the ``reports`` (path, document), as a single run
        of the same selection would have it: its metrics and usage recomputed from the samples by the
        run's own code path, with the benchmarks rebuilt from the options the shards recorded.
        ``ReportError`` names the files when they are not shards of one run (``results/merge.py``),
        or leave units out (accepted with ``allow_partial``: the result is marked partial)."""
        gaps = check_shards(reports, allow_partial)
        first_path, first = reports[0]
        run = merged_run(reports, gaps)
        samples = [sample for _, document in reports for sample in document["samples"]]
        # As a run without a baseline has it (a comparison is made against the merged report).
        return cls.of_run(
            run,
            samples,
            rebuild_benchmarks(first_path, dict(first["run"])),
            price=_recorded(run, "price", parse_price),
        )

    def output_lost(self, what: str, where: Any, exc: BaseException) -> None:
        """An output (``what``, e.g. "JSON report") could not be written at ``where``: the run says so
        in one line and fails (its artefacts are incomplete); the other outputs are still written."""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        self.output_failures.append(f"{what} not written to {where}: {reason}")

    # --- what the run section says ------------------------------------------------------------

    @property
    def model(self) -> str | None:
        return self.run.get("model")

    @property
    def selected(self) -> int:
        return int(self.run.get("selected") or 0)

    @property
    def not_run(self) -> int:
        """Selected items that did not run (stopped early: -x, --maxfail, Ctrl-C, a crashed worker)."""
        return int(self.run.get("not_run") or 0)

    @property
    def not_asked(self) -> int:
        """Items skipped because --toolcall-budget was spent."""
        return int(self.run.get("not_asked") or 0)

    @property
    def data_problems(self) -> list[str]:
        """Node ids of the parts of the data that could not be loaded."""
        return list(self.run.get("data_problems") or [])

    @property
    def ordinary_failed(self) -> list[str]:
        """The session's other tests (and collectors) that failed or errored."""
        return list(self.run.get("ordinary_failed") or [])

    @property
    def interrupted(self) -> bool:
        return bool(self.run.get("interrupted"))

    # --- what the samples say -----------------------------------------------------------------

    @property
    def expected_failures(self) -> int:
        """Items whose own reference answer the official scorer rejects (xfailed)."""
        return sum(1 for r in self.samples if r.get("outcome") == "xfailed")

    @property
    def stream(self) -> dict[str, Any] | None:
        """The ``stream`` section (``--toolcall-stream on|both``), from the samples; None without."""
        from pytest_toolcall.results.stream_parity import stream_section

        return stream_section((self.run.get("options") or {}).get("stream"), self.samples)

    @property
    def stopped(self) -> list[dict[str, Any]]:
        """Records of the items an answer no retry can fix stopped (and of that answer)."""
        return [r for r in self.samples if r.get("stopped")]

    # --- renderings ---------------------------------------------------------------------------

    def tables(self) -> Iterator[tuple[str, list[str]]]:
        """Each block's name and its table, as its benchmark renders it (``Benchmark.summary``)."""
        for name, blocks in self.metrics.items():
            for block_name, block in blocks.items():
                yield block_name, self.benchmarks[name].summary(block_name, block)

    def summary_parts(self) -> Iterator[tuple[str, list[Part]]]:
        """Each block's name and its summary's lines and tables (``Benchmark.summary_parts``)."""
        for name, blocks in self.metrics.items():
            for block_name, block in blocks.items():
                yield block_name, self.benchmarks[name].summary_parts(block_name, block)

    def suite_properties(self) -> Iterator[tuple[str, Any]]:
        """JUnit suite properties of every block (``Benchmark.suite_properties``)."""
        for name, blocks in self.metrics.items():
            for block_name, block in blocks.items():
                yield from self.benchmarks[name].suite_properties(block_name, block)

    def document(self) -> dict[str, Any]:
        """The JSON report (``--toolcall-report``)."""
        document = {
            "schema": SCHEMA,
            "run": self.run,
            "samples": self.samples,
            "metrics": self.blocks,
            "usage": self.usage,
            "comparison": self.comparison,
        }
        stream = self.stream
        if stream is not None:
            document["stream"] = stream
        return document


T = TypeVar("T")


def _recorded(run: Mapping[str, Any], option: str, parse: Callable[[str], T]) -> T | None:
    """An option as the run recorded it (its text), parsed; None if absent or unreadable: a report
    from elsewhere is read, not judged, here (the value only labels the summary)."""
    text = (run.get("options") or {}).get(option)
    try:
        return parse(str(text)) if text is not None else None
    except ValueError:
        return None
