"""Category accuracies and the official BFCL summary scores.

The official leaderboard combines categories in a fixed way:

* non-live = unweighted mean of four AST groups: simple (itself the unweighted mean of simple_python,
  simple_java, simple_javascript), multiple, parallel, parallel_multiple;
* live = mean of live_simple, live_multiple, live_parallel, live_parallel_multiple *weighted by their
  sample counts*;
* hallucination measures: irrelevance = unweighted mean of irrelevance and live_irrelevance;
  relevance = live_relevance;
* multi-turn = unweighted mean of its four categories (given to us by the multi-turn code);
* agentic = mean of the web-search mean and the memory mean (not run here: 0 officially);
* overall = 10 % non-live + 10 % live + 10 % irrelevance + 30 % multi-turn + 40 % agentic.

The agentic categories (web search, memory) and format sensitivity are not part of this plugin, so
the overall score is always partial: renormalised over the groups that ran, the official value (with
agentic counted 0) beside it.

A category that was not run counts as 0 in the official numbers (with its full dataset size as weight
in the live mean). Since a run over a subset of categories would then look dreadful, each score is also
given renormalised over what was run, marked ``partial``; the official value is kept beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pytest_toolcall.api import Column, Group, Metrics, Overall, Rows, derive_block, group_shares
from pytest_toolcall.benchmarks.bfcl.data import DATA_DIR, FILE_PREFIX

SIMPLE_GROUP = ("simple_python", "simple_java", "simple_javascript")
NON_LIVE_GROUPS: tuple[tuple[str, ...], ...] = (SIMPLE_GROUP, ("multiple",), ("parallel",), ("parallel_multiple",))
LIVE_AST = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
IRRELEVANCE = ("irrelevance", "live_irrelevance")
RELEVANCE = ("live_relevance",)
MULTI_TURN = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
OVERALL_WEIGHTS = {"non_live": 10, "live": 10, "irrelevance": 10, "multi_turn": 30, "agentic": 40}
#: BFCL V4's agentic part: web search (two categories) and memory (three backends), each the
#: unweighted mean of its categories; agentic is the unweighted mean of the two.
WEB_SEARCH = ("web_search_base", "web_search_no_snippet")
MEMORY_OFFICIAL = ("memory_kv", "memory_vector", "memory_rec_sum")
#: The memory categories measured here (the vector backend needs embedding-model weights).
MEMORY = ("memory_kv", "memory_rec_sum")
#: Not measured, with the reason (named wherever the V4 overall is shown).
NOT_MEASURED = {
    "web_search_base": "needs a live web-search API",
    "web_search_no_snippet": "needs a live web-search API",
    "memory_vector": "needs the weights of the embedding model all-MiniLM-L6-v2",
}
#: The non-scoring category: the same 200 single-turn entries asked in 26 prompt formats.
FORMAT_SENSITIVITY = "format_sensitivity"


@dataclass(frozen=True)
class CategoryScore:
    passed: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.passed / self.total if self.total else 0.0


@dataclass(frozen=True)
class Score:
    """A summary score: ``value`` over the categories that were run (None when none was), ``official``
    as the leaderboard computes it (missing categories count 0), ``partial`` when some were missing."""

    value: float | None
    official: float
    partial: bool

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "official": self.official, "partial": self.partial}


def category_scores(outcomes: Iterable[tuple[str, bool]]) -> dict[str, CategoryScore]:
    """(category, passed) pairs, one per sample, counted per category."""
    counts: dict[str, list[int]] = {}
    for category, passed in outcomes:
        pair = counts.setdefault(category, [0, 0])
        pair[0] += bool(passed)
        pair[1] += 1
    return {category: CategoryScore(p, t) for category, (p, t) in counts.items()}


@cache
def dataset_size(category: str) -> int:
    """Number of samples of a shipped category (the official weight of a category that was not run)."""
    path = DATA_DIR / f"{FILE_PREFIX}_{category}.json"
    try:
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    except OSError:
        return 0


def _mean(scores: Mapping[str, CategoryScore], names: Iterable[str]) -> Score:
    names = tuple(names)
    present = [scores[name].accuracy for name in names if name in scores]
    official = sum(scores[name].accuracy if name in scores else 0.0 for name in names) / len(names)
    value = sum(present) / len(present) if present else None
    return Score(value, official, len(present) < len(names))


def _mean_of_scores(parts: list[Score]) -> Score:
    present = [part.value for part in parts if part.value is not None]
    official = sum(part.official for part in parts) / len(parts)
    value = sum(present) / len(present) if present else None
    return Score(value, official, any(part.partial for part in parts))


def _weighted(scores: Mapping[str, CategoryScore], names: Iterable[str], sizes: Mapping[str, int]) -> Score:
    names = tuple(names)
    run = [scores[name] for name in names if name in scores]
    weight = sum(score.total for score in run) + sum(sizes.get(name, 0) for name in names if name not in scores)
    official = sum(score.passed for score in run) / weight if weight else 0.0
    run_total = sum(score.total for score in run)
    value = sum(score.passed for score in run) / run_total if run_total else None
    return Score(value, official, len(run) < len(names))


def summary_scores(
    scores: Mapping[str, CategoryScore],
    multi_turn: Mapping[str, CategoryScore] | None = None,
    sizes: Mapping[str, int] | None = None,
) -> dict[str, Score]:
    """The official summary scores from per-category results (single-turn ones in ``scores``,
    multi-turn ones in ``multi_turn`` or in ``scores``). ``sizes`` overrides the dataset sizes used to
    weight live categories that were not run."""
    merged = {**scores, **(multi_turn or {})}
    sizes = sizes if sizes is not None else {name: dataset_size(name) for name in LIVE_AST}
    simple = _mean(merged, SIMPLE_GROUP)
    non_live = _mean_of_scores([simple, *(_mean(merged, group) for group in NON_LIVE_GROUPS[1:])])
    live = _weighted(merged, LIVE_AST, sizes)
    irrelevance = _mean(merged, IRRELEVANCE)
    relevance = _mean(merged, RELEVANCE)
    multi = _mean(merged, MULTI_TURN)
    # OVERALL keeps the meaning it had before the agentic part was measured here: agentic counts 0
    # in ``official`` and is left out of the renormalised value, which is therefore always partial.
    agentic = Score(None, 0.0, True)
    groups = {"non_live": non_live, "live": live, "irrelevance": irrelevance, "multi_turn": multi, "agentic": agentic}
    # V4's agentic part as the leaderboard computes it (what did not run counts 0 in ``official``).
    web_search = _mean(merged, WEB_SEARCH)
    memory = _mean(merged, MEMORY_OFFICIAL)
    agentic_v4 = _mean_of_scores([web_search, memory])
    return {
        "simple": simple,
        "non_live": non_live,
        "live": live,
        "irrelevance": irrelevance,
        "relevance": relevance,
        "multi_turn": multi,
        "agentic": agentic,
        "overall": _overall(groups),
        "web_search": web_search,
        "memory": memory,
        "agentic_v4": agentic_v4,
        "overall_v4": _overall({**groups, "agentic": agentic_v4}),
    }


def _overall(groups: Mapping[str, Score]) -> Score:
    """The official weighted sum (``official``: what did not run counts 0) and its value renormalised
    over the groups that ran; partial always (web search is never measured here)."""
    official = sum(OVERALL_WEIGHTS[name] * groups[name].official for name in groups) / sum(OVERALL_WEIGHTS.values())
    run = {name: score.value for name, score in groups.items() if score.value is not None}
    run_weight = sum(OVERALL_WEIGHTS[name] for name in run)
    value = sum(OVERALL_WEIGHTS[name] * measured for name, measured in run.items()) / run_weight if run else None
    return Score(value, official, True)


def metrics_block(
    scores: Mapping[str, CategoryScore],
    multi_turn: Mapping[str, CategoryScore] | None = None,
    ceilings: Mapping[str, tuple[int, int]] | None = None,
) -> dict[str, Any]:
    """Plain-data block for the report: every category's counts and accuracy (with its ceiling when
    given), and the summary scores."""
    merged = {**scores, **(multi_turn or {})}
    categories = {}
    for name, score in merged.items():
        entry: dict[str, Any] = {"passed": score.passed, "total": score.total, "accuracy": score.accuracy}
        if ceilings and name in ceilings:
            passed, total = ceilings[name]
            entry["ceiling"] = passed / total if total else None
        categories[name] = entry
    summary = summary_scores(scores, multi_turn)
    return {"categories": categories, "scores": {name: score.as_dict() for name, score in summary.items()}}


# --------------------------------------------------------------------------------------------------
# The plugin's metrics block, from the records of a run

#: Every category this plugin knows, in the official order.
ALL_CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    *LIVE_AST,
    "live_irrelevance",
    "live_relevance",
    *MULTI_TURN,
    *MEMORY,
    FORMAT_SENSITIVITY,
)
#: The categories of BFCL V3's overall (what ``overall`` covers).
V3_CATEGORIES = ALL_CATEGORIES[: ALL_CATEGORIES.index(MULTI_TURN[-1]) + 1]
#: Official categories this plugin does not run (with the reason: ``NOT_MEASURED``).
OUT_OF_SCOPE = tuple(NOT_MEASURED)
#: The rows of the block: every official category, the ones not measured here included, so that the
#: official values count them as 0 as the leaderboard does, and the summary names them.
ROW_NAMES = (*V3_CATEGORIES, "memory_kv", "memory_vector", "memory_rec_sum", *WEB_SEARCH, FORMAT_SENSITIVITY)


def live_sizes() -> dict[str, int]:
    """The shipped sizes of the live AST categories: the official weight of one that was not run."""
    return {name: dataset_size(name) for name in LIVE_AST}


#: The V4 overall's weights: OVERALL's, with the agentic part as the leaderboard computes it.
V4_WEIGHTS = {**{g: w for g, w in OVERALL_WEIGHTS.items() if g != "agentic"}, "agentic_v4": OVERALL_WEIGHTS["agentic"]}


def weighted(weights: Mapping[str, int]) -> tuple[str, ...]:
    """Members of a declared group (an unweighted mean) giving a weighted mean: each member repeated
    its weight's number of times (the V4 overall's 10/10/10/30/40 as 1/1/1/3/4)."""
    return tuple(name for name, weight in weights.items() for _ in range(weight // 10))


#: BFCL's metrics, declared: a row per category (with its ceiling), the official summary scores as
#: groups (``simple`` a step of ``non_live``; ``live`` weighted by sample counts; ``agentic`` counted
#: 0 by OVERALL, which keeps the meaning it had before the agentic part was measured here) and
#: OVERALL weighted as the leaderboard weighs them. The V4 parts: ``memory`` (the three backends, the
#: vector one not measured), ``web_search`` (not measured), ``agentic_v4`` (their mean) and
#: ``overall_v4`` (the official weights with ``agentic_v4``). The category ``irrelevance`` and the
#: summary score ``irrelevance`` share a name: the gate names the score ``group.irrelevance``.
METRICS = Metrics(
    rows=(Rows(names=ROW_NAMES),),
    columns=(Column("ceiling", "ceiling"),),
    groups={
        "simple": Group(SIMPLE_GROUP, shown=False),
        "non_live": Group(("simple", *(group[0] for group in NON_LIVE_GROUPS[1:]))),
        "live": Group(LIVE_AST, pooled=True),
        "irrelevance": Group(IRRELEVANCE),
        "relevance": Group(RELEVANCE),
        "multi_turn": Group(MULTI_TURN),
        "agentic": Group((), shown=False),
        "memory": Group(MEMORY_OFFICIAL),
        "web_search": Group(WEB_SEARCH, shown=False),
        "agentic_v4": Group(("web_search", "memory"), shown=False),
        "overall_v4": Group(weighted(V4_WEIGHTS)),
    },
    overall=Overall(OVERALL_WEIGHTS),
    group_intervals=False,
    scores=True,
    row_official=False,
    errored_scores_zero=True,
    data_sizes=live_sizes,
    numbers=("format_robustness",),
    fields=lambda benchmark, records: own_fields(benchmark.mode, records),
)


def own_fields(mode: str, records: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The fields of the block that are BFCL's own: the mode it ran in, what it does not measure and
    why, what the V4 overall misses, the second number without the known-defective items, the
    format-sensitivity spread. ``missing_categories`` leaves out what is not measured (named apart)
    and, in fc mode, format sensitivity (asked in prompting mode only, as officially)."""
    rows = [r for r in records if r.get("outcome") != "skipped"]
    ran = {r.get("category") for r in rows}
    fields: dict[str, Any] = {"mode": mode, "out_of_scope": list(OUT_OF_SCOPE), "not_measured": dict(NOT_MEASURED)}
    if rows:
        fields["missing_categories"] = [
            c
            for c in ROW_NAMES
            if c not in ran and c not in NOT_MEASURED and not (c == FORMAT_SENSITIVITY and mode == "fc")
        ]
        fields["overall_v4_missing"] = [c for c in (*V3_CATEGORIES, *MEMORY_OFFICIAL, *WEB_SEARCH) if c not in ran]
        fields["without_defective"] = without_defective(rows)
        fields.update(format_sensitivity_fields([r for r in rows if r.get("category") == FORMAT_SENSITIVITY]))
    return fields


