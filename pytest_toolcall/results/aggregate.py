"""From samples to metrics and to the JSON report document: the one code path shared by the end of a
run (``results/run_result.py``) and ``pytest-toolcall merge``, so that a merged report is computed
exactly as a single run's would be."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolcall.core.protocol.benchmark import Benchmark
from pytest_toolcall.core.protocol.blocks import check_blocks
from pytest_toolcall.core.safety.reports import SCHEMA


def aggregate(benchmarks: Mapping[str, Benchmark], samples: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Metrics blocks of every benchmark (name -> block name -> block) from the samples, each checked
    against the naming rules (``core.protocol.blocks.check_blocks``: ``BlockError`` names what breaks them)."""
    by_benchmark: dict[str, list[dict[str, Any]]] = {name: [] for name in benchmarks}
    for sample in samples:
        records = by_benchmark.get(sample.get("benchmark"))  # type: ignore[arg-type]
        if records is not None:
            records.append(sample)
    metrics = {name: benchmark.aggregate(by_benchmark[name]) for name, benchmark in benchmarks.items()}
    for name, blocks in metrics.items():
        check_blocks(name, blocks)
    return metrics


def all_blocks(metrics: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Every benchmark's blocks in one mapping (block name -> block), as the report lists them."""
    return {block_name: block for blocks in metrics.values() for block_name, block in blocks.items()}


def report_document(
    run: dict[str, Any], metrics: Mapping[str, Mapping[str, Any]], samples: list[dict[str, Any]]
) -> dict[str, Any]:
    """The JSON report of a run (or of a merge) from its ``run`` fields, metrics and samples."""
    from pytest_toolcall.results.stream_parity import stream_section

    document = {"schema": SCHEMA, "run": run, "samples": samples, "metrics": all_blocks(metrics)}
    stream = stream_section((run.get("options") or {}).get("stream"), samples)
    if stream is not None:
        document["stream"] = stream
    return document


def run_usage(
    samples: list[dict[str, Any]], price: tuple[float, float] | None, other_requests: list[dict[str, Any]] | None = None
) -> dict[str, Any] | None:
    """The report's ``usage``: every request of every sample and the run's ``other_requests`` (those
    of no unit), priced when a price is given."""
    from pytest_toolcall.results.usage import usage_summary

    requests = [request for r in samples for request in ((r.get("usage") or {}).get("requests") or [])]
    return usage_summary([*requests, *(other_requests or [])], price)
