"""The node ids of the benchmark items, apart from the protocol: pytest reads them in every run
(``plugin.py``, ``config/``), where importing the protocol and what it needs would cost every run."""

from __future__ import annotations

#: The node id of the module node that holds every benchmark item.
MODULE_NODEID = "toolcall"


def is_module_nodeid(nodeid: str) -> bool:
    """Whether a node id is of the ``toolcall`` module node (a benchmark item, a data problem, a
    benchmark's function): never a path pytest could open."""
    return nodeid.startswith(f"{MODULE_NODEID}::")
