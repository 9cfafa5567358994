"""The simulated phone: device flags, messages, reminders and a food-delivery platform.

Behaviour is the official one at 56dd66c, operation by operation, so that odd arguments fail the
way the official methods fail (``x not in self.inbox`` with a list raises ``unhashable type``,
``keyword.lower()`` on a number raises ``AttributeError``...): those texts reach the agent.
Parameter names and defaults are the official ones, because the agent's keyword arguments are
matched against them and Python's ``TypeError`` texts name them.

Every instance keeps its own ``wifi``/``logged_in`` copy (the official classes do too); only the
``BaseApi`` instance's flags are graded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from pytest_toolcall.benchmarks.acebench.agents.envs.texts import INBOX_2, INBOX_3, MERCHANTS, TODO_REMINDER, text

# The official checks compare with ``== False`` (not ``not x``): a config value of None or ""
# counts as on. Kept on purpose, hence the noqa markers below.


class BaseApi:
    """Wi-Fi and device login. No method turns Wi-Fi off or logs out."""

    api: ClassVar[tuple[str, ...]] = ("turn_on_wifi", "login_device")

    def __init__(self, lang: str) -> None:
        self._lang = lang
        self.wifi: Any = False
        self.logged_in: Any = True

    def _load(self, scenario: dict[str, Any]) -> None:
        """One ``initial_config`` entry; missing keys reset to the defaults (official ``_load_scenario``)."""
        self.wifi = scenario.get("wifi", False)
        self.logged_in = scenario.get("logged_in", True)

    def _t(self, key: str, **fields: Any) -> str:
        return text(self._lang, key, **fields)

    def turn_on_wifi(self) -> dict[str, Any]:
        self.wifi = True
        return {"status": True, "message": self._t("wifi_on")}

    def login_device(self) -> dict[str, Any]:
        self.logged_in = True
        return {"status": True, "message": self._t("device_login")}


def _fail(message: str) -> dict[str, Any]:
    return {"status": False, "message": message}


class MessageApi(BaseApi):
    """Six users and a six-message inbox that starts full."""

    api: ClassVar[tuple[str, ...]] = (
        *BaseApi.api,
        "send_message",
        "delete_message",
        "view_messages_between_users",
        "search_messages",
        "get_all_message_times_with_ids",
        "get_latest_message_id",
        "get_earliest_message_id",
    )

    def __init__(self, lang: str) -> None:
        super().__init__(lang)
        self.max_capacity = 6
        self.user_list: dict[str, dict[str, Any]] = {
            name: {"user_id": f"USR{100 + i}", "phone_number": phone, "occupation": job}
            for i, (name, phone, job) in enumerate(
                (
                    ("Eve", "123-456-7890", "Software Engineer"),
                    ("Frank", "234-567-8901", "Data Scientist"),
                    ("Grace", "345-678-9012", "Product Manager"),
                    ("Helen", "456-789-0123", "UX Designer"),
                    ("Isaac", "567-890-1234", "DevOps Engineer"),
                    ("Jack", "678-901-2345", "Marketing Specialist"),
                )
            )
        }
        rows = (
            (
                "USR100",
                "USR101",
                "Hey Frank, don't forget about our meeting on 2024-06-11 at 4 PM in Conference Room 1.",
                "2024-06-09",
            ),
            ("USR101", "USR102", INBOX_2[lang], "2024-03-09"),
            ("USR102", "USR103", INBOX_3[lang], "2023-12-05"),
            ("USR103", "USR102", "No problem Helen, I can assist you.", "2024-09-09"),
            ("USR104", "USR105", "Isaac, are you available for a call?", "2024-06-06"),
            ("USR105", "USR104", "Yes Jack, let's do it in 30 minutes.", "2024-01-15"),
        )
        # Int keys, as officially: ``delete_message(message_id='4')`` finds nothing.
        self.inbox: dict[Any, dict[str, Any]] = {
            i: {"sender_id": s, "receiver_id": r, "message": m, "time": t} for i, (s, r, m, t) in enumerate(rows, 1)
        }
        self.message_id_counter = 6

    def send_message(self, sender_name: Any, receiver_name: Any, message: Any) -> dict[str, Any]:
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("send_not_logged_in"))
        if self.wifi == False:  # noqa: E712
            return _fail(self._t("send_wifi_off"))
        if len(self.inbox) >= self.max_capacity:
            return _fail(self._t("send_inbox_full"))
        if sender_name not in self.user_list or receiver_name not in self.user_list:
            return _fail(self._t("send_unknown_user"))
        sender_id = self.user_list[sender_name]["user_id"]
        receiver_id = self.user_list[receiver_name]["user_id"]
        self.message_id_counter += 1
        # Official quirk: a sent message has no "time" (the time lookups then raise KeyError).
        self.inbox[self.message_id_counter] = {"sender_id": sender_id, "receiver_id": receiver_id, "message": message}
        return {"status": True, "message": self._t("send_ok", receiver_name=receiver_name)}

    def delete_message(self, message_id: Any) -> dict[str, Any]:
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("delete_not_logged_in"))
        if message_id not in self.inbox:
            return _fail(self._t("delete_unknown"))
        del self.inbox[message_id]
        return {"status": True, "message": self._t("delete_ok", message_id=message_id)}

    def view_messages_between_users(self, sender_name: Any, receiver_name: Any) -> dict[str, Any]:
        """Messages in one direction only (sender -> receiver)."""
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("view_not_logged_in"))
        if sender_name not in self.user_list:
            return _fail(self._t("view_unknown_sender"))
        if receiver_name not in self.user_list:
            return _fail(self._t("view_unknown_receiver"))
        sender_id = self.user_list[sender_name]["user_id"]
        receiver_id = self.user_list[receiver_name]["user_id"]
        found = [
            {"id": msg_id, "sender": sender_name, "receiver": receiver_name, "message": msg["message"]}
            for msg_id, msg in self.inbox.items()
            if msg["sender_id"] == sender_id and msg["receiver_id"] == receiver_id
        ]
        if not found:
            return _fail(self._t("view_none"))
        return {"status": True, "messages": found}

    def search_messages(self, user_name: Any, keyword: Any) -> dict[str, Any]:
        """No login or Wi-Fi check (official). ``keyword.lower()`` only runs for the user's messages."""
        if user_name not in self.user_list:
            return _fail(self._t("search_unknown_user"))
        user_id = self.user_list[user_name]["user_id"]
        found = [
            {"id": msg_id, "sender_id": msg["sender_id"], "receiver_id": msg["receiver_id"], "message": msg["message"]}
            for msg_id, msg in self.inbox.items()
            if (msg["sender_id"] == user_id or msg["receiver_id"] == user_id)
            and keyword.lower() in msg["message"].lower()
        ]
        if not found:
            return _fail(self._t("search_none"))
        return {"status": True, "messages": found}

    def get_all_message_times_with_ids(self) -> dict[Any, Any]:
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("times_not_logged_in"))
        return {msg_id: msg["time"] for msg_id, msg in self.inbox.items()}  # KeyError('time') after a send

    def get_latest_message_id(self) -> dict[str, Any]:
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("latest_not_logged_in"))
        found = self._extreme(later=True)
        if found is None:
            return _fail(self._t("inbox_empty"))
        return {"status": True, "message": self._t("latest_ok", message_id=found), "message_id": found}

    def get_earliest_message_id(self) -> dict[str, Any]:
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("earliest_not_logged_in"))
        found = self._extreme(later=False)
        if found is None:
            return _fail(self._t("inbox_empty"))
        return {"status": True, "message": self._t("earliest_ok", message_id=found), "message_id": found}

    def _extreme(self, later: bool) -> Any:
        """Id of the strictly latest/earliest dated message (first wins ties); None for an empty inbox.

        Every message is parsed, so one without "time" (any sent message) raises KeyError('time').
        """
        if not self.inbox:
            return None
        best_id: Any = None
        best: datetime | None = None
        for msg_id, msg in self.inbox.items():
            when = datetime.strptime(msg["time"], "%Y-%m-%d")
            if best is None or (when > best if later else when < best):
                best, best_id = when, msg_id
        return best_id