def bfcl_metrics(records: Iterable[Mapping[str, Any]], sizes: Mapping[str, int], mode: str) -> dict[str, Any]:
    """The ``bfcl`` metrics block (what the declaration derives) from the records of a run (``score``
    1.0 = passed; ``ceiling`` per record) and the number of units of each loaded category before any
    selection (``sizes``).

    A category counts every item that ran, errors included (an item whose request failed did not
    pass); a category with fewer items than the data holds, or with errors, makes every score it is
    part of partial, as a category that did not run at all does."""
    return {**derive_block(METRICS, records, sizes), **own_fields(mode, records)}


@cache
def known_defective() -> dict[str, dict[str, str]]:
    """The shipped list of items no model can pass (``known_defective.json``): id -> its entry."""
    import json
    from pathlib import Path

    listed = json.loads(Path(__file__).with_name("known_defective.json").read_text(encoding="utf-8"))
    return {item["id"]: item for item in listed["items"]}


def without_defective(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The second number: each category and summary score with the known-defective items left out
    (the official numbers keep them). ``excluded``: the listed items this run ran."""
    defective = known_defective()
    rows = [r for r in records if r.get("category") != FORMAT_SENSITIVITY]
    kept = [r for r in rows if r.get("id") not in defective]
    excluded = sorted({str(r.get("id")) for r in rows if r.get("id") in defective})
    block = derive_block(METRICS, kept)
    return {
        "excluded": excluded,
        "categories": {name: row["accuracy"] for name, row in block["categories"].items()},
        "scores": {
            name: {"value": score["value"], "official": score["official"]} for name, score in block["scores"].items()
        },
    }


def format_sensitivity_fields(rows: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The official format-sensitivity statistics: the accuracy of each prompt format, and their
    spread across formats: ``max_delta`` (highest minus lowest accuracy) and ``std`` (sample standard
    deviation), both in percentage points rounded to 2 places as the official score file has them
    (0 when fewer than two formats ran). ``format_robustness`` = 1 - max_delta / 100 is the gate
    (``bfcl.format_robustness``): a lower bound on it bounds the spread."""
    if not rows:
        return {}
    import statistics

    stats: dict[str, list[int]] = {}
    for record in rows:
        pair = stats.setdefault(str(record.get("format")), [0, 0])
        pair[0] += record.get("score") == 1.0
        pair[1] += 1
    by_format = {name: {"accuracy": c / t, "correct_count": c, "total_count": t} for name, (c, t) in stats.items()}
    accuracies = [entry["accuracy"] for entry in by_format.values()]
    if len(accuracies) > 1:
        max_delta = round((max(accuracies) - min(accuracies)) * 100, 2)
        std = round(statistics.stdev(accuracies) * 100, 2)
        variance = round(statistics.variance(accuracies) * 100**2, 2)
    else:
        max_delta = std = variance = 0.0
    return {
        "format_sensitivity": {
            "accuracy_max_delta": max_delta,
            "accuracy_std": std,
            "accuracy_variance": variance,
            "by_format": by_format,
        },
        "format_robustness": 1 - max_delta / 100,
    }


def score_weights(counts: Mapping[str, int]) -> dict[str, dict[str, float]]:
    """Each summary score's value (renormalised over the categories present, as ``summary_scores``
    computes it) as a weighted sum of category accuracies: score -> category -> weight, from the
    number of units per category (``counts``): the shares the comparison with a baseline tests,
    derived from the declaration (``group_shares``)."""
    shares = group_shares(METRICS, counts)
    return {name: weights for name, weights in shares.items() if weights and name != "simple"}
