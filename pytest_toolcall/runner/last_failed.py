"""The plugin object of ``--lf``/``--ff`` per model (registered only where pytest's cache and its
last-failed plugin are). pytest keeps one list of failures for the whole project, which would
re-run another model's failures: this gives pytest this model's list instead (kept in pytest's
cache under a key of the model and endpoint) and keeps its updated list there at the end. A model
seen for the first time starts from the project's failures without any benchmark item."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

from pytest_toolcall.config.registry import is_benchmark_nodeid
from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.safety.urls import redact_url
from pytest_toolcall.runner import compat


class LastFailedByModel:
    def __init__(self, config: pytest.Config, settings: Settings, lf: Any, keep: bool) -> None:
        self.config = config
        self.lf = lf
        self.keep = keep  # where the run's list is written at the end (not on xdist workers)
        who = f"{settings.model}@{redact_url(settings.base_url) or 'default'}"
        self.key = "toolcall/lastfailed/" + re.sub(r"[^A-Za-z0-9._-]+", "_", who)[:80] + "-" + _digest(who)
        stored = config.cache.get(self.key, None) if config.cache is not None else None
        if not isinstance(stored, dict):
            stored = {nodeid: True for nodeid in compat.last_failed(lf) if not is_benchmark_nodeid(nodeid)}
        compat.set_last_failed(lf, stored)

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self) -> Any:
        result = yield
        if self.keep and self.config.cache is not None:  # as pytest just wrote its own list
            self.config.cache.set(self.key, compat.last_failed(self.lf))
        return result


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
