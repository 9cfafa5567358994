"""Metrics blocks: the helper that writes the protocol's default block, the naming rules every block
follows, and the one validator of those rules.

A metrics block is a JSON object of plain builtins, named ``<benchmark>`` or ``<benchmark>/<part>``
(``acebench/en``). The gate, the summaries, the HTML report and the comparison read a block's values
by these rules, at every level of nesting:

* ``<x>_ci95`` is the 95 % interval of the sibling number ``<x>``: ``[lo, hi]`` with lo <= hi, or
  None when nothing was measured. When ``<x>`` is an object of numbers (``groups``), ``<x>_ci95`` is
  an object with (some of) the same keys, each an interval or None.
* ``ci95`` is the interval of the sibling ``accuracy`` (a row of a table: a category, a file, a tag).
  ``accuracy_ci95`` says the same; a row has one or the other, never both.
* ``<x>_official`` is the official value of the sibling ``<x>`` (missing units and failed requests
  counted against the model), a number or None, or an object with the same keys as ``<x>``.
* An interval or an official value without its sibling, or of another shape, is an error; so is any
  other key that names a 95 % interval (``ci_95``, ``ci95_overall``, ``accuracy_ci95_low``), since the
  gate would silently read no interval for it.

``--toolcall-gate-on lower`` reads each value's interval by these names and
``--toolcall-gate-value strict`` its official value: a block that breaks them would gate on the point
value without a word, which is why ``check_blocks`` runs on every block a benchmark writes, in a run
and in ``pytest-toolcall merge|gate|html``, and a problem stops the run.

The default block (``accuracy_block``), for a benchmark whose unit passes or fails:

* ``categories``: per category ``n``, ``passed``, ``failed``, ``errors`` (a request error is a failed
  unit), ``accuracy`` (passed / n; None when every unit errored), ``ci95`` (Wilson; under repeats the
  bootstrap over units, with ``units``, ``pass_hat_k`` and ``flaky``), and ``accuracy_official`` when
  the category ran fewer units than the data holds (they count as failed there);
* ``n``, ``passed``, ``failed``, ``errors``, ``overall`` (passed / n over every unit: each unit weighs
  the same), ``overall_ci95``, ``overall_official`` (over every unit of the data, those not run as
  failed), ``partial``, ``missing_categories``, ``short_categories``, ``failure_kinds``, and under
  repeats ``pass_hat_k`` and ``flaky`` (node ids).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_toolcall.core.protocol.failure_kinds import failure_kind_counts
from pytest_toolcall.core.stats.intervals import as_list, category_fields, group_intervals, repeat_fields, unit_means_by

if TYPE_CHECKING:
    from pytest_toolcall.core.protocol.metrics import Column, Metrics, Rows

INTERVAL = "_ci95"
OFFICIAL = "_official"
#: The interval of a row's ``accuracy``.
ROW_INTERVAL = "ci95"
#: Keys that name an interval without following the rules (checked case-insensitively).
_LOOKS_LIKE_INTERVAL = re.compile(r"ci_?9\d", re.IGNORECASE)


class BlockError(ValueError):
    """A metrics block that breaks the naming rules; the message names the block and the key."""


def interval_keys(key: str) -> tuple[str, ...]:
    """Where the interval of a value named ``key`` may be written, in order."""
    return (ROW_INTERVAL, f"{key}{INTERVAL}") if key == "accuracy" else (f"{key}{INTERVAL}",)


def official_key(key: str) -> str:
    return f"{key}{OFFICIAL}"


def is_derived(key: str) -> bool:
    """Whether a key holds an interval or an official value of another key (not a value of its own)."""
    return key == ROW_INTERVAL or key.endswith((INTERVAL, OFFICIAL))


# --- the rules --------------------------------------------------------------------------------


def check_blocks(benchmark: str, blocks: Mapping[str, Any]) -> None:
    """Raise ``BlockError`` listing every rule a benchmark's blocks break (module docstring)."""
    problems = []
    for name, block in blocks.items():
        if name != benchmark and not name.startswith(f"{benchmark}/"):
            problems.append(f"block {name!r}: a block of {benchmark} is named {benchmark!r} or '{benchmark}/<part>'")
        if not isinstance(block, dict):
            problems.append(f"block {name!r}: not an object ({type(block).__name__})")
            continue
        problems += [f"block {name!r}: {problem}" for problem in block_problems(block)]
    if problems:
        raise BlockError(f"{benchmark}: metrics blocks break the naming rules: " + "; ".join(problems))


