"""An answer is in the store before the caller (the scorer) can see it."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path

from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse
from pytest_toolcall.model.store import CachedModel, ResponseStore, request_key


class _LateModel:
    """A model answering from another thread when told to (the endpoint's latency, made explicit)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def submit(self, request: ChatRequest) -> Future[ChatResponse]:
        future: Future[ChatResponse] = Future()

        def answer() -> None:
            self.release.wait()
            future.set_result(ChatResponse("hello"))

        threading.Thread(target=answer, daemon=True).start()
        return future

    def close(self) -> None:
        pass


class _Watched(ResponseStore):
    """A store that notes whether the caller could already see the answer when it was written."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.caller: Future[ChatResponse] | None = None
        self.seen_before_stored: list[bool] = []

    def put(self, key: str, model: str, response: ChatResponse) -> None:
        assert self.caller is not None
        self.seen_before_stored.append(self.caller.done())
        super().put(key, model, response)


def test_the_answer_is_stored_before_the_caller_sees_it(tmp_path: Path) -> None:
    store = _Watched(tmp_path / "store.sqlite")
    late = _LateModel()
    model = CachedModel("m", late, store, "read-write", None, {})  # type: ignore[arg-type]
    request = ChatRequest([{"role": "user", "content": "hi"}], identity="b/u/0/0")
    store.caller = model.submit(request)
    late.release.set()
    assert store.caller.result(timeout=60).content == "hello"  # a hang guard, not a measurement
    assert store.seen_before_stored == [False]
    assert store.get(request_key("m", None, request, {})) is not None
    store.close()


def test_cancelling_the_callers_future_cancels_the_request(tmp_path: Path) -> None:
    store = ResponseStore(tmp_path / "store.sqlite")
    inner: list[Future[ChatResponse]] = []

    class Pending:
        def submit(self, request: ChatRequest) -> Future[ChatResponse]:
            inner.append(Future())
            return inner[-1]

        def close(self) -> None:
            pass

    model = CachedModel("m", Pending(), store, "read-write", None, {})  # type: ignore[arg-type]
    future = model.submit(ChatRequest([{"role": "user", "content": "hi"}]))
    assert future.cancel()
    assert inner[0].cancelled()
    store.close()
