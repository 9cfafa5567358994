"""τ³-bench's ``banking_knowledge`` database and the tools that are not discovered (in progress).

The database (the official ``TransactionalDB``) is 23 tables, each ``{"data": {id: record},
"notes": text}``, records plain JSON objects; its hash is the official one (the sorted JSON text of
every table). A task's ``initialization_data`` is merged into it as the official environment
merges it (nested objects merged key by key, anything else replaced).

Here so far: the queries the tools answer with (the official ``query_database_tool`` text); the
agent's base tools, with the handing out, unlocking and calling of discovered tools (their
descriptions and signatures as the official code derives them, in ``data/tools.json``), the user's
tools, the 4 tools the user is given, and 43 of the 44 the agent discovers, with the official texts.
``tests/tau2/test_banking.py`` replays the reference actions of the tasks that use only these
against what the official code answered (``tests/data/tau2/banking/gold.json.gz``). The other
discovered tools (calling one raises ``NotImplementedError``) and the domain's grading are still to
come: the domain is not offered yet.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import threading
from datetime import datetime
from typing import Any

from pytest_toolcall.benchmarks.tau2.environment import DATA
from pytest_toolcall.benchmarks.tau2.knowledge import FOLDER

#: The official ``TransactionalDB``'s tables, in its order (those db.json lacks start empty).
TABLES = (
    "users",
    "accounts",
    "debit_cards",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "agent_discoverable_tools",
    "task_config",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "debit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "credit_limit_increase_requests",
    "payment_history",
    "debit_card_disputes",
)
#: The tables ``query_database_tool`` can read, in the official order (its error lists them).
QUERYABLE = (
    "users",
    "accounts",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "agent_discoverable_tools",
    "task_config",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "debit_cards",
    "debit_card_orders",
    "debit_card_disputes",
    "credit_limit_increase_requests",
    "payment_history",
)
#: The domain's fixed clock.
TODAY = "11/14/2025"
CURRENT_TIME = "The current time is 2025-11-14 03:40:00 EST."

_LOCK = threading.Lock()
_TEXT: list[str] = []


def _shipped() -> str:
    with _LOCK:
        if not _TEXT:
            _TEXT.append((FOLDER / "db.json").read_text(encoding="utf-8"))
        return _TEXT[0]


def fresh_db(initialization_data: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The database as shipped, for one environment, with a task's ``agent_data`` merged in."""
    raw = json.loads(_shipped())
    db = {name: {"data": dict(raw.get(name, {}).get("data") or {}), "notes": raw.get(name, {}).get("notes", "")}
          for name in TABLES}  # fmt: skip
    agent_data = (initialization_data or {}).get("agent_data")
    if agent_data:
        _merge(db, copy.deepcopy(agent_data))
    return db


def _merge(into: dict[str, Any], update: dict[str, Any]) -> None:
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def db_hash(db: dict[str, dict[str, Any]]) -> str:
    """The official hash of the database: sha256 of its sorted JSON text."""
    dumped = {name: {"data": db[name]["data"], "notes": db[name]["notes"]} for name in TABLES}
    return hashlib.sha256(json.dumps(dumped, sort_keys=True, default=str).encode()).hexdigest()


def deterministic_id(seed: str, length: int = 16) -> str:
    """The official ids: the first ``length`` hex digits of the seed's sha256."""
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


# Early closure of personal accounts opened recently: (fee, window in days) per account level.
CHECKING_EARLY_CLOSURE = {
    "Light Blue Account": (15, 30),
    "Light Green Account": (15, 30),
    "Green Fee-Free Account": (15, 30),
    "Blue Account": (25, 60),
    "Green Account": (25, 60),
    "Evergreen Account": (50, 90),
    "Bluest Account": (100, 180),
}
SAVINGS_EARLY_CLOSURE = {
    "Bronze Account": (20, 60),
    "Silver Account": (35, 90),
    "Silver Plus Account": (35, 90),
    "Gold Account": (75, 180),
    "Gold Plus Account": (75, 180),
    "Gold Years Account": (75, 180),
    "Platinum Account": (150, 270),
    "Platinum Plus Account": (150, 270),
    "Diamond Elite Account": (150, 270),
}
NOW = datetime(2025, 11, 14, 3, 40, 0)
DISPUTE_REASONS = [
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
]


@functools.cache
def discoverable(side: str) -> dict[str, dict[str, Any]]:
    """The discovered tools of a side (``agent`` or ``user``) as the official code describes them
    from their docstrings (written by it to ``data/tools.json``)."""
    entries = json.loads((DATA / "tools.json").read_text(encoding="utf-8"))["banking_knowledge_discoverable"]
    return {name: info for name, info in entries.items() if info["side"] == side}


def _described(name: str, info: dict[str, Any]) -> str:
    """A discovered tool as ``unlock_discoverable_agent_tool`` shows it."""
    lines = [
        f"  - {param}: {spec.get('type', 'string')}{' (required)' if spec.get('required', True) else ' (optional)'}"
        f" - {spec.get('description', '')}"
        for param, spec in info["parameters"].items()
    ]
    shown = "\n".join(lines) if lines else "  (no parameters)"
    return f"Tool: {name}\nDescription: {info['description']}\nParameters:\n{shown}"


def _executed(text: str, suffix: str) -> str:
    return f"{text}\n\nExecuted: initial_transfer_to_human_agent_{suffix}\nArguments: (no arguments)"


def _age_days(account: dict[str, Any]) -> int | None:
    """Days since the account was opened (None when its date does not parse)."""
    try:
        opened = datetime.strptime(account.get("date_opened", ""), "%m/%d/%Y")
    except ValueError:
        return None
    return (NOW - opened).days


def _when(text: Any) -> datetime:
    """A transaction's date as the official sort reads it (the earliest date when it does not parse)."""
    for pattern in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y"):
        try:
            return datetime.strptime(str(text), pattern)
        except ValueError:
            continue
    return datetime.min


SEQUENTIAL_PINS = (
    "0123", "1234", "2345", "3456", "4567", "5678", "6789", "9876", "8765", "7654", "6543", "5432", "4321", "3210",
)  # fmt: skip
#: Which activation tool each issue reason of a card calls for.
ACTIVATION_TOOL = {
    "new_account": "activate_debit_card_8291",
    "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292",
    "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292",
    "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293",
    "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293",
}


def _pin_problem(pin: Any) -> str | None:
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in SEQUENTIAL_PINS:
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


def _activation_problem(
    given: dict[str, Any], db: dict[str, dict[str, Any]], reasons: tuple[str, ...], tool: str
) -> tuple[str, dict[str, Any] | None]:
    """Why a debit card cannot be activated with these details by this tool, or the card."""
    if not all(given[k] for k in ("card_id", "last_4_digits", "expiration_date", "cvv", "pin")):
        return (
            "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.",
            None,
        )
    pin_problem = _pin_problem(given["pin"])
    if pin_problem:
        return f"Error: {pin_problem}", None
    cvv, last_4, card_id = given["cvv"], given["last_4_digits"], given["card_id"]
    if not cvv.isdigit() or len(cvv) != 3:
        return "Error: CVV must be exactly 3 digits.", None
    if not last_4.isdigit() or len(last_4) != 4:
        return "Error: Last 4 digits must be exactly 4 digits.", None
    cards = db["debit_cards"]["data"]
    if card_id not in cards:
        return f"Error: Debit card '{card_id}' not found.", None
    card = cards[card_id]
    reason = card.get("issue_reason", "new_account")
    if reason not in reasons:
        right = ACTIVATION_TOOL.get(reason, "unknown")
        return (
            f"Error: Wrong activation tool. This card has issue_reason='{reason}'. "
            f"Please use {right} instead of {tool}.",
            None,
        )
    if card.get("status") == "ACTIVE":
        return f"Error: Debit card '{card_id}' is already active.", None
    if card.get("status") != "PENDING":
        return (
            f"Error: Debit card '{card_id}' cannot be activated. Current status: {card.get('status')}. "
            "Only PENDING cards can be activated.",
            None,
        )
    if card.get("last_4_digits") != last_4:
        return "Error: Card verification failed. The last 4 digits do not match our records.", None
    account_id = card.get("account_id")
    accounts = db["accounts"]["data"]
    if account_id and account_id in accounts and accounts[account_id].get("status") != "OPEN":
        return (
            f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be activated.",
            None,
        )
    return "", card


#: Default daily ATM limits by checking account level, for a card without one of its own.
DEFAULT_ATM_LIMITS = {
    "blue account": 500,
    "green account": 600,
    "light blue account": 400,
    "green fee-free account": 500,
    "evergreen account": 750,
    "bluest account": 1500,
    "dark green account": 300,
    "gold years account": 600,
    "purple account": 1000,
}