def block_problems(node: Mapping[str, Any], path: str = "") -> list[str]:
    """What breaks the naming rules in an object and the objects it holds (``path``: where it is)."""
    problems = []
    for key, value in node.items():
        where = f"{path}{key}"
        if key == ROW_INTERVAL or key.endswith(INTERVAL):
            base = "accuracy" if key == ROW_INTERVAL else key.removesuffix(INTERVAL)
            problems += _derived_problems(node, where, base, value, _interval_problem, "an interval")
        elif key.endswith(OFFICIAL):
            base = key.removesuffix(OFFICIAL)
            problems += _derived_problems(node, where, base, value, _official_problem, "an official value")
        elif _LOOKS_LIKE_INTERVAL.search(key):
            problems.append(f"{where}: an interval is named <value>_ci95 (or ci95 beside accuracy)")
        if isinstance(value, dict) and not is_derived(key):
            problems += block_problems(value, f"{where}.")
    if ROW_INTERVAL in node and f"accuracy{INTERVAL}" in node:
        problems.append(f"{path}ci95 and {path}accuracy_ci95: the interval of accuracy is written once")
    return problems


def _derived_problems(node: Mapping[str, Any], where: str, base: str, value: Any, shape: Any, what: str) -> list[str]:
    if base not in node:
        return [f"{where}: {what} of {base!r}, which the object does not have"]
    sibling = node[base]
    if isinstance(sibling, dict):
        if value is None:
            return []
        if not isinstance(value, dict):
            return [f"{where}: {what} of the object {base!r} is an object with its keys"]
        problems = [f"{where}.{k}: {base!r} has no key {k!r}" for k in value if k not in sibling]
        return problems + [f"{where}.{k}: {p}" for k, v in value.items() if (p := shape(v))]
    problem = shape(value)
    return [f"{where}: {problem}"] if problem else []


def _interval_problem(value: Any) -> str | None:
    if value is None:
        return None
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(is_number(v) for v in value)
        and value[0] <= value[1]
    ):
        return None
    return f"an interval is [lower, upper] (lower <= upper) or null, not {value!r}"


def _official_problem(value: Any) -> str | None:
    return None if value is None or is_number(value) else f"an official value is a number or null, not {value!r}"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- reading values ---------------------------------------------------------------------------


def block_value(block: Mapping[str, Any] | None, metric: str) -> float | None:
    """A metric of a block by its gate name: ``overall``, a category's accuracy, a group, or a number
    of the block itself; None when the block does not have it."""
    if not block:
        return None
    if metric == "overall":
        return block.get("overall")
    category = (block.get("categories") or {}).get(metric)
    if isinstance(category, dict):
        return category.get("accuracy")
    groups = block.get("groups") or {}
    if metric in groups:
        return groups[metric]
    value = block.get(metric)
    return value if is_number(value) else None


def reported_values(block: Mapping[str, Any] | None) -> dict[str, float]:
    """A block's values by comparison name: ``overall``, each group, each category's accuracy."""
    if not block:
        return {}
    values = {c: m["accuracy"] for c, m in (block.get("categories") or {}).items() if m.get("accuracy") is not None}
    values.update((g, v) for g, v in (block.get("groups") or {}).items() if v is not None)
    if block.get("overall") is not None:
        values["overall"] = block["overall"]
    return values


# --- the default block ------------------------------------------------------------------------


