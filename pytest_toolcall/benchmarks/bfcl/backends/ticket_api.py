"""TicketAPI: the support-ticket system of BFCL multi-turn (official behaviour at gorilla@6ea5797)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld

_DEFAULT_STATE: dict[str, Any] = {"ticket_queue": [], "ticket_counter": 1, "current_user": None}
_EDITABLE_FIELDS = {"title", "description", "status", "priority"}


class TicketAPI:
    # The scenario's state, set by ``_load_scenario`` (from the scenario, else ``_DEFAULT_STATE``).
    ticket_queue: list[dict[str, Any]]
    ticket_counter: int
    current_user: str | None

    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "close_ticket": self.close_ticket, "create_ticket": self.create_ticket, "edit_ticket": self.edit_ticket,
            "get_ticket": self.get_ticket, "get_user_tickets": self.get_user_tickets, "logout": self.logout,
            "resolve_ticket": self.resolve_ticket, "ticket_get_login_status": self.ticket_get_login_status,
            "ticket_login": self.ticket_login,
        }  # fmt: skip

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        defaults = copy.deepcopy(_DEFAULT_STATE)
        for key in ("ticket_queue", "ticket_counter", "current_user"):
            setattr(self, key, scenario.get(key, defaults[key]))

    def _find(self, ticket_id: int) -> dict[str, Any] | None:
        return next((ticket for ticket in self.ticket_queue if ticket["id"] == ticket_id), None)

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> dict[str, Any]:
        if not self.current_user:
            return {"error": "User not authenticated. Please log in to create a ticket."}
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        ticket = {
            "id": self.ticket_counter,
            "title": title,
            "description": description,
            "status": "Open",
            "priority": priority,
            "created_by": self.current_user,
        }
        self.ticket_queue.append(ticket)
        self.ticket_counter += 1
        return ticket

    def get_ticket(self, ticket_id: int) -> dict[str, Any]:
        ticket = self._find(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        return ticket

    def close_ticket(self, ticket_id: int) -> dict[str, str]:
        ticket = self._find(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if ticket["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        ticket["status"] = "Closed"
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> dict[str, str]:
        ticket = self._find(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        if ticket["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        ticket["status"] = "Resolved"
        ticket["resolution"] = resolution
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict[str, Any]) -> dict[str, str]:
        ticket = self._find(ticket_id)
        if not ticket:
            return {"error": f"Ticket with ID {ticket_id} not found."}
        unknown = set(updates.keys()) - _EDITABLE_FIELDS
        if unknown:
            # Set order, as in the official message.
            return {"error": f"Invalid fields for update: {', '.join(unknown)}"}
        for key, value in updates.items():
            if value is not None:
                ticket[key] = value
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def ticket_login(self, username: str, password: str) -> dict[str, bool]:
        if username and password:
            self.current_user = username
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> dict[str, bool]:
        return {"login_status": bool(self.current_user)}

    def logout(self) -> dict[str, bool]:
        if self.current_user:
            self.current_user = None
            return {"success": True}
        return {"success": False}

    def get_user_tickets(self, status: str | None = None) -> list[dict[str, Any]]:
        if not self.current_user:
            return [{"error": "User not authenticated. Please log in to view tickets."}]
        mine = [ticket for ticket in self.ticket_queue if ticket["created_by"] == self.current_user]
        if status:
            mine = [ticket for ticket in mine if ticket["status"].lower() == status.lower()]
        return mine
