"""MessageAPI: the workspace messenger of BFCL multi-turn (official behaviour at gorilla@6ea5797).

Message ids come from a `random.Random` seeded from the scenario (200191 by default), drawn in the
same order as the official class, so the ids in results match.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld

_DEFAULT_STATE: dict[str, Any] = {
    "generated_ids": set(),
    "user_count": 4,
    "user_map": {"Alice": "USR001", "Bob": "USR002", "Catherine": "USR003", "Daniel": "USR004"},
    "inbox": [
        {"USR002": "My name is Alice. I want to connect."},
        {"USR003": "Could you upload the file?"},
        {"USR004": "Could you upload the file?"},
    ],
    "message_count": 3,
    "current_user": None,
}
_NOT_LOGGED_IN = "No user is currently logged in."


def _only_item(entry: dict[str, str]) -> tuple[str, str]:
    """The (receiver, text) pair of an inbox entry; an empty entry fails like the official indexing."""
    return list(entry.items())[0]  # noqa: RUF015 - IndexError, not StopIteration, as officially


class MessageAPI:
    # The scenario's state, set by ``_load_scenario`` (from the scenario, else ``_DEFAULT_STATE``).
    generated_ids: set[int]
    user_count: int
    user_map: dict[str, str]
    inbox: list[dict[str, str]]
    message_count: int
    current_user: str | None

    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world
        self._random = random.Random(200191)

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "add_contact": self.add_contact, "delete_message": self.delete_message,
            "get_message_stats": self.get_message_stats, "get_user_id": self.get_user_id,
            "list_users": self.list_users, "message_get_login_status": self.message_get_login_status,
            "message_login": self.message_login, "search_messages": self.search_messages,
            "send_message": self.send_message, "view_messages_sent": self.view_messages_sent,
        }  # fmt: skip

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        defaults = copy.deepcopy(_DEFAULT_STATE)
        self._random = random.Random(scenario.get("random_seed", 200191))
        for key in ("generated_ids", "user_count", "user_map", "inbox", "message_count", "current_user"):
            setattr(self, key, scenario.get(key, defaults[key]))

    def _new_message_id(self) -> dict[str, int]:
        new_id = self._random.randint(10000, 99999)
        while new_id in self.generated_ids:
            new_id = self._random.randint(10000, 99999)
        self.generated_ids.add(new_id)
        return {"new_id": new_id}

    def list_users(self) -> dict[str, list[str]]:
        return {"user_list": list(self.user_map.keys())}

    def get_user_id(self, user: str) -> dict[str, Any]:
        if user not in self.user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": self.user_map.get(user)}

    def message_login(self, user_id: str) -> dict[str, Any]:
        if user_id not in list(self.user_map.values()):
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self.current_user = user_id
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict[str, bool]:
        return {"login_status": bool(self.current_user)}

    def send_message(self, receiver_id: str, message: str) -> dict[str, Any]:
        if not self.current_user:
            return {"error": _NOT_LOGGED_IN}
        if receiver_id not in self.user_map.values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        message_id = self._new_message_id()
        self.inbox.append({receiver_id: message})
        self.message_count += 1
        return {
            "sent_status": True,
            "message_id": message_id,
            "message": f"Message sent to '{receiver_id}' successfully.",
        }

    def delete_message(self, receiver_id: str) -> dict[str, Any]:
        if not self.current_user:
            return {"error": _NOT_LOGGED_IN}
        # Newest first; `list.remove` then drops the first *equal* entry, as in the official code.
        for entry in reversed(self.inbox):
            receiver, _ = _only_item(entry)
            if receiver == receiver_id:
                self.inbox.remove(entry)
                return {
                    "deleted_status": True,
                    "receiver_id": receiver,
                    "message": f"Receiver {receiver_id}'s latest message deleted successfully.",
                }
        return {"error": f"Receiver ID {receiver_id} not found."}

    def view_messages_sent(self) -> dict[str, Any]:
        if not self.current_user:
            return {"error": _NOT_LOGGED_IN}
        by_receiver: dict[str, list[str]] = {}
        for entry in self.inbox:
            receiver, text = _only_item(entry)
            by_receiver.setdefault(receiver, []).append(text)
        return {"messages": by_receiver}

    def add_contact(self, user_name: str) -> dict[str, Any]:
        if user_name in self.user_map:
            return {"error": f"User name '{user_name}' already exists."}
        self.user_count += 1
        user_id = f"USR{str(self.user_count).zfill(3)}"
        if user_id in self.user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self.user_map[user_name] = user_id
        return {"added_status": True, "user_id": user_id, "message": f"Contact '{user_name}' added successfully."}

    def search_messages(self, keyword: str) -> dict[str, Any]:
        if not self.current_user:
            return {"error": _NOT_LOGGED_IN}
        wanted = keyword.lower()
        hits = []
        for entry in self.inbox:
            receiver, text = _only_item(entry)
            if wanted in text.lower():
                hits.append({"receiver_id": receiver, "message": text})
        return {"results": hits}

    def get_message_stats(self) -> dict[str, Any]:
        if not self.current_user:
            return {"error": _NOT_LOGGED_IN}
        receivers = [_only_item(entry)[0] for entry in self.inbox]
        return {"stats": {"received_count": len(receivers), "total_contacts": len(set(receivers))}}
