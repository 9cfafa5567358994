"""Metrics declared: what a benchmark measures, said once, from which the generic layer derives the
metrics block, its gate names and values, its JUnit properties and the comparison with a baseline.

A benchmark sets ``metrics = Metrics(...)`` (the default declares per-category accuracy and OVERALL,
every unit alike). The declaration says:

* how records split into blocks (``per``: one block ``<name>/<part>`` per value of a record field,
  ACEBench's ``lang``) and into rows (``rows``: tables of rows keyed by a record field, the
  ``categories`` by default; a row's name is a gate name, ``<gate>.<row>`` for a table with a gate
  prefix, the cases' ``file.<file>`` and ``tag.<tag>``);
* what each row shows besides its accuracy (``columns``: means of record fields) and how accuracies
  are rounded (``digits``), as the official scorer rounds them;
* the groups (``groups``: a group is the mean of its members' values, categories or groups declared
  before it, or ``pooled``: passed / n over its members' units) and OVERALL (``overall``: Σ weight ·
  group), with their official values (a member not run counts 0; a pooled group weighs a member not
  run by its size in the whole data, ``data_sizes``);
* how attempts under repeats reduce to a unit's value (``reducer``: ``core.stats.repeats``);
* further numbers of the block that are gate names (``numbers``, general_fc's ``tool_call_f1``),
  ``aliases``, whether the benchmark takes unprefixed names (``unprefixed``: ACEBench's ``overall``,
  ``zh.atom``), which metrics the regression gate checks unnamed (``gated``);
* where a benchmark's numbers are its own: ``fields`` adds fields to the derived block (BFCL's mode),
  ``block`` computes a block of another shape whose rows and numbers the declaration still names
  (general_fc's confusion, τ²'s pass^k per domain), ``tests`` compares a number by a test of its own
  (general_fc's F1).

From it: ``derive_blocks`` (the block), ``gate_names`` (every name a threshold may give, checked at
start-up), ``claims`` / ``gate_values`` (a name's owner and its values in a run's blocks), ``compare``
(the paired comparison with a baseline: the same names, the same weights, ``gated``),
``suite_properties`` (JUnit). One name means one thing everywhere: a group whose name is also a
category's is named ``group.<name>`` (BFCL's ``bfcl.irrelevance`` is the category,
``bfcl.group.irrelevance`` the summary score), and ``check_declaration`` refuses a declaration whose
names collide otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_toolcall.core.protocol.blocks import row_names
from pytest_toolcall.core.stats.repeats import MEAN, Reducer

if TYPE_CHECKING:
    from pytest_toolcall.core.protocol.benchmark import Benchmark

#: A placeholder in a gate name: any value (``cases.file.<file>``); ``<k>`` a whole number.
_PLACEHOLDER = re.compile(r"<[a-z_]+>")
_NUMBER = "<k>"


@dataclass(frozen=True)
class Column:
    """A number of each row besides its accuracy: the mean of a record field over the row's records,
    None when no record has it."""

    name: str
    field: str
    #: Rounding (the official digits); None: as the row's accuracy is rounded (``Metrics.digits``).
    digits: int | None = None
    #: What a record without the field counts as; None: such records are left out of the mean.
    missing: float | None = None


@dataclass(frozen=True)
class Rows:
    """A table of rows: the records grouped by a record field, under a key of the block."""

    key: str = "categories"
    field: str = "category"
    #: The rows the data can have, in order (gate names; a declared row not run is missing). Empty:
    #: whatever the records hold, each a gate name looked up when the gate runs.
    names: tuple[str, ...] = ()
    #: The gate-name prefix of its rows (``file``: ``cases.file.<row>``); "": the row's name alone.
    gate: str = ""
    #: Whether each row lists the ids of its units that did not pass (``failed``).
    failed_ids: bool = False
    #: Row name -> the name gates use, when they differ (a file's path -> its short label).
    labels: Callable[[Iterable[str]], Mapping[str, str]] | None = None
    #: A row's shortest name: a gate name that is no row's label reads every row of that short name
    #: pooled (``cases.file.smoke`` for ``a/smoke`` and ``b/smoke``).
    short: Callable[[str], str] | None = None

    def placeholder(self) -> str:
        return f"<{self.field.rstrip('s')}>"


@dataclass(frozen=True)
class Group:
    """A group of rows of the first table: the unweighted mean of its members' values (categories, or
    groups declared before it), or ``pooled``: passed / n over its members' units."""

    members: tuple[str, ...]
    pooled: bool = False
    #: False: a step of another group only (BFCL's ``simple``, the absent ``agentic``): in the block's
    #: ``scores`` but neither in its ``groups`` nor a gate name.
    shown: bool = True