def accuracy_row(
    records: list[Mapping[str, Any]],
    expected: int | None = None,
    *,
    declared: Metrics | None = None,
    name: str = "",
) -> dict[str, Any]:
    """A category's row from its records (skipped ones left out); ``expected``: how many attempts the
    data holds for it (units times repeats), when known. ``declared``: the benchmark's declaration
    (its columns, rounding, official rows), ``name`` the row's."""
    rows = [r for r in records if r.get("outcome") != "skipped"]
    n = len(rows)
    passed = sum(1 for r in rows if r.get("score") == 1.0)
    errors = sum(1 for r in rows if r.get("outcome") == "error")
    digits = declared.digits(name) if declared is not None and declared.digits is not None else None
    measured_all = declared is not None and declared.errored_scores_zero
    row: dict[str, Any] = {
        "n": n,
        "passed": passed,
        "failed": n - passed - errors,
        "errors": errors,
        "accuracy": _rounded(passed / n, digits) if n > errors or (measured_all and n) else None,
        **category_fields(rows),
    }
    for column in declared.columns if declared is not None else ():
        row[column.name] = _column(column, rows, digits)
    if row["accuracy"] is None:  # nothing measured: no interval around a value that does not exist
        row["ci95"] = None
    official = declared is None or declared.row_official
    if official and expected is not None and n < expected:
        row["accuracy_official"] = _rounded(passed / expected, digits)
    return row


def _rounded(value: float, digits: int | None) -> float:
    return value if digits is None else round(value, digits)


def _column(column: Column, rows: list[Mapping[str, Any]], row_digits: int | None) -> float | None:
    """A column's mean over a row's records (``Column``); None when no record has the field."""
    if not any(r.get(column.field) is not None for r in rows):
        return None
    if column.missing is None:
        values = [r[column.field] for r in rows if is_number(r.get(column.field))]
    else:
        values = [r.get(column.field) or column.missing for r in rows]
    if not values:
        return None
    return _rounded(sum(values) / len(values), column.digits if column.digits is not None else row_digits)


def _categories(
    declared: Metrics | None, rows: list[Mapping[str, Any]], sizes: Mapping[str, int], attempts: int
) -> dict[str, dict[str, Any]]:
    """The rows of the first table, in order: declared ones, then those of the data, then the rest."""
    table = declared.rows[0] if declared is not None and declared.rows else None
    key = table.field if table is not None else "category"
    by_category: dict[str, list[Mapping[str, Any]]] = {}
    for record in rows:
        by_category.setdefault(str(record.get(key)), []).append(record)
    known = list(dict.fromkeys([*(table.names if table is not None else ()), *sizes]))
    order = [c for c in known if c in by_category] + sorted(c for c in by_category if c not in known)
    return {
        c: accuracy_row(by_category[c], sizes[c] * attempts if c in sizes else None, declared=declared, name=c)
        for c in order
    }


def accuracy_block(
    records: Iterable[Mapping[str, Any]], sizes: Mapping[str, int] | None = None, *, declared: Metrics | None = None
) -> dict[str, Any]:
    """The default metrics block (module docstring) from a block's records; ``sizes``: units per
    category in the data (before ``--toolcall-limit`` and any selection), when known."""
    rows = [r for r in records if r.get("outcome") != "skipped"]
    sizes = dict(sizes or {})
    attempts = max((r.get("repeat") or 1 for r in rows), default=1)
    categories = _categories(declared, rows, sizes, attempts)
    n = len(rows)
    passed = sum(m["passed"] for m in categories.values())
    errors = sum(m["errors"] for m in categories.values())
    expected = sum(max(sizes.get(c, 0) * attempts, m["n"]) for c, m in categories.items())
    expected += sum(size * attempts for c, size in sizes.items() if c not in categories)
    declared_names = declared.rows[0].names if declared is not None and declared.rows else ()
    missing = [c for c in dict.fromkeys([*declared_names, *sizes]) if c not in categories]
    short = [c for c, m in categories.items() if "accuracy_official" in m]
    overall = passed / n if n > errors else None
    return {
        "categories": categories,
        "n": n,
        "passed": passed,
        "failed": n - passed - errors,
        "errors": errors,
        "overall": overall,
        "overall_ci95": category_fields(rows)["ci95"] if overall is not None else None,
        "overall_official": passed / expected if expected and overall is not None else None,
        "partial": bool(missing or short or errors),
        "missing_categories": missing,
        "short_categories": short,
        "failure_kinds": failure_kind_counts([dict(r) for r in rows]),
        **repeat_fields(rows),
    }


