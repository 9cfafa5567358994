"""The native tool-call layer: JSON Schemas of tools, validation of calls, values for oracles.

Shared by the benchmarks that ask through native tool calling; no benchmark imports another.
"""
