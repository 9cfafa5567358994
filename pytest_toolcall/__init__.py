"""pytest-toolcall: tool-calling benchmarks (ACEBench, general_fc) as pytest items."""

from __future__ import annotations

__version__ = "0.1.0"
