"""This process's model work: the client, the response store in front of it, and the prefetcher
that starts the work of upcoming items. Lives in every process that runs items (xdist workers too).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cache import CachedModel, ResponseStore
from pytest_toolcall.client import ORACLE, ChatRequest, Model, ModelSettings, build_model
from pytest_toolcall.collect import Catalog
from pytest_toolcall.datasets.acebench import Sample
from pytest_toolcall.datasets.general_fc import GeneralFCSample
from pytest_toolcall.options import Settings
from pytest_toolcall.oracle_general_fc import general_fc_answer
from pytest_toolcall.prefetch import Job, Prefetcher, RequestsJob, RunOrder
from pytest_toolcall.prompts import acebench_requests

STORE_FILE = "responses.sqlite3"


class ModelWork:
    def __init__(self, config: pytest.Config, settings: Settings, catalog: Catalog) -> None:
        self.config = config
        self.settings = settings
        self.catalog = catalog
        self._model: Model | None = None
        self.prefetcher = Prefetcher(self.job_for, lookahead=2 * settings.concurrency)
        self.order: RunOrder | None = None

    @property
    def model(self) -> Model:
        if self._model is None:
            self._model = self._build()
        return self._model

    def _build(self) -> Model:
        s = self.settings
        if s.model == ORACLE:
            return build_model(ModelSettings(model=ORACLE))  # instant and offline: nothing to store
        store_dir = self.store_dir()
        network = None
        if s.cache_mode != "replay":  # replay never touches the network
            network = build_model(
                ModelSettings(
                    model=s.model,
                    base_url=s.base_url,
                    api_key=s.api_key,
                    temperature=s.temperature,
                    max_tokens=s.max_tokens,
                    extra_body=s.extra_body,
                    timeout=s.timeout,
                    max_retries=s.max_retries,
                    concurrency=s.concurrency,
                )
            )
        if store_dir is None:
            assert network is not None
            return network
        sampling = {"temperature": s.temperature, "max_tokens": s.max_tokens, "extra_body": s.extra_body}
        return CachedModel(s.model, network, ResponseStore(store_dir / STORE_FILE), s.cache_mode, s.base_url, sampling)

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
            return RequestsJob(self.model, acebench_requests(self.catalog.prompts, sample))
        line = params.get("general_fc_sample")
        if isinstance(line, GeneralFCSample):
            # Messages and tools exactly as in the file: never rewritten.
            request = ChatRequest(line.messages, tools=line.tools, reference=general_fc_answer(line))
            return RequestsJob(self.model, [request])
        return None

    def before(self, item: pytest.Item) -> None:
        if self.order is None:
            self.order = RunOrder(item.session)
        self.prefetcher.advance(self.order.upcoming(item))

    def after(self, session: pytest.Session) -> None:
        if session.shouldfail or session.shouldstop:
            self.prefetcher.stop()

    def close(self) -> None:
        self.prefetcher.stop()
        if self._model is not None:
            self._model.close()

    def stats(self) -> dict[str, int]:
        model = self._model
        if isinstance(model, CachedModel):
            return {"from_store": model.hits, "sent": model.misses}
        return {}
