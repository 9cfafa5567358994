"""The response store: every completed response, kept as soon as it arrives.

Keyed by a hash of everything that determines a response (model, endpoint, messages, tools,
sampling settings; never the API key) and of who asked (the unit's benchmark and key, the attempt
under ``--toolcall-repeat``, the step within the unit): two units that send the same request, or two
attempts of one unit, each get an answer of their own, as the official runners give them. In SQLite
with WAL so that several xdist workers can write
at once. Re-running an interrupted run sends only what it had not completed; ``--lf`` and scorer
changes replay from the store.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from pytest_toolcall.model.types import ChatRequest, ChatResponse, Model, RequestError

#: 2: keys include the asking unit's identity (1: the request alone, which gave identical requests of
#: different units one shared answer).
SCHEMA_VERSION = 2


def request_key(model: str, base_url: str | None, request: ChatRequest, sampling: dict[str, Any]) -> str:
    """A stable hash of what determines the answer; the reference (oracle only) is not part of it."""
    payload = {
        "model": model,
        "base_url": base_url or "",
        "messages": request.messages,
        "tools": request.tools,
        "sampling": {**sampling, **request.sampling},
    }
    if request.identity is not None:
        payload["asked_by"] = request.identity
    # ASCII escapes: messages may carry model text with lone surrogates, which UTF-8 cannot encode.
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # One connection shared by pytest's thread and the client thread, serialized by a lock.
        self._db = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == 1:
                raise RuntimeError(
                    f"{path}: response store of schema 1, written before answers were kept per unit and attempt "
                    "(its keys cannot be converted); move it aside or pass another --toolcall-cache=DIR"
                )
            if version not in (0, SCHEMA_VERSION):
                raise RuntimeError(f"{path}: response store of schema {version}, expected {SCHEMA_VERSION}")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses "
                "(key TEXT PRIMARY KEY, model TEXT NOT NULL, stored_at REAL NOT NULL, response TEXT NOT NULL)"
            )
            # Seconds each unit took when last asked fresh: weights for cutting shards.
            self._db.execute("CREATE TABLE IF NOT EXISTS unit_costs (nodeid TEXT PRIMARY KEY, seconds REAL NOT NULL)")
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def get(self, key: str) -> ChatResponse | None:
        with self._lock:
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return ChatResponse(**json.loads(row[0]))
        except (ValueError, TypeError):
            return None  # a row this version cannot read is a miss, not a crash

    def put(self, key: str, model: str, response: ChatResponse) -> None:
        text = json.dumps(dataclasses.asdict(response))  # ASCII: lone surrogates survive
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, model, stored_at, response) VALUES (?, ?, ?, ?)",
                (key, model, time.time(), text),
            )

    def unit_costs(self) -> dict[str, float]:
        with self._lock:
            return dict(self._db.execute("SELECT nodeid, seconds FROM unit_costs").fetchall())

    def put_unit_costs(self, costs: dict[str, float]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO unit_costs (nodeid, seconds) VALUES (?, ?)", costs.items())
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def merge_stores(sources: list[Path], target: Path) -> int:
    """Copy every response and unit cost of ``sources`` into the store at ``target`` (created if
    needed); a key already there, or met in an earlier source, keeps its first response. Returns the
    number of responses copied."""
    store = ResponseStore(target)
    copied = 0
    try:
        with store._lock:
            db = store._db
            for number, source in enumerate(sources):
                db.execute(f"ATTACH DATABASE ? AS source{number}", (str(source),))
                try:
                    before = db.total_changes
                    db.execute("BEGIN")
                    db.execute(
                        "INSERT OR IGNORE INTO responses SELECT key, model, stored_at, response "
                        f"FROM source{number}.responses"
                    )
                    copied += db.total_changes - before
                    tables = {
                        r[0] for r in db.execute(f"SELECT name FROM source{number}.sqlite_master WHERE type='table'")
                    }
                    if "unit_costs" in tables:
                        db.execute(
                            f"INSERT OR IGNORE INTO unit_costs SELECT nodeid, seconds FROM source{number}.unit_costs"
                        )
                    db.execute("COMMIT")
                finally:
                    db.execute(f"DETACH DATABASE source{number}")
    finally:
        store.close()
    return copied


class CachedModel:
    """A model behind the store: hits answer at once, misses go to the model and are stored."""

    def __init__(
        self,
        name: str,
        model: Model | None,
        store: ResponseStore,
        mode: str,
        base_url: str | None,
        sampling: dict[str, Any],
    ) -> None:
        self.name = name
        self.model = model
        self.store = store
        self.mode = mode
        self.base_url = base_url
        self.sampling = sampling

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        key = request_key(self.name, self.base_url, request, self.sampling)
        cached = self.store.get(key)
        if cached is not None:
            future: Future[ChatResponse] = Future()
            future.set_result(dataclasses.replace(cached, latency_s=0.0, retries=0, from_store=True))
            return future
        if self.model is None:  # replay: never any network
            future = Future()
            future.set_exception(RequestError("replay mode: no stored response for this request"))
            return future
        future = self.model.submit(request)
        if self.mode == "read-write":
            future.add_done_callback(lambda done: self._keep(key, done))
        return future

    def _keep(self, key: str, done: Future[ChatResponse]) -> None:
        if not done.cancelled() and done.exception() is None:
            self.store.put(key, self.name, done.result())

    def close(self) -> None:
        if self.model is not None:
            self.model.close()  # the store is shared: its owner closes it
