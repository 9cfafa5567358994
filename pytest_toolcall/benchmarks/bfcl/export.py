"""A run's JSON report as the official BFCL score files, to set beside the leaderboard's.

:func:`score_files` is a pure function from the report document to the files the official evaluation
(gorilla@6ea5797, ``bfcl evaluate``) writes, by path relative to its score folder:

* ``<model>/<group>/BFCL_v4_<category>_score.json`` per category that ran: a header line
  (``accuracy``, ``correct_count``, ``total_count``; for format sensitivity also the spread and the
  accuracy of each format) and one line per failed entry (``id``, ``test_category``, ``valid``,
  ``error``, ``error_type``, the raw reply);
* ``data_overall.csv``, ``data_non_live.csv``, ``data_live.csv``, ``data_multi_turn.csv``,
  ``data_agentic.csv`` and ``data_format_sensitivity.csv``: one row for this run, with the official
  columns, formulas and number format (``"12.34%"``, ``N/A`` for a category that did not run; the
  overall columns count what did not run as 0, as the leaderboard's do).

The numbers are those of the run's ``bfcl`` block (the official values: known-defective items
included). ``<model>`` is the run's model name with ``/`` written ``_``, as the official folders
have it. Columns the plugin does not know (the model's link, organisation and licence) are ``N/A``;
cost is the run's estimate when a price was given, latency the items' own.

:func:`pytest_toolcall_export_formats` and :func:`pytest_toolcall_export` offer it to
``pytest-toolcall export --format bfcl REPORT -o FOLDER``.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FORMAT = "bfcl"
PREFIX = "BFCL_v4"

#: The official CSV columns (``constants/column_headers.py`` at 6ea5797).
COLUMNS = {
    "data_non_live.csv": [
        "Rank", "Model", "Non-Live Overall Acc", "AST Summary", "Simple AST", "Python Simple AST",
        "Java Simple AST", "JavaScript Simple AST", "Multiple AST", "Parallel AST", "Parallel Multiple AST",
        "Irrelevance Detection",
    ],
    "data_live.csv": [
        "Rank", "Model", "Live Overall Acc", "AST Summary", "Python Simple AST", "Python Multiple AST",
        "Python Parallel AST", "Python Parallel Multiple AST", "Irrelevance Detection", "Relevance Detection",
    ],
    "data_multi_turn.csv": [
        "Rank", "Model", "Multi Turn Overall Acc", "Base", "Miss Func", "Miss Param", "Long Context",
    ],
    "data_agentic.csv": [
        "Rank", "Model", "Agentic Overall Acc", "Web Search Summary", "Web Search Base", "Web Search No Snippet",
        "Memory Summary", "Memory KV", "Memory Vector", "Memory Recursive Summarization",
    ],
    "data_overall.csv": [
        "Rank", "Overall Acc", "Model", "Model Link", "Total Cost ($)", "Latency Mean (s)",
        "Latency Standard Deviation (s)", "Latency 95th Percentile (s)", "Non-Live AST Acc", "Non-Live Simple AST",
        "Non-Live Multiple AST", "Non-Live Parallel AST", "Non-Live Parallel Multiple AST", "Live Acc",
        "Live Simple AST", "Live Multiple AST", "Live Parallel AST", "Live Parallel Multiple AST", "Multi Turn Acc",
        "Multi Turn Base", "Multi Turn Miss Func", "Multi Turn Miss Param", "Multi Turn Long Context",
        "Web Search Acc", "Web Search Base", "Web Search No Snippet", "Memory Acc", "Memory KV", "Memory Vector",
        "Memory Recursive Summarization", "Relevance Detection", "Irrelevance Detection",
        "Format Sensitivity Max Delta", "Format Sensitivity Standard Deviation", "Organization", "License",
    ],
}  # fmt: skip
FORMAT_SENSITIVITY_PREFIX = ["Rank", "Model", "Format Sensitivity Max Delta", "Format Sensitivity Standard Deviation"]
#: The sizes of categories the plugin never runs (their official weight when missing).
UNMEASURED_SIZES = {"web_search_base": 100, "web_search_no_snippet": 100, "memory_vector": 155}


class Score(dict[str, Any]):
    """An official accuracy dict: ``accuracy``, ``total_count``, ``display_accuracy`` (a number or N/A)."""


def _category(block: Mapping[str, Any], name: str) -> Score:
    from pytest_toolcall.benchmarks.bfcl.metrics import dataset_size

    row = block["categories"].get(name)
    if row is not None:
        return Score(accuracy=row["accuracy"], total_count=row["n"], display_accuracy=row["accuracy"])
    size = UNMEASURED_SIZES.get(name) or dataset_size(name) or (155 if name.startswith("memory_") else 0)
    return Score(accuracy=0, total_count=size, display_accuracy="N/A")


def _combine(parts: list[Score], accuracy: float, display_na: bool) -> Score:
    total = sum(part["total_count"] for part in parts)
    na = display_na and any(part["display_accuracy"] == "N/A" for part in parts)
    return Score(accuracy=accuracy, total_count=total, display_accuracy="N/A" if na else accuracy)


def _weighted(parts: list[Score], display_na: bool = True) -> Score:
    total = sum(part["total_count"] for part in parts)
    return _combine(parts, sum(part["accuracy"] * part["total_count"] for part in parts) / total, display_na)


def _unweighted(parts: list[Score], display_na: bool = True) -> Score:
    return _combine(parts, sum(part["accuracy"] for part in parts) / len(parts), display_na)


def _percentage_weighted(parts: list[Score], weights: list[float]) -> Score:
    norm = [weight / sum(weights) for weight in weights]
    return _combine(parts, sum(part["accuracy"] * w for part, w in zip(parts, norm, strict=True)), False)


def _cell(value: Any, keep_number: bool = False) -> str:
    """The official cell format: text as is, numbers as percentages with 2 places (or as they are)."""
    if isinstance(value, str):
        return value
    if isinstance(value, Score):
        value = value["display_accuracy"]
        if isinstance(value, str):
            return value
    return str(value) if keep_number else f"{value * 100:.2f}%"


def _csv(header: list[str], row: list[str]) -> str:
    return ",".join(header) + "\n" + ",".join(row)


def _latency(samples: list[Mapping[str, Any]]) -> tuple[Any, Any, Any]:
    """Mean, standard deviation and 95th percentile (linear, as numpy's) of the items' latencies."""
    data = [float(s["latency_s"]) for s in samples if isinstance(s.get("latency_s"), (int, float)) and s["latency_s"]]
    if len(data) < 2:
        return "N/A", "N/A", "N/A"
    ordered = sorted(data)
    rank = 0.95 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    p95 = ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
    return round(statistics.mean(data), 2), round(statistics.stdev(data), 2), round(p95, 2)


def _group_dir(category: str) -> str:
    from pytest_toolcall.benchmarks.bfcl.metrics import FORMAT_SENSITIVITY, MULTI_TURN

    if category == FORMAT_SENSITIVITY:
        return FORMAT_SENSITIVITY
    if category.startswith("memory_"):
        return f"agentic/memory/{category.removeprefix('memory_')}"
    if category in MULTI_TURN:
        return "multi_turn"
    return "live" if category.startswith("live") else "non_live"


def _score_file(block: Mapping[str, Any], category: str, samples: list[Mapping[str, Any]], model: str) -> str:
    row = block["categories"][category]
    header: dict[str, Any] = {"accuracy": row["accuracy"], "correct_count": row["passed"], "total_count": row["n"]}
    if category == "format_sensitivity" and block.get("format_sensitivity"):
        spread = block["format_sensitivity"]
        header.update(
            accuracy_max_delta=spread["accuracy_max_delta"],
            accuracy_variance=spread["accuracy_variance"],
            accuracy_std=spread["accuracy_std"],
            **spread["by_format"],
        )
    lines = [header]
    for sample in samples:
        if sample.get("score") == 1.0:
            continue
        lines.append(
            {
                "id": sample.get("id"),
                "model_name": model,
                "test_category": category,
                "valid": False,
                "error": [str(sample.get("reason") or sample.get("error") or "")],
                "error_type": sample.get("error_type")
                or ("inference_error" if sample.get("outcome") == "error" else None),
                "model_result_raw": sample.get("output"),
            }
        )
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def score_files(document: Mapping[str, Any]) -> dict[str, str]:
    """The official score files of a JSON report that ran BFCL: relative path -> text."""
    block = (document.get("metrics") or {}).get("bfcl")
    if not isinstance(block, Mapping) or not isinstance(block.get("categories"), Mapping):
        raise ValueError("the report has no bfcl metrics block: it did not run BFCL")
    model = str((document.get("run") or {}).get("model") or "model")
    folder = model.replace("/", "_")
    samples = [s for s in document.get("samples") or [] if s.get("benchmark") == "bfcl"]
    files: dict[str, str] = {}
    for category in block["categories"]:
        mine = [s for s in samples if s.get("category") == category and s.get("outcome") != "skipped"]
        path = f"{folder}/{_group_dir(category)}/{PREFIX}_{category}_score.json"
        files[path] = _score_file(block, category, mine, model)

    c = {name: _category(block, name) for name in (*block["categories"], *_ALL)}
    simple = _unweighted([c["simple_python"], c["simple_java"], c["simple_javascript"]])
    ast_parts = [simple, c["multiple"], c["parallel"], c["parallel_multiple"]]
    non_live_summary, non_live = _unweighted(ast_parts), _unweighted(ast_parts, display_na=False)
    live_parts = [c["live_simple"], c["live_multiple"], c["live_parallel"], c["live_parallel_multiple"]]
    live_summary, live = _weighted(live_parts), _weighted(live_parts, display_na=False)
    turns = [c["multi_turn_base"], c["multi_turn_miss_func"], c["multi_turn_miss_param"], c["multi_turn_long_context"]]
    multi_turn = _unweighted(turns, display_na=False)
    web_search = _unweighted([c["web_search_base"], c["web_search_no_snippet"]])
    memory = _unweighted([c["memory_kv"], c["memory_vector"], c["memory_rec_sum"]])
    agentic = _unweighted([web_search, memory], display_na=False)
    irrelevance = _unweighted([c["irrelevance"], c["live_irrelevance"]])
    overall = _percentage_weighted([non_live, live, irrelevance, multi_turn, agentic], [10, 10, 10, 30, 40])
    spread = block.get("format_sensitivity") or {}
    max_delta, std = spread.get("accuracy_max_delta", "N/A"), spread.get("accuracy_std", "N/A")
    cost = (document.get("usage") or {}).get("cost_usd")
    cost_cell = str(round(cost, 2)) if isinstance(cost, (int, float)) else "N/A"
    latency = [str(value) for value in _latency(samples)]

    rows = {
        "data_non_live.csv": ["1", model, *map(_cell, [non_live, non_live_summary, simple, c["simple_python"],
            c["simple_java"], c["simple_javascript"], c["multiple"], c["parallel"], c["parallel_multiple"],
            c["irrelevance"]])],
        "data_live.csv": ["1", model, *map(_cell, [live, live_summary, *live_parts, c["live_irrelevance"],
            c["live_relevance"]])],
        "data_multi_turn.csv": ["1", model, *map(_cell, [multi_turn, *turns])],
        "data_agentic.csv": ["1", model, *map(_cell, [agentic, web_search, c["web_search_base"],
            c["web_search_no_snippet"], memory, c["memory_kv"], c["memory_vector"], c["memory_rec_sum"]])],
        "data_overall.csv": ["1", _cell(overall), model, "N/A", cost_cell, *latency, *map(_cell, [non_live_summary,
            simple, c["multiple"], c["parallel"], c["parallel_multiple"], live, *live_parts, multi_turn, *turns,
            web_search, c["web_search_base"], c["web_search_no_snippet"], memory, c["memory_kv"], c["memory_vector"],
            c["memory_rec_sum"], c["live_relevance"], irrelevance]), _cell(max_delta, True), _cell(std, True),
            "N/A", "N/A"],
    }  # fmt: skip
    for name, row in rows.items():
        files[name] = _csv(COLUMNS[name], row)
    from pytest_toolcall.benchmarks.bfcl.format_sensitivity import all_formats

    by_format = spread.get("by_format", {})
    accuracies = [_cell(by_format[cfg]["accuracy"]) if cfg in by_format else "N/A" for cfg in all_formats()]
    header = FORMAT_SENSITIVITY_PREFIX + [f"Config {cfg}" for cfg in all_formats()]
    files["data_format_sensitivity.csv"] = _csv(
        header, ["1", model, _cell(max_delta, True), _cell(std, True), *accuracies]
    )
    return files


#: Every category the official tables name.
_ALL = (
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance",
    "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context",
    "web_search_base", "web_search_no_snippet", "memory_kv", "memory_vector", "memory_rec_sum",
)  # fmt: skip


# --- the output hooks of ``pytest-toolcall export`` ------------------------------------------------


def pytest_toolcall_export_formats() -> dict[str, str]:
    return {FORMAT: "the official BFCL score files (per-category score JSON and the leaderboard's CSV tables)"}


def pytest_toolcall_export(format: str, document: dict[str, Any], path: Path) -> list[Path] | None:
    """Write :func:`score_files` under the folder ``path``; None for another format."""
    if format != FORMAT:
        return None
    written = []
    for relative, text in score_files(document).items():
        target = Path(path) / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written
