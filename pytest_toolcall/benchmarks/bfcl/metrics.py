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
    agentic = Score(None, 0.0, True)  # web search and memory are not part of this plugin
    groups = {"non_live": non_live, "live": live, "irrelevance": irrelevance, "multi_turn": multi, "agentic": agentic}
    official = sum(OVERALL_WEIGHTS[name] * groups[name].official for name in groups) / sum(OVERALL_WEIGHTS.values())
    run = {name: score.value for name, score in groups.items() if score.value is not None}
    run_weight = sum(OVERALL_WEIGHTS[name] for name in run)
    value = sum(OVERALL_WEIGHTS[name] * measured for name, measured in run.items()) / run_weight if run else None
    # Agentic (40 % of the official overall) is outside this plugin by design: it counts 0 in
    # ``official`` and leaves the renormalised value always partial, since that value never covers
    # what the leaderboard's overall covers.
    overall = Score(value, official, True)
    return {
        "simple": simple,
        "non_live": non_live,
        "live": live,
        "irrelevance": irrelevance,
        "relevance": relevance,
        "multi_turn": multi,
        "agentic": agentic,
        "overall": overall,
    }


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
)
#: Official categories this plugin does not run.
OUT_OF_SCOPE = ("web_search", "memory", "format_sensitivity")


def live_sizes() -> dict[str, int]:
    """The shipped sizes of the live AST categories: the official weight of one that was not run."""
    return {name: dataset_size(name) for name in LIVE_AST}


#: BFCL's metrics, declared: a row per category (with its ceiling), the official summary scores as
#: groups (``simple`` a step of ``non_live``; ``live`` weighted by sample counts; ``agentic`` not part
#: of this plugin) and OVERALL weighted as the leaderboard weighs them. The category ``irrelevance``
#: and the summary score ``irrelevance`` share a name: the gate names the score ``group.irrelevance``.
METRICS = Metrics(
    rows=(Rows(names=ALL_CATEGORIES),),
    columns=(Column("ceiling", "ceiling"),),
    groups={
        "simple": Group(SIMPLE_GROUP, shown=False),
        "non_live": Group(("simple", *(group[0] for group in NON_LIVE_GROUPS[1:]))),
        "live": Group(LIVE_AST, pooled=True),
        "irrelevance": Group(IRRELEVANCE),
        "relevance": Group(RELEVANCE),
        "multi_turn": Group(MULTI_TURN),
        "agentic": Group((), shown=False),
    },
    overall=Overall(OVERALL_WEIGHTS),
    group_intervals=False,
    scores=True,
    row_official=False,
    errored_scores_zero=True,
    data_sizes=live_sizes,
    fields=lambda benchmark, records: own_fields(benchmark.mode),
)


def own_fields(mode: str) -> dict[str, Any]:
    """The fields of the block that are BFCL's own: the mode it ran in, what it does not run."""
    return {"mode": mode, "out_of_scope": list(OUT_OF_SCOPE)}


def bfcl_metrics(records: Iterable[Mapping[str, Any]], sizes: Mapping[str, int], mode: str) -> dict[str, Any]:
    """The ``bfcl`` metrics block (what the declaration derives) from the records of a run (``score``
    1.0 = passed; ``ceiling`` per record) and the number of units of each loaded category before any
    selection (``sizes``).

    A category counts every item that ran, errors included (an item whose request failed did not
    pass); a category with fewer items than the data holds, or with errors, makes every score it is
    part of partial, as a category that did not run at all does."""
    return {**derive_block(METRICS, records, sizes), **own_fields(mode)}


def score_weights(counts: Mapping[str, int]) -> dict[str, dict[str, float]]:
    """Each summary score's value (renormalised over the categories present, as ``summary_scores``
    computes it) as a weighted sum of category accuracies: score -> category -> weight, from the
    number of units per category (``counts``): the shares the comparison with a baseline tests,
    derived from the declaration (``group_shares``)."""
    shares = group_shares(METRICS, counts)
    return {name: weights for name, weights in shares.items() if weights and name != "simple"}
