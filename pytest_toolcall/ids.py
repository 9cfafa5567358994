"""Node ids of the benchmark items: built in one place, parsed back in one place.

``toolcall::acebench[en/normal_atom_bool_12]``, ``toolcall::acebench[zh/normal_multi_turn_user_adjust_3]``
(a whole dialogue), ``toolcall::general_fc[k2vv_zh_511/17]`` (file stem / 0-based line index).
The summary only sees node ids under xdist, so everything it needs is in them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MODULE_NODEID = "toolcall"
_NODEID = re.compile(r"toolcall::(?P<bench>\w+)\[(?P<part>[^/\]]+)/(?P<id>[^\]]+)\](?:@.*)?")
_CATEGORY = re.compile(r"_\d+$")


@dataclass(frozen=True)
class ItemId:
    bench: str  # "acebench" or "general_fc"
    part: str  # ACEBench language, or the general_fc file stem
    id: str  # sample id, dialogue id, or line index

    @property
    def category(self) -> str:
        return _CATEGORY.sub("", self.id) if self.bench == "acebench" else self.bench

    @property
    def param_id(self) -> str:
        return f"{self.part}/{self.id}"


def parse_nodeid(nodeid: str) -> ItemId | None:
    """The identity of one of our items, or None for any other test."""
    match = _NODEID.fullmatch(nodeid)
    if match is None:
        return None
    return ItemId(match["bench"], match["part"], match["id"])