class ReminderApi(BaseApi):
    """Three reminders, capacity six. Keys and ``reminder_id`` differ for the defaults (1 vs 1001)."""

    api: ClassVar[tuple[str, ...]] = (
        *BaseApi.api,
        "view_reminder_by_title",
        "add_reminder",
        "delete_reminder",
        "view_all_reminders",
    )
    #: zh only (en has neither; calling them there is an unknown name).
    api_zh: ClassVar[tuple[str, ...]] = ("mark_as_notified", "search_reminders")

    def __init__(self, lang: str) -> None:
        super().__init__(lang)
        self.max_capacity = 6
        defaults = (
            (1001, "Doctor's Appointment", "Visit Dr. Smith for a checkup.", "2024-07-15 09:30"),
            (1002, "Team Meeting", "Monthly project review with the team.", "2024-07-17 11:00"),
            (1003, "To-do list", TODO_REMINDER[lang], "2024-07-16 11:00"),
        )
        self.reminder_list: dict[Any, dict[str, Any]] = {
            i: {"reminder_id": rid, "title": title, "description": desc, "time": when, "notified": False}
            for i, (rid, title, desc, when) in enumerate(defaults, 1)
        }
        self.reminder_id_counter = 3

    def view_reminder_by_title(self, title: Any) -> dict[str, Any]:
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("reminder_view_not_logged_in"))
        for reminder in self.reminder_list.values():
            if reminder["title"] == title:
                return {"status": True, "reminder": reminder}
        return _fail(self._t("reminder_view_none", title=title))

    def add_reminder(self, title: Any, description: Any, time: Any) -> dict[str, Any]:
        """No Wi-Fi check; values stored as given; key and ``reminder_id`` continue at 4."""
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("reminder_add_not_logged_in"))
        if len(self.reminder_list) >= self.max_capacity:
            return _fail(self._t("reminder_add_full"))
        self.reminder_id_counter += 1
        key = self.reminder_id_counter
        self.reminder_list[key] = {
            "reminder_id": key,
            "title": title,
            "description": description,
            "time": time,
            "notified": False,
        }
        return {"status": True, "message": self._t("reminder_add_ok", title=title)}

    def delete_reminder(self, reminder_id: Any) -> dict[str, Any]:
        """Matches the dict key, not ``reminder_id``: deleting 1001 fails."""
        if self.logged_in == False:  # noqa: E712
            return _fail(self._t("reminder_delete_not_logged_in"))
        if reminder_id not in self.reminder_list:
            return _fail(self._t("reminder_unknown"))
        del self.reminder_list[reminder_id]
        return {"status": True, "message": self._t("reminder_delete_ok", reminder_id=reminder_id)}

    def view_all_reminders(self) -> dict[str, Any]:
        """No login check (official)."""
        if not self.reminder_list:
            return _fail(self._t("reminder_all_none"))
        listed = [
            {"title": r["title"], "description": r["description"], "time": r["time"], "notified": r["notified"]}
            for r in self.reminder_list.values()
        ]
        return {"status": True, "reminders": listed}

    def mark_as_notified(self, reminder_id: Any) -> dict[str, Any]:
        """zh only; no login check."""
        if reminder_id not in self.reminder_list:
            return _fail(self._t("reminder_unknown"))
        self.reminder_list[reminder_id]["notified"] = True
        return {"status": True, "message": self._t("reminder_notified", reminder_id=reminder_id)}

    def search_reminders(self, keyword: Any) -> dict[str, Any]:
        """zh only; no login check. Official crash kept: a match calls ``.strftime`` on the stored
        time, a string, so any match raises AttributeError."""
        found = []
        for reminder in self.reminder_list.values():
            if keyword.lower() in reminder["title"].lower() or keyword.lower() in reminder["description"].lower():
                found.append(
                    {
                        "title": reminder["title"],
                        "description": reminder["description"],
                        "time": reminder["time"].strftime("%Y-%m-%d %H:%M"),
                    }
                )
        if not found:
            return _fail(self._t("reminder_search_none"))
        return {"status": True, "reminders": found}