@dataclass(frozen=True)
class Overall:
    """OVERALL as Σ weight · group over the weighted groups (renormalised over the groups measured)."""

    weights: Mapping[str, float]
    #: Whether the official OVERALL divides by the weights' sum (BFCL's, which sum to 100); ACEBench
    #: uses its published weights as they are (they sum to 1.0001).
    divide_official: bool = True


@dataclass(frozen=True)
class Metrics:
    """A benchmark's metrics, declared (module docstring)."""

    rows: tuple[Rows, ...] = (Rows(),)
    columns: tuple[Column, ...] = ()
    #: Rounding of a row's accuracy by row name (ACEBench: 3 digits but special categories); None: none.
    digits: Callable[[str], int | None] | None = None
    groups: Mapping[str, Group] = field(default_factory=dict)
    overall: Overall | None = None
    #: Whether OVERALL is the mean of the first table's rows (τ²: of its domains) rather than of its
    #: units (each unit alike), when no ``overall`` weights groups.
    overall_of_rows: bool = False
    #: Rounding of the official groups and OVERALL (ACEBench: 3).
    official_digits: int | None = None
    #: Whether groups and OVERALL carry a bootstrap interval (``groups_ci95``, ``overall_ci95``).
    group_intervals: bool = True
    #: Whether the block has ``scores``: every group and OVERALL with ``value``, ``official``, ``partial``.
    scores: bool = False
    #: Whether items whose request errored or that were skipped are counted apart (``errors``,
    #: ``skipped``), in no accuracy, rather than as failed units (the cases' and probes' rule: a flaky
    #: endpoint lowers no number silently, the gate fails on errors instead).
    apart: bool = False
    #: Whether a row cut short carries ``accuracy_official`` (its missing units counted as failed).
    row_official: bool = True
    #: Whether a row whose every unit errored scores 0 (BFCL: a failed request is a wrong answer)
    #: rather than having no accuracy (nothing measured).
    errored_scores_zero: bool = False
    #: Units per category in the whole data (a pooled group's official weight of a category not run).
    data_sizes: Callable[[], Mapping[str, int]] | None = None
    #: A record field splitting the records into blocks ``<name>/<part>`` (ACEBench's ``lang``).
    per: str | None = None
    #: The parts it can take (gate names ``<part>.<metric>`` and ``<name>/<part>.<metric>``).
    parts: tuple[str, ...] = ()
    #: What a part is called in messages ("language").
    part_title: str = "part"
    reducer: Reducer = MEAN
    #: Further gate names: numbers of the block itself (``<x>`` a placeholder).
    numbers: tuple[str, ...] = ()
    #: Other names for metrics (``normal_atom`` -> ``atom``).
    aliases: Mapping[str, str] = field(default_factory=dict)
    #: Whether names without the benchmark's name are its own (``overall``, ``zh.atom``): one
    #: installed benchmark at most declares it.
    unprefixed: bool = False
    #: The metrics ``--toolcall-fail-on-regression`` checks without a threshold naming them.
    gated: tuple[str, ...] = ("overall",)
    #: Fields of the benchmark's own added to each derived block: (benchmark, records) -> fields.
    fields: Callable[[Any, list[dict[str, Any]]], dict[str, Any]] | None = None
    #: A block of the benchmark's own shape: (benchmark, records) -> block, instead of the derived one.
    block: Callable[[Any, list[dict[str, Any]]], dict[str, Any]] | None = None
    #: Numbers compared by a test of their own: name -> (baseline records, records) -> comparison.
    tests: Mapping[str, Callable[[list[dict[str, Any]], list[dict[str, Any]]], dict[str, Any]]] = field(
        default_factory=dict
    )

    @property
    def has_overall(self) -> bool:
        return bool(self.rows) or self.overall is not None


