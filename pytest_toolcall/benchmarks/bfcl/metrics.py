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
#: Which categories each summary score is made of (a short or errored member makes it partial).
SCORE_MEMBERS: dict[str, tuple[str, ...]] = {
    "simple": SIMPLE_GROUP,
    "non_live": tuple(c for group in NON_LIVE_GROUPS for c in group),
    "live": LIVE_AST,
    "irrelevance": IRRELEVANCE,
    "relevance": RELEVANCE,
    "multi_turn": MULTI_TURN,
    "agentic": (),
    "overall": V3_CATEGORIES,
    "web_search": WEB_SEARCH,
    "memory": MEMORY,
    "agentic_v4": MEMORY,
    "overall_v4": (*V3_CATEGORIES, *MEMORY),
}
#: The summary scores shown as groups (the sub-group "simple" and the absent "agentic" aside).
GROUP_NAMES = ("non_live", "live", "irrelevance", "relevance", "multi_turn", "memory", "overall_v4")
#: Official categories this plugin does not run.
OUT_OF_SCOPE = tuple(NOT_MEASURED)
#: Outcomes of items that did not run to a verdict on purpose: in no denominator.
NOT_SCORED = {"skipped"}


def bfcl_metrics(records: Iterable[Mapping[str, Any]], sizes: Mapping[str, int], mode: str) -> dict[str, Any]:
    """The ``bfcl`` metrics block from the records of a run (``score`` 1.0 = passed; ``ceiling`` per
    record) and the number of units of each loaded category before any selection (``sizes``).

    A category counts every item that ran, errors included (an item whose request failed did not
    pass); a category with fewer items than the data holds, or with errors, makes every score it is
    part of partial, as a category that did not run at all does."""
    from pytest_toolcall.api import failure_kind_counts
    from pytest_toolcall.api.statistics import category_fields, repeat_fields

    by_category: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        if record.get("outcome") not in NOT_SCORED:
            by_category.setdefault(str(record.get("category")), []).append(record)
    categories: dict[str, dict[str, Any]] = {}
    for name in ALL_CATEGORIES:
        rows = by_category.get(name)
        if not rows:
            continue
        n = len(rows)
        passed = sum(1 for r in rows if r.get("score") == 1.0)
        errors = sum(1 for r in rows if r.get("outcome") == "error")
        ceilings = [r["ceiling"] for r in rows if isinstance(r.get("ceiling"), (int, float))]
        categories[name] = {
            "n": n,
            "passed": passed,
            "failed": n - passed - errors,
            "errors": errors,
            "accuracy": passed / n,
            # Wilson when each unit ran once; under repeats pass^k, flaky units and a unit bootstrap.
            **category_fields(rows),
            "ceiling": sum(ceilings) / len(ceilings) if ceilings else None,
        }
    counts = {name: CategoryScore(m["passed"], m["n"]) for name, m in categories.items() if name != FORMAT_SENSITIVITY}
    # Format sensitivity is asked in prompting mode only (as officially): in fc mode it is not missing.
    missing = [n for n in ALL_CATEGORIES if n not in categories and not (n == FORMAT_SENSITIVITY and mode == "fc")]
    short = [name for name, m in categories.items() if m["n"] < sizes.get(name, m["n"])]
    errored = [name for name, m in categories.items() if m["errors"]]
    incomplete = set(short) | set(errored)
    scores = {}
    for name, score in summary_scores(counts).items():
        entry = score.as_dict()
        entry["partial"] = score.partial or bool(incomplete & set(SCORE_MEMBERS[name]))
        scores[name] = entry
    return {
        "mode": mode,
        "categories": categories,
        "scores": scores,
        # The same numbers in the shape every block shares (groups, overall), for the HTML report.
        "groups": {name: scores[name]["value"] for name in GROUP_NAMES},
        "groups_official": {name: scores[name]["official"] for name in GROUP_NAMES},
        "overall": scores["overall"]["value"],
        "overall_official": scores["overall"]["official"],
        "partial": scores["overall"]["partial"],
        "missing_categories": missing,
        "short_categories": short,
        "errors": sum(m["errors"] for m in categories.values()),
        "out_of_scope": list(OUT_OF_SCOPE),
        # The V4 overall: the official weights over what ran, and what it misses (never silently 0).
        "overall_v4": scores["overall_v4"]["value"],
        "overall_v4_official": scores["overall_v4"]["official"],
        "overall_v4_missing": [name for name in (*V3_CATEGORIES, *MEMORY_OFFICIAL, *WEB_SEARCH) if name not in counts],
        "not_measured": dict(NOT_MEASURED),
        "without_defective": without_defective(by_category),
        **format_sensitivity_fields(by_category.get(FORMAT_SENSITIVITY, [])),
        "failure_kinds": failure_kind_counts([r for rows in by_category.values() for r in rows]),
        **repeat_fields([r for rows in by_category.values() for r in rows]),
    }