class FoodPlatform(BaseApi):
    """Users with balances, six merchants, platform sessions separate from the device login."""

    api: ClassVar[tuple[str, ...]] = (
        *BaseApi.api,
        "login_food_platform",
        "view_logged_in_users",
        "check_balance",
        "add_food_delivery_order",
        "get_products",
        "view_orders",
        "search_orders",
    )

    def __init__(self, lang: str) -> None:
        super().__init__(lang)
        self.users: dict[str, dict[str, Any]] = {
            name: {"user_id": f"U{100 + i}", "password": password, "balance": balance}
            for i, (name, password, balance) in enumerate(
                (
                    ("Eve", "password123", 500.0),
                    ("Frank", "password456", 300.0),
                    ("Grace", "password789", 150.0),
                    ("Helen", "password321", 800.0),
                    ("Isaac", "password654", 400.0),
                    ("Jack", "password654", 120.0),
                )
            )
        }
        self.merchant_list: dict[str, dict[str, Any]] = {
            name: {
                "merchant_id": merchant_id,
                "service_type": service,
                "menu": [{"product": product, "price": price} for product, price in menu],
            }
            for name, merchant_id, service, menu in MERCHANTS[lang]
        }
        self.logged_in_users: Any = []
        self.orders: list[dict[str, Any]] = []

    def _load(self, scenario: dict[str, Any]) -> None:
        super()._load(scenario)
        # Also reset by the second (BaseApi) load, so a FoodPlatform entry never survives.
        self.logged_in_users = scenario.get("logged_in_users", [])

    def login_food_platform(self, username: Any, password: Any) -> dict[str, Any]:
        """Checks this instance's own Wi-Fi flag; several users may be logged in; no logout."""
        if self.wifi == False:  # noqa: E712
            return _fail(self._t("food_login_wifi_off"))
        if username not in self.users:
            return _fail(self._t("food_unknown_user"))
        if self.users[username]["password"] != password:
            return _fail(self._t("food_bad_password"))
        if username in self.logged_in_users:
            return _fail(self._t("food_already_logged_in", username=username))
        self.logged_in_users.append(username)
        return {"status": True, "message": self._t("food_login_ok", username=username)}

    def view_logged_in_users(self) -> dict[str, Any]:
        if not self.logged_in_users:
            return _fail(self._t("food_no_sessions"))
        return {"status": True, "logged_in_users": self.logged_in_users}

    def check_balance(self, user_name: Any) -> Any:
        """The bare balance; 0.0 for an unknown user. No checks at all."""
        if user_name in self.users:
            return self.users[user_name]["balance"]
        return 0.0

    def add_food_delivery_order(self, username: Any, merchant_name: Any, items: Any) -> dict[str, Any]:
        """Session -> merchant -> each item -> balance; all or nothing. No Wi-Fi or device check."""
        if username not in self.logged_in_users:
            return _fail(self._t("food_order_not_logged_in", username=username))
        if merchant_name not in self.merchant_list:
            return _fail(self._t("food_unknown_merchant"))
        total = 0.0
        ordered = []
        for item in items:  # an item that is not a dict raises (no .get), as officially
            product = item.get("product")
            quantity = item.get("quantity", 1)
            if not isinstance(quantity, int) or quantity <= 0:  # bool passes, 2.0 fails
                return _fail(self._t("food_bad_quantity", quantity=quantity, product=product))
            for entry in self.merchant_list[merchant_name]["menu"]:
                if entry["product"] == product:
                    total += entry["price"] * quantity
                    ordered.append({"product": product, "quantity": quantity, "price_per_unit": entry["price"]})
                    break
            else:
                return _fail(self._t("food_unknown_product", product=product, merchant=merchant_name))
        balance = self.users[username]["balance"]
        # en refuses a total above the balance, zh a total equal to it as well.
        if (total >= balance) if self._lang == "zh" else (total > balance):
            return _fail(self._t("food_insufficient"))
        self.users[username]["balance"] -= total
        self.orders.append(
            {"user_name": username, "merchant_name": merchant_name, "items": ordered, "total_price": total}
        )
        return {"status": True, "message": self._t("food_order_ok", merchant=merchant_name, total=total)}

    def get_products(self, merchant_name: Any) -> Any:
        """The bare menu list (the live one), or an error dict."""
        merchant = self.merchant_list.get(merchant_name)
        if merchant:
            return merchant["menu"]
        return _fail(self._t("food_products_unknown", merchant_name=merchant_name))

    def view_orders(self, user_name: Any) -> dict[str, Any]:
        mine = [order for order in self.orders if order["user_name"] == user_name]
        if not mine:
            return _fail(self._t("food_no_orders"))
        return {"status": True, "orders": mine}

    def search_orders(self, keyword: Any) -> dict[str, Any]:
        """Merchant or product, case-insensitive. zh keeps the official crash: its product branch
        lowercases the item dict itself (AttributeError) when the merchant does not match."""
        if self._lang == "zh":
            matched = [
                order
                for order in self.orders
                if keyword.lower() in order["merchant_name"].lower()
                or any(keyword.lower() in item.lower() for item in order.get("items", []))
            ]
        else:
            matched = [
                order
                for order in self.orders
                if keyword.lower() in order["merchant_name"].lower()
                or any(keyword.lower() in item["product"].lower() for item in order.get("items", []))
            ]
        if not matched:
            return _fail(self._t("food_no_match"))
        return {"status": True, "orders": matched}
