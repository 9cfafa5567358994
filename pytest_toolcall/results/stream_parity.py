"""The report's ``stream`` section (``--toolcall-stream on|both``), computed from the samples so that
a merged or re-gated report gets the same, and the gate metric ``stream.parity``.

``compared``: the units whose answer was asked both ways (``both``) and scored; ``parity``: the
fraction of them whose streamed answer agrees with the plain one (same tool calls, same verdict, no
stream rule broken), with its Wilson 95 % interval; ``mismatched``: the others, each with what
differed (``tool_calls``, ``verdict``, ``stream_protocol``, ``error``). Under ``on`` nothing is
compared: ``mismatched`` lists the units whose streams broke a rule (kind ``stream_protocol``).
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.core.stats.estimates import wilson
from pytest_toolcall.core.stats.intervals import as_list

METRIC = "stream.parity"


def stream_section(mode: str | None, samples: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``stream`` section of a report, or None for a run without streaming."""
    if mode not in ("on", "both"):
        return None
    streamed = [s for s in samples if isinstance(s.get("stream"), dict)]
    mismatched = []
    for sample in streamed:
        stream = sample["stream"]
        if mode == "both" and stream.get("mismatch"):
            mismatch = stream["mismatch"]
            mismatched.append({"nodeid": sample["nodeid"], "kind": mismatch["kind"], "detail": mismatch["detail"]})
        elif mode == "on" and stream.get("problems"):
            detail = "; ".join(stream["problems"])
            mismatched.append({"nodeid": sample["nodeid"], "kind": "stream_protocol", "detail": detail})
    mismatched.sort(key=lambda m: m["nodeid"])
    compared = len(streamed) if mode == "both" else 0
    agreed = compared - len(mismatched) if mode == "both" else 0
    return {
        "mode": mode,
        "compared": compared,
        "parity": agreed / compared if compared else None,
        "parity_ci95": as_list(wilson(agreed, compared)) if compared else None,
        "mismatched": mismatched,
    }


def summary_lines(section: dict[str, Any]) -> list[str]:
    """The terminal lines of the section."""
    if section["mode"] == "both":
        if section["parity"] is None:
            lines = ["streamed vs plain: nothing compared"]
        else:
            lo, hi = section["parity_ci95"]
            agreed = section["compared"] - len(section["mismatched"])
            lines = [
                f"streamed vs plain: {agreed}/{section['compared']} units agree, "
                f"parity {section['parity']:.4f} [{lo:.4f}, {hi:.4f}]"
            ]
    else:
        lines = [f"streamed answers: {len(section['mismatched'])} unit(s) broke a stream rule"]
    for entry in section["mismatched"][:20]:
        lines.append(f"  {entry['kind']:<16} {entry['nodeid']}: {entry['detail'][:160]}")
    if len(section["mismatched"]) > 20:
        lines.append(f"  ... and {len(section['mismatched']) - 20} more (the JSON report lists them all)")
    return lines


class StreamGate:
    """The owner of the gate metric ``stream.parity`` (the gate asks metric owners for values the way
    it asks benchmarks; this one reads the ``stream`` section handed to it beside the blocks)."""

    name = "stream"

    @classmethod
    def claims_metric(cls, name: str) -> bool:
        return name == METRIC

    @classmethod
    def gate_values(cls, name: str, metrics: dict[str, Any]) -> list[tuple[str, float | None]]:
        section = metrics.get("stream")
        value = section.get("parity") if isinstance(section, dict) else None
        return [(METRIC, value)]