# --- a block with groups ----------------------------------------------------------------------


def grouped_block(
    declared: Metrics, records: Iterable[Mapping[str, Any]], sizes: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """A block with declared groups and a weighted OVERALL (ACEBench's, BFCL's): the rows, then each
    group's value (the mean of its members run, or pooled), its official value (members not run count
    0; ``official_digits``), OVERALL = Σ weight·group renormalised over the groups measured and its
    official value; a partial block (a category missing, cut short or with errors) shows the
    renormalised values, a whole one the official ones."""
    rows = [r for r in records if r.get("outcome") != "skipped"]
    sizes = dict(sizes or {})
    attempts = max((r.get("repeat") or 1 for r in rows), default=1)
    categories = _categories(declared, rows, sizes, attempts)
    names = declared.rows[0].names if declared.rows else ()
    missing = [c for c in dict.fromkeys([*names, *sizes]) if c not in categories]
    short = [c for c, m in categories.items() if m["n"] < sizes.get(c, 0) * attempts]
    errors = sum(m["errors"] for m in categories.values())
    scores = _group_scores(declared, categories, {c for c, m in categories.items() if m["errors"]} | set(short))
    partial = bool(missing or short or errors or scores["overall"]["partial"])
    shown = [g for g, group in declared.groups.items() if group.shown]
    groups = {g: scores[g]["value" if partial else "official"] for g in shown}
    overall = scores["overall"]["value" if partial else "official"]
    block: dict[str, Any] = {"categories": categories}
    if declared.scores:
        block["scores"] = scores
    block["groups"] = groups
    if declared.group_intervals:
        intervals = group_intervals(
            {c: list(means.values()) for c, means in unit_means_by(rows, "category").items()},
            {g: group.members for g, group in declared.groups.items()},
            declared.overall.weights if declared.overall is not None else {},
            repeated=attempts > 1,
        )
        # No interval around a value that nothing measured.
        block["groups_ci95"] = {g: as_list(intervals[g]) if groups[g] is not None else None for g in shown}
    block["groups_official"] = {g: scores[g]["official"] for g in shown}
    block["overall"] = overall
    if declared.group_intervals:
        block["overall_ci95"] = as_list(intervals["overall"]) if overall is not None else None
    block.update(
        overall_official=scores["overall"]["official"],
        partial=partial,
        missing_categories=missing,
        short_categories=short,
        errors=errors,
        failure_kinds=failure_kind_counts([dict(r) for r in rows]),
        **repeat_fields(rows),
    )
    return block


def _group_scores(
    declared: Metrics, categories: Mapping[str, Mapping[str, Any]], incomplete: set[str]
) -> dict[str, dict[str, Any]]:
    """Every group's and OVERALL's ``value`` (over what ran), ``official`` (what did not run counts
    0) and ``partial`` (a member not run, cut short or with errors)."""
    accuracy = {c: m["accuracy"] for c, m in categories.items() if m["accuracy"] is not None}
    official_accuracy = {c: categories[c].get("accuracy_official", value) for c, value in accuracy.items()}
    data_sizes = declared.data_sizes() if declared.data_sizes is not None else {}
    digits = declared.official_digits
    scores: dict[str, dict[str, Any]] = {}

    def value(member: str) -> float | None:
        return scores[member]["value"] if member in scores else accuracy.get(member)

    def official(member: str) -> float:
        return scores[member]["official"] if member in scores else official_accuracy.get(member, 0.0)

    def partial(member: str) -> bool:
        return scores[member]["partial"] if member in scores else member not in accuracy or member in incomplete

    for name, group in declared.groups.items():
        members = group.members
        group_value: float | None
        if group.pooled:
            run = [m for m in members if m in accuracy]
            passed = sum(categories[m]["passed"] for m in run)
            total = sum(categories[m]["n"] for m in run)
            weight = total + sum(data_sizes.get(m, 0) for m in members if m not in accuracy)
            group_value, group_official = (passed / total if total else None), (passed / weight if weight else 0.0)
        else:
            present = [v for m in members if (v := value(m)) is not None]
            group_value = sum(present) / len(present) if present else None
            group_official = sum(official(m) for m in members) / len(members) if members else 0.0
        if digits is not None:
            group_official = round(group_official, digits)
        score = {
            "value": group_value,
            "official": group_official,
            "partial": not members or any(partial(m) for m in members),
        }
        scores[name] = score
    weights = declared.overall.weights if declared.overall is not None else {}
    evaluated = {g: (w, v) for g, w in weights.items() if (v := scores[g]["value"]) is not None}
    overall_official: float | None = sum(w * scores[g]["official"] for g, w in weights.items())
    if declared.overall is not None and declared.overall.divide_official and overall_official is not None:
        overall_official /= sum(weights.values())
    if digits is not None and overall_official is not None:
        overall_official = round(overall_official, digits)
    if not accuracy:  # nothing measured: no official value either
        for score in scores.values():
            score["official"] = None
        overall_official = None
    scores["overall"] = {
        "value": sum(w * v for w, v in evaluated.values()) / sum(w for w, _ in evaluated.values())
        if evaluated
        else None,
        "official": overall_official,
        "partial": any(scores[g]["partial"] for g in weights),
    }
    return scores


# --- a block with errors and skips apart ----------------------------------------------------


def apart_block(declared: Metrics, records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A block whose items that errored or were skipped are counted apart (``Metrics.apart``): per
    table, a row per value of its field (``n``, ``passed``, ``accuracy`` over the items scored, its
    ``ci95``, and ``failed`` ids where declared), then ``n``, ``passed``, ``overall`` over every item
    scored, ``overall_ci95``, ``errors``, ``skipped``, the failure kinds and, under repeats, pass^k and
    the flaky units. A row or OVERALL with nothing scored has no accuracy (never 0)."""
    records = list(records)
    scored = [r for r in records if r.get("outcome") not in ("error", "skipped")]
    block: dict[str, Any] = {}
    for table in declared.rows:
        present = list(dict.fromkeys(name for r in records for name in row_names(table, r)))
        order = [n for n in table.names if n in present] + sorted(n for n in present if n not in table.names)
        rows = {}
        for name in order:
            members = [r for r in scored if name in row_names(table, r)]
            passed = sum(1 for r in members if _passed(r))
            row: dict[str, Any] = {
                "n": len(members),
                "passed": passed,
                "accuracy": passed / len(members) if members else None,
                "ci95": category_fields(members)["ci95"] if members else None,
            }
            if table.failed_ids:
                row["failed"] = sorted(str(r.get("id")) for r in members if not _passed(r))
            rows[name] = row
        block[table.key] = rows
    passed = sum(1 for r in scored if _passed(r))
    block.update(
        n=len(scored),
        passed=passed,
        overall=passed / len(scored) if scored else None,
        overall_ci95=category_fields(scored)["ci95"] if scored else None,
        errors=sum(1 for r in records if r.get("outcome") == "error"),
        skipped=sum(1 for r in records if r.get("outcome") == "skipped"),
        failure_kinds=failure_kind_counts([dict(r) for r in scored if not _passed(r)]),
        **repeat_fields(scored),
    )
    return block


def row_names(table: Rows, record: Mapping[str, Any]) -> list[str]:
    """The rows of a table a record counts in (a list-valued field: each of its values, once)."""
    value = record.get(table.field)
    if isinstance(value, (list, tuple)):
        return [str(v) for v in dict.fromkeys(value)]
    return [str(value)] if value is not None or table.field == "category" else []


def _passed(record: Mapping[str, Any]) -> bool:
    """A scored item passed: its score is 1.0 (without a score: its outcome is "passed")."""
    score = record.get("score")
    return score == 1.0 if score is not None else record.get("outcome") == "passed"
