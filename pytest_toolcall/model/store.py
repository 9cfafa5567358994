"""The response store: every completed response, kept as soon as it arrives.

Keyed by a hash of everything that determines a response (model, endpoint, messages, tools,
sampling settings; never the API key) and of who asked (the unit's benchmark and key, the attempt
under ``--toolcall-repeat``, the step within the unit): two units that send the same request, or two
attempts of one unit, each get an answer of their own, as the official runners give them. In SQLite
with WAL so that several xdist workers can write
at once. Re-running an interrupted run sends only what it had not completed; ``--lf`` and scorer
changes replay from the store.

A run measures the endpoint as it is now: the store records runs (id, selection digest, started,
finished) and every answer carries the run that got it. By default an answer is reused only by the
run that stored it, which a new run of the same selection continues when it did not finish (an
interrupted run sends only what it had not completed); answers of other runs are reused only when
the caller says so (``ReusePolicy.other_runs``: ``--toolcall-cache-mode=reuse``, read-only and
replay, ``--lf``), no older than ``max_age_s``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import threading
import time
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse, ModelClient, RequestError
from pytest_toolcall.core.safety import door

#: The store's file in its folder (``--toolcall-cache``, or under pytest's cache).
STORE_FILE = "responses.sqlite3"

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


def exchange_key(asker: str, kind: str, request: Any, occurrence: int) -> str:
    """The key of an exchange with an environment: who asked, what, and the how-manieth time that
    same request was made in the unit (a tool called twice with the same arguments may answer anew)."""
    payload = {"asked_by": asker, "kind": kind, "request": request, "occurrence": occurrence}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclasses.dataclass(frozen=True)
class ReusePolicy:
    """Which stored answers a run takes: those of its own run (``run_id``), and with ``other_runs``
    those of any run, no older than ``max_age_s`` seconds (None: any age)."""

    run_id: str | None = None
    other_runs: bool = False
    max_age_s: float | None = None

    def allows(self, stored_at: float, run: str | None, now: float) -> bool:
        if run is not None and run == self.run_id:
            return True
        if not self.other_runs:
            return False
        return self.max_age_s is None or now - stored_at <= self.max_age_s


class StoreError(Exception):
    """A store that cannot be used: one line naming the file and what to do."""


#: The columns this version reads and writes.
_COLUMNS = {"key", "model", "stored_at", "response"}


class ResponseStore:
    """The store file at ``path``. ``writable=False`` (modes read-only and replay) opens it read-only:
    a store on a read-only file or folder can be replayed, and a missing one is simply empty."""

    def __init__(
        self, path: Path, writable: bool = True, policy: ReusePolicy | None = None, *, connect: bool = True
    ) -> None:
        self.path = path
        self.writable = writable
        self.policy = policy or ReusePolicy(other_runs=True)
        #: Whether the tables carry run ids (a store written before runs were recorded does not).
        self._has_runs = False
        #: What was wrong with the file found at start, when it was moved aside ("" otherwise).
        self.repaired = ""
        #: Answers that could not be written (a full disk, a file damaged since the start) and why the
        #: first could not: the run goes on, and says so once at its end.
        self.not_kept = 0
        self.write_problem = ""
        #: Rows the door refused (a field of the wrong type, JSON nested too deep) and why the first
        #: was: each is a miss (its unit asked again), counted and said once at the end.
        self.ignored = 0
        self.ignore_problem = ""
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if not connect:
            return
        if writable:
            self._open_writable()
        elif path.exists():
            self._open_read_only()

    @classmethod
    def unusable(cls, path: Path, problem: str, policy: ReusePolicy | None = None) -> ResponseStore:
        """A store that could be checked at start-up but not opened again in a process of the run (the
        disk filled meanwhile): it finds nothing and keeps nothing, and counts every answer it could
        not keep, so that the run goes on and says so once at its end."""
        store = cls(path, writable=True, policy=policy, connect=False)
        store.write_problem = problem
        return store

    def _open_writable(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{self.path.parent}: cannot create the response store folder ({exc.strerror})") from None
        problem = self._try_open(lambda: sqlite3.connect(self.path, **_CONNECT), create=True)
        if problem is None:
            return
        # Damaged, or of another version: keep it (it may hold answers worth having) and start anew.
        aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
        try:
            os.replace(self.path, aside)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        except OSError as exc:
            raise StoreError(
                f"{self.path}: {problem}, and it cannot be moved aside ({exc.strerror}): move or delete it"
            ) from None
        self.repaired = f"{problem}; moved aside to {aside.name}, a new store was started"
        again = self._try_open(lambda: sqlite3.connect(self.path, **_CONNECT), create=True)
        if again is not None:
            raise StoreError(f"{self.path}: {again}")

    def _open_read_only(self) -> None:
        uri = self.path.absolute().as_uri()
        problem = self._try_open(lambda: sqlite3.connect(f"{uri}?mode=ro", uri=True, **_CONNECT), create=False)
        if problem is not None and "damaged" not in problem and "schema" not in problem:
            # A store in WAL mode on a read-only folder cannot be opened read-only the usual way (its
            # shared-memory file cannot be created): as an immutable file it can.
            problem = self._try_open(lambda: sqlite3.connect(f"{uri}?immutable=1", uri=True, **_CONNECT), create=False)
        if problem is not None:
            raise StoreError(
                f"{self.path}: {problem}: move it away, or run with --toolcall-cache-mode=read-write "
                "to have it moved aside and a new one started"
            )

    def _try_open(self, connect: Any, create: bool) -> str | None:
        """Open and check the store; what is wrong with it, or None."""
        if self.path.is_dir():
            return "a folder is where the store file belongs"
        try:
            db = connect()
        except sqlite3.Error as exc:
            if _disk_full(exc, self.path.parent):
                raise StoreError(
                    f"{self.path}: the disk is full ({exc}): free some space, or run with --toolcall-cache=off"
                ) from None
            return f"cannot be opened ({exc})"
        try:
            problem = self._check(db, create)
        except sqlite3.OperationalError as exc:
            db.close()
            text = str(exc)
            if "locked" in text or "busy" in text:  # another run holds it: not damage
                raise StoreError(f"{self.path}: in use by another process ({text}): try again") from None
            if "readonly" in text or "read-only" in text:
                raise StoreError(
                    f"{self.path}: cannot be written ({text}): make it writable, or run with "
                    "--toolcall-cache-mode=read-only (or replay)"
                ) from None
            if _disk_full(exc, self.path.parent):  # not damage: the file is kept, the run says why it stops
                raise StoreError(
                    f"{self.path}: the disk is full ({text}): free some space, or run with --toolcall-cache=off"
                ) from None
            if "unable to open" in text:
                return f"cannot be opened ({text})"
            return f"damaged or not a response store ({text})"
        except sqlite3.DatabaseError as exc:
            db.close()
            if _disk_full(exc, self.path.parent):
                raise StoreError(
                    f"{self.path}: the disk is full ({exc}): free some space, or run with --toolcall-cache=off"
                ) from None
            return f"damaged or not a response store ({exc})"
        if problem is not None:
            db.close()
            return problem
        self._db = db
        return None

    def _check(self, db: sqlite3.Connection, create: bool) -> str | None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 1:
            return (
                "a response store of schema 1, written before answers were kept per unit and attempt "
                "(its keys cannot be converted)"
            )
        if version not in (0, SCHEMA_VERSION):
            return f"a response store of schema {version}, this version reads schema {SCHEMA_VERSION}"
        columns = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
        if columns and not _COLUMNS <= columns:
            return f"a responses table of another schema (columns {', '.join(sorted(columns))})"
        if not columns and version == SCHEMA_VERSION:
            return "a response store without its responses table (damaged)"
        if create:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses "
                "(key TEXT PRIMARY KEY, model TEXT NOT NULL, stored_at REAL NOT NULL, response TEXT NOT NULL)"
            )
            # What environments outside the model answered (an MCP server's tool list and results).
            db.execute(
                "CREATE TABLE IF NOT EXISTS exchanges "
                "(key TEXT PRIMARY KEY, kind TEXT NOT NULL, stored_at REAL NOT NULL, value TEXT NOT NULL)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS runs "
                "(id TEXT PRIMARY KEY, selection TEXT NOT NULL, started REAL NOT NULL, finished REAL)"
            )
            for table in ("responses", "exchanges"):  # added to stores written before runs were recorded
                if "run" not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN run TEXT")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self._has_runs = "run" in {row[1] for row in db.execute("PRAGMA table_info(responses)")}
        if columns or create:  # reads a page of the table: a truncated file fails here, not mid-run
            db.execute("SELECT count(*) FROM (SELECT key FROM responses LIMIT 1)").fetchone()
        return None

    def begin_run(self, selection: str) -> tuple[str, float | None]:
        """The run a new session of ``selection`` belongs to: the latest run of that selection when
        it did not finish (it is continued: (its id, when it started)), else a new one (id, None).
        ``StoreError`` when it cannot be recorded (a full disk)."""
        try:
            return self._begin_run(selection)
        except sqlite3.Error as exc:
            if _disk_full(exc, self.path.parent):
                raise StoreError(
                    f"{self.path}: the disk is full ({exc}): free some space, or run with --toolcall-cache=off"
                ) from None
            raise StoreError(f"{self.path}: the run cannot be recorded ({exc})") from None

    def _begin_run(self, selection: str) -> tuple[str, float | None]:
        assert self._db is not None and self.writable
        with self._lock:
            row = self._db.execute(
                "SELECT id, started, finished FROM runs WHERE selection = ? ORDER BY started DESC LIMIT 1", (selection,)
            ).fetchone()
            if row is not None and row[2] is None:
                return row[0], row[1]
            run = uuid.uuid4().hex
            self._db.execute(
                "INSERT INTO runs (id, selection, started) VALUES (?, ?, ?)", (run, selection, time.time())
            )
            return run, None

    def finish_run(self, run: str) -> None:
        """Mark the run finished: a later session of its selection starts a new one."""
        if self._db is None or not self.writable:
            return
        try:
            with self._lock:
                self._db.execute("UPDATE runs SET finished = ? WHERE id = ?", (time.time(), run))
        except sqlite3.DatabaseError:
            pass  # the next run continues this one: its answers are reused, none lost

    def _row(self, table: str, value: str, key: str) -> Any:
        """(value, stored_at, run) of a kept row, or None."""
        assert self._db is not None
        run = "run" if self._has_runs else "NULL"
        with self._lock:
            return self._db.execute(f"SELECT {value}, stored_at, {run} FROM {table} WHERE key = ?", (key,)).fetchone()

    def get(self, key: str) -> ChatResponse | None:
        """The stored answer to ``key`` when the policy allows its reuse (``from_store`` and
        ``stored_at`` set), else None."""
        if self._db is None:
            return None  # read-only, and there is no store yet
        try:
            row = self._row("responses", "response", key)
        except sqlite3.DatabaseError:
            return None  # a page damaged since the start: a miss, not a crash
        if row is None:
            return None
        try:  # through the door: a row is input like any other (another version, a hand, a fault)
            answer = row_answer(row)
        except door.Refused as exc:
            self._ignore(str(exc))
            return None
        if not self.policy.allows(row[1], row[2], time.time()):
            return None
        return dataclasses.replace(answer, from_store=True, stored_at=float(row[1]))

    def _ignore(self, problem: str) -> None:
        with self._lock:
            self.ignored += 1
            self.ignore_problem = self.ignore_problem or problem

    def put(self, key: str, model: str, response: ChatResponse) -> None:
        if self._db is None and self.writable:  # ``unusable``: counted, said once at the end
            with self._lock:
                self.not_kept += 1
            return
        if self._db is None or not self.writable:
            return
        text = json.dumps(dataclasses.asdict(response))  # ASCII: lone surrogates survive
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, model, stored_at, response, run) VALUES (?, ?, ?, ?, ?)",
                    (key, model, time.time(), text, self.policy.run_id),
                )
        except sqlite3.DatabaseError as exc:
            # The answer is still scored; only its reuse by a later run is lost: counted, said once.
            with self._lock:
                self.not_kept += 1
                self.write_problem = self.write_problem or str(exc)

    def get_exchange(self, key: str) -> tuple[bool, Any]:
        """(found, value) of a kept exchange (``exchange_key``)."""
        if self._db is None:
            return False, None
        try:
            row = self._row("exchanges", "value", key)
        except sqlite3.DatabaseError:  # a store without the table (older, read-only), or damaged
            return False, None
        if row is None:
            return False, None
        try:
            value = row_exchange(row)
        except door.Refused as exc:
            self._ignore(str(exc))
            return False, None
        if not self.policy.allows(row[1], row[2], time.time()):
            return False, None
        return True, value

    def put_exchange(self, key: str, kind: str, value: Any) -> None:
        if self._db is None or not self.writable:
            return
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO exchanges (key, kind, stored_at, value, run) VALUES (?, ?, ?, ?, ?)",
                    (key, kind, time.time(), json.dumps(value), self.policy.run_id),
                )
        except sqlite3.DatabaseError:
            pass  # like ``put``: only the reuse by a later run is lost

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()


def _stored_at(row: Any, what: str) -> None:
    if not isinstance(row[1], (int, float)) or isinstance(row[1], bool):
        raise door.Refused(f"{what}: stored_at: expected a number, got {type(row[1]).__name__}")
    if not (row[2] is None or isinstance(row[2], str)):
        raise door.Refused(f"{what}: run: expected text, got {type(row[2]).__name__}")


def row_answer(row: Any) -> ChatResponse:
    """The answer of a ``responses`` row (response, stored_at, run) through the door: JSON at most
    ``MAX_DEPTH`` deep, every field of its type, secrets masked; ``door.Refused`` otherwise."""
    what = "a stored answer"
    _stored_at(row, what)
    if not isinstance(row[0], str):
        raise door.Refused(f"{what}: expected JSON text, got {type(row[0]).__name__}")
    return door.chat_response(door.loads(row[0], what), what)


def row_exchange(row: Any) -> Any:
    """The value of an ``exchanges`` row (value, stored_at, run) through the door."""
    what = "a stored exchange"
    _stored_at(row, what)
    if not isinstance(row[0], str):
        raise door.Refused(f"{what}: expected JSON text, got {type(row[0]).__name__}")
    return door.loads(row[0], what)


def store_rows_problem(db: sqlite3.Connection, schema: str = "main") -> str:
    """The first row of the store open in ``db`` that the door refuses ("" when none): what
    ``merge-store`` would otherwise copy for every later run to trip on."""
    tables = {r[0] for r in db.execute(f"SELECT name FROM {schema}.sqlite_master WHERE type='table'")}
    for table, column, read in (("responses", "response", row_answer), ("exchanges", "value", row_exchange)):
        if table not in tables:
            continue
        run = "run" if _has_column(db, schema, table, "run") else "NULL"
        for key, *row in db.execute(f"SELECT key, {column}, stored_at, {run} FROM {schema}.{table}"):
            try:
                read(row)
            except door.Refused as exc:
                return f"{table} row {str(key)[:16]}...: {exc}"
    return ""


def store_shape_problem(db: sqlite3.Connection) -> str:
    """What makes the store open in ``db`` one ``merge_stores`` cannot copy ("" when nothing): its
    tables' columns, and rows of the wrong type."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
    if not columns:
        return "no responses table"
    if not _COLUMNS <= columns:
        return f"a responses table of another shape (columns {', '.join(sorted(columns))})"
    odd = db.execute(
        "SELECT count(*) FROM responses WHERE typeof(key) != 'text' OR typeof(response) != 'text' "
        "OR typeof(model) != 'text' OR typeof(stored_at) NOT IN ('real', 'integer')"
    ).fetchone()[0]
    if odd:
        return f"{odd} row(s) of responses with a value of the wrong type"
    return store_rows_problem(db)


