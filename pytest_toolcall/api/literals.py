"""The capped interpreter of Python literals in model answers (``[f(a=1+2)]``): sizes, total work,
operation count and digit work are bounded, nothing is ever executed."""

from __future__ import annotations

from pytest_toolcall.core.safety.literals import LiteralError, TooLarge, evaluate, size_of, small

__all__ = ["LiteralError", "TooLarge", "evaluate", "size_of", "small"]
