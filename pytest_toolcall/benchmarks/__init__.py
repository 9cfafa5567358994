"""The benchmarks: each a self-contained package behind the protocol of ``pytest_toolcall.core``."""
