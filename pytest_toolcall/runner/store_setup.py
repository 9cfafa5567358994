"""The response store of a run: where it is, checked once at start-up (a damaged one moved aside,
the session's run begun), opened in each process that asks, and the session's run marked finished
at the end. The store itself is ``model/store.py``'s.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pytest_toolcall.config.settings import WRITING_MODES, Settings
from pytest_toolcall.core.protocol.types import RequestError
from pytest_toolcall.model.store import STORE_FILE, ResponseStore, ReusePolicy, StoreError
from pytest_toolcall.runner import compat
from pytest_toolcall.runner.keys import STORE_RUN, STORE_RUN_INPUT

#: Options that change neither what is collected nor what is sent: a run interrupted and started
#: again with another of these continues (its answers reused).
_NOT_SELECTION = frozenset(
    {
        "cache", "cache-mode", "cache-max-age", "report", "html", "fail-under", "max-errors", "baseline",
        "fail-on-regression", "gate-on", "gate-value", "concurrency", "timeout", "max-retries", "budget", "price",
    }
)  # fmt: skip


class ProcessStore:
    """This process's connection to the run's store, opened on first use (never when every model is
    the oracle or the store is off)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self._store: ResponseStore | None = None

    def get(self) -> ResponseStore | None:
        if self._store is None:
            folder = store_dir(self.config, self.settings)
            if folder is not None:
                try:
                    self._store = ResponseStore(
                        folder / STORE_FILE, self.settings.cache_mode in WRITING_MODES, self.policy()
                    )
                except StoreError as exc:
                    raise RequestError(f"response store: {exc}") from None
        return self._store

    def policy(self) -> ReusePolicy:
        """Which stored answers this run takes: its own run's (an interrupted run continued), and
        those of earlier runs only when asked (``reuse``, read-only, replay) or for ``--lf``."""
        s = self.settings
        run_id = compat.worker_input(self.config).get(STORE_RUN_INPUT) or self.config.stash.get(STORE_RUN, None)
        last_failed = bool(getattr(self.config.option, "lf", False))
        other_runs = s.cache_mode in ("reuse", "read-only", "replay") or last_failed
        return ReusePolicy(run_id=run_id, other_runs=other_runs, max_age_s=s.cache_max_age)

    def losses(self) -> tuple[int, str]:
        """How many answers this process could not write to the store, and why the first could not."""
        store = self._store
        return (store.not_kept, store.write_problem) if store is not None else (0, "")

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def store_dir(config: pytest.Config, settings: Settings) -> Path | None:
    """The folder of the run's response store, or None when there is none."""
    if settings.cache_mode == "off":
        return None
    if settings.cache is not None:
        return settings.cache
    cache = getattr(config, "cache", None)  # absent with -p no:cacheprovider
    if cache is None:
        if settings.cache_mode == "replay":
            raise pytest.UsageError("--toolcall-cache-mode=replay needs --toolcall-cache=DIR or pytest's cache")
        return None
    return Path(cache.mkdir("toolcall"))


def check_store(config: pytest.Config, settings: Settings) -> str:
    """Open the store once at start-up, before any worker or request: a damaged one is moved aside
    and replaced when the mode writes (the returned line says so), else a usage error names it."""
    if settings.only_oracle:
        return ""  # the oracle answers at once: it never uses the store
    folder = store_dir(config, settings)
    if folder is None:
        return ""
    if settings.cache_mode == "replay" and not (folder / STORE_FILE).exists():
        raise pytest.UsageError(f"--toolcall-cache-mode=replay: no response store at {folder / STORE_FILE}")
    writes = settings.cache_mode in WRITING_MODES
    try:
        store = ResponseStore(folder / STORE_FILE, writes)
    except StoreError as exc:
        raise pytest.UsageError(f"--toolcall-cache: {exc}") from None
    try:
        if writes and not config.option.collectonly:
            config.stash[STORE_RUN], _ = store.begin_run(selection_digest(config, settings))
    finally:
        store.close()
    return f"{store.path}: {store.repaired}" if store.repaired else ""


def selection_digest(config: pytest.Config, settings: Settings) -> str:
    """What a session runs and sends: its arguments, -k, -m and the options that change the items or
    the requests (a run started again with the same ones continues the store's unfinished run)."""
    payload = {
        "args": sorted(str(arg) for arg in config.args),
        "keyword": getattr(config.option, "keyword", "") or "",
        "markexpr": getattr(config.option, "markexpr", "") or "",
        "options": {k: v for k, v in sorted(settings.raw.items()) if k not in _NOT_SELECTION},
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def finish_store_run(config: pytest.Config, settings: Settings) -> None:
    """Mark this session's run of the store finished (an uninterrupted session): the next session
    of the same selection asks the model anew."""
    run = config.stash.get(STORE_RUN, None)
    folder = store_dir(config, settings) if run is not None else None
    if run is None or folder is None:
        return
    try:
        store = ResponseStore(folder / STORE_FILE, True)
    except StoreError:
        return  # the next session continues this run: nothing is lost
    try:
        store.finish_run(run)
    finally:
        store.close()
