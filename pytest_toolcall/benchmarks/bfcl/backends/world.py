"""Objects that the official BFCL multi-turn classes keep at module level.

The official classes share a few mutable objects between *all* their instances: the long-context
filler records are inserted into an instance's state by reference, `post_tweet` has mutable default
arguments, the long weather report is one global dict. Inside one official scoring run the model's
instance and the ground-truth instance therefore see each other's mutations of those objects. A
`SharedWorld` holds fresh copies of these objects; every backend of one scoring run gets the same
world, so the sharing is reproduced without leaking anything between dialogues.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

_DATA_FILE = Path(__file__).with_name("long_context_data.json")


@cache
def _pristine_long_context_data() -> dict[str, Any]:
    data = json.loads(_DATA_FILE.read_text(encoding="utf-8"))
    data.pop("_source", None)
    # JSON cannot hold the Python Ellipsis that closes the official watch-list filler; it shows up
    # verbatim (as `Ellipsis`) in the string the official executor returns for `get_watchlist`.
    data["WATCH_LIST_EXTENSION"] = [*data["WATCH_LIST_EXTENSION"], ...]
    return data


def long_context_value(name: str) -> Any:
    """A read-only long-context constant (callers copy before mutating)."""
    return _pristine_long_context_data()[name]


class SharedWorld:
    """The module-level mutable objects of the official code, fresh for one scoring run."""

    def __init__(self) -> None:
        data = _pristine_long_context_data()
        self.credit_card_extension: dict[str, dict[str, Any]] = copy.deepcopy(data["CREDIT_CARD_EXTENSION"])
        self.booking_record_extension: dict[str, dict[str, Any]] = copy.deepcopy(data["BOOKING_RECORD_EXTENSION"])
        self.long_weather_extension: dict[str, Any] = copy.deepcopy(data["LONG_WEATHER_EXTENSION"])
        # `post_tweet(content, tags=[], mentions=[])`: the two default lists are single objects that
        # `mention` can extend, after which later default posts carry the extra names.
        self.tweet_default_tags: list[str] = []
        self.tweet_default_mentions: list[str] = []