def _balance(value: Any) -> float:
    """A balance that may be a number or a text such as ``$2,850.00``."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


# --- queries ---------------------------------------------------------------------------------------

_OPS: dict[str, Any] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "gt": lambda a, b: a > b,
    "gte": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "lte": lambda a, b: a <= b,
    "contains": lambda a, b: b in a if a is not None else False,
    "startswith": lambda a, b: str(a).startswith(str(b)) if a is not None else False,
    "endswith": lambda a, b: str(a).endswith(str(b)) if a is not None else False,
    "in": lambda a, b: a in b,
    "nin": lambda a, b: a not in b,
}


def _matches(record: dict[str, Any], constraints: dict[str, Any]) -> bool:
    for key, expected in constraints.items():
        field, _, op = key.rpartition("__") if "__" in key else (key, "", "eq")
        compare = _OPS.get(op, _OPS["eq"])
        try:
            if not compare(record.get(field), expected):
                return False
        except (TypeError, ValueError):
            return False
    return True


def query(db: dict[str, dict[str, Any]], table: str, constraints: str = "{}") -> str:
    """The official ``query_database_tool``: the matching records of a table, as text."""
    try:
        if table not in QUERYABLE:
            return f"Error: Database '{table}' not found. Available: {list(QUERYABLE)}"
        try:
            wanted = json.loads(constraints) if constraints else {}
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON: {exc}"
        found = [(rid, rec) for rid, rec in db[table]["data"].items() if _matches(rec, wanted)]
        if not found:
            return f"No records found in '{table}'."
        lines = [f"Found {len(found)} record(s) in '{table}':\n"]
        for index, (record_id, record) in enumerate(found, 1):
            lines.append(f"{index}. Record ID: {record_id}")
            lines.extend(f"   {field}: {value}" for field, value in record.items())
            lines.append("")
        return "\n".join(lines)
    except Exception as exc:  # as officially: any failure of a query is its answer
        return f"Error querying database: {exc}"


def add(db: dict[str, dict[str, Any]], table: str, record_id: str, record: dict[str, Any]) -> bool:
    """A new record (False, nothing stored, when the id is taken or the database has no such table)."""
    if table not in db:
        return False
    data = db[table]["data"]
    if record_id in data:
        return False
    data[record_id] = record
    return True


# --- the agent's base tools ------------------------------------------------------------------------

TRANSFER_REASONS = (
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
)


class KnowledgeTools:
    """The agent's tools (the official class's name: a discovered tool called with arguments that do
    not fit its signature answers with Python's own ``TypeError`` text, which names the class)."""

    def __init__(self, db: dict[str, dict[str, Any]], read_log_allowlist: set[str] | None = None) -> None:
        self.db = db
        #: The discovered tools unlocked so far (in memory only, as officially).
        self.unlocked: set[str] = set()
        #: The read-only discovered tools whose calls are logged in the database all the same: those
        #: the task's reference calls (the official runner derives the list from it).
        self.read_log_allowlist = set(read_log_allowlist or ())

    def transfer_to_human_agents(self, summary: str, reason: str = "other") -> str:
        if reason not in TRANSFER_REASONS:
            return f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(TRANSFER_REASONS)}"
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    def get_current_time(self) -> str:
        return CURRENT_TIME

    # The official tools build their query as JSON text around the argument (so a quote in it
    # makes the JSON invalid, and the answer says so): the same text is parsed here.
    def get_user_information_by_id(self, user_id: str) -> str:
        return query(self.db, "users", f'{{"user_id": "{user_id}"}}')

    def get_user_information_by_name(self, customer_name: str) -> str:
        return query(self.db, "users", f'{{"name": "{customer_name}"}}')

    def get_user_information_by_email(self, email: str) -> str:
        return query(self.db, "users", f'{{"email": "{email}"}}')

    def change_user_email(self, user_id: str, new_email: str) -> str:
        users = self.db["users"]["data"]
        if user_id not in users:
            return f"Error: User with ID '{user_id}' not found."
        users[user_id]["email"] = new_email
        return f"Email updated successfully.\n  - User ID: {user_id}\n  - New Email: {new_email}"

    def get_referrals_by_user(self, user_id: str) -> str:
        return query(self.db, "referrals", f'{{"referrer_id": "{user_id}"}}')

    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        return query(self.db, "credit_card_transaction_history", f'{{"user_id": "{user_id}"}}')

    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        return query(self.db, "credit_card_accounts", f'{{"user_id": "{user_id}"}}')

    def log_verification(
        self,
        name: str,
        user_id: str,
        address: str,
        email: str,
        phone_number: str,
        date_of_birth: str,
        time_verified: str,
    ) -> str:
        suffix = time_verified.replace(" ", "_").replace(":", "").replace("-", "")
        record = {
            "name": name,
            "user_id": user_id,
            "address": address,
            "email": email,
            "phone_number": phone_number,
            "date_of_birth": date_of_birth,
            "time_verified": time_verified,
        }
        if not add(self.db, "verification_history", f"{user_id}_{suffix}", record):
            return "Failed to log verification: Record may already exist."
        return f"Verification logged successfully.\n  - User: {name} (ID: {user_id})\n  - Verified at: {time_verified}"

    def give_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        info = discoverable("user").get(discoverable_tool_name)
        if info is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            given = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        names = [name for name, _ in info["signature"]]
        for name in given:
            if name not in names and name != "self":
                return f"Error: Unexpected parameter: {name}"
        record = {"tool_name": discoverable_tool_name, "status": "GIVEN"}
        add(
            self.db,
            "user_discoverable_tools",
            deterministic_id(f"user_discoverable_tool:{discoverable_tool_name}"),
            record,
        )
        shown = json.dumps(given, indent=2) if given else "(no arguments)"
        return (
            f"Tool given to user: {discoverable_tool_name}\nDescription: {info['description']}\nArguments: {shown}\n\n"
            f"The user can now execute this action by calling `call_discoverable_user_tool` "
            f"with discoverable_tool_name='{discoverable_tool_name}' and the same arguments."
        )

    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        info = discoverable("agent").get(agent_tool_name)
        if info is None:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        self.unlocked.add(agent_tool_name)
        return (
            f"Tool unlocked: {agent_tool_name}\nDescription: {info['description']}\n\n"
            f"{_described(agent_tool_name, info)}\n\nYou can now use this tool by calling "
            f"`call_discoverable_agent_tool` with agent_tool_name='{agent_tool_name}' and the required arguments."
        )

    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        info = discoverable("agent").get(agent_tool_name)
        if info is None:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        if not hasattr(self, agent_tool_name):
            raise NotImplementedError(f"{agent_tool_name} is not ported yet")
        if agent_tool_name not in self.unlocked:
            return (
                f"Error: Tool '{agent_tool_name}' has not been unlocked. You must first use "
                "`unlock_discoverable_agent_tool` to unlock this tool before calling it."
            )
        try:
            # Every JSON number a float, as officially (ids and hashes then never depend on 25 vs 25.0).
            given = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        try:
            result: str = getattr(self, agent_tool_name)(**given)
        except TypeError as exc:
            return f"Error: Invalid arguments: {exc}"
        if info["mutates_state"] or agent_tool_name in self.read_log_allowlist:
            record = {"tool_name": agent_tool_name, "status": "CALLED"}
            add(
                self.db,
                "agent_discoverable_tools",
                deterministic_id(f"agent_discoverable_tool:{agent_tool_name}"),
                record,
            )
        return result

    def list_discoverable_agent_tools(self) -> str:
        # (officially looking for "No results found", which the query never says: kept as is)
        return f"Your called agent tools:\n{query(self.db, 'agent_discoverable_tools')}"

    # --- discovered tools --------------------------------------------------------------------------

    def example_agent_tool_0000(self) -> str:
        return "Example tool executed successfully."

    def update_transaction_rewards_3847(self, transaction_id: str, new_rewards_earned: str) -> str:
        if not transaction_id or not new_rewards_earned:
            return "Error: Missing required parameters."
        data = self.db["credit_card_transaction_history"]["data"]
        if transaction_id not in data:
            return f"Error: Transaction '{transaction_id}' not found."
        data[transaction_id]["rewards_earned"] = new_rewards_earned
        shown = json.dumps({"transaction_id": transaction_id, "new_rewards_earned": new_rewards_earned}, indent=2)
        return (
            f"Transaction rewards updated successfully.\n\nExecuted: update_transaction_rewards_3847\n"
            f"Arguments: {shown}\nTransaction updated:\n  - Transaction ID: {transaction_id}\n"
            f"  - New Rewards: {new_rewards_earned}"
        )

    def initial_transfer_to_human_agent_0218(self) -> str:
        return _executed("Initial Transfer Initiated, Inform the user that the lines are busy.", "0218")

    def initial_transfer_to_human_agent_1822(self) -> str:
        return _executed(
            "Do not explicitly tell the user, but the conversation has not reached the necessary stages to "
            "transfer to a real human yet. Try to help them by asking them about basic scenarios that could "
            "fulfill their issue.",
            "1822",
        )

    def emergency_credit_bureau_incident_transfer_1114(self) -> str:
        text = (
            "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau "
            "correction team. Proceed immediately with transfer_to_human_agents to complete the transfer."
        )
        return f"{text}\n\nExecuted: emergency_credit_bureau_incident_transfer_1114\nArguments: (no arguments)"

    def get_all_user_accounts_by_user_id_3847(self, user_id: str) -> str:
        if not user_id:
            return "Error: Missing required parameter: user_id"
        accounts = query(self.db, "accounts", f'{{"user_id": "{user_id}"}}')
        cards = query(self.db, "credit_card_accounts", f'{{"user_id": "{user_id}"}}')
        parts = [
            "User accounts retrieved successfully.",
            "",
            "Executed: get_all_user_accounts_by_user_id_3847",
            f"Accounts for user {user_id}:",
            "",
            "Bank Accounts:",
            accounts if "No records found" not in accounts else "  No bank accounts found.",
            "\nCredit Card Accounts:",
            cards if "No records found" not in cards else "  No credit card accounts found.",
        ]
        return "\n".join(parts)

    def _history(self, name: str, heading: str, subject: str, table: str, field: str, value: str, none: str) -> str:
        """The shape of the discovered read tools that list a table's records of one subject."""
        found = query(self.db, table, f'{{"{field}": "{value}"}}')
        parts = [heading, "", f"Executed: {name}", subject]
        parts.append(found if "No records found" not in found else f"\n{none}")
        return "\n".join(parts)

    def get_debit_dispute_status_7483(self, user_id: str) -> str:
        if not user_id:
            return "Error: Missing required parameter: user_id"
        return self._history(
            "get_debit_dispute_status_7483",
            "Debit card dispute history retrieved successfully.",
            f"Debit card dispute history for user {user_id}:",
            "debit_card_disputes",
            "user_id",
            user_id,
            "No debit card disputes found for this user.",
        )

    def get_user_dispute_history_7291(self, user_id: str) -> str:
        if not user_id:
            return "Error: Missing required parameter: user_id"
        return self._history(
            "get_user_dispute_history_7291",
            "User transaction dispute history retrieved successfully.",
            f"Transaction dispute history for user {user_id}:",
            "transaction_disputes",
            "user_id",
            user_id,
            "No transaction disputes found for this user.",
        )

    def get_pending_replacement_orders_5765(self, credit_card_account_id: str) -> str:
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        return self._history(
            "get_pending_replacement_orders_5765",
            "Pending replacement orders check completed.",
            f"Replacement orders for credit card account {credit_card_account_id}:",
            "credit_card_orders",
            "credit_card_account_id",
            credit_card_account_id,
            "No pending replacement orders found for this credit card account.",
        )

    def get_closure_reason_history_8293(self, credit_card_account_id: str) -> str:
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        return self._history(
            "get_closure_reason_history_8293",
            "Closure reason history retrieved successfully.",
            f"Closure reason history for credit card account {credit_card_account_id}:",
            "credit_card_closure_reasons",
            "credit_card_account_id",
            credit_card_account_id,
            "No closure reason records found for this credit card account.",
        )

    def get_credit_limit_increase_history_4829(self, credit_card_account_id: str) -> str:
        if not credit_card_account_id:
            return "Error: Missing required parameter: credit_card_account_id"
        return self._history(
            "get_credit_limit_increase_history_4829",
            "Credit limit increase history retrieved.",
            f"Credit limit increase history for account {credit_card_account_id}:",
            "credit_limit_increase_requests",
            "credit_card_account_id",
            credit_card_account_id,
            "No credit limit increase requests found for this account.",
        )

    def get_payment_history_6183(self, credit_card_account_id: str, months: int) -> str:
        if not credit_card_account_id or months is None:
            return "Error: Missing required parameters (credit_card_account_id, months)."
        try:
            months = int(months)
            if months <= 0:
                return "Error: months must be a positive integer."
        except (ValueError, TypeError):
            return "Error: Invalid months value. Must be a positive integer."
        payments = [
            p
            for p in self.db["payment_history"]["data"].values()
            if p.get("credit_card_account_id") == credit_card_account_id
        ]
        if not payments:
            return f"No payment history found for account '{credit_card_account_id}'."
        payments.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
        payments = payments[:months]
        on_time = 0
        for payment in payments:
            if payment.get("status") != "ON_TIME":
                break
            on_time += 1
        parts = [
            f"Payment history for account '{credit_card_account_id}' (last {months} months):",
            f"Consecutive on-time payments: {on_time}",
        ]
        parts.extend(
            f"\n  - Payment Date: {p.get('payment_date')}\n    Amount: {p.get('amount')}\n    Status: {p.get('status')}"
            for p in payments
        )
        return "\n".join(parts)

    def get_bank_account_transactions_9173(self, account_id: str) -> str:
        if not account_id:
            return "Error: Missing required parameter: account_id"
        if account_id not in self.db["accounts"]["data"]:
            return f"Error: Account '{account_id}' not found."
        table = self.db["bank_account_transaction_history"]["data"]
        found = [(rid, rec) for rid, rec in table.items() if _matches(rec, {"account_id": account_id})]
        # Most recent first, as the knowledge base says; the sort is stable (same-date records keep
        # their stored order, the tie-break of duplicate-charge disputes).
        found.sort(key=lambda item: _when(item[1].get("date", "")), reverse=True)
        parts = [
            "Bank account transactions retrieved successfully.",
            "",
            "Executed: get_bank_account_transactions_9173",
            f"Transactions for account {account_id}:",
        ]
        if not found:
            parts.append("\nNo transactions found for this account.")
            return "\n".join(parts)
        lines = [f"Found {len(found)} record(s) in 'bank_account_transaction_history':\n"]
        for index, (record_id, record) in enumerate(found, 1):
            lines.append(f"{index}. Record ID: {record_id}")
            lines.extend(f"   {field}: {value}" for field, value in record.items())
            lines.append("")
        parts.append("\n".join(lines))
        return "\n".join(parts)

    def get_debit_cards_by_account_id_7823(self, account_id: str) -> str:
        if not account_id:
            return "Error: Missing required parameter 'account_id'."
        accounts = self.db["accounts"]["data"]
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        if accounts[account_id].get("class", "").lower() not in ("checking", "business_checking"):
            return (
                f"Error: Account '{account_id}' is not a checking account. "
                "Debit cards are only available for checking accounts."
            )
        cards = []
        for card_id, card in self.db["debit_cards"]["data"].items():
            if card.get("account_id") != account_id:
                continue
            info = {"card_id": card_id, **card}
            # the official field names, normalized as officially
            if "last_4_digits" in info and "card_number_last_4" not in info:
                info["card_number_last_4"] = info.pop("last_4_digits")
            if "issue_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("issue_date")
            elif "created_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("created_date")
            cards.append(info)
        if not cards:
            return f"No debit cards found for account '{account_id}'."
        cards.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
        return json.dumps(cards, indent=2)

    def file_credit_card_transaction_dispute_4829(
        self,
        transaction_id: str,
        card_action: str,
        card_last_4_digits: str,
        full_name: str,
        user_id: str,
        phone: str,
        email: str,
        address: str,
        contacted_merchant: bool,
        purchase_date: str,
        issue_noticed_date: str,
        dispute_reason: str,
        resolution_requested: str,
        eligible_for_provisional_credit: bool,
        partial_refund_amount: float | None = None,
    ) -> str:
        if not transaction_id or not user_id:
            return "Error: Missing required parameters."
        actions = ["keep_active", "cancel_and_reissue"]
        if card_action not in actions:
            return f"Error: Invalid card_action. Must be one of: {actions}"
        if dispute_reason not in DISPUTE_REASONS:
            return f"Error: Invalid dispute_reason. Must be one of: {DISPUTE_REASONS}"
        resolutions = ["full_refund", "partial_refund"]
        if resolution_requested not in resolutions:
            return f"Error: Invalid resolution_requested. Must be one of: {resolutions}"
        if resolution_requested == "partial_refund" and partial_refund_amount is None:
            return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."
        dispute_id = f"dsp_{deterministic_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        record = {
            "dispute_id": dispute_id,
            "transaction_id": transaction_id,
            "user_id": user_id,
            "card_action": card_action,
            "card_last_4_digits": card_last_4_digits,
            "full_name": full_name,
            "phone": phone,
            "email": email,
            "address": address,
            "contacted_merchant": contacted_merchant,
            "purchase_date": purchase_date,
            "issue_noticed_date": issue_noticed_date,
            "dispute_reason": dispute_reason,
            "resolution_requested": resolution_requested,
            "partial_refund_amount": partial_refund_amount,
            "eligible_for_provisional_credit": eligible_for_provisional_credit,
            "provisional_credit_given": eligible_for_provisional_credit,
            "submitted_at": TODAY,
            "status": "SUBMITTED",
        }
        if not add(self.db, "transaction_disputes", dispute_id, record):
            return "Error: Dispute may have already been filed for this transaction."
        parts = [
            "Credit card transaction dispute filed successfully. A case has been opened and will be reviewed "
            "within 10 business days.",
            "",
            "Executed: file_credit_card_transaction_dispute_4829",
            f"Dispute ID: {dispute_id}",
            f"Transaction: {transaction_id}",
            f"Reason: {dispute_reason.replace('_', ' ').title()}",
            f"Resolution Requested: {resolution_requested.replace('_', ' ').title()}",
        ]
        if partial_refund_amount:
            parts.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
        if eligible_for_provisional_credit:
            parts.append("Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days.")
        else:
            parts.append("Provisional Credit: Not eligible at this time.")
        return "\n".join(parts)

    def transfer_funds_between_bank_accounts_7291(
        self, source_account_id: str, destination_account_id: str, amount: float
    ) -> str:
        if not source_account_id or not destination_account_id or amount is None:
            return "Error: Missing required parameters (source_account_id, destination_account_id, amount)."
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        if amount <= 0:
            return "Error: Transfer amount must be positive."
        if source_account_id == destination_account_id:
            return "Error: Source and destination accounts cannot be the same."
        accounts = self.db["accounts"]["data"]
        if source_account_id not in accounts:
            return f"Error: Source account '{source_account_id}' not found."
        if destination_account_id not in accounts:
            return f"Error: Destination account '{destination_account_id}' not found."
        source, destination = accounts[source_account_id], accounts[destination_account_id]
        if source.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Source account '{source_account_id}' is not active."
        if destination.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Destination account '{destination_account_id}' is not active."
        have = _balance(source.get("current_holdings", source.get("balance", 0)))
        if have < amount:
            return (
                f"Error: Insufficient funds. Source account balance is ${have:.2f}, "
                f"but transfer amount is ${amount:.2f}."
            )
        other = _balance(destination.get("current_holdings", destination.get("balance", 0)))
        source["current_holdings"] = f"${have - amount:.2f}"
        destination["current_holdings"] = f"${other + amount:.2f}"
        return (
            f"Transfer completed successfully!\n  - Amount: ${amount:.2f}\n"
            f"  - From: {source_account_id} (new balance: ${have - amount:.2f})\n"
            f"  - To: {destination_account_id} (new balance: ${other + amount:.2f})"
        )

    def close_debit_card_4721(self, card_id: str, reason: str) -> str:
        if not card_id or not reason:
            return "Error: Missing required parameters. Required: card_id, reason."
        reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]
        if reason.lower() not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        reason = reason.lower()
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        before = card.get("status")
        if before not in ("ACTIVE", "PENDING"):
            return (
                f"Error: Debit card '{card_id}' cannot be closed. Current status: {before}. "
                "Only ACTIVE or PENDING cards can be closed."
            )
        card.update(status="CLOSED", closed_date=TODAY, closure_reason=reason)
        parts = [
            "Debit Card Closed Successfully",
            f"Card ID: {card_id}",
            f"Previous Status: {before}",
            "New Status: CLOSED",
            f"Closure Reason: {reason.replace('_', ' ').title()}",
            f"Closure Date: {TODAY}",
            "",
        ]
        if reason in ("lost", "stolen", "fraud_suspected"):
            parts.append("IMPORTANT: This card has been immediately deactivated for security.")
            parts.append("Any pending transactions may still be processed.")
            if reason == "fraud_suspected":
                parts.append(
                    "Please advise the customer to review recent transactions and file disputes for any "
                    "unauthorized charges."
                )
                parts.append("Also recommend changing their online banking password.")
        parts.append("")
        parts.append(
            "Note: This card cannot be reactivated. If the customer needs a new card, they can order one through "
            "the standard ordering process."
        )
        parts.append("Any recurring payments linked to this card will need to be updated with new payment information.")
        return "\n".join(parts)

    def freeze_debit_card_3892(self, card_id: str) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        if card.get("status") == "FROZEN":
            return f"Error: Debit card '{card_id}' is already frozen."
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Debit card '{card_id}' cannot be frozen. Current status: {card.get('status')}. "
                "Only ACTIVE cards can be frozen."
            )
        card.update(status="FROZEN", frozen_date=TODAY)
        parts = [
            "Debit Card Frozen Successfully",
            f"Card ID: {card_id}",
            "Status: FROZEN",
            f"Frozen Date: {TODAY}",
            "",
            "While frozen:",
            "- All new purchase transactions will be declined",
            "- Recurring payments and subscriptions will be declined",
            "- Pending transactions already authorized may still process",
            "",
            "To unfreeze, the customer can call customer service or use the mobile app.",
            "If the card is confirmed lost or stolen, recommend closing the card permanently instead.",
        ]
        return "\n".join(parts)

    def unfreeze_debit_card_3893(self, card_id: str) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active."
        if card.get("status") != "FROZEN":
            return (
                f"Error: Debit card '{card_id}' cannot be unfrozen. Current status: {card.get('status')}. "
                "Only FROZEN cards can be unfrozen."
            )
        account_id = card.get("account_id")
        accounts = self.db["accounts"]["data"]
        if account_id and account_id in accounts and accounts[account_id].get("status") != "OPEN":
            return f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be unfrozen."
        card.update(status="ACTIVE", unfrozen_date=TODAY)
        parts = [
            "Debit Card Unfrozen Successfully",
            f"Card ID: {card_id}",
            "Status: ACTIVE",
            f"Unfrozen Date: {TODAY}",
            "",
            "The card is now active and ready to use immediately.",
            "All transactions will process normally.",
        ]
        return "\n".join(parts)

    def order_replacement_credit_card_7291(
        self,
        credit_card_account_id: str,
        user_id: str,
        shipping_address: str,
        reason: str,
        expedited_shipping: bool = False,
    ) -> str:
        if not credit_card_account_id or not user_id or not shipping_address or not reason:
            return "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason)."
        reasons = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if "No records found" in query(
            self.db, "credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}'
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        order_id = f"ccord_{deterministic_id(f'credit_card_order:{credit_card_account_id}:{user_id}:{reason}', 12)}"
        record = {
            "order_id": order_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "shipping_address": shipping_address,
            "reason": reason,
            "expedited_shipping": expedited_shipping,
            "order_date": TODAY,
            "status": "ORDERED",
            "old_card_cancelled": True,
        }
        if not add(self.db, "credit_card_orders", order_id, record):
            return "Error: Order may have already been placed for this card replacement."
        cards = self.db["credit_card_accounts"]["data"]
        if credit_card_account_id in cards:  # the old card is cancelled
            cards[credit_card_account_id]["status"] = "CLOSED"
            cards[credit_card_account_id]["closed_date"] = TODAY
        parts = [
            f"Order ID: {order_id}",
            f"Card Account: {credit_card_account_id}",
            f"Reason: {reason.replace('_', ' ').title()}",
            f"Shipping Address: {shipping_address}",
            f"Shipping Method: {'Expedited' if expedited_shipping else 'Standard'}",
            f"Expected Delivery: {'2-3 business days' if expedited_shipping else '7-10 business days'}",
            "",
            "The old card has been cancelled for security. The new card will have the same account number but a "
            "new card number and CVV.",
        ]
        return "\n".join(parts)

    def log_credit_card_closure_reason_4521(
        self, credit_card_account_id: str, user_id: str, closure_reason: str
    ) -> str:
        if not credit_card_account_id or not user_id or not closure_reason:
            return "Error: Missing required parameters."
        reasons = [
            "annual_fee",
            "not_using_card",
            "found_better_card",
            "unhappy_with_rewards",
            "simplifying_finances",
            "negative_experience",
            "other",
        ]
        if closure_reason not in reasons:
            return f"Error: Invalid closure_reason. Must be one of: {reasons}"
        record_id = f"clsr_{deterministic_id(f'closure_reason:{credit_card_account_id}:{user_id}', 12)}"
        record = {
            "record_id": record_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "closure_reason": closure_reason,
            "logged_at": TODAY,
            "status": "LOGGED",
        }
        add(self.db, "credit_card_closure_reasons", record_id, record)
        shown = json.dumps(
            {"credit_card_account_id": credit_card_account_id, "user_id": user_id, "closure_reason": closure_reason},
            indent=2,
        )
        return (
            f"Closure reason logged successfully.\n\nExecuted: log_credit_card_closure_reason_4521\n"
            f"Arguments: {shown}\nClosure reason '{closure_reason}' logged for account {credit_card_account_id}."
        )

    def apply_checking_account_credit_5829(self, account_id: str, amount: float, credit_type: str) -> str:
        return self._credit(
            account_id,
            amount,
            credit_type,
            {"rebate_credit": "REBATE CREDIT", "fee_refund": "FEE REFUND"},
            ("checking",),
            "checking",
            "Credits can only be applied to checking accounts.",
        )

    def apply_savings_account_credit_6831(self, account_id: str, amount: float, credit_type: str) -> str:
        return self._credit(
            account_id,
            amount,
            credit_type,
            {
                "interest_correction": "INTEREST CORRECTION",
                "fee_refund": "FEE REFUND",
                "goodwill_credit": "GOODWILL CREDIT",
            },
            ("saving", "savings"),
            "savings",
            "This tool only applies to savings accounts.",
        )

    def _credit(
        self,
        account_id: str,
        amount: Any,
        credit_type: str,
        kinds: dict[str, str],
        classes: tuple[str, ...],
        kind: str,
        only: str,
    ) -> str:
        """A credit to a checking or savings account (the two official tools differ in the classes
        they take, the credit types, and how they write the new balance: checking's with ``$``)."""
        if not account_id or amount is None or not credit_type:
            return "Error: Missing required parameters."
        try:
            amount = float(amount)
        except (TypeError, ValueError):
            return "Error: Invalid credit amount. Must be a number."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        if credit_type not in kinds:
            return f"Error: Invalid credit_type. Must be one of: {list(kinds)}"
        accounts = self.db["accounts"]["data"]
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts[account_id]
        if account.get("class", "").lower() not in classes:
            return f"Error: Account '{account_id}' is not a {kind} account. {only}"
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        before = _balance(account.get("current_holdings", account.get("balance", 0)))
        after = before + amount
        account["current_holdings"] = f"${after:.2f}" if kind == "checking" else f"{after:.2f}"
        transaction_id = f"txn_{deterministic_id(f'{kind}_credit:{account_id}:{credit_type}:{amount}:{TODAY}')}"
        self.db["bank_account_transaction_history"]["data"][transaction_id] = {
            "transaction_id": transaction_id,
            "account_id": account_id,
            "date": TODAY,
            "description": f"{kinds[credit_type]} - CUSTOMER SERVICE",
            "amount": amount,
            "type": credit_type,
            "status": "posted",
        }
        return (
            f"\nCredit applied successfully!\n  - Transaction ID: {transaction_id}\n  - Account: {account_id}\n"
            f"  - Credit Type: {credit_type}\n  - Amount: ${amount:.2f}\n  - Previous Balance: ${before:.2f}\n"
            f"  - New Balance: ${after:.2f}"
        )

    def close_credit_card_account_7834(self, credit_card_account_id: str, user_id: str) -> str:
        if not credit_card_account_id or not user_id:
            return "Error: Missing required parameters (credit_card_account_id, user_id)."
        if "No records found" in query(
            self.db, "credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}'
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        cards = self.db["credit_card_accounts"]["data"]
        if credit_card_account_id not in cards:
            return f"Error: Failed to close credit card account '{credit_card_account_id}'."
        cards[credit_card_account_id].update(status="CLOSED", closed_date=TODAY, closed_by=user_id)
        shown = json.dumps({"credit_card_account_id": credit_card_account_id, "user_id": user_id}, indent=2)
        return (
            f"Credit card account closed successfully.\n\nExecuted: close_credit_card_account_7834\n"
            f"Arguments: {shown}\nAccount {credit_card_account_id} has been closed."
        )

    def activate_debit_card_8291(
        self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
    ) -> str:
        given = {"card_id": card_id, "last_4_digits": last_4_digits, "expiration_date": expiration_date}
        error, card = _activation_problem(
            {**given, "cvv": cvv, "pin": pin}, self.db, ("new_account", "first_card"), "activate_debit_card_8291"
        )
        if card is None:
            return error
        others = self._activate(card_id, card, "DEACTIVATED", "New card activated")
        parts = [
            "New Debit Card Activation Successful",
            f"Card ID: {card_id}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your card is now ready to use at any ATM or point of sale terminal.",
            "For security, please sign the back of your card.",
        ]
        if others:
            parts.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(others)}")
        return "\n".join(parts)

    def activate_debit_card_8292(
        self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
    ) -> str:
        given = {"card_id": card_id, "last_4_digits": last_4_digits, "expiration_date": expiration_date}
        error, card = _activation_problem(
            {**given, "cvv": cvv, "pin": pin}, self.db, ("lost", "stolen", "fraud"), "activate_debit_card_8292"
        )
        if card is None:
            return error
        reason = card.get("issue_reason", "lost")
        others = self._activate(card_id, card, "DEACTIVATED", f"Replacement card activated ({reason})")
        parts = [
            "Replacement Debit Card Activation Successful",
            f"Card ID: {card_id}",
            f"Replacement Reason: {reason.replace('_', ' ').title()}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your replacement card is now ready to use.",
            "",
            "IMPORTANT SECURITY REMINDERS:",
            "- Please review your recent transactions for any unauthorized charges",
            "- Report any suspicious activity immediately",
        ]
        if reason == "fraud":
            parts.append("- Since fraud was suspected, we recommend changing your online banking password")
        if others:
            parts.append(f"\nPrevious card(s) have been deactivated for security: {', '.join(others)}")
        return "\n".join(parts)

    def activate_debit_card_8293(
        self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str
    ) -> str:
        given = {"card_id": card_id, "last_4_digits": last_4_digits, "expiration_date": expiration_date}
        reasons = ("expired", "damaged", "upgrade", "bank_reissue")
        error, card = _activation_problem(
            {**given, "cvv": cvv, "pin": pin}, self.db, reasons, "activate_debit_card_8293"
        )
        if card is None:
            return error
        reason = card.get("issue_reason", "expired")
        others = self._activate(card_id, card, "GRACE_PERIOD", f"Reissued card activated ({reason})")
        parts = [
            "Reissued Debit Card Activation Successful",
            f"Card ID: {card_id}",
            f"Reissue Reason: {reason.replace('_', ' ').title()}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your reissued card is now ready to use.",
        ]
        if others:
            parts.append(
                f"\nNote: Your previous card(s) ({', '.join(others)}) will remain active for 24 hours "
                "as a grace period."
            )
            parts.append("After 24 hours, the old card(s) will be automatically deactivated.")
        if reason in ("expired", "bank_reissue"):
            parts.append(
                "\nReminder: If your card number changed, please update any recurring payments with your new "
                "card details."
            )
        return "\n".join(parts)

    def _activate(self, card_id: str, card: dict[str, Any], then: str, why: str) -> list[str]:
        """The card active, and the account's other active cards ``then`` (deactivated, or in their
        grace period); their ids."""
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        others = []
        for other_id, other in self.db["debit_cards"]["data"].items():
            if (
                other_id != card_id
                and other.get("account_id") == card.get("account_id")
                and other.get("status") == "ACTIVE"
            ):
                other["status"] = then
                other["grace_period_ends" if then == "GRACE_PERIOD" else "deactivated_date"] = TODAY
                other["deactivation_reason"] = why
                others.append(other_id)
        return others

    def clear_debit_card_fraud_alert_4892(self, card_id: str, reason: str) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not reason:
            return "Error: Missing required parameter: reason."
        reasons = ["customer_verified", "velocity_clear"]
        if reason not in reasons:
            return f"Error: Invalid reason '{reason}'. Must be one of: {', '.join(reasons)}"
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        if reason == "velocity_clear":
            if not card.get("velocity_blocked", False):
                return f"Error: Debit card '{card_id}' does not have an active velocity block."
            card["velocity_blocked"] = False
            card["velocity_cleared_date"] = TODAY
            parts = [
                "Velocity Block Cleared Successfully",
                f"Card ID: {card_id}",
                f"Cleared Date: {TODAY}",
                "",
                "The card is now unblocked and ready for normal use.",
                "The velocity monitoring will continue - if the same unusual patterns recur,",
                "the card may be blocked again automatically.",
            ]
            return "\n".join(parts)
        if not card.get("fraud_alert_active", False):
            return f"Error: Debit card '{card_id}' does not have an active fraud alert."
        if card.get("alert_source") == "bank_initiated":
            return (
                "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system "
                "and cannot be cleared by customer service agents. Please transfer the customer to the security "
                "team using transfer_to_human_agents."
            )
        card["fraud_alert_active"] = False
        card["alert_source"] = None
        card["fraud_alert_cleared_date"] = TODAY
        parts = [
            "Fraud Alert Cleared Successfully",
            f"Card ID: {card_id}",
            f"Cleared Date: {TODAY}",
            "",
            "The fraud alert has been removed from the card.",
            "All transactions will process normally.",
            "",
            "Remind the customer to review recent transactions and report any unauthorized charges.",
        ]
        return "\n".join(parts)

    def reset_debit_card_pin_6284(self, card_id: str, last_4_digits: str, new_pin: str) -> str:
        if not all([card_id, last_4_digits, new_pin]):
            return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits."
        pin_problem = _pin_problem(new_pin)
        if pin_problem:
            return f"Error: {pin_problem}"
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        if card.get("last_4_digits") != last_4_digits:
            return "Error: Card verification failed. The last 4 digits do not match our records."
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Cannot reset PIN. Card status is {card.get('status')}. "
                "Only ACTIVE cards can have their PIN reset."
            )
        card.update(pin_last_changed=TODAY, pin_locked=False, pin_attempts_remaining=3)
        parts = [
            "Debit Card PIN Reset Successfully",
            f"Card ID: {card_id}",
            f"PIN Changed: {TODAY}",
            "",
            "The new PIN is effective immediately.",
            "Your card has been unlocked and is ready to use.",
            "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
            "",
            "Security reminder: Never share your PIN with anyone.",
        ]
        return "\n".join(parts)

    def change_debit_card_pin_6285(self, card_id: str, current_pin: str, new_pin: str) -> str:
        if not all([card_id, current_pin, new_pin]):
            return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
        if not current_pin.isdigit() or len(current_pin) != 4:
            return "Error: Current PIN must be exactly 4 digits."
        pin_problem = _pin_problem(new_pin)
        if pin_problem:
            return f"Error: {pin_problem}"
        if current_pin == new_pin:
            return "Error: New PIN must be different from current PIN."
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Cannot change PIN. Card status is {card.get('status')}. "
                "Only ACTIVE cards can have their PIN changed."
            )
        card["pin_last_changed"] = TODAY
        parts = [
            "Debit Card PIN Changed Successfully",
            f"Card ID: {card_id}",
            f"PIN Changed: {TODAY}",
            "",
            "The new PIN is effective immediately.",
            "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
            "",
            "Security reminder: Never share your PIN with anyone.",
        ]
        return "\n".join(parts)

    def order_debit_card_5739(
        self,
        account_id: str,
        user_id: str,
        delivery_option: str,
        delivery_fee: float,
        card_design: str,
        design_fee: float,
        shipping_address: str,
        excess_replacement_fee: float | None = None,
    ) -> str:
        excess: Any = excess_replacement_fee or 0
        try:
            delivery = float(delivery_fee) if delivery_fee is not None else None
        except (TypeError, ValueError):
            return "Error: delivery_fee must be a number."
        try:
            design = float(design_fee) if design_fee is not None else None
        except (TypeError, ValueError):
            return "Error: design_fee must be a number."
        try:
            excess = float(excess)
        except (TypeError, ValueError):
            excess = 0
        given = [account_id, user_id, delivery_option, delivery is not None, card_design, design is not None]
        if not all([*given, shipping_address]) or delivery is None or design is None:
            return (
                "Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, "
                "card_design, design_fee, shipping_address."
            )
        options = ["STANDARD", "EXPEDITED", "RUSH"]
        if delivery_option.upper() not in options:
            return f"Error: Invalid delivery_option. Must be one of: {options}"
        delivery_option = delivery_option.upper()
        designs = ["CLASSIC", "PREMIUM", "CUSTOM"]
        if card_design.upper() not in designs:
            return f"Error: Invalid card_design. Must be one of: {designs}"
        card_design = card_design.upper()
        accounts = self.db["accounts"]["data"]
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts[account_id]
        if account.get("class") != "checking":
            return (
                f"Error: Debit cards can only be ordered for checking accounts. Account '{account_id}' is a "
                f"{account.get('class')} account."
            )
        if account.get("status") != "OPEN":
            return f"Error: Account must be OPEN. Account '{account_id}' has status: {account.get('status')}"
        if account.get("user_id") != user_id:
            return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
        try:  # (as officially: a balance written with "$" reads as 0)
            holdings = float(str(account.get("current_holdings", "0")).replace(",", ""))
        except ValueError:
            holdings = 0.0
        if holdings < 25.0:
            return f"Error: Account must have a minimum balance of $25. Current balance: ${holdings:.2f}"
        for order in self.db["debit_card_orders"]["data"].values():
            if order.get("account_id") == account_id and order.get("status") == "PENDING":
                return f"Error: There is already a pending debit card order for account '{account_id}'."
        cards = self.db["debit_cards"]["data"]
        if any(c.get("account_id") == account_id and c.get("status") == "ACTIVE" for c in cards.values()):
            return (
                f"Error: Account '{account_id}' already has an active debit card. "
                "Maximum 1 active card per checking account."
            )
        total = delivery + design + excess
        if total > 0 and holdings < total:
            return f"Error: Insufficient funds for fees. Total fees: ${total:.2f}. Current balance: ${holdings:.2f}"
        expected = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days", "RUSH": "1-2 business days"}[
            delivery_option
        ]
        order_id = f"dcord_{deterministic_id(f'debit_card_order:{account_id}:{user_id}:{delivery_option}', 12)}"
        record = {
            "order_id": order_id,
            "account_id": account_id,
            "user_id": user_id,
            "delivery_option": delivery_option,
            "card_design": card_design,
            "shipping_address": shipping_address,
            "delivery_fee": delivery,
            "design_fee": design,
            "excess_replacement_fee": excess,
            "total_fee": total,
            "order_date": TODAY,
            "expected_delivery": expected,
            "status": "PENDING",
        }
        if not add(self.db, "debit_card_orders", order_id, record):
            return "Error: Failed to create debit card order. Order may already exist."
        if total > 0:
            account["current_holdings"] = f"{holdings - total:.2f}"
            charged = []
            if delivery > 0:
                charged.append(f"Delivery ${delivery}")
            if design > 0:
                charged.append(f"Design ${design}")
            if excess > 0:
                charged.append(f"Excess Replacement ${excess:.0f}")
            fee_id = f"btxn_dcfee_{order_id[-8:]}"
            fee = {
                "transaction_id": fee_id,
                "account_id": account_id,
                "date": TODAY,
                "description": f"DEBIT CARD ORDER FEE - {', '.join(charged)}",
                "amount": -total,
                "type": "debit_card_fee",
                "status": "posted",
            }
            add(self.db, "bank_account_transaction_history", fee_id, fee)
        card_id = f"dbc_{deterministic_id(f'debit_card:{account_id}:{user_id}:{TODAY}', 12)}"
        last_4 = "".join(c for c in deterministic_id(f"card_details:{card_id}:last4", 8) if c.isdigit())[:4].zfill(4)
        cvv = "".join(c for c in deterministic_id(f"card_details:{card_id}:cvv", 6) if c.isdigit())[:3].zfill(3)
        users = self.db["users"]["data"]
        holder = users[user_id].get("name", "CARDHOLDER").upper() if user_id in users else "CARDHOLDER"
        month, _, year = TODAY.split("/")
        day = "31" if month in ("01", "03", "05", "07", "08", "10", "12") else "28" if month == "02" else "30"
        existing = [c for c in cards.values() if c.get("account_id") == account_id]
        closed = next((c for c in existing if c.get("status") == "CLOSED"), None)
        if closed:
            why = closed.get("closure_reason", "first_card")
            if why in ("lost", "stolen", "fraud", "fraud_suspected"):
                reason = why if why != "fraud_suspected" else "fraud"
            else:
                reason = "first_card"
        else:
            reason = "first_card" if existing else "new_account"
        card = {
            "card_id": card_id,
            "account_id": account_id,
            "user_id": user_id,
            "cardholder_name": holder,
            "last_4_digits": last_4,
            "cvv": cvv,
            "status": "PENDING",
            "issue_date": TODAY,
            "expiration_date": f"{month}/{day}/{int(year) + 4}",
            "card_design": card_design,
            "issue_reason": reason,
        }
        add(self.db, "debit_cards", card_id, card)
        parts = [
            "Debit Card Order Confirmed",
            f"Order ID: {order_id}",
            f"Card ID: {card_id}",
            f"Linked Account: {account_id}",
            f"Delivery Option: {delivery_option}",
            f"Card Design: {card_design}",
            f"Shipping Address: {shipping_address}",
            f"Expected Delivery: {expected}",
            "",
            "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card.",
        ]
        if total > 0:
            details = []
            if delivery > 0:
                details.append(f"Delivery: ${delivery}")
            if design > 0:
                details.append(f"Design: ${design}")
            if excess > 0:
                details.append(f"Excess Replacement: ${excess:.0f}")
            parts.append(f"Total Fees: ${total:.2f} ({', '.join(details)}) - CHARGED to account {account_id}")
            parts.append(f"New Account Balance: ${holdings - total:.2f}")
        else:
            parts.append("Total Fees: $0 (No additional charges)")
        return "\n".join(parts)

    def file_debit_card_transaction_dispute_6281(
        self,
        transaction_id: str,
        account_id: str,
        card_id: str,
        user_id: str,
        dispute_category: str,
        transaction_date: str,
        discovery_date: str,
        disputed_amount: float,
        transaction_type: str,
        card_in_possession: bool,
        pin_compromised: str,
        contacted_merchant: bool,
        police_report_filed: bool,
        written_statement_provided: bool,
        provisional_credit_eligible: bool,
        customer_max_liability_amount: float,
        card_action: str,
    ) -> str:
        required = [transaction_id, account_id, card_id, user_id, dispute_category, transaction_date, discovery_date]
        if not all([*required, disputed_amount, transaction_type, pin_compromised, card_action]):
            return "Error: Missing required parameters."
        if customer_max_liability_amount is None:
            return "Error: customer_max_liability_amount is required."
        flags = (card_in_possession, contacted_merchant, police_report_filed, written_statement_provided)
        if any(flag is None for flag in flags):
            return (
                "Error: card_in_possession, contacted_merchant, police_report_filed, and written_statement_provided "
                "are required boolean fields."
            )
        categories = [
            "unauthorized_transaction",
            "atm_cash_discrepancy",
            "atm_deposit_not_credited",
            "duplicate_charge",
            "incorrect_amount",
            "goods_services_not_received",
            "recurring_charge_after_cancellation",
            "card_present_fraud",
            "card_not_present_fraud",
        ]
        if dispute_category not in categories:
            return f"Error: Invalid dispute_category. Must be one of: {categories}"
        kinds = [
            "pin_purchase",
            "signature_purchase",
            "online_purchase",
            "atm_withdrawal",
            "atm_deposit",
            "recurring_payment",
            "person_to_person",
        ]
        if transaction_type not in kinds:
            return f"Error: Invalid transaction_type. Must be one of: {kinds}"
        pins = ["yes_shared", "yes_observed", "no", "unknown"]
        if pin_compromised not in pins:
            return f"Error: Invalid pin_compromised. Must be one of: {pins}"
        actions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
        if card_action not in actions:
            return f"Error: Invalid card_action. Must be one of: {actions}"
        if disputed_amount <= 0:
            return "Error: disputed_amount must be a positive number."
        dispute_id = f"dsp_{deterministic_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        fraud = dispute_category in ("unauthorized_transaction", "card_present_fraud", "card_not_present_fraud")
        shared = pin_compromised == "yes_shared"
        record = {
            "dispute_id": dispute_id,
            "transaction_id": transaction_id,
            "account_id": account_id,
            "card_id": card_id,
            "user_id": user_id,
            "dispute_category": dispute_category,
            "transaction_date": transaction_date,
            "discovery_date": discovery_date,
            "disputed_amount": disputed_amount,
            "transaction_type": transaction_type,
            "card_in_possession": card_in_possession,
            "pin_compromised": pin_compromised,
            "contacted_merchant": contacted_merchant,
            "police_report_filed": police_report_filed,
            "written_statement_provided": written_statement_provided,
            "provisional_credit_eligible": provisional_credit_eligible,
            "provisional_credit_issued": provisional_credit_eligible,
            "provisional_credit_amount": disputed_amount if provisional_credit_eligible else None,
            "customer_max_liability_amount": customer_max_liability_amount,
            "card_action": card_action,
            "is_fraud_category": fraud,
            "pin_shared_voluntarily": shared,
            "submitted_at": TODAY,
            "status": "OPEN",
        }
        if not add(self.db, "debit_card_disputes", dispute_id, record):
            return "Error: Dispute may have already been filed for this transaction."
        parts = [
            f"Dispute ID: {dispute_id}",
            f"Transaction: {transaction_id}",
            f"Account: {account_id}",
            f"Category: {dispute_category.replace('_', ' ').title()}",
            f"Disputed Amount: ${disputed_amount:.2f}",
            f"Card Action: {card_action.replace('_', ' ').title()}",
        ]
        if provisional_credit_eligible:
            parts.append(
                f"Provisional Credit: ISSUED - ${disputed_amount:.2f} credited within 10 business days "
                "per Regulation E."
            )
        else:
            parts.append("Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.")
        if shared:
            parts.append(
                "WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination."
            )
        if fraud and not police_report_filed and disputed_amount > 500:
            parts.append("RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.")
        return "\n".join(parts)

    def set_debit_card_recurring_block_7382(self, card_id: str, block_recurring: bool) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id"
        card = self.db["debit_cards"]["data"].get(card_id)
        if not card:
            return f"Error: Debit card '{card_id}' not found."
        status = card.get("status", "").upper()
        if status != "ACTIVE":
            return (
                f"Error: Cannot update recurring block settings for a card with status '{status}'. Card must be ACTIVE."
            )
        card["recurring_blocked"] = block_recurring
        if block_recurring:
            return (
                f"Recurring payments BLOCKED for debit card {card_id}.\n"
                "All recurring/subscription charges will be declined.\nOne-time purchases are not affected.\n"
                "This change takes effect within 24 hours."
            )
        return (
            f"Recurring payments UNBLOCKED for debit card {card_id}.\n"
            "Recurring/subscription charges will now be allowed.\nThis change takes effect within 24 hours."
        )

    def apply_statement_credit_8472(self, user_id: str, credit_card_account_id: str, amount: float, reason: str) -> str:
        if not user_id or not credit_card_account_id or amount is None or not reason:
            return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        reasons = [
            "goodwill_adjustment",
            "promotional_credit",
            "annual_fee_reversal",
            "late_fee_reversal",
            "interest_charge_reversal",
            "dispute_resolution",
            "price_match",
            "retention_offer",
            "error_correction",
            "other",
        ]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if "No records found" in query(
            self.db, "credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}'
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        seed = f"transaction:{user_id}:STATEMENT_CREDIT:{reason}:{amount:.2f}:Statement Credit"
        transaction_id = f"txn_{deterministic_id(seed, 12)}"
        record = {
            "transaction_id": transaction_id,
            "user_id": user_id,
            "credit_card_account_id": credit_card_account_id,
            "credit_card_type": "N/A",
            "merchant_name": "Rho-Bank Statement Credit",
            "transaction_amount": f"-${amount:.2f}",
            "transaction_date": TODAY,
            "category": "Statement Credit",
            "status": "COMPLETED",
            "rewards_earned": "0 points",
            "credit_reason": reason,
        }
        if not add(self.db, "credit_card_transaction_history", transaction_id, record):
            return f"Error: Failed to apply statement credit. Transaction ID '{transaction_id}' may already exist."
        return (
            f"Statement credit applied successfully.\n\nExecuted: apply_statement_credit_8472\n"
            f"  - Transaction ID: {transaction_id}\n  - User ID: {user_id}\n  - Account: {credit_card_account_id}\n"
            f"  - Credit Amount: ${amount:.2f}\n  - Reason: {reason.replace('_', ' ').title()}\n  - Date: {TODAY}"
        )

    def apply_credit_card_account_flag_6147(
        self, credit_card_account_id: str, user_id: str, flag_type: str, expiration_date: str, reason: str
    ) -> str:
        if not credit_card_account_id or not user_id or not flag_type or not expiration_date or not reason:
            return (
                "Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, "
                "reason)."
            )
        flags = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
        if flag_type not in flags:
            return f"Error: Invalid flag_type. Must be one of: {flags}"
        reasons = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if "No records found" in query(
            self.db, "credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}'
        ):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        flag_id = (
            f"ccflag_{deterministic_id(f'account_flag:{credit_card_account_id}:{flag_type}:{expiration_date}', 12)}"
        )
        record = {
            "flag_id": flag_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "flag_type": flag_type,
            "effective_date": TODAY,
            "expiration_date": expiration_date,
            "reason": reason,
            "applied_at": TODAY,
            "status": "ACTIVE",
        }
        if not add(self.db, "credit_card_account_flags", flag_id, record):
            return f"Error: Failed to apply account flag. Flag ID '{flag_id}' may already exist."
        return (
            f"Account flag applied successfully!\n  - Flag ID: {flag_id}\n  - Account: {credit_card_account_id}\n"
            f"  - User ID: {user_id}\n  - Flag Type: {flag_type.replace('_', ' ').title()}\n"
            f"  - Effective Date: {TODAY}\n  - Expiration Date: {expiration_date}\n"
            f"  - Reason: {reason.replace('_', ' ').title()}"
        )

    def pay_credit_card_from_checking_9182(
        self, user_id: str, checking_account_id: str, credit_card_account_id: str, amount: float
    ) -> str:
        if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
            return "Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, amount)."
        try:
            amount = float(amount)
            if amount <= 0:
                return "Error: Payment amount must be a positive number."
        except (ValueError, TypeError):
            return "Error: Invalid payment amount. Must be a positive number."
        accounts = self.db["accounts"]["data"]
        if checking_account_id not in accounts:
            return f"Error: Checking account '{checking_account_id}' not found."
        checking = accounts[checking_account_id]
        if checking.get("user_id") != user_id:
            return f"Error: Checking account '{checking_account_id}' does not belong to user '{user_id}'."
        if checking.get("class") != "checking":
            return f"Error: Account '{checking_account_id}' is not a checking account."
        have = _balance(checking.get("current_holdings", checking.get("balance", 0)))
        if amount > have:
            return (
                f"Error: Insufficient funds in checking account. Available balance: ${have:.2f}, "
                f"requested payment: ${amount:.2f}."
            )
        cards = self.db["credit_card_accounts"]["data"]
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = cards[credit_card_account_id]
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        try:
            owed = float(str(card.get("current_balance", "$0.00")).replace("$", "").replace(",", ""))
        except (ValueError, TypeError):
            owed = 0.0
        if amount > owed:
            return (
                f"Error: Payment amount (${amount:.2f}) exceeds credit card balance (${owed:.2f}). "
                "Please specify an amount up to the outstanding balance."
            )
        checking["current_holdings"] = f"{have - amount:.2f}"
        card["current_balance"] = f"${owed - amount:.2f}"
        return (
            f"Payment processed successfully!\n  - Payment Amount: ${amount:.2f}\n"
            f"  - From Checking Account: {checking_account_id}\n  - To Credit Card Account: {credit_card_account_id}\n"
            f"  - New Checking Balance: ${have - amount:.2f}\n  - New Credit Card Balance: ${owed - amount:.2f}\n"
            "The payment has been applied immediately."
        )

    def submit_credit_limit_increase_request_7392(
        self, credit_card_account_id: str, user_id: str, requested_increase_amount: int
    ) -> str:
        if not credit_card_account_id or not user_id or requested_increase_amount is None:
            return "Error: Missing required parameters."
        try:
            requested = float(requested_increase_amount)
        except (TypeError, ValueError):
            return "Error: Invalid requested_increase_amount. Must be a whole number."
        if not requested.is_integer():
            return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
        amount = int(requested)
        if amount <= 0:
            return "Error: Requested increase amount must be positive."
        cards = self.db["credit_card_accounts"]["data"]
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if cards[credit_card_account_id].get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        request_id = f"cli_{deterministic_id(f'cli_request:{credit_card_account_id}:{user_id}:{amount:.2f}', 12)}"
        record = {
            "request_id": request_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "requested_increase_amount": amount,
            "submitted_at": TODAY,
            "status": "PENDING",
        }
        if not add(self.db, "credit_limit_increase_requests", request_id, record):
            return "Error: A similar request may already exist."
        return (
            f"Credit limit increase request submitted successfully.\n\n"
            f"Executed: submit_credit_limit_increase_request_7392\n  - Request ID: {request_id}\n"
            f"  - Account: {credit_card_account_id}\n  - Requested Increase: ${amount:,}\n  - Status: PENDING"
        )

    def approve_credit_limit_increase_5847(
        self, credit_card_account_id: str, user_id: str, new_credit_limit: int
    ) -> str:
        if not credit_card_account_id or not user_id or new_credit_limit is None:
            return "Error: Missing required parameters."
        cards = self.db["credit_card_accounts"]["data"]
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = cards[credit_card_account_id]
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        disputes = self.db["transaction_disputes"]["data"].values()
        orders = self.db["credit_card_orders"]["data"].values()
        ineligible = (
            any(
                d.get("user_id") == user_id and d.get("status") in ("SUBMITTED", "UNDER_REVIEW", "PENDING")
                for d in disputes
            )
            or any(
                o.get("credit_card_account_id") == credit_card_account_id
                and o.get("status") in ("PENDING", "PROCESSING", "SHIPPED")
                for o in orders
            )
            or card.get("account_status", "").upper() in ("PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED")
        )
        if ineligible:
            return "Error: Credit limit increase request cannot be approved at this time."
        try:
            current = float(str(card.get("credit_limit", "$0.00")).replace("$", "").replace(",", ""))
        except (ValueError, TypeError):
            current = 0.0
        new = float(new_credit_limit)
        card["credit_limit"] = f"${new:.2f}"
        request_id = (
            f"cli_{deterministic_id(f'cli_request:{credit_card_account_id}:{user_id}:{new - current:.2f}', 12)}"
        )
        record = {
            "request_id": request_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "previous_limit": f"${current:.2f}",
            "new_limit": f"${new:.2f}",
            "increase_amount": f"${new - current:.2f}",
            "decision_date": TODAY,
            "status": "APPROVED",
        }
        add(self.db, "credit_limit_increase_requests", request_id, record)
        return (
            f"Credit limit increase approved!\n  - Account: {credit_card_account_id}\n"
            f"  - Previous Limit: ${current:.2f}\n  - New Limit: ${new:.2f}\n  - Increase: ${new - current:.2f}\n"
            f"  - Effective Date: {TODAY}\nThe customer will receive a confirmation email."
        )

    def deny_credit_limit_increase_5848(self, credit_card_account_id: str, user_id: str, denial_reason: str) -> str:
        if not credit_card_account_id or not user_id or not denial_reason:
            return "Error: Missing required parameters."
        reasons = [
            "insufficient_account_age",
            "cooldown_period_active",
            "pending_disputes",
            "pending_replacement_card",
            "past_due_balance",
            "high_utilization",
            "insufficient_payment_history",
            "requested_amount_exceeds_limit",
            "other",
        ]
        if denial_reason not in reasons:
            return f"Error: Invalid denial_reason. Must be one of: {', '.join(reasons)}"
        if credit_card_account_id not in self.db["credit_card_accounts"]["data"]:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        request_id = f"cli_{deterministic_id(f'cli_request:{credit_card_account_id}:{user_id}:0.00', 12)}"
        record = {
            "request_id": request_id,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "denial_reason": denial_reason,
            "decision_date": TODAY,
            "status": "DENIED",
        }
        add(self.db, "credit_limit_increase_requests", request_id, record)
        return (
            f"Credit limit increase request denied.\n  - Account: {credit_card_account_id}\n"
            f"  - Denial Reason: {denial_reason}\n  - Date: {TODAY}\n"
            "The customer will receive a notification explaining the denial."
        )

    def submit_interest_discrepancy_report_7294(
        self, account_id: str, user_id: str, expected_apy: float, actual_apy: float, amount_difference: float
    ) -> str:
        if not account_id or not user_id or expected_apy is None or actual_apy is None or amount_difference is None:
            return "Error: Missing required parameters."
        try:
            expected, actual, difference = float(expected_apy), float(actual_apy), float(amount_difference)
        except (ValueError, TypeError):
            return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
        account = self.db["accounts"]["data"].get(account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        user = self.db["users"]["data"].get(user_id)
        if user is None:
            return f"Error: User '{user_id}' not found."
        report_id = f"IDR_{deterministic_id(f'interest_report:{account_id}:{user_id}:{expected}:{actual}:{TODAY}')}"
        record = {
            "report_id": report_id,
            "account_id": account_id,
            "user_id": user_id,
            "account_level": account.get("level", "Unknown"),
            "expected_apy": expected,
            "actual_apy": actual,
            "apy_difference": round(expected - actual, 4),
            "amount_difference": difference,
            "submitted_date": TODAY,
            "status": "PENDING_REVIEW",
        }
        # (officially into a table the database does not have: nothing is stored)
        add(self.db, "interest_discrepancy_reports", report_id, record)
        return (
            f"\nInterest Discrepancy Report Submitted Successfully!\n  - Report ID: {report_id}\n"
            f"  - Account: {account_id} ({account.get('level', 'Unknown')})\n"
            f"  - Customer: {user.get('name', 'Unknown')}\n  - Expected APY: {expected}%\n"
            f"  - Actual APY: {actual}%\n  - APY Difference: {round(expected - actual, 4)}%\n"
            f"  - Amount Difference: ${difference:.2f}\n  - Status: PENDING_REVIEW\n"
            "\nThe backend team will investigate this discrepancy and ensure correct APY calculations are applied "
            "going forward."
        )

    def request_temporary_debit_card_limit_increase_8374(self, card_id: str, limit_type: str, new_limit: int) -> str:
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not limit_type:
            return "Error: Missing required parameter: limit_type."
        if limit_type not in ("atm", "purchase"):
            return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
        if new_limit is None:
            return "Error: Missing required parameter: new_limit."
        try:
            asked = float(new_limit)
        except (ValueError, TypeError):
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        if not asked.is_integer():
            return f"Error: new_limit must be an integer, got '{asked}'."
        limit = int(asked)
        if limit <= 0:
            return "Error: new_limit must be a positive amount."
        cards = self.db["debit_cards"]["data"]
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards[card_id]
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Debit card '{card_id}' is not active. Current status: {card.get('status')}. "
                "Only ACTIVE cards can have limit increases."
            )
        account_id = card.get("account_id")
        accounts = self.db["accounts"]["data"]
        if not account_id or account_id not in accounts:
            return f"Error: Could not find linked account for debit card '{card_id}'."
        account = accounts[account_id]
        if account.get("status") != "OPEN":
            return (
                f"Error: The linked account '{account_id}' is not in good standing. "
                f"Account status: {account.get('status')}."
            )
        opened = account.get("date_opened")
        if opened:
            try:  # counted from the day's midnight, as officially
                age = (datetime.strptime(TODAY, "%m/%d/%Y") - datetime.strptime(opened, "%m/%d/%Y")).days
            except ValueError:
                age = None
            if age is not None and age < 60:
                return (
                    "Error: Account must be at least 60 days old for a temporary limit increase. "
                    f"Account age: {age} days."
                )
        if limit_type == "atm":
            current = card.get("daily_atm_limit")
            field, name = "daily_atm_limit", "Daily ATM Withdrawal Limit"
            if current is None:
                level = account.get("level", "").lower()
                if "light green" in level:
                    return (
                        "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be "
                        "modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety "
                        "reasons. The customer may request the parent/guardian to withdraw cash from their own "
                        "account if needed."
                    )
                current = DEFAULT_ATM_LIMITS.get(level)
                if current is None:
                    return (
                        f"Error: Could not determine the default ATM limit for account type '{account.get('level')}'. "
                        "Please verify the account type."
                    )
        else:
            current = card.get("daily_purchase_limit")
            field, name = "daily_purchase_limit", "Daily Purchase Limit"
        if current is None:
            return (
                f"Error: The card does not have a {name.lower()} configured. This may be a restricted account type "
                "where limits are set by account policy and cannot be modified."
            )
        most = int(current * 1.5)
        if limit > most:
            return (
                f"Error: Requested limit ${limit} exceeds the maximum allowed temporary increase. "
                f"Maximum temporary limit is ${most} (150% of current ${current} limit)."
            )
        if limit <= current:
            return f"Error: Requested limit ${limit} is not higher than the current limit of ${current}."
        card[field] = limit
        card[f"temporary_{limit_type}_limit_increase"] = True
        card[f"original_{limit_type}_limit"] = current
        card[f"temporary_{limit_type}_limit_expires"] = TODAY
        parts = [
            f"Temporary {name} Increase Granted Successfully",
            f"Card ID: {card_id}",
            f"Previous Limit: ${current}",
            f"New Temporary Limit: ${limit}",
            f"Increase Amount: ${limit - current}",
            "",
            "Important Information:",
            "- This temporary increase expires in 24 hours",
            f"- After expiration, the limit will revert to ${current}",
            "- Only one temporary increase is allowed per 24-hour period",
            "",
            "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
            "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
            "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
        ]
        return "\n".join(parts)

    def open_bank_account_4821(self, user_id: str, account_type: str, account_class: str) -> str:
        if not user_id or not account_type or not account_class:
            return "Error: Missing required parameters."
        kinds = ["checking", "savings", "business_checking", "business_savings"]
        if account_type not in kinds:
            return f"Error: Invalid account_type. Must be one of: {kinds}"
        owned = [acc for acc in self.db["accounts"]["data"].values() if acc.get("user_id") == user_id]
        refused = "Error: Account eligibility requirements not met."

        def kind(acc: dict[str, Any]) -> Any:
            return acc.get("account_type", acc.get("class", ""))

        def is_open(acc: dict[str, Any]) -> bool:
            return acc.get("status", "") in ("OPEN", "ACTIVE")

        if account_type == "savings" and not any(
            kind(acc) in ("checking", "personal_checking") and is_open(acc) and (_age_days(acc) or 0) >= 14
            for acc in owned
        ):
            return refused
        if account_type == "business_checking":
            if any(acc.get("status") == "CLOSED" for acc in owned):
                return refused
            if not any(kind(acc) in ("checking", "personal_checking") and is_open(acc) for acc in owned):
                return refused
        if account_type == "business_savings":
            if any(_balance(acc.get("current_holdings", acc.get("balance", 0))) < 0 for acc in owned):
                return refused
            if not any(
                kind(acc) == "business_checking" and is_open(acc) and (_age_days(acc) or 0) >= 30 for acc in owned
            ):
                return refused
        account_id = deterministic_id(f"account:{user_id}:{account_type}:{account_class}")
        record = {
            "account_id": account_id,
            "user_id": user_id,
            "account_type": account_type,
            "account_class": account_class,
            "current_holdings": "0.00",
            "status": "OPEN",
            "date_opened": TODAY,
        }
        if not add(self.db, "accounts", account_id, record):
            return f"Failed to open account: Account ID '{account_id}' may already exist."
        return (
            f"Bank account opened successfully!\n  - Account ID: {account_id}\n  - User ID: {user_id}\n"
            f"  - Account Type: {account_type}\n  - Account Class: {account_class}\n  - Status: OPEN\n"
            f"  - Initial Balance: $0.00\n  - Date Opened: {TODAY}"
        )

    def close_bank_account_7392(
        self, account_id: str, reason: str = "Customer requested closure", waive_early_closure_fee: bool = False
    ) -> str:
        if not account_id:
            return "Error: Missing required parameter (account_id)."
        accounts = self.db["accounts"]["data"]
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts[account_id]
        if account.get("status") == "CLOSED":
            return f"Error: Account '{account_id}' is already closed."
        balance = _balance(account.get("current_holdings", account.get("balance", 0)))
        fee = 0.0
        if not waive_early_closure_fee:
            tiers = {"checking": CHECKING_EARLY_CLOSURE, "savings": SAVINGS_EARLY_CLOSURE}.get(account.get("class", ""))
            rule = tiers.get(account.get("level", "")) if tiers else None
            opened = account.get("date_opened", "")
            if rule and opened:
                age = _age_days(account)
                if age is not None and age < rule[1]:
                    if balance < rule[0]:
                        return "Error: Account unable to be closed."
                    fee = rule[0]
        if balance - fee != 0:
            return f"Error: Account balance must be $0.00 before closing. Current balance: ${balance:.2f}"
        account["status"] = "CLOSED"
        account["date_closed"] = TODAY
        account["closure_reason"] = reason
        account["early_closure_fee_waived"] = waive_early_closure_fee
        return (
            f"Bank account closed successfully!\n  - Account ID: {account_id}\n"
            f"  - Account Type: {account.get('account_type', 'N/A')}\n"
            f"  - Account Class: {account.get('account_class', 'N/A')}\n  - Status: CLOSED\n"
            f"  - Date Closed: {TODAY}\n  - Reason: {reason}\n"
            f"  - Early Closure Fee Waived: {'Yes' if waive_early_closure_fee else 'No'}"
        )


# --- the user's tools ------------------------------------------------------------------------------

CREDIT_CARD_TYPES = (
    "Bronze Rewards Card",
    "Business Bronze Rewards Card",
    "Business Gold Rewards Card",
    "Business Platinum Rewards Card",
    "Business Silver Rewards Card",
    "Crypto-Cash Back",
    "Diamond Elite Card",
    "EcoCard",
    "Gold Rewards Card",
    "Green Rewards Card",
    "Platinum Rewards Card",
    "Silver Rewards Card",
    "Silver Zoom Card",
)
#: Reward rates (percent) per card and category, ``default`` for the others.
CREDIT_CARD_REWARDS: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0, "default": 1.5},
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}


