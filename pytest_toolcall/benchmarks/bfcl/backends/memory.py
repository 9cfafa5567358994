"""The memory backends of BFCL V4 (official behaviour at gorilla@6ea5797): key-value and recursive
summarisation. The vector backend needs a sentence-embedding model's weights and is not measured.

The official classes keep their memory between the dialogues of one scenario in snapshot files: the
first prerequisite conversation starts empty, each later one (and every question of the scenario)
starts from the snapshot the last prerequisite conversation left. Here a snapshot is a plain dict
handed over in the initial config (``{"snapshot": {...} | None}``) and taken back with
``snapshot()``; nothing is written to disk.

The class names are the official ones: a call with wrong arguments fails with a message naming them
(``MemoryAPI_kv.core_memory_add() got an unexpected keyword argument ...``), as the official
executor's does.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld

# The official limits (numbers of entries, characters per entry).
MAX_CORE_MEMORY_SIZE = 7
MAX_CORE_MEMORY_ENTRY_LENGTH = 300
MAX_ARCHIVAL_MEMORY_SIZE = 50
MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH = 2000
MAX_MEMORY_ENTRY_LENGTH = 10000  # recursive summarisation: the whole memory text

_KEY_FORMAT = re.compile(r"^[a-z]+(_[a-z0-9]+)*$")


class BM25Plus:
    """BM25+ over a tokenised corpus, as ``rank_bm25.BM25Plus`` (0.2.2, delta 1) computes it: the same
    operations in the same order, so the same floats. An empty corpus divides by zero there, and here
    (when the index is built, before the query is read)."""

    def __init__(self, corpus: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.doc_len = [len(document) for document in corpus]
        self.avgdl = sum(self.doc_len) / len(corpus)
        self.doc_freqs: list[dict[str, int]] = []
        document_count: dict[str, int] = {}
        for document in corpus:
            frequencies: dict[str, int] = {}
            for word in document:
                frequencies[word] = frequencies.get(word, 0) + 1
            self.doc_freqs.append(frequencies)
            for word in frequencies:
                document_count[word] = document_count.get(word, 0) + 1
        self.idf = {word: math.log((len(corpus) + 1) / count) for word, count in document_count.items()}

    def scores(self, query: list[str]) -> list[float]:
        k1, b = self.k1, self.b
        scores = [0.0] * len(self.doc_freqs)
        for word in query:
            weight = self.idf.get(word) or 0
            for index, frequencies in enumerate(self.doc_freqs):
                frequency = frequencies.get(word) or 0
                scores[index] += weight * (
                    1 + (frequency * (k1 + 1)) / (k1 * (1 - b + b * self.doc_len[index] / self.avgdl) + frequency)
                )
        return scores


def similarity_search(query: Any, corpus: list[str], k: Any = 5) -> dict[str, list[tuple[float, str]]]:
    """The best ``k`` texts of the corpus for the query by BM25+ (underscores read as spaces,
    lowercase, split on whitespace), best first, ties in corpus order."""
    index = BM25Plus([text.replace("_", " ").lower().split() for text in corpus])
    scores = index.scores(query.replace("_", " ").lower().split())
    ranked = sorted(zip(scores, corpus, strict=True), key=lambda pair: pair[0], reverse=True)
    return {"ranked_results": ranked[:k]}


class _Snapshots:
    """What both memory backends share: a snapshot in, a snapshot out, the memory shown in the system
    prompt."""

    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False) -> None:
        snapshot = scenario.get("snapshot")
        if snapshot:
            self._restore(copy.deepcopy(snapshot))

    def _restore(self, snapshot: dict[str, Any]) -> None:
        raise NotImplementedError

    def snapshot(self) -> dict[str, Any]:
        raise NotImplementedError

    def memory_in_context(self) -> str:
        """The memory the official system prompt shows."""
        raise NotImplementedError


class MemoryAPI_kv(_Snapshots):  # the official class name, which error messages show
    """Short-term (core) and long-term (archival) key-value memory."""

    def __init__(self, world: SharedWorld | None = None) -> None:
        self.core_memory: dict[str, str] = {}
        self.archival_memory: dict[str, str] = {}

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            name: getattr(self, name)
            for name in (
                "archival_memory_add", "archival_memory_clear", "archival_memory_key_search",
                "archival_memory_list_keys", "archival_memory_remove", "archival_memory_replace",
                "archival_memory_retrieve", "core_memory_add", "core_memory_clear", "core_memory_key_search",
                "core_memory_list_keys", "core_memory_remove", "core_memory_replace", "core_memory_retrieve",
                "core_memory_retrieve_all",
            )
        }  # fmt: skip

    def _restore(self, snapshot: dict[str, Any]) -> None:
        self.core_memory = snapshot["core_memory"]
        self.archival_memory = snapshot["archival_memory"]

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy({"core_memory": self.core_memory, "archival_memory": self.archival_memory})

    def memory_in_context(self) -> str:
        if not self.core_memory:
            return "There is no content in the core memory at this point."
        return json.dumps(self.core_memory, indent=4)

    @staticmethod
    def _add(store: dict[str, str], key: Any, value: Any, size: int, length: int, full: str, done: str) -> dict:
        key, value = str(key), str(value)
        if len(store) >= size:
            return {"error": full}
        if len(value) > length:
            return {"error": f"Entry is too long. Please shorten the entry to less than {length} characters."}
        if not _KEY_FORMAT.match(key):
            return {"error": "Key must be in snake_case format and cannot contain spaces."}
        if key in store:
            return {"error": "Key name must be unique."}
        store[key] = value
        return {"status": done}

    @staticmethod
    def _replace(store: dict[str, str], key: Any, value: Any, length: int) -> dict:
        key, value = str(key), str(value)
        if key not in store:
            return {"error": "Key not found."}
        if len(value) > length:
            return {"error": f"Entry is too long. Please shorten the entry to less than {length} characters."}
        store[key] = value
        return {"status": "Key replaced."}

    @staticmethod
    def _remove(store: dict[str, str], key: Any) -> dict:
        if key in store:
            del store[key]
            return {"status": "Key removed."}
        return {"error": "Key not found."}

    @staticmethod
    def _retrieve(store: dict[str, str], key: Any) -> dict:
        if key not in store:
            return {"error": "Key not found."}
        return {"value": store[key]}

    def core_memory_add(self, key: Any, value: Any) -> dict:
        return self._add(
            self.core_memory, key, value, MAX_CORE_MEMORY_SIZE, MAX_CORE_MEMORY_ENTRY_LENGTH,
            "Core memory is full. Please clear some entries.", "Key-value pair added.",
        )  # fmt: skip

    def core_memory_remove(self, key: Any) -> dict:
        return self._remove(self.core_memory, key)

    def core_memory_replace(self, key: Any, value: Any) -> dict:
        return self._replace(self.core_memory, key, value, MAX_CORE_MEMORY_ENTRY_LENGTH)

    def core_memory_clear(self) -> dict:
        self.core_memory = {}
        return {"status": "Short term memory cleared."}

    def core_memory_retrieve(self, key: Any) -> dict:
        return self._retrieve(self.core_memory, key)

    def core_memory_list_keys(self) -> dict:
        return {"keys": list(self.core_memory.keys())}

    def core_memory_key_search(self, query: Any, k: Any = 5) -> dict:
        return similarity_search(query, list(self.core_memory.keys()), k)

    def core_memory_retrieve_all(self) -> dict:
        return self.core_memory

    def archival_memory_add(self, key: Any, value: Any) -> dict:
        return self._add(
            self.archival_memory, key, value, MAX_ARCHIVAL_MEMORY_SIZE, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH,
            "Long term memory is full. Please clear some entries.", "Key added.",
        )  # fmt: skip

    def archival_memory_remove(self, key: Any) -> dict:
        return self._remove(self.archival_memory, key)

    def archival_memory_replace(self, key: Any, value: Any) -> dict:
        return self._replace(self.archival_memory, key, value, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH)

    def archival_memory_clear(self) -> dict:
        self.archival_memory = {}
        return {"status": "Long term memory cleared."}

    def archival_memory_retrieve(self, key: Any) -> dict:
        return self._retrieve(self.archival_memory, key)

    def archival_memory_list_keys(self) -> dict:
        return {"keys": list(self.archival_memory.keys())}

    def archival_memory_key_search(self, query: Any, k: Any = 5) -> dict:
        return similarity_search(query, list(self.archival_memory.keys()), k)


class MemoryAPI_rec_sum(_Snapshots):  # the official class name, which error messages show
    """One memory text, appended to, replaced in or rewritten by the model (recursive summarisation)."""

    def __init__(self, world: SharedWorld | None = None) -> None:
        self.memory = ""

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "memory_append": self.memory_append, "memory_clear": self.memory_clear,
            "memory_replace": self.memory_replace, "memory_retrieve": self.memory_retrieve,
            "memory_update": self.memory_update,
        }  # fmt: skip

    def _restore(self, snapshot: dict[str, Any]) -> None:
        self.memory = snapshot["memory"]

    def snapshot(self) -> dict[str, Any]:
        return {"memory": self.memory}

    def memory_in_context(self) -> str:
        return str(self.memory) if self.memory else "There is no content in the memory at this point."

    def memory_append(self, text: Any) -> dict:
        text = str(text)
        if len(self.memory + text) > MAX_MEMORY_ENTRY_LENGTH:
            return {
                "error": "Entry will be too long after appending. Please shorten the entry to less than "
                f"{MAX_MEMORY_ENTRY_LENGTH} characters."
            }
        self.memory += text
        return {"status": "Memory appended."}

    def memory_update(self, text: Any) -> dict:
        text = str(text)
        if len(text) > MAX_MEMORY_ENTRY_LENGTH:
            return {
                "error": "Entry will be too long after updating. Please shorten the entry to less than "
                f"{MAX_MEMORY_ENTRY_LENGTH} characters."
            }
        self.memory = text
        return {"status": "Memory updated."}

    def memory_clear(self) -> dict:
        self.memory = ""
        return {"status": "Short term memory cleared."}

    def memory_replace(self, old_text: Any, new_text: Any) -> dict:
        old_text, new_text = str(old_text), str(new_text)
        if old_text not in self.memory:
            return {"error": f"Text '{old_text}' not found in memory."}
        if len(new_text) > MAX_MEMORY_ENTRY_LENGTH:
            return {
                "error": "Entry will be too long after replacing. Please shorten the entry to less than "
                f"{MAX_MEMORY_ENTRY_LENGTH} characters."
            }
        self.memory = self.memory.replace(old_text, new_text)
        return {"status": "Memory updated."}

    def memory_retrieve(self) -> dict:
        if not self.memory:
            return {"error": "Memory is empty."}
        return {"memory_content": self.memory}
