"""The outcome of one scorer on one model output."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    valid: bool
    #: The official scorer's error type (``""`` when valid); ``"crash"`` where the official code raises.
    error_type: str = ""
    #: What failed, for a person: ``param 'eclipseType': expected 'total', got 'partial'``.
    message: str = ""