class KnowledgeUserTools:
    """The customer's tools (named as the official class, as ``KnowledgeTools``), on the same database."""

    def __init__(self, db: dict[str, dict[str, Any]]) -> None:
        self.db = db

    def apply_for_credit_card(
        self, card_type: str, customer_name: str, annual_income: float, rho_bank_subscription: bool = False
    ) -> str:
        if card_type not in CREDIT_CARD_TYPES:
            return f"Error: Invalid card_type '{card_type}'. Must be one of: {list(CREDIT_CARD_TYPES)}"
        try:
            income = float(annual_income)  # (the id must not depend on 100000 against 100000.0)
        except (TypeError, ValueError):
            return "Error: Invalid annual_income. Must be a number."
        application_id = deterministic_id(f"credit_card:{card_type}:{customer_name}:{income}:{rho_bank_subscription}")
        record = {
            "application_id": application_id,
            "card_type": card_type,
            "customer_name": customer_name,
            "annual_income": income,
            "rho_bank_subscription": rho_bank_subscription,
            "status": "PENDING",
            "date": TODAY,
        }
        if not add(self.db, "credit_card_applications", application_id, record):
            return f"Failed to submit application: Record ID '{application_id}' may already exist."
        return (
            "Credit card application submitted:\nYour application has been successfully submitted. "
            "You will receive a decision within 5-7 business days via email."
        )

    def submit_referral(self, user_id: str, account_type: str) -> str:
        referral_id = deterministic_id(f"referral:{user_id}:{account_type}")
        record = {
            "referral_id": referral_id,
            "referrer_id": user_id,
            "referred_account_type": account_type,
            "referral_status": "NO_PROGRESS",
            "date": TODAY,
        }
        if not add(self.db, "referrals", referral_id, record):
            return f"Failed to submit referral: Record ID '{referral_id}' may already exist."
        return (
            f"Referral request submitted successfully!\n  - Referral ID: {referral_id}\n"
            f"  - Referrer ID: {user_id}\n  - Account Type: {account_type}\n  - Status: NO_PROGRESS\n"
            f"  - Date: {TODAY}\n\nShare your referral ID with the person you're referring. "
            "They will need to use this when applying for their account."
        )

    def call_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        info = discoverable("user").get(discoverable_tool_name)
        if info is None:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            given = json.loads(arguments, parse_int=float)  # every number a float, as officially
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        names = [name for name, _ in info["signature"]]
        for name, has_default in info["signature"]:
            if not has_default and name not in given:
                return f"Error: Missing required parameter: {name}"
        for name in given:
            if name not in names:
                return f"Error: Unexpected parameter: {name}"
        try:
            result: str = getattr(self, discoverable_tool_name)(**given)
        except TypeError as exc:
            return f"Error: Invalid arguments for tool '{discoverable_tool_name}': {exc}"
        return result

    def _not_given(self, tool_name: str) -> str | None:
        if "No records found" in query(self.db, "user_discoverable_tools", f'{{"tool_name": "{tool_name}"}}'):
            return (
                f"Error: Tool '{tool_name}' has not been given to you by the agent. "
                "The agent must first use `give_discoverable_user_tool` to give this tool to you."
            )
        return None

    def _log_call(self, tool_name: str, arguments: dict[str, Any]) -> None:
        record = {"tool_name": tool_name, "arguments": arguments, "called_at": TODAY, "status": "CALLED"}
        seed = f"user_discoverable_tool_call:{tool_name}:{json.dumps(arguments, sort_keys=True)}"
        add(self.db, "user_discoverable_tool_calls", deterministic_id(seed), record)

    def submit_cash_back_dispute_0589(self, user_id: str, transaction_id: str) -> str:
        name = "submit_cash_back_dispute_0589"
        error = self._not_given(name)
        if error:
            return error
        arguments = {"user_id": user_id, "transaction_id": transaction_id}
        self._log_call(name, arguments)
        dispute_id = f"dsp_{deterministic_id(f'dispute:{user_id}:{transaction_id}', 12)}"
        settings = self.db["task_config"]["data"].get("dispute_settings", {})
        record = {
            "dispute_id": dispute_id,
            "user_id": user_id,
            "transaction_id": transaction_id,
            "submitted_at": TODAY,
            "status": "SUBMITTED",
        }
        status = "Status: SUBMITTED - Your dispute has been queued for review."
        if settings.get("auto_resolve_disputes", False):
            record.update(status="RESOLVED", resolution="APPROVED")
            status = (
                "Status: RESOLVED - The dispute has been reviewed and approved. "
                "The transaction rewards need to be updated."
            )
        added = add(self.db, "cash_back_disputes", dispute_id, record)
        text = (
            "Cash back dispute submitted successfully. Your case has been queued for review.\n\n"
            f"Executed: {name}\nArguments: {json.dumps(arguments, indent=2)}\n"
        )
        if added:
            return text + f"Dispute ID: {dispute_id}\n{status}"
        return text + "Note: Dispute may have already been submitted for this transaction."

    def get_referral_link(self, user_id: str, card_name: str) -> str:
        name = "get_referral_link"
        error = self._not_given(name)
        if error:
            return error
        arguments = {"user_id": user_id, "card_name": card_name}
        self._log_call(name, arguments)
        referral_id = deterministic_id(f"referral_link:{user_id}:{card_name}")
        record = {
            "referral_id": referral_id,
            "referrer_id": user_id,
            "referred_account_type": card_name,
            "referral_status": "NO_PROGRESS",
            "date": TODAY,
        }
        added = add(self.db, "referrals", referral_id, record)
        text = (
            "Referral link generated successfully. Share this link with the person you want to refer.\n\n"
            f"Executed: {name}\nArguments: {json.dumps(arguments, indent=2)}\n"
        )
        if added:
            return text + f"Referral ID: {referral_id}\nReferral link: https://rhobank.com/refer/{referral_id}"
        return text + "Note: A referral link for this card may have already been generated."

    def get_card_last_4_digits(self, credit_card_account_id: str) -> str:
        name = "get_card_last_4_digits"
        error = self._not_given(name)
        if error:
            return error
        arguments = {"credit_card_account_id": credit_card_account_id}
        self._log_call(name, arguments)
        found = query(self.db, "credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}')
        if "No records found" in found:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        digits = [c for c in hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest() if c.isdigit()]
        last_4 = "".join(digits[:4]).ljust(4, "0")
        return (
            f"Card information retrieved successfully.\n\nExecuted: {name}\n"
            f"Arguments: {json.dumps(arguments, indent=2)}\nLast 4 digits of card: {last_4}"
        )

    def deposit_check_3847(self, account_id: str, check_amount: float) -> str:
        name = "deposit_check_3847"
        error = self._not_given(name)
        if error:
            return error
        arguments = {"account_id": account_id, "check_amount": check_amount}
        self._log_call(name, arguments)
        try:
            amount = float(check_amount)
        except (ValueError, TypeError):
            return f"Error: Invalid check amount '{check_amount}'. Must be a number."
        if amount <= 0:
            return "Error: Check amount must be positive."
        accounts = self.db["accounts"]["data"]
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts[account_id]
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        before = _balance(account.get("current_holdings", account.get("balance", 0)))
        after = before + amount
        account["current_holdings"] = f"${after:.2f}"
        return (
            "Check deposited successfully. Funds will be available according to your account's deposit policy.\n\n"
            f"Executed: {name}\nArguments: {json.dumps(arguments, indent=2)}\nCheck deposit processed!\n"
            f"  - Account: {account_id}\n  - Check Amount: ${amount:.2f}\n"
            f"  - Previous Balance: ${before:.2f}\n  - New Balance: ${after:.2f}"
        )

    def list_discoverable_user_tools(self) -> str:
        # (officially looking for "No results found", which the query never says: kept as is)
        return f"Tools given to you by the agent:\n{query(self.db, 'user_discoverable_tools')}"

    def request_human_agent_transfer(self) -> str:
        existing = query(self.db, "human_transfer_requests")
        count = 1 if "No records found" in existing else existing.count("request_id") + 1
        request_id = f"transfer_request_{count}"
        record = {"request_id": request_id, "request_number": count, "requested_at": TODAY, "status": "PENDING"}
        add(self.db, "human_transfer_requests", request_id, record)
        return f"Transfer request #{count} submitted.\nThe agent will process your request."

    def submit_transaction(
        self, user_id: str, credit_card_type: str, merchant_name: str, amount: float, category: str
    ) -> str:
        if credit_card_type not in CREDIT_CARD_REWARDS:
            return f"Error: Unknown credit card type '{credit_card_type}'. Available types: {list(CREDIT_CARD_REWARDS)}"
        seed = ":".join(["transaction", user_id, credit_card_type, merchant_name, f"{amount:.2f}", category])
        transaction_id = f"txn_{deterministic_id(seed, 12)}"
        rates = CREDIT_CARD_REWARDS[credit_card_type]
        rate = rates.get(category, rates["default"])
        points = int(amount * rate)
        record = {
            "transaction_id": transaction_id,
            "user_id": user_id,
            "credit_card_type": credit_card_type,
            "merchant_name": merchant_name,
            "transaction_amount": f"${amount:.2f}",
            "transaction_date": TODAY,
            "category": category,
            "status": "COMPLETED",
            "rewards_earned": f"{points} points",
        }
        if not add(self.db, "credit_card_transaction_history", transaction_id, record):
            return f"Failed to submit transaction: Record ID '{transaction_id}' may already exist."
        return (
            f"Transaction submitted successfully!\n  - Transaction ID: {transaction_id}\n  - User ID: {user_id}\n"
            f"  - Card Type: {credit_card_type}\n  - Merchant: {merchant_name}\n  - Amount: ${amount:.2f}\n"
            f"  - Category: {category}\n  - Date: {TODAY}\n"
            f"  - Rewards Earned: {points} points ({rate}% cashback rate)\n"
        )
