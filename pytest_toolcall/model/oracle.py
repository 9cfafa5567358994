"""The built-in ``oracle`` model: answers every request with the reference its benchmark attached."""

from __future__ import annotations

import concurrent.futures

from pytest_toolcall.config.settings import ORACLE
from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse


class OracleModel:
    """Answers every request with its reference, at once and without any network."""

    name = ORACLE

    def submit(self, request: ChatRequest) -> concurrent.futures.Future[ChatResponse]:
        future: concurrent.futures.Future[ChatResponse] = concurrent.futures.Future()
        reference = request.reference
        if isinstance(reference, dict) and "status" in reference:  # a refusal (an HTTP error answer)
            future.set_result(ChatResponse(reference.get("content"), None, status=reference["status"]))
        elif isinstance(reference, dict):
            calls = reference.get("tool_calls") or []
            finish = "tool_calls" if calls else "stop"
            future.set_result(ChatResponse(reference.get("content"), finish, list(calls)))
        else:
            future.set_result(ChatResponse(reference))
        return future

    def close(self) -> None:
        pass