# --- names ----------------------------------------------------------------------------------------


def group_names(declared: Metrics) -> dict[str, str]:
    """Each shown group's gate name: its own, or ``group.<name>`` when a row has that name too."""
    rows = {name for table in declared.rows if not table.gate for name in table.names}
    return {g: f"group.{g}" if g in rows else g for g, group in declared.groups.items() if group.shown}


def metric_names(declared: Metrics) -> list[str]:
    """The metric names of a block (without the benchmark's name), placeholders as ``<x>``."""
    names = ["overall"] if declared.has_overall else []
    names += group_names(declared).values()
    for table in declared.rows:
        prefix = f"{table.gate}." if table.gate else ""
        names += [f"{prefix}{row}" for row in table.names] or [f"{prefix}{table.placeholder()}"]
    names += declared.numbers
    names += [alias for alias in declared.aliases if alias not in names]
    return list(dict.fromkeys(names))


def gate_names(benchmark: type[Benchmark]) -> tuple[str, ...]:
    """Every gate name of a benchmark, as a threshold gives it: ``<name>.<metric>``, with
    ``<name>/<part>.<metric>`` when its blocks are split, and ``<metric>`` and ``<part>.<metric>``
    when it takes unprefixed names. A ``<x>`` is a placeholder (any value). The start-up check of
    thresholds and the docs' lists are built on it."""
    declared = benchmark.metrics
    metrics = metric_names(declared)
    names = [f"{benchmark.name}.{m}" for m in metrics]
    if declared.per:
        parts = declared.parts or (f"<{declared.per}>",)
        names += [f"{benchmark.name}/{part}.{m}" for part in parts for m in metrics]
        if declared.unprefixed:
            names += [f"{part}.{m}" for part in parts for m in metrics]
    if declared.unprefixed:
        names += metrics
    return tuple(dict.fromkeys(names))


def _matches(pattern: str, name: str) -> bool:
    if "<" not in pattern:
        return pattern == name
    regex = "".join(
        ("[0-9]+" if piece == _NUMBER else "[^.]+(?:\\.[^.]+)*") if _PLACEHOLDER.fullmatch(piece) else re.escape(piece)
        for piece in re.split(r"(<[a-z_]+>)", pattern)
    )
    return re.fullmatch(regex, name) is not None


def _known(declared: Metrics, metric: str) -> bool:
    return any(_matches(pattern, metric) for pattern in metric_names(declared))


def _unknown(benchmark: type[Benchmark], name: str) -> ValueError:
    names = [m for m in metric_names(benchmark.metrics) if m not in benchmark.metrics.aliases]
    shown = ", ".join(f"{benchmark.name}.{m}" for m in names[:12]) + (", ..." if len(names) > 12 else "")
    return ValueError(f"unknown metric {name!r}; {benchmark.name} measures {shown}")


