"""general_fc behind the benchmark protocol: one JSONL line is one unit, asked through native tool
calling with its messages and tools exactly as in the file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pytest_toolcall.api import (
    MAJORITY,
    Benchmark,
    ChatRequest,
    DataError,
    Loaded,
    Metrics,
    Models,
    Part,
    Plan,
    Requests,
    Unit,
    Verdict,
    usage_error,
)
from pytest_toolcall.benchmarks.general_fc.options import OPTIONS

#: The set shipped in the package: 511 labelled requests from MoonshotAI's K2-Vendor-Verifier samples.
SHIPPED_SET = Path(__file__).with_name("data") / "k2vv_zh_511.jsonl"


def _block(benchmark: Any, records: list[dict[str, Any]]) -> dict[str, Any]:
    from pytest_toolcall.benchmarks.general_fc.metrics import general_fc_block

    return general_fc_block(benchmark, records)


def _compare_decisions(baseline: list[dict[str, Any]], now: list[dict[str, Any]]) -> dict[str, Any]:
    from pytest_toolcall.benchmarks.general_fc.metrics import compare_decisions

    return compare_decisions(baseline, now)


def _compare_passes(baseline: list[dict[str, Any]], now: list[dict[str, Any]]) -> dict[str, Any]:
    from pytest_toolcall.benchmarks.general_fc.metrics import compare_passes

    return compare_passes(baseline, now)


#: general_fc's metrics, declared: no rows, the numbers of K2-Vendor-Verifier's table as gate names
#: (``agreement`` with ``--toolcall-reference``), tool-call F1 compared by its own paired test (gated)
#: and the share of lines passed by McNemar's; a line's decision under repeats is its majority.
#: (The functions import ``metrics`` when called: importing it, and its scorer, at every pytest start
#: would cost every run.)
METRICS = Metrics(
    rows=(),
    numbers=("tool_call_f1", "tool_call_precision", "tool_call_recall", "schema_accuracy", "agreement", "accuracy"),
    reducer=MAJORITY,
    gated=("tool_call_f1",),
    block=_block,
    tests={"tool_call_f1": _compare_decisions, "accuracy": _compare_passes},
)


class GeneralFC(Benchmark):
    name = "general_fc"
    metrics = METRICS
    options = OPTIONS

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        given = settings.option("files") or ""
        self.files = tuple(Path(p.strip()).expanduser() for p in given.split(",") if p.strip()) or (SHIPPED_SET,)
        stems = [path.stem for path in self.files]
        if len(set(stems)) != len(stems):
            raise usage_error("general-fc", f"file names must differ (item ids use them): {', '.join(stems)}")
        #: The reference run's decision per line (file stem, line) — None where it has none (its request
        #: errored) — read by ``read_inputs``; None without ``--toolcall-reference``.
        self.reference: dict[tuple[str, int], bool | None] | None = None
        self.warnings: list[str] = []

    def read_inputs(self) -> None:
        path = self.settings.option("reference")
        if path:
            from pytest_toolcall.benchmarks.general_fc.metrics import reference_decisions

            self.reference = reference_decisions(_reference_samples(path, [p.name for p in self.files]))

    def header(self) -> str:
        return f"general_fc={','.join(str(p) for p in self.files)}"

    def datasets(self) -> dict[str, Any]:
        return {"files": [str(p) for p in self.files], "warnings": self.warnings}

    def load(self) -> Loaded:
        from pytest_toolcall.benchmarks.general_fc.dataset import index_file

        loaded = Loaded(units=[])
        for path in self.files:
            try:
                # Where each line is, not its objects: a line is read back when its item runs.
                samples, problems = index_file(path)
            except DataError as exc:
                raise usage_error("general-fc", str(exc)) from None
            for sample in samples:
                self.warnings += sample.warnings
                loaded.units.append(
                    Unit(
                        benchmark=self.name,
                        key=f"{sample.stem}/{sample.index}",
                        category=self.name,
                        id=str(sample.index),
                        # The label travels with the identity: a failed request still has one, which
                        # the official view (a failed request counts as no call) needs.
                        fields={
                            "stem": sample.stem,
                            "index": sample.index,
                            "should_call_tool": sample.should_call_tool,
                            # The reference's decision travels the same way, for agreement and its
                            # official view (K2-Vendor-Verifier's: a failed request is no call).
                            **self._reference_fields(sample.stem, sample.index),
                        },
                        sample=sample,
                    )
                )
            loaded.problems += [(f"general_fc[{path.stem}/{index}]", message) for index, message in problems]
        return loaded

    def _reference_fields(self, stem: str, index: int) -> dict[str, Any]:
        return {} if self.reference is None else {"reference_calls": self.reference.get((stem, index))}

    def check_selected(self, units: Iterable[Unit]) -> None:
        """The reference must hold every line this run selected (it may hold more: this run may be a
        ``-k`` subset of it); ``load`` took its decisions, so nothing is read again."""
        if self.reference is None:
            return
        keys = {(str(u.fields["stem"]), int(u.fields["index"])) for u in units}
        missing = sorted(keys - self.reference.keys())
        if missing:
            shown = ", ".join(f"{stem}/{index}" for stem, index in missing[:5]) + (", ..." if len(missing) > 5 else "")
            raise usage_error(
                "reference",
                f"{self.settings.option('reference')} lacks {len(missing)} of the {len(keys)} line(s) this run "
                f"selected ({shown}): it was run on another selection (-k, -m, --toolcall-limit, a shard); "
                "give a reference run that holds every line of this one",
            )

    def plan(self, unit: Unit, models: Models) -> Plan:
        from pytest_toolcall.benchmarks.general_fc.oracle import general_fc_answer

        line = unit.sample.sample()
        # Messages and tools exactly as in the file: never rewritten. The reference is what the
        # oracle answers; only it needs one (building one validates arguments against schemas).
        reference = general_fc_answer(line) if models.oracle else None
        return Requests([ChatRequest(line.messages, tools=line.tools, reference=reference)])

    def score(self, unit: Unit, answer: Any) -> Verdict:
        """The decision to call must match ``should_call_tool``, and every call must validate
        against its tool's schema."""
        from pytest_toolcall.benchmarks.general_fc.scoring import score_response

        (response,) = answer
        result = score_response(unit.sample.sample(), response)
        fields = {"output": response.content, "tool_calls": response.tool_calls, **result.record()}
        if "reference_calls" in unit.fields:
            reference = unit.fields["reference_calls"]
            fields["agrees"] = None if reference is None else result.pred == reference
        return Verdict(result.passed, result.reason, fields)

    def explain(self, unit: Unit) -> dict[str, Any]:
        """The request as in the file; what is expected is the decision alone (and valid calls)."""
        return {**super().explain(unit), "expected": {"should_call_tool": unit.sample.should_call_tool}}

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        from pytest_toolcall.benchmarks.general_fc.summary import general_fc_table

        return general_fc_table(block)

    def gate_metric_problem(self, name: str) -> str | None:
        if name == "general_fc.agreement" and not self.settings.option("reference"):
            return (
                "unknown general_fc metric 'agreement' without a reference: agreement with a reference run "
                "needs --toolcall-reference=REPORT"
            )
        return None


def _reference_samples(path_text: str, files: list[str]) -> list[dict[str, Any]]:
    """The samples of the ``--toolcall-reference`` report, read at start-up: a wrong path, or the
    report of another benchmark or of other general_fc files (``files``, by name), is found before
    any request is sent."""
    from pytest_toolcall.api.files import ReportError, read_report

    path = Path(path_text).expanduser()
    try:
        document = read_report(path)
    except ReportError as exc:
        raise usage_error("reference", str(exc)) from None
    if not any(sample.get("benchmark") == "general_fc" for sample in document["samples"]):
        ran = sorted({str(sample.get("benchmark")) for sample in document["samples"]})
        raise usage_error(
            "reference", f"{path} holds no general_fc sample (a run of {', '.join(ran) or 'nothing'}): not a reference"
        )
    recorded = ((document["run"].get("datasets") or {}).get("general_fc") or {}).get("files")
    theirs = sorted(Path(str(name)).name for name in recorded or [])
    if recorded is not None and theirs != sorted(files):
        raise usage_error(
            "reference", f"{path} is a run of general_fc file(s) {', '.join(theirs)}, this run of {', '.join(files)}"
        )
    return document["samples"]