#: Free bytes under which an I/O error of SQLite is taken for a full disk: with a few pages left, the
#: store file can be created but not its write-ahead log, and SQLite says "disk I/O error".
NEARLY_FULL = 2**20


def _disk_full(exc: sqlite3.Error, folder: Path | None = None) -> bool:
    """SQLite's ``SQLITE_FULL`` (the disk or a quota is full), or an I/O error on a disk that is
    nearly full: no damage to the file either way."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "disk is full" in str(exc):
        return True
    io_error = (code is not None and code & 0xFF == sqlite3.SQLITE_IOERR) or "I/O error" in str(exc)
    if folder is None or not io_error:
        return False
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < NEARLY_FULL


# One connection shared by pytest's thread and the client thread, serialized by a lock.
_CONNECT: dict[str, Any] = {"timeout": 30, "check_same_thread": False, "isolation_level": None}


def _has_column(db: sqlite3.Connection, schema: str, table: str, column: str) -> bool:
    return column in {row[1] for row in db.execute(f"PRAGMA {schema}.table_info({table})")}


def merge_stores(sources: list[Path], target: Path) -> int:
    """Copy every response and recorded exchange of ``sources`` into the store at ``target`` (created if
    needed); a key already there, or met in an earlier source, keeps its first response. Returns the
    number of responses copied."""
    store = ResponseStore(target)
    copied = 0
    try:
        with store._lock:
            db = store._db
            assert db is not None, "a writable store is open once made (or its making raised)"
            for number, source in enumerate(sources):
                db.execute(f"ATTACH DATABASE ? AS source{number}", (str(source),))
                try:
                    before = db.total_changes
                    db.execute("BEGIN")
                    run = "run" if _has_column(db, f"source{number}", "responses", "run") else "NULL"
                    db.execute(
                        "INSERT OR IGNORE INTO responses (key, model, stored_at, response, run) "
                        f"SELECT key, model, stored_at, response, {run} FROM source{number}.responses"
                    )
                    copied += db.total_changes - before
                    tables = {
                        r[0] for r in db.execute(f"SELECT name FROM source{number}.sqlite_master WHERE type='table'")
                    }
                    if "exchanges" in tables:
                        run = "run" if _has_column(db, f"source{number}", "exchanges", "run") else "NULL"
                        db.execute(
                            "INSERT OR IGNORE INTO exchanges (key, kind, stored_at, value, run) "
                            f"SELECT key, kind, stored_at, value, {run} FROM source{number}.exchanges"
                        )
                    if "runs" in tables:
                        db.execute(
                            "INSERT OR IGNORE INTO runs SELECT id, selection, started, finished "
                            f"FROM source{number}.runs"
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
        model: ModelClient | None,
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
            future.set_result(dataclasses.replace(cached, latency_s=0.0, retries=0, ttft_s=None, queue_s=0.0))
            return future
        if self.model is None:  # replay: never any network
            future = Future()
            future.set_exception(RequestError("replay mode: no stored response for this request"))
            return future
        future = self.model.submit(request)
        if not self.store.writable:
            return future
        # The caller sees the answer only once it is stored: a scorer that is slow (or interrupted)
        # never costs the request, whatever the threads do meanwhile.
        stored: Future[ChatResponse] = Future()
        stored.add_done_callback(lambda done: future.cancel() if done.cancelled() else None)
        future.add_done_callback(lambda done: self._keep(key, done, stored))
        return stored

    def _keep(self, key: str, done: Future[ChatResponse], stored: Future[ChatResponse]) -> None:
        if done.cancelled():
            stored.cancel()
            return
        error = done.exception()
        try:
            if error is None:
                self.store.put(key, self.name, done.result())
        finally:
            if not stored.cancelled():
                if error is None:
                    stored.set_result(done.result())
                else:
                    stored.set_exception(error)

    def close(self) -> None:
        if self.model is not None:
            self.model.close()  # the store is shared: its owner closes it
