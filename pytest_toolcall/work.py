"""This process's model work: the client, the response store in front of it, and the prefetcher
that starts the work of upcoming items. Lives in every process that runs items (xdist workers too).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall import gateway
from pytest_toolcall.agents import (
    AGENT_SAMPLING,
    USER_SAMPLING,
    Rollout,
    oracle_user,
    run_multi_step,
    run_multi_turn,
)
from pytest_toolcall.agents.oracle import oracle_rollout
from pytest_toolcall.cache import CachedModel, ResponseStore
from pytest_toolcall.client import ORACLE, ChatRequest, Model, ModelSettings, OracleModel
from pytest_toolcall.collect import CATALOG, Catalog
from pytest_toolcall.datasets.acebench import Sample, family
from pytest_toolcall.datasets.general_fc import GeneralFCSample
from pytest_toolcall.options import Settings
from pytest_toolcall.oracle_general_fc import general_fc_answer
from pytest_toolcall.prefetch import Job, Prefetcher, RequestsJob, RunOrder, ThreadJob
from pytest_toolcall.prompts import acebench_requests

STORE_FILE = "responses.sqlite3"


class ModelWork:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self._model: Model | None = None
        self._user: Model | None = None
        self._store: ResponseStore | None = None
        self.prefetcher = Prefetcher(self.job_for, lookahead=2 * settings.concurrency)
        self.order: RunOrder | None = None
        # Agent rollouts are sequential by nature: each runs on a thread of its own so that it never
        # blocks the other items while it waits for the model.
        self.rollouts = ThreadPoolExecutor(max_workers=settings.concurrency, thread_name_prefix="toolcall-rollout")

    @property
    def catalog(self) -> Catalog:
        return self.config.stash[CATALOG]  # loaded at collection, before any item runs

    @property
    def model(self) -> Model:
        if self._model is None:
            s = self.settings
            self._model = self._build(s.model, s.base_url, s.api_key)
        return self._model

    @property
    def user(self) -> Model | None:
        """The user simulator of agent_multi_turn, if there is one (the oracle plays its own)."""
        s = self.settings
        if self._user is None and s.user_model is not None:
            self._user = self._build(s.user_model, s.user_base_url or s.base_url, s.user_api_key)
        return self._user

    def _build(self, name: str, base_url: str | None, api_key: str | None) -> Model:
        s = self.settings
        if name == ORACLE:
            return OracleModel()  # instant and offline: nothing to store
        network = None
        if s.cache_mode != "replay":  # replay never touches the network
            network = gateway.GatewayModel(
                ModelSettings(
                    model=name,
                    base_url=base_url,
                    api_key=api_key,
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    extra_body=s.extra_body,
                    timeout=s.timeout,
                    max_retries=s.max_retries,
                    concurrency=s.concurrency,
                ),
                self.client_address(),
            )
        store = self.store()
        if store is None:
            assert network is not None
            return network
        sampling = {"temperature": s.temperature, "max_tokens": s.max_tokens, "extra_body": s.extra_body}
        return CachedModel(name, network, store, s.cache_mode, base_url, sampling)

    def client_address(self) -> str:
        """The run's client process: on an xdist worker the controller's, else this process's."""
        worker_input = getattr(self.config, "workerinput", {})
        return worker_input.get(gateway.WORKER_INPUT) or gateway.client_address()

    def store(self) -> ResponseStore | None:
        if self._store is None:
            folder = self.store_dir()
            self._store = None if folder is None else ResponseStore(folder / STORE_FILE)
        return self._store

    def store_dir(self) -> Path | None:
        if self.settings.cache_mode == "off":
            return None
        if self.settings.cache is not None:
            return self.settings.cache
        cache = getattr(self.config, "cache", None)  # absent with -p no:cacheprovider
        if cache is None:
            if self.settings.cache_mode == "replay":
                raise pytest.UsageError("--toolcall-cache-mode=replay needs --toolcall-cache=DIR or pytest's cache")
            return None
        return Path(cache.mkdir("toolcall"))

    # --- jobs ----------------------------------------------------------------------------------

    def job_for(self, item: pytest.Item) -> Job | None:
        params: dict[str, Any] = getattr(getattr(item, "callspec", None), "params", {})
        sample = params.get("acebench_sample")
        if isinstance(sample, Sample):
            assert self.catalog.prompts is not None
            if family(sample.category) == "agent":
                return ThreadJob(self.rollouts, lambda: self.rollout(sample))
            return RequestsJob(self.model, acebench_requests(self.catalog.prompts, sample))
        line = params.get("general_fc_sample")
        if isinstance(line, GeneralFCSample):
            # Messages and tools exactly as in the file: never rewritten. The reference is what the
            # oracle answers; only it needs one (building one validates arguments against schemas).
            reference = general_fc_answer(line) if self.settings.model == ORACLE else None
            request = ChatRequest(line.messages, tools=line.tools, reference=reference)
            return RequestsJob(self.model, [request])
        return None

    def rollout(self, sample: Sample) -> Rollout | None:
        """One agent dialogue; None when agent_multi_turn has no user simulator to talk to."""
        prompts = self.catalog.prompts
        assert prompts is not None
        turns = self.settings.max_dialog_turns
        if self.settings.model == ORACLE:
            return oracle_rollout(sample, prompts, turns)
        agent = _speaker(self.model, AGENT_SAMPLING)
        if sample.category == "agent_multi_step":
            return run_multi_step(sample, prompts, agent, max_turns=turns, prompt_lang=self.settings.step_prompt_lang)
        if self.user is None:
            return None
        user = oracle_user(sample) if self.user.name == ORACLE else _speaker(self.user, USER_SAMPLING)
        return run_multi_turn(sample, prompts, agent, user, max_turns=turns)

    def before(self, item: pytest.Item) -> None:
        if self.order is None:
            self.order = RunOrder(item.session)
        self.prefetcher.advance(self.order.upcoming(item, after=self.prefetcher.frontier))

    def after(self, session: pytest.Session) -> None:
        if session.shouldfail or session.shouldstop:
            self.prefetcher.stop()

    def close(self) -> None:
        self.prefetcher.stop()
        self.rollouts.shutdown(wait=False, cancel_futures=True)
        for model in (self._model, self._user):
            if model is not None:
                model.close()
        if self._store is not None:
            self._store.close()


def _speaker(model: Model, sampling: dict[str, Any]) -> Callable[[list[dict[str, Any]]], str]:
    """A dialogue participant backed by a model: messages in, reply text out (the official loops
    send the agent and the simulator their own fixed sampling settings)."""

    def speak(messages: list[dict[str, Any]]) -> str:
        return model.submit(ChatRequest(messages, sampling=sampling)).result().content or ""

    return speak
