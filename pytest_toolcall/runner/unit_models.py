"""The ``Models`` a unit's plan gets: each role's model of the run, seen by the unit. Every request
carries who asks (unit, attempt, step) into the store key, and every answer is kept so that the
unit's record says what it used (``usage``, ``from_store``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from pytest_toolcall.config.settings import WRITING_MODES
from pytest_toolcall.core.protocol.benchmark import Unit
from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse, Model, ModelClient, RequestError, Role
from pytest_toolcall.model.oracle import OracleModel
from pytest_toolcall.model.store import exchange_key
from pytest_toolcall.runner.models import RunModels, request_usage
from pytest_toolcall.runner.store_setup import ProcessStore
from pytest_toolcall.runner.streamed import Asking


class UnitModel:
    """A role's model as one unit sees it: each request carries who asks into the store key and its
    benchmark's sampling (``Settings.sampling_for``; what the request sets itself wins), and every
    answer is kept in the unit's list."""

    oracle = False

    def __init__(
        self,
        model: ModelClient,
        role: Role,
        asker: str,
        answers: list[Future[ChatResponse]],
        sampling: dict[str, Any] | None = None,
    ) -> None:
        self.name = model.name
        self.role = role
        self._model = model
        self._asker = asker
        self._steps = itertools.count()
        self._answers = answers
        self._sampling = sampling or {}

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        identity = f"{self._asker}\x00{next(self._steps)}"
        sampling = {**self._sampling, **request.sampling}
        future = self._model.submit(dataclasses.replace(request, identity=identity, sampling=sampling))
        self._answers.append(future)
        return future

    def close(self) -> None:
        pass  # the run's model: closed by the run


class UnitModels:
    """The ``Models`` of one unit, for one way of asking it (``asking``: plain, or the streamed one
    of ``--toolcall-stream``)."""

    def __init__(
        self, models: RunModels, store: ProcessStore, unit: Unit, asking: Asking, sampling: dict[str, Any] | None = None
    ) -> None:
        self._run = models
        #: The unit's benchmark's sampling, as the run sends it (``Settings.sampling_for``).
        self._sampling = sampling or {}
        self._store = store
        self._unit = unit
        self.asking = asking
        self._views: dict[Role, Model] = {}
        self._paths: dict[tuple[str, bool], Model] = {}  # the model under test on other paths (``through``)
        #: Every request the unit sent (or got from the store), in order.
        self.answers: list[Future[ChatResponse]] = []
        self._occurrences: dict[str, int] = {}

    @property
    def oracle(self) -> bool:
        return self._run.oracle

    @property
    def model(self) -> Model:
        return self._role(Role.MODEL)

    @property
    def user(self) -> Model | None:
        return self._role(Role.USER) if Role.USER in self._run.endpoints else None

    @property
    def judge(self) -> Model | None:
        return self._role(Role.JUDGE) if Role.JUDGE in self._run.endpoints else None

    def _role(self, role: Role) -> Model:
        if role not in self._views:
            client = self._run.client(role, self.asking.streams(role))
            if isinstance(client, OracleModel):
                # Its answers cost nothing, take no time and are never stored: no usage, no identity.
                self._views[role] = client
            else:
                self._views[role] = UnitModel(client, role, self._unit.asker, self.answers, self._sampling)
        return self._views[role]

    def through(self, api: str, stream: bool) -> Model:
        """The model under test through this wire format, streamed or not (``Models.through``)."""
        if self.oracle:
            return self.model
        key = (api, stream)
        if key not in self._paths:
            client = self._run.client(Role.MODEL, stream, api)
            self._paths[key] = UnitModel(client, Role.MODEL, self._unit.asker, self.answers)
        return self._paths[key]

    def exchange(self, kind: str, request: Any, perform: Callable[[], Any]) -> Any:
        """An environment's answer, through the run's store (``Models.exchange``); the oracle's runs
        keep nothing, like its answers."""
        if self.oracle:
            return perform()
        same = json.dumps([kind, request], sort_keys=True, default=repr)
        occurrence = self._occurrences[same] = self._occurrences.get(same, 0) + 1
        store = self._store.get()
        key = exchange_key(self._unit.asker, kind, request, occurrence)
        if store is not None:
            found, value = store.get_exchange(key)
            if found:
                return value
        cache_mode = self._store.settings.cache_mode
        if cache_mode == "replay":
            raise RequestError(f"replay mode: no stored {kind} answer for {json.dumps(request, default=repr)[:200]}")
        value = perform()
        if store is not None and cache_mode in WRITING_MODES:
            store.put_exchange(key, kind, value)
        return value

    def responses(self) -> list[ChatResponse]:
        """The answers the unit got, in the order it asked."""
        return [f.result() for f in list(self.answers) if f.done() and not f.cancelled() and not f.exception()]


def usage_of(models: list[UnitModels]) -> tuple[dict[str, Any] | None, bool]:
    """(the sample's ``usage``, ``from_store``) of a unit asked through ``models`` (one per asking):
    token sums and one entry per answered request, those of an asking that is only compared (the
    streamed one of ``--toolcall-stream both``) marked ``streamed``."""
    requests: list[dict[str, Any]] = []
    from_store = True
    for unit_models in models:
        for response in unit_models.responses():
            entry = request_usage(response)
            if not unit_models.asking.scored:
                entry["streamed"] = True
            requests.append(entry)
            from_store = from_store and response.from_store
    if not requests:
        return None, False
    usage: dict[str, Any] = {
        key: sum(r.get(key) or 0 for r in requests)
        for key in ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
        if key in ("prompt_tokens", "completion_tokens") or any(key in r for r in requests)
    }
    usage["requests"] = requests
    return usage, from_store
