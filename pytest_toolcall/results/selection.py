"""What a run selected, as its report records it (``run.selection``): the count and a digest of the
selected units' node ids, and the digest of how they were cut into shards. The run writes it
(``runner/collecting.py``, ``runner/shards.py``); ``pytest-toolcall merge`` checks the shards of one run
against it, recomputing the digest from the samples, with the same function."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Selection:
    """What a run selected before sharding (its units: benchmark items and the users' tests a
    benchmark counts, no other test), and how it was cut."""

    count: int
    digest: str
    shard: str | None = None
    plan: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "digest": self.digest, "plan": self.plan}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], shard: str | None) -> Selection:
        return cls(int(data["count"]), str(data["digest"]), shard, data.get("plan"))


def digest(lines: Iterable[str]) -> str:
    hasher = hashlib.sha256()
    for line in lines:
        hasher.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return hasher.hexdigest()[:32]


def selection_of(units: Iterable[str]) -> Selection:
    """The selection of these units' node ids (benchmark items, the users' tests a benchmark counts)."""
    chosen = sorted(units)
    return Selection(len(chosen), digest(chosen))
