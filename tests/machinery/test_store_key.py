"""The response store's key includes who asks (issue 14, and issue 11 item 4a); old stores are named."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pytest_toolcall.core.protocol.types import ChatRequest
from pytest_toolcall.model.sdk_server import _usage
from pytest_toolcall.model.store import SCHEMA_VERSION, ResponseStore, StoreError, request_key


def test_the_asker_is_part_of_the_key() -> None:
    messages = [{"role": "user", "content": "hi"}]
    keys = {
        request_key("m", None, ChatRequest(messages, identity=who), {})
        for who in ("general_fc\x00a/1\x001\x000", "general_fc\x00a/2\x001\x000", "general_fc\x00a/1\x002\x000")
    }
    assert len(keys) == 3
    same = ChatRequest(messages, identity="general_fc\x00a/1\x001\x000")
    assert request_key("m", None, same, {}) in keys
    # The reference never counts, the identity does.
    assert request_key("m", None, ChatRequest(messages, reference="x", identity=same.identity), {}) in keys


def test_a_store_of_schema_1_is_named_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT, stored_at REAL, response TEXT)")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    # Issue 11: read-only modes name it and what to do; read-write moves it aside and starts anew.
    with pytest.raises(StoreError, match=r"responses\.sqlite3: a response store of schema 1, written before.*move it"):
        ResponseStore(path, writable=False)
    store = ResponseStore(path)
    assert "schema 1" in store.repaired and "moved aside" in store.repaired
    store.close()
    assert SCHEMA_VERSION == 2


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        (
            {
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": 4},
                "completion_tokens_details": {"reasoning_tokens": 2},
            },
            {"prompt_tokens": 10, "completion_tokens": 5, "cached_tokens": 4, "reasoning_tokens": 2},
        ),
        (
            {"prompt_tokens": 3, "completion_tokens": 1, "prompt_tokens_details": None},
            {"prompt_tokens": 3, "completion_tokens": 1},
        ),
        ({"prompt_tokens": -1, "completion_tokens": "x", "prompt_tokens_details": "odd"}, None),
        ("not an object", None),
        (None, None),
    ],
)
def test_usage_of_an_answer(usage: object, expected: object) -> None:
    assert _usage(usage) == expected


def test_exchanges_are_kept_per_asker_and_occurrence_and_merged(tmp_path: Path) -> None:
    from pytest_toolcall.model.store import exchange_key, merge_stores

    asker = "cases\x00t.toolcall.yaml\x00a\x001"
    request = {"server": "srv", "name": "now", "arguments": {}}
    first, second = (exchange_key(asker, "mcp.call", request, n) for n in (1, 2))
    other = exchange_key(asker.replace("\x00a\x00", "\x00b\x00"), "mcp.call", request, 1)
    assert len({first, second, other}) == 3  # the same call made twice, or by another case: kept apart
    store = ResponseStore(tmp_path / "a" / "responses.sqlite3")
    store.put_exchange(first, "mcp.call", {"content": "09:00", "is_error": False})
    assert store.get_exchange(first) == (True, {"content": "09:00", "is_error": False})
    assert store.get_exchange(second) == (False, None)
    store.close()
    read_only = ResponseStore(tmp_path / "a" / "responses.sqlite3", writable=False)
    read_only.put_exchange(second, "mcp.call", "x")  # a read-only store keeps nothing
    assert read_only.get_exchange(second) == (False, None) and read_only.get_exchange(first)[0]
    read_only.close()
    assert merge_stores([tmp_path / "a" / "responses.sqlite3"], tmp_path / "b" / "responses.sqlite3") == 0
    merged = ResponseStore(tmp_path / "b" / "responses.sqlite3")
    assert merged.get_exchange(first) == (True, {"content": "09:00", "is_error": False})
    merged.close()
