"""The gate: thresholds on the aggregate metrics (``--toolcall-fail-under``), regressions against a
baseline (``--toolcall-fail-on-regression``), and whether the run is whole; the exit status they decide.

Each metric name belongs to the benchmark that claims it (``overall``, ``zh.atom`` and categories are
ACEBench's, ``general_fc.tool_call_f1`` is general_fc's, ...); a name nobody claims is an error before
anything runs.

Which value a threshold checks. Benchmarks look their metric up in a block (``gate_values``); the gate
hands them views of the blocks built by the naming rules of ``core.protocol.blocks``:
``--toolcall-gate-on lower`` replaces each value by the lower bound of its 95 % interval (values
without one stay as they are); ``--toolcall-gate-value strict`` (the default) also checks the official
value, where missing units and failed requests count against the model (``x_official``), so a partial
run or one with request errors is never judged on the renormalised number alone. A threshold fails on
the smallest of the values checked, and the message says which one it was.

One function decides (``decide``), for a run at its end and for ``pytest-toolcall gate`` on a report:
both hand it a ``RunResult`` (``results/run_result.py``) and the gate's options, and print its line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_toolcall.config import registry
from pytest_toolcall.core.protocol.benchmark import Benchmark
from pytest_toolcall.core.protocol.blocks import interval_keys, is_derived, official_key

if TYPE_CHECKING:
    from pytest_toolcall.results.run_result import RunResult


@dataclass(frozen=True)
class Threshold:
    metric: str  # as written by the user
    minimum: float
    benchmark: type[Benchmark]


def parse_thresholds(text: str, benchmarks: Iterable[type[Benchmark]] | None = None) -> list[Threshold]:
    """``overall=0.8,atom=0.9``; raises ValueError with a message for the user. Names are looked up
    in ``benchmarks``, the run's (default: every installed one): a name none of them can produce is
    an error that lists the names they can (``core.protocol.metrics.gate_names``)."""
    from pytest_toolcall.core.protocol.metrics import gate_names
    from pytest_toolcall.results.stream_parity import StreamGate

    classes = list(registry.benchmark_classes().values() if benchmarks is None else benchmarks)
    # stream.parity first: ACEBench reads any <a>.<b> as <lang>.<category> and would refuse it.
    candidates: list[Any] = [StreamGate, *classes]
    thresholds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep:
            raise ValueError(f"{part!r} is not METRIC=VALUE")
        try:
            minimum = float(value)
        except ValueError:
            raise ValueError(f"{part!r}: {value.strip()!r} is not a number") from None
        if not 0.0 <= minimum <= 1.0:
            raise ValueError(f"{part!r}: thresholds are between 0 and 1")
        # A name that starts with a benchmark's name is that benchmark's to claim; the others (``atom``,
        # ``zh.overall``) go to whichever benchmark claims unprefixed names.
        prefix = name.partition(".")[0].partition("/")[0]
        named = [b for b in candidates if b.name == prefix]
        owner = next((b for b in named or candidates if b.claims_metric(name)), None)
        if owner is None:
            known = "; ".join(", ".join(gate_names(b)) for b in classes) or "none: no benchmark is selected"
            raise ValueError(f"unknown metric {name!r}: no benchmark of this run measures it (gate names: {known})")
        thresholds.append(Threshold(name, minimum, owner))
    if not thresholds:
        raise ValueError("no threshold given")
    return thresholds


def threshold_problem(thresholds: Iterable[Threshold], benchmarks: Mapping[str, Benchmark]) -> str | None:
    """Why a threshold names a metric that its benchmark, as configured for this run or report, cannot
    measure (``Benchmark.gate_metric_problem``); None when every one can."""
    for threshold in thresholds:
        owner = benchmarks.get(threshold.benchmark.name)
        problem = owner.gate_metric_problem(threshold.metric) if owner is not None else None
        if problem is not None:
            return problem
    return None


LOWER = "lower 95% bound"
OFFICIAL = "official value: missing units and failed requests count against the model"


def views(metrics: dict[str, Any], gate_on: str = "point", gate_value: str = "strict") -> list[tuple[str, Any]]:
    """(what the value is, the blocks seen that way) for every value a threshold must hold for."""
    chosen: list[tuple[str, Any]] = [(LOWER, _view(metrics, "lower")) if gate_on == "lower" else ("value", metrics)]
    if gate_value == "strict":
        # (The intervals belong to the measured values: the official one is checked as it is.)
        chosen.append((OFFICIAL, _view(metrics, "official")))
    return chosen


def _view(node: Any, kind: str) -> Any:
    """A copy of a block where each value is replaced by its lower bound (``kind="lower"``) or its
    official value (``kind="official"``) where the block has one."""
    if not isinstance(node, dict):
        return node
    out = {key: _view(value, kind) for key, value in node.items()}
    for key, value in node.items():
        siblings = interval_keys(key) if kind == "lower" else (official_key(key),)
        alternative = next((node[s] for s in siblings if node.get(s) is not None), None)
        if alternative is None or is_derived(key):
            continue
        if _is_number(value):
            replacement = _pick(alternative, kind)
            if replacement is not None:
                out[key] = replacement
        elif isinstance(value, dict) and isinstance(alternative, dict):
            out[key] = {
                name: _pick(alternative.get(name), kind) if _pick(alternative.get(name), kind) is not None else v
                for name, v in value.items()
            }
    return out


def _pick(alternative: Any, kind: str) -> float | None:
    if kind == "lower":
        if isinstance(alternative, (list, tuple)) and len(alternative) == 2 and _is_number(alternative[0]):
            return float(alternative[0])
        return None
    return float(alternative) if _is_number(alternative) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def evaluate(
    thresholds: list[Threshold],
    metrics: dict[str, Any],
    errors: int,
    max_errors: int,
    *,
    gate_on: str = "point",
    gate_value: str = "strict",
) -> list[str]:
    """One message per threshold (or error budget) that does not hold; empty when the gate passes."""
    shortfalls = []
    seen = views(metrics, gate_on, gate_value)
    for threshold in thresholds:
        checked = [(what, threshold.benchmark.gate_values(threshold.metric, view)) for what, view in seen]
        for position, (label, value) in enumerate(checked[0][1]):
            if value is None:
                shortfalls.append(f"{label} was not measured (required >= {threshold.minimum:g})")
                continue
            candidates = [(value, checked[0][0])]
            for what, values in checked[1:]:
                other = values[position][1] if position < len(values) else None
                if other is not None:
                    candidates.append((other, what))
            lowest, what = min(candidates, key=lambda c: c[0])
            if lowest < threshold.minimum:
                note = "" if what == "value" else f" ({what})"
                shortfalls.append(f"{label} = {lowest:.4f} < {threshold.minimum:g}{note}")
    if errors > max_errors:
        shortfalls.append(
            f"{errors} request error(s), more than --toolcall-max-errors={max_errors}: the run is incomplete"
        )
    return shortfalls


def failed_items(samples: Iterable[dict[str, Any]]) -> int:
    """Items the gate line counts as failed: expected failures (a reference the scorer rejects)
    failed too, and the metrics count them."""
    return sum(1 for r in samples if r.get("outcome") in ("failed", "xfailed"))


def report_errors(samples: list[dict[str, Any]], data_problems: list[str]) -> int:
    """Request errors as the gate counts them: errored items and parts of the data not loaded."""
    return sum(1 for r in samples if r.get("outcome") == "error") + len(data_problems)


def completeness(
    *, selected: int, not_run: int, budget_skipped: int, ordinary_failed: int, interrupted: bool
) -> list[str]:
    """Messages for a run that cannot be judged whole: items that did not run, ordinary tests that failed."""
    shortfalls = []
    if interrupted:
        shortfalls.append("the run was interrupted")
    if not_run:
        shortfalls.append(
            f"{not_run} of {selected} selected item(s) did not run (stopped early: -x, --maxfail, Ctrl-C...): "
            "the run is incomplete"
        )
    if budget_skipped:
        shortfalls.append(
            f"{budget_skipped} of {selected} selected item(s) were not asked: --toolcall-budget was spent; "
            "the run is partial"
        )
    if ordinary_failed:
        shortfalls.append(f"{ordinary_failed} test(s) besides the benchmark items failed or errored")
    return shortfalls


def regressions(comparison: dict[str, Any] | None, alpha: float, named: list[str]) -> list[str]:
    """A message for each metric whose standing is ``regressed`` at ``alpha`` (``results.standing``):
    a gated metric (a block's headline, or one a threshold names) significantly worse than in the
    baseline."""
    from pytest_toolcall.results.standing import REGRESSED, standing

    if not comparison:
        return []
    shortfalls = []
    for name, change in comparison.get("metrics", {}).items():
        if standing(name, change, alpha, named) == REGRESSED:
            shortfalls.append(
                f"{name} regressed: {change['baseline']:.4f} -> {change['now']:.4f} "
                f"(p = {change['p_value']:.4g} < {alpha:g}; {change['regressed']} unit(s) pass->fail, "
                f"{change['fixed']} fail->pass)"
            )
    return shortfalls


@dataclass(frozen=True)
class GateOptions:
    """What the gate checks: ``--toolcall-fail-under`` (``--fail-under`` offline), the error budget,
    which value a threshold checks, and the significance level of ``--toolcall-fail-on-regression``."""

    thresholds: tuple[Threshold, ...] = ()
    max_errors: int = 0
    gate_on: str = "point"
    gate_value: str = "strict"
    alpha: float | None = None  # None: regressions do not fail the gate
    #: A report merged from some of its shards only (``merge --allow-partial``) is judged as it is
    #: (its missing shards named in the passing line); False: such a report fails the gate.
    allow_partial: bool = False

    @classmethod
    def parse(
        cls,
        fail_under: str | None,
        max_errors: int,
        gate_on: str,
        gate_value: str,
        alpha: float | None,
        benchmarks: Iterable[type[Benchmark]] | None = None,
    ) -> GateOptions:
        """From the options' values; ValueError (from ``parse_thresholds``) for bad thresholds, the names
        looked up in ``benchmarks`` (the run's; default: every installed one)."""
        thresholds = tuple(parse_thresholds(fail_under, benchmarks)) if fail_under else ()
        return cls(thresholds, max_errors, gate_on, gate_value, alpha)

    @property
    def active(self) -> bool:
        """Whether a gate decides the exit status."""
        return bool(self.thresholds) or self.alpha is not None


@dataclass(frozen=True)
class GateVerdict:
    shortfalls: tuple[str, ...]  # every reason the gate fails; empty when it passes
    failed: int  # items the line counts as failed
    passed_note: str  # what held, when it passes
    #: How many answers the store gave (not measured now) and when the oldest was kept; "" when none.
    store_note: str = ""

    @property
    def passed(self) -> bool:
        return not self.shortfalls

    @property
    def line(self) -> str:
        """The line that announces the gate's result (in the terminal summary and offline)."""
        store = f" [{self.store_note}]" if self.store_note else ""
        if self.shortfalls:
            return "toolcall gate FAILED: " + "; ".join(self.shortfalls) + store
        return f"toolcall gate passed ({self.failed} item(s) failed, {self.passed_note}){store}"


def decide(result: RunResult, options: GateOptions) -> GateVerdict:
    """The gate on a run's result: thresholds, regressions against the baseline, completeness."""
    errors = report_errors(result.samples, result.data_problems)
    shortfalls = evaluate(
        list(options.thresholds),
        {**result.blocks, "stream": result.stream},  # (stream.parity)
        errors,
        options.max_errors,
        gate_on=options.gate_on,
        gate_value=options.gate_value,
    )
    if options.alpha is not None:
        shortfalls += regressions(result.comparison, options.alpha, [t.metric for t in options.thresholds])
    shortfalls += completeness(
        selected=result.selected,
        not_run=result.not_run,
        budget_skipped=result.not_asked,
        ordinary_failed=len(result.ordinary_failed),
        interrupted=result.interrupted,
    )
    missing = [str(m) for m in result.run.get("missing") or []]
    if missing and not options.allow_partial:
        shortfalls.append(f"the report is a partial merge ({'; '.join(missing)}): --allow-partial to judge it anyway")
    notes = ["every threshold holds"] if options.thresholds else []
    if options.alpha is not None:
        notes.append(f"no significant regression at alpha={options.alpha:g}")
    if missing and options.allow_partial:
        notes.append(f"a partial merge ({'; '.join(missing)})")
    return GateVerdict(tuple(shortfalls), failed_items(result.samples), ", ".join(notes), store_note(result.usage))


def store_note(usage: dict[str, Any] | None) -> str:
    """``N answer(s) from the store, the oldest stored <when>``, or "" when every answer is fresh."""
    if not usage or not usage.get("from_store"):
        return ""
    note = f"{usage['from_store']} answer(s) from the response store"
    if usage.get("oldest_stored_at"):
        note += f", the oldest stored {usage['oldest_stored_at']}"
    return note


def exit_failed(verdict: GateVerdict, result: RunResult) -> bool:
    """Whether the gate fails the run: a shortfall, or an output the run could not write."""
    return bool(verdict.shortfalls or result.output_failures)
