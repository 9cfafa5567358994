"""The eight simulated backends of BFCL multi-turn and two of the V4 memory backends, re-implemented
from the official behaviour.

Each backend class carries the official class name (error messages of bad calls name it), takes a
`SharedWorld`, loads its state with `_load_scenario(initial_config[class_name], long_context=...)`,
and lists its tools in `dispatch_table()`; public instance attributes are its state.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.file_system import GorillaFileSystem
from pytest_toolcall.benchmarks.bfcl.backends.math_api import MathAPI
from pytest_toolcall.benchmarks.bfcl.backends.memory import MemoryAPI_kv, MemoryAPI_rec_sum
from pytest_toolcall.benchmarks.bfcl.backends.message_api import MessageAPI
from pytest_toolcall.benchmarks.bfcl.backends.posting_api import TwitterAPI
from pytest_toolcall.benchmarks.bfcl.backends.ticket_api import TicketAPI
from pytest_toolcall.benchmarks.bfcl.backends.trading_bot import TradingBot
from pytest_toolcall.benchmarks.bfcl.backends.travel_booking import TravelAPI
from pytest_toolcall.benchmarks.bfcl.backends.vehicle_control import VehicleControlAPI
from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld

BACKEND_CLASSES: dict[str, type] = {
    "GorillaFileSystem": GorillaFileSystem,
    "MathAPI": MathAPI,
    "MessageAPI": MessageAPI,
    "TwitterAPI": TwitterAPI,
    "TicketAPI": TicketAPI,
    "TradingBot": TradingBot,
    "TravelAPI": TravelAPI,
    "VehicleControlAPI": VehicleControlAPI,
    # BFCL V4 memory (the official names; the vector backend needs embedding-model weights).
    "MemoryAPI_kv": MemoryAPI_kv,
    "MemoryAPI_rec_sum": MemoryAPI_rec_sum,
}

# Classes the official executor never loads a scenario into.
STATELESS_CLASSES = frozenset({"MathAPI"})

# The function-doc file of each class in the BFCL data (`multi_turn_func_doc/`).
FUNC_DOC_FILES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "MemoryAPI_kv": "memory_kv.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}


def public_state(instance: Any) -> dict[str, Any]:
    """What the official state check compares: the instance attributes not starting with "_"."""
    return {key: value for key, value in vars(instance).items() if not key.startswith("_")}


__all__ = [
    "BACKEND_CLASSES",
    "FUNC_DOC_FILES",
    "STATELESS_CLASSES",
    "GorillaFileSystem",
    "MathAPI",
    "MemoryAPI_kv",
    "MemoryAPI_rec_sum",
    "MessageAPI",
    "SharedWorld",
    "TicketAPI",
    "TradingBot",
    "TravelAPI",
    "TwitterAPI",
    "VehicleControlAPI",
    "public_state",
]