def resolve(benchmark: type[Benchmark], name: str) -> tuple[str | None, str] | None:
    """(part, metric) a gate name names in this benchmark (part None: every block), the metric with
    its alias resolved; None when the name is not the benchmark's. ``ValueError`` for a name of the
    benchmark that it does not measure (``unknown metric ...``)."""
    declared = benchmark.metrics
    head, dot, rest = name.partition(".")
    bench, slash, part = head.partition("/")
    if dot and bench == benchmark.name:
        if slash and declared.per and declared.parts and part not in declared.parts:
            raise ValueError(f"unknown {declared.part_title} {part!r} in {name!r}")
        if not rest or not _known(declared, rest):
            raise _unknown(benchmark, name)
        return (part if slash else None), declared.aliases.get(rest, rest)
    if not declared.unprefixed:
        return None
    part_name, dot, metric = name.partition(".") if declared.per else ("", "", name)
    if not dot:
        part_name, metric = "", name
    if part_name:
        if declared.parts and part_name not in declared.parts:
            raise ValueError(f"unknown {declared.part_title} {part_name!r} in {name!r}")
        if not _known(declared, metric):
            raise _unknown(benchmark, name)
    elif not _known(declared, metric) or "<" in metric:
        return None
    return (part_name or None), declared.aliases.get(metric, metric)


def claims(benchmark: type[Benchmark], name: str) -> bool:
    """Whether a gate name is this benchmark's (``resolve``); ``ValueError`` for one it does not measure."""
    return resolve(benchmark, name) is not None


# --- values ---------------------------------------------------------------------------------------


def metric_value(declared: Metrics, block: Mapping[str, Any] | None, metric: str) -> float | None:
    """A metric's value in a block (or a gate's view of it) by its declared kind; None when the block
    does not have it."""
    if not block:
        return None
    if metric == "overall" and declared.has_overall:
        return _number(block.get("overall"))
    groups = {gate: g for g, gate in group_names(declared).items()}
    if metric in groups:
        return _number((block.get("groups") or {}).get(groups[metric]))
    for table in declared.rows:
        rows = block.get(table.key)
        if not isinstance(rows, dict):
            continue
        if table.gate:
            prefix = f"{table.gate}."
            if metric.startswith(prefix):
                return _row_value(table, rows, metric.removeprefix(prefix))
            continue
        row = rows.get(metric)
        if isinstance(row, dict):
            return _number(row.get("accuracy"))
        if metric in table.names:
            return None
    if metric in declared.numbers or any(_matches(p, metric) for p in declared.numbers):
        return _number(block.get(metric))
    if any(not table.names and not table.gate for table in declared.rows):
        return _number(block.get(metric))  # rows not declared: any number of the block
    return None


def _row_value(table: Rows, rows: Mapping[str, Any], name: str) -> float | None:
    labels = table.labels(rows) if table.labels else {row: row for row in rows}
    named = [row for row, label in labels.items() if label == name]
    if len(named) == 1:
        return _number((rows[named[0]] or {}).get("accuracy"))
    pooled = named or [row for row in rows if table.short is not None and table.short(row) == name]
    n = sum(rows[row].get("n") or 0 for row in pooled)
    return sum(rows[row].get("passed") or 0 for row in pooled) / n if n else None


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def gate_values(benchmark: type[Benchmark], name: str, metrics: Mapping[str, Any]) -> list[tuple[str, float | None]]:
    """(label, value) of a gate name in every block it applies to (its part's, or each of the
    benchmark's); None: not measured. ``metrics`` is a gate's view of the blocks (lower bounds,
    official values), so the value is read on the interval or the official value it was asked for."""
    resolved = resolve(benchmark, name)
    if resolved is None:
        return [(name, None)]
    part, metric = resolved
    own = sorted(b for b in metrics if b == benchmark.name or b.startswith(f"{benchmark.name}/"))
    blocks = [f"{benchmark.name}/{part}"] if part else own
    if not blocks:
        return [(name, None)]
    declared = benchmark.metrics
    values = []
    for block in blocks:
        if declared.per:
            label = f"{block} {metric}"  # (ACEBench's gate lines have always read so)
        else:
            label = name if len(blocks) == 1 else f"{block}.{metric}"
        values.append((label, metric_value(declared, metrics.get(block), metric)))
    return values