@cache
def known_defective() -> dict[str, dict[str, str]]:
    """The shipped list of items no model can pass (``known_defective.json``): id -> its entry."""
    import json
    from pathlib import Path

    listed = json.loads(Path(__file__).with_name("known_defective.json").read_text(encoding="utf-8"))
    return {item["id"]: item for item in listed["items"]}


def without_defective(by_category: Mapping[str, list[Mapping[str, Any]]]) -> dict[str, Any]:
    """The second number: each category and summary score with the known-defective items left out
    (the official numbers keep them). ``excluded``: the listed items this run ran."""
    defective = known_defective()
    counts: dict[str, CategoryScore] = {}
    excluded: list[str] = []
    for name, rows in by_category.items():
        if name not in ALL_CATEGORIES or name == FORMAT_SENSITIVITY:
            continue
        kept = [r for r in rows if r.get("id") not in defective]
        excluded += sorted({str(r.get("id")) for r in rows if r.get("id") in defective})
        if kept:
            counts[name] = CategoryScore(sum(1 for r in kept if r.get("score") == 1.0), len(kept))
    scores = summary_scores(counts)
    return {
        "excluded": excluded,
        "categories": {name: score.accuracy for name, score in counts.items()},
        "scores": {name: {"value": scores[name].value, "official": scores[name].official} for name in scores},
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
    number of units per category (``counts``). The comparison with a baseline tests these sums."""
    present = {c: n for c, n in counts.items() if n}

    def mean_of(names: Iterable[str]) -> dict[str, float]:
        members = [c for c in names if c in present]
        return {c: 1 / len(members) for c in members}

    def combine(parts: list[tuple[dict[str, float], float]]) -> dict[str, float]:
        """Σ weight·part over the parts measured, renormalised over their weights."""
        parts = [(part, weight) for part, weight in parts if part]
        total = sum(weight for _, weight in parts)
        combined: dict[str, float] = {}
        for part, weight in parts:
            for category, share in part.items():
                combined[category] = combined.get(category, 0.0) + share * weight / total
        return combined

    non_live = combine([(mean_of(group), 1.0) for group in NON_LIVE_GROUPS])
    live_total = sum(present.get(c, 0) for c in LIVE_AST)
    live = {c: present[c] / live_total for c in LIVE_AST if c in present}  # weighted by sample counts
    groups = {
        "non_live": non_live,
        "live": live,
        "irrelevance": mean_of(IRRELEVANCE),
        "relevance": mean_of(RELEVANCE),
        "multi_turn": mean_of(MULTI_TURN),
    }
    overall = combine([(groups[g], float(w)) for g, w in OVERALL_WEIGHTS.items() if g in groups])
    web_search, memory = mean_of(WEB_SEARCH), mean_of(MEMORY_OFFICIAL)
    agentic_v4 = combine([(web_search, 1.0), (memory, 1.0)])
    v4_groups = {**groups, "agentic": agentic_v4}
    overall_v4 = combine([(v4_groups[g], float(w)) for g, w in OVERALL_WEIGHTS.items() if g in v4_groups])
    named = {
        **groups,
        "overall": overall,
        "web_search": web_search,
        "memory": memory,
        "agentic_v4": agentic_v4,
        "overall_v4": overall_v4,
    }
    return {name: weights for name, weights in named.items() if weights}
