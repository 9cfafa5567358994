"""Model access of one process: the model of each role (the model under test, the user simulator,
the judge), resolved once from the options and built once per way of asking: the oracle, or the
endpoint's client through the run's client process, behind ``--toolcall-budget`` and the response
store. What a role is lives here; the benchmarks ask ``Models.user`` or ``Models.judge``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_toolcall.config.settings import Settings
from pytest_toolcall.core.protocol.types import (
    ChatRequest,
    ChatResponse,
    Model,
    ModelClient,
    ModelSettings,
    RequestError,
    Role,
)
from pytest_toolcall.model import oracle, sdk_process
from pytest_toolcall.model.store import CachedModel, ResponseStore
from pytest_toolcall.results.usage import Budget
from pytest_toolcall.runner import compat


@dataclass(frozen=True)
class RoleEndpoint:
    """Who plays a role, as the options say: the model's name, its endpoint and its key's variable."""

    role: Role
    name: str
    base_url: str | None
    api_key_env: str  # "" when its endpoint needs no key
    #: The option naming that variable, for messages (``user-api-key-env``).
    key_option: str

    @property
    def oracle(self) -> bool:
        return oracle.chooses(self.name)


def role_endpoints(settings: Settings) -> dict[Role, RoleEndpoint]:
    """The roles this run has a model for: the model under test always; the user simulator and the
    judge when given (``--toolcall-user-model``, ``--toolcall-judge-model``), their endpoint and key
    defaulting to the model's. Under the oracle with no user simulator given, the oracle plays the
    user too (from the references the plans attach)."""
    under_test = RoleEndpoint(Role.MODEL, settings.model, settings.base_url, settings.api_key_env, "api-key-env")
    roles = {Role.MODEL: under_test}
    for role in (Role.USER, Role.JUDGE):
        prefix = role.value
        name = settings.option(f"{prefix}-model") or (oracle.NAME if role is Role.USER and settings.is_oracle else "")
        if name:
            roles[role] = RoleEndpoint(
                role,
                name,
                settings.option(f"{prefix}-base-url") or settings.base_url,
                settings.option(f"{prefix}-api-key-env") or settings.api_key_env,
                f"{prefix}-api-key-env",
            )
    return roles


class RunModels:
    """The model of each role in this process, built on first use, once per way of asking (plain,
    and streamed for the model under test under ``--toolcall-stream``)."""

    def __init__(self, config: pytest.Config, settings: Settings, store: Callable[[], ResponseStore | None]) -> None:
        self.config = config
        self.settings = settings
        self.endpoints = role_endpoints(settings)
        self._store = store
        self._clients: dict[tuple[Role, bool, str], ModelClient] = {}
        self._own_client = False  # this worker could not reach the controller's client process
        self.budget: Budget | None = None
        self.budget_spent = ""
        if settings.budget is not None and settings.price is not None:
            # Each xdist worker spends from its own share: together they never pass the limit.
            workers = int(compat.worker_input(config).get("workercount", 1) or 1)
            self.budget = Budget(settings.budget / workers, settings.price)
            # The same reason for every unit not sent (pytest's -rs folds equal ones into one line).
            share = f" (each of the {workers} xdist workers spends from its share)" if workers > 1 else ""
            self.budget_spent = f"not sent: the estimated cost passed --toolcall-budget={settings.budget:g} USD{share}"

    @property
    def oracle(self) -> bool:
        """Whether the model under test is the oracle."""
        return self.endpoints[Role.MODEL].oracle

    def client(self, role: Role, streamed: bool = False, api: str | None = None) -> ModelClient:
        """The model of a role this run has (``endpoints``); ``streamed``: asked with streamed requests;
        ``api``: through this wire format (default: ``--toolcall-api`` for the model under test, Chat
        Completions for the others, which are not measured)."""
        wire = api or (self.settings.api if role is Role.MODEL else "chat")
        key = (role, streamed, wire)
        if key not in self._clients:
            self._clients[key] = self._build(self.endpoints[role], streamed, wire)
        return self._clients[key]

    def session_model(self, counted: list[dict[str, Any]], streamed: bool = False) -> Model:
        """The model under test as the fixture ``toolcall_model`` hands it out: each answer counted in
        ``counted`` (the oracle's cost nothing and are counted nowhere, as for units)."""
        client = self.client(Role.MODEL, streamed)
        if isinstance(client, oracle.OracleModel):
            return client
        return OtherRequests(client, counted)

    def _build(self, endpoint: RoleEndpoint, streamed: bool, api: str) -> ModelClient:
        if endpoint.oracle:
            return oracle.OracleModel(endpoint.role)  # instant and offline: nothing to store
        s = self.settings
        network: ModelClient | None = None
        if s.cache_mode != "replay":  # replay never touches the network
            network = self._gateway(
                ModelSettings(
                    model=endpoint.name,
                    base_url=endpoint.base_url,
                    api_key=os.environ.get(endpoint.api_key_env),
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    extra_body=s.extra_body,
                    timeout=s.timeout,
                    max_retries=s.max_retries,
                    concurrency=s.concurrency,
                    api_key_env=endpoint.api_key_env,
                    stream=streamed,
                    api=api,
                )
            )
            if self.budget is not None:
                network = BudgetedModel(network, self.budget, self.budget_spent)
        store = self._store()
        if store is None:
            assert network is not None
            return network
        sampling: dict[str, Any] = {
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "extra_body": s.extra_body,
        }
        # A streamed answer, or one through another API, is another answer: stored apart (the keys of
        # plain Chat Completions answers stay as they were).
        if streamed:
            sampling["stream"] = True
        if api != "chat":
            sampling["api"] = api
        return CachedModel(endpoint.name, network, store, s.cache_mode, endpoint.base_url, sampling)

    def client_address(self) -> str:
        """The run's client process: on an xdist worker the controller's (unless this worker could
        not reach it), else this process's."""
        controller = compat.worker_input(self.config).get(sdk_process.WORKER_INPUT)
        return sdk_process.client_address() if controller is None or self._own_client else controller

    def _gateway(self, model_settings: ModelSettings) -> sdk_process.GatewayModel:
        address = self.client_address()
        try:
            return sdk_process.GatewayModel(model_settings, address)
        except OSError:
            if address == sdk_process.own_address():
                raise
        # The controller's client process is out of reach (a worker on another host through
        # ``--tx ssh=...``, a socket this worker cannot open): this worker starts a client of its own.
        self._own_client = True
        return sdk_process.GatewayModel(model_settings, sdk_process.client_address())

    def close(self) -> None:
        for client in self._clients.values():
            client.close()


class BudgetExhausted(RequestError):
    """Not sent: the estimated cost of the run has passed ``--toolcall-budget``."""


class BudgetedModel:
    """The network model behind ``--toolcall-budget``: the cost of each answer is added as it arrives,
    and once the estimate passes the limit no new request is sent (the store still answers)."""

    def __init__(self, model: ModelClient, budget: Budget, spent: str) -> None:
        self.name = model.name
        self.model = model
        self.budget = budget
        self.spent = spent  # the reason a request is not sent
        self._lock = threading.Lock()

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        with self._lock:
            exhausted = self.budget.exhausted
        if exhausted:
            future: Future[ChatResponse] = Future()
            future.set_exception(BudgetExhausted(self.spent))
            return future
        future = self.model.submit(request)
        future.add_done_callback(self._count)
        return future

    def _count(self, done: Future[ChatResponse]) -> None:
        if done.cancelled() or done.exception() is not None:
            return
        usage = done.result().usage or {}
        with self._lock:
            self.budget.add(usage)

    def close(self) -> None:
        self.model.close()


class OtherRequests:
    """The model under test for requests that belong to no unit: each answer counted in a list."""

    role = Role.MODEL
    oracle = False

    def __init__(self, model: ModelClient, counted: list[dict[str, Any]]) -> None:
        self.name = model.name
        self._model = model
        self._counted = counted

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        future = self._model.submit(request)
        future.add_done_callback(self._count)
        return future

    def _count(self, done: Future[ChatResponse]) -> None:
        if not done.cancelled() and done.exception() is None:
            self._counted.append(request_usage(done.result()))  # (list.append: safe from any thread)

    def close(self) -> None:
        pass  # the run's model: closed by the run


def request_usage(response: ChatResponse) -> dict[str, Any]:
    """One request's entry in a sample's ``usage.requests`` (what ``results.usage`` sums)."""
    entry: dict[str, Any] = dict(response.usage or {})
    entry.update(latency_s=round(response.latency_s, 4), from_store=response.from_store, retries=response.retries)
    if not response.from_store:  # timing of a request sent now (a stored answer took no time)
        entry["queue_s"] = round(response.queue_s, 4)
        if response.ttft_s is not None:
            entry["ttft_s"] = round(response.ttft_s, 4)
    if response.from_store and response.stored_at is not None:
        entry["stored_at"] = round(response.stored_at, 3)
    return entry
