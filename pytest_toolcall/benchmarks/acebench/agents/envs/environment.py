"""One sample's simulated world: the involved instances, the API table, and state capture."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_toolcall.benchmarks.acebench.agents.envs.phone import BaseApi, FoodPlatform, MessageApi, ReminderApi
from pytest_toolcall.benchmarks.acebench.agents.envs.travel import Travel

Instance = BaseApi | Travel

CLASSES: dict[str, type[Instance]] = {
    "BaseApi": BaseApi,
    "MessageApi": MessageApi,
    "ReminderApi": ReminderApi,
    "FoodPlatform": FoodPlatform,
    "Travel": Travel,
}

#: What the official runner keeps of each instance for grading (``SAVED_CLASS``), in this order.
SAVED_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "BaseApi": ("wifi", "logged_in"),
    "MessageApi": ("inbox",),
    "ReminderApi": ("reminder_list",),
    "FoodPlatform": ("users", "logged_in_users", "orders"),
    "Travel": ("users", "reservations"),
}


def _api_functions(cls: type[Instance], lang: str) -> dict[str, Callable[..., Any]]:
    """The methods a model may call on ``cls``: only names the class declares in ``api``."""
    names = cls.api + (getattr(cls, "api_zh", ()) if lang == "zh" else ())
    return {name: getattr(cls, name) for name in names}


#: (class name, language) -> {method name: function}. Built once, from our own declarations only.
API: dict[tuple[str, str], dict[str, Callable[..., Any]]] = {
    (name, lang): _api_functions(cls, lang) for name, cls in CLASSES.items() for lang in ("en", "zh")
}


class StateError(Exception):
    """The end state holds a value JSON cannot carry (the official run crashes writing its result)."""


class Environment:
    """Fresh instances for one rollout, configured as the official runner configures them."""

    def __init__(self, lang: str, involved_classes: Sequence[str], initial_config: Mapping[str, Any]) -> None:
        if lang not in ("en", "zh"):
            raise ValueError(f"unknown language {lang!r}")
        unknown = [name for name in involved_classes if name not in CLASSES]
        if unknown:
            raise ValueError(
                f"unknown simulated class(es) {', '.join(map(repr, unknown))}; known: {', '.join(CLASSES)}"
            )
        self.lang = lang
        self.instances: dict[str, Instance] = {}
        #: method name -> [(instance, function)], in ``involved_classes`` order: a call runs on every
        #: owner (official broadcast; ``turn_on_wifi`` sets every phone instance's own flag).
        self.owners: dict[str, list[tuple[Instance, Callable[..., Any]]]] = {}
        for name in involved_classes:
            instance = self.instances.get(name)
            if instance is None:
                instance = CLASSES[name](lang)
                # Own entry first, then the BaseApi entry, which wins (and resets missing keys to
                # the defaults). A misspelled key (zh multi_turn_12 "Baspi") therefore means defaults.
                instance._load(copy.deepcopy(initial_config.get(name, {})))
                instance._load(copy.deepcopy(initial_config.get("BaseApi", {})))
                self.instances[name] = instance
            for method, function in API[(name, lang)].items():
                self.owners.setdefault(method, []).append((instance, function))

    def capture(self) -> list[dict[str, dict[str, Any]]]:
        """The official result list ``[{Class: {attr: value}}]`` after its JSON round trip (int keys
        become strings). Raises ``StateError`` when the state is not JSON-serialisable."""
        state = [
            {name: {attr: getattr(instance, attr) for attr in SAVED_ATTRIBUTES[name]}}
            for name, instance in self.instances.items()
        ]
        try:
            return json.loads(json.dumps(state, ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            raise StateError(f"end state not serialisable: {exc}") from None