# --- JUnit ----------------------------------------------------------------------------------------


def suite_properties(benchmark: Benchmark, name: str, block: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """JUnit properties of a block: its top-level numbers and flags, then every gate metric's value
    (``<block>.<metric>``) and each row's further numbers (``<block>.<row>.<column>``)."""
    declared = benchmark.metrics
    props: list[tuple[str, Any]] = [
        (f"{name}.{key}", value) for key, value in block.items() if not isinstance(value, (dict, list))
    ]
    seen = {prop for prop, _ in props}
    for metric in block_metrics(declared, block):
        value = metric_value(declared, block, metric)
        if value is not None and f"{name}.{metric}" not in seen:
            props.append((f"{name}.{metric}", value))
            seen.add(f"{name}.{metric}")
    for table in declared.rows:
        for row_name, row in (block.get(table.key) or {}).items():
            if not isinstance(row, dict) or table.gate:
                continue
            for column in ("accuracy", *(c.name for c in declared.columns)):
                if _number(row.get(column)) is not None:
                    props.append((f"{name}.{row_name}.{column}", row[column]))
    return props


def block_metrics(declared: Metrics, block: Mapping[str, Any]) -> list[str]:
    """The concrete metric names of a block: declared ones, and the rows and numbers it holds."""
    names: list[str] = []
    for metric in metric_names(declared):
        if metric in declared.aliases:
            continue
        if "<" not in metric:
            names.append(metric)
            continue
        for table in declared.rows:
            prefix = f"{table.gate}." if table.gate else ""
            if metric == f"{prefix}{table.placeholder()}":
                rows = block.get(table.key) or {}
                labels = table.labels(rows) if table.labels else {row: row for row in rows}
                names += [f"{prefix}{label}" for label in sorted(set(labels.values()))]
        if metric in declared.numbers:
            names += [key for key in block if _matches(metric, key) and _number(block[key]) is not None]
    return list(dict.fromkeys(names))


# --- the comparison with a baseline ----------------------------------------------------------------


def comparison_weights(declared: Metrics, units: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """The metrics of a block the comparison tests, each as unit weights (unit key -> weight, summing
    to 1) over ``units``, the units both runs share (key -> a record of it): every row of every
    table (its units alike), every shown group and OVERALL as the block computes them."""
    from pytest_toolcall.core.stats.comparison import unit_weights

    weights: dict[str, dict[str, float]] = {}
    first: dict[str, list[str]] = {}
    for number, table in enumerate(declared.rows):
        by_row: dict[str, list[str]] = {}
        for key, record in sorted(units.items()):
            for row in row_names(table, record):
                by_row.setdefault(row, []).append(key)
        if number == 0:
            first = by_row
        labels = table.labels(by_row) if table.labels else {row: row for row in by_row}
        prefix = f"{table.gate}." if table.gate else ""
        for row, keys in sorted(by_row.items()):
            weights[f"{prefix}{labels[row]}"] = dict.fromkeys(keys, 1 / len(keys))
    counts = {row: len(keys) for row, keys in first.items()}
    shares = group_shares(declared, counts)
    for group, gate in group_names(declared).items():
        if shares.get(group):
            weights[gate] = {key: share / counts[row] for row, share in shares[group].items() for key in first[row]}
    if declared.overall is not None and shares.get("overall"):
        weights["overall"] = {key: s / counts[row] for row, s in shares["overall"].items() for key in first[row]}
    elif declared.rows and units:
        # Every unit alike (passed / n), or each row alike (τ²: the mean of its domains).
        weights["overall"] = (
            unit_weights({row: keys for row, keys in first.items()})
            if declared.overall_of_rows
            else dict.fromkeys(units, 1 / len(units))
        )
    return {name: w for name, w in weights.items() if w}


def group_shares(declared: Metrics, counts: Mapping[str, int]) -> dict[str, dict[str, float]]:
    """Each group's and OVERALL's value as Σ share · row accuracy over the rows run (``counts``: units
    per row), renormalised over the members run as the block's values are."""
    present = {row: n for row, n in counts.items() if n}
    shares: dict[str, dict[str, float]] = {}

    def combine(parts: list[tuple[dict[str, float], float]]) -> dict[str, float]:
        parts = [(part, weight) for part, weight in parts if part]
        total = sum(weight for _, weight in parts)
        combined: dict[str, float] = {}
        for part, weight in parts:
            for row, share in part.items():
                combined[row] = combined.get(row, 0.0) + share * weight / total
        return combined

    def member(name: str) -> dict[str, float]:
        if name in shares:
            return shares[name]
        return {name: 1.0} if name in present else {}

    for group_name, group in declared.groups.items():
        if group.pooled:
            run = [m for m in group.members if m in present]
            total = sum(present[m] for m in run)
            shares[group_name] = {m: present[m] / total for m in run}
        else:
            shares[group_name] = combine([(member(m), 1.0) for m in group.members])
    if declared.overall is not None:
        shares["overall"] = combine([(shares.get(g, {}), float(w)) for g, w in declared.overall.weights.items()])
    return shares


def compare(
    benchmark: Benchmark,
    baseline_samples: list[dict[str, Any]],
    baseline_metrics: Mapping[str, Mapping[str, Any]],
    samples: list[dict[str, Any]],
    blocks: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """A benchmark's metrics against a baseline run: full metric name (``<block>.<metric>``, the gate
    names) -> ``core.stats.comparison.compare_metric``'s fields plus ``gated``.

    Per block, over the units both runs share (a unit's value its attempts reduced by the declared
    reducer), every metric of ``comparison_weights``, by McNemar's exact test on units run once and
    weighing alike, else the sign-flip test (repeats, weighted groups); the numbers of ``tests`` by
    their own test. The values shown are the blocks' own (read as the gate reads them) when both ran
    whole (not partial, no errors), else the weighted means over the shared units."""
    from pytest_toolcall.core.stats.comparison import compare_metrics
    from pytest_toolcall.core.stats.estimates import attempt_scores, unit_key

    declared = benchmark.metrics
    reduce = declared.reducer.values
    changes: dict[str, dict[str, Any]] = {}
    for block in sorted({block_of(benchmark, s) for s in samples}):
        before_rows = [s for s in baseline_samples if block_of(benchmark, s) == block]
        now_rows = [s for s in samples if block_of(benchmark, s) == block]
        for metric, test in declared.tests.items():
            changes[f"{block}.{metric}"] = {**test(before_rows, now_rows), "gated": metric in declared.gated}
        before, now = reduce(attempt_scores(before_rows)), reduce(attempt_scores(now_rows))
        if not before or not declared.rows:
            continue
        shared = {unit_key(s): s for s in now_rows if unit_key(s) in before and unit_key(s) in now}
        old, new = baseline_metrics.get(block), blocks.get(block)
        whole = all(b and not b.get("partial") and not b.get("errors") for b in (old, new))
        weights = {m: w for m, w in comparison_weights(declared, shared).items() if m not in declared.tests}
        compared = compare_metrics(
            before,
            now,
            weights,
            baseline_values=_values(declared, old, weights) if whole else None,
            now_values=_values(declared, new, weights) if whole else None,
        )
        for metric, change in compared.items():
            changes[f"{block}.{metric}"] = {**change, "gated": metric in declared.gated}
    return changes


def _values(declared: Metrics, block: Mapping[str, Any] | None, metrics: Iterable[str]) -> dict[str, float]:
    values = {metric: metric_value(declared, block, metric) for metric in metrics}
    return {metric: value for metric, value in values.items() if value is not None}


# --- blocks and their sizes ------------------------------------------------------------------------


def block_of(benchmark: Benchmark, record: Mapping[str, Any]) -> str:
    """The block a record (or a unit's ``identity()``) counts in: ``<name>``, or ``<name>/<part>``."""
    per = benchmark.metrics.per
    return f"{benchmark.name}/{record.get(per)}" if per else benchmark.name


def check_declaration(benchmark: type[Benchmark]) -> None:
    """Raise ``ValueError`` when a benchmark's declared names collide (one name, two meanings) or a
    group names a member that is neither a row nor a group declared before it."""
    declared = benchmark.metrics
    seen: set[str] = set()
    for group_name, group in declared.groups.items():
        rows = {row for table in declared.rows for row in table.names}
        unknown = [m for m in group.members if m not in rows and m not in seen]
        if rows and unknown:
            raise ValueError(f"{benchmark.name}: group {group_name!r} has unknown members {unknown}")
        seen.add(group_name)
    names = [m for m in metric_names(declared) if m not in declared.aliases]
    doubled = sorted({m for m in names if names.count(m) > 1})
    kinds: dict[str, str] = {}
    for table in declared.rows:
        for row in table.names:
            gate = f"{table.gate}.{row}" if table.gate else row
            if gate in kinds:
                doubled.append(gate)
            kinds[gate] = table.key
    for gate in group_names(declared).values():
        if gate in kinds:
            doubled.append(gate)
        kinds[gate] = "groups"
    for number in declared.numbers:
        if number in kinds:
            doubled.append(number)
    if doubled:
        raise ValueError(f"{benchmark.name}: gate names with two meanings: {', '.join(sorted(set(doubled)))}")


# --- derivation of the block -------------------------------------------------------------------------


def derive_blocks(benchmark: Benchmark, records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The metrics blocks (name -> block) of a benchmark's records, by its declaration; no block
    without records."""
    declared = benchmark.metrics
    by_block: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_block.setdefault(block_of(benchmark, record), []).append(record)
    blocks = {}
    for name, rows in sorted(by_block.items()):
        if declared.block is not None:
            blocks[name] = declared.block(benchmark, rows)
            continue
        block = derive_block(declared, rows, benchmark.sizes_by_block.get(name))
        if declared.fields is not None:
            block.update(declared.fields(benchmark, rows))
        blocks[name] = block
    return blocks


def derive_block(
    declared: Metrics, records: Iterable[Mapping[str, Any]], sizes: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """One block from its records: the rows of the first table (``categories``), what is missing,
    the groups and OVERALL with their official values and intervals, failure kinds and repeats.
    ``sizes``: units per category in the data (before ``--toolcall-limit`` and any selection)."""
    from pytest_toolcall.core.protocol.blocks import accuracy_block, apart_block, grouped_block

    if declared.apart:
        return apart_block(declared, records)
    if not declared.groups and declared.overall is None:
        return accuracy_block(records, sizes, declared=declared)
    return grouped_block(declared, records, sizes)


# --- aggregation context (for merge) -----------------------------------------------------------------


def aggregation_context(benchmark: Benchmark) -> dict[str, Any]:
    """What the derivation needs besides the records, kept in the report (``run.aggregation``) so that
    ``pytest-toolcall merge`` recomputes the same blocks without loading the data: the data's units
    per block and category."""
    return {"sizes": benchmark.sizes_by_block} if benchmark.sizes_by_block else {}


def restore_context(benchmark: Benchmark, context: Mapping[str, Any]) -> None:
    """Take back ``aggregation_context`` (before deriving the blocks of a report). Reads, too, the form
    earlier versions wrote for a benchmark split into parts (``{"<part>/<category>": n}``)."""
    sizes: dict[str, dict[str, int]] = {}
    for key, value in (context.get("sizes") or {}).items():
        if isinstance(value, dict):
            sizes[str(key)] = {str(c): int(n) for c, n in value.items()}
        else:
            part, _, category = str(key).partition("/")
            sizes.setdefault(f"{benchmark.name}/{part}", {})[category] = int(value)
    benchmark.sizes_by_block = sizes
