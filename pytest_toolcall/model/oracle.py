"""The built-in ``oracle`` model, and the one place that chooses it.

A model of any role named ``oracle`` (``--toolcall-model oracle``, ``--toolcall-user-model oracle``) is
this implementation: it answers every request at once and without any network, with the reference
its benchmark attached. Everything else asks a model (``Model.oracle``) or a name (``chooses``),
never compares the name itself.
"""

from __future__ import annotations

import concurrent.futures

from pytest_toolcall.core.protocol.types import ChatRequest, ChatResponse, Role

#: The model name that chooses the oracle.
NAME = "oracle"


def chooses(name: str | None) -> bool:
    """Whether a model name given in the options chooses the oracle."""
    return name == NAME


class OracleModel:
    """Answers every request with its reference, at once and without any network."""

    name = NAME
    oracle = True

    def __init__(self, role: Role = Role.MODEL) -> None:
        self.role = role

    def submit(self, request: ChatRequest) -> concurrent.futures.Future[ChatResponse]:
        future: concurrent.futures.Future[ChatResponse] = concurrent.futures.Future()
        reference = request.reference
        if isinstance(reference, dict) and "status" in reference:  # a refusal (an HTTP error answer)
            future.set_result(ChatResponse(reference.get("content"), None, status=reference["status"]))
        elif isinstance(reference, dict):
            calls = reference.get("tool_calls") or []
            finish = "tool_calls" if calls else "stop"
            # (usage: the counts a case expects, which the oracle's answer reports as an endpoint would)
            future.set_result(ChatResponse(reference.get("content"), finish, list(calls), usage=reference.get("usage")))
        else:
            future.set_result(ChatResponse(reference))
        return future

    def close(self) -> None:
        pass
