"""xdist's ``load`` distribution with queues deep enough to prefetch from.

A worker can only start the model work of items it has been given. xdist's load scheduling hands
out items a couple at a time once most are gone (and holds back when items take 0.1 s or more,
as every item that waits for a model does), so near the end of a run each worker sees two items
ahead and the endpoint idles. Here every worker is topped up to ``depth`` items (its prefetch
lookahead) while any remain; otherwise this is xdist's own scheduler, order and all.
Used only for ``--dist load`` (what ``-n`` means by default); other modes are left as chosen.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadScheduling

from pytest_toolcall.runner import compat


class PrefetchLoadScheduling(LoadScheduling):
    def __init__(self, config: Any, log: Any, depth: int) -> None:
        super().__init__(config, log)
        self.depth = depth

    def check_schedule(self, node: Any, duration: float = 0) -> None:
        super().check_schedule(node, duration)
        # Refill once a quarter has run: one send per item would cost the controller a millisecond
        # an item.
        missing = self.depth - len(self.node2pending[node])
        if self.pending and missing >= max(1, self.depth // 4) and not node.shutting_down:
            compat.send_tests(self, node, missing)
