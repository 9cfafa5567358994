"""τ³-bench's ``banking_knowledge`` database and the tools that are not discovered (in progress).

The database (the official ``TransactionalDB``) is 23 tables, each ``{"data": {id: record},
"notes": text}``, records plain JSON objects; its hash is the official one (the sorted JSON text of
every table). A task's ``initialization_data`` is merged into it as the official environment
merges it (nested objects merged key by key, anything else replaced).

Here so far: the queries the tools answer with (the official ``query_database_tool`` text), the
agent's base tools but the three that hand out and call discovered tools, and the user's tools but
``call_discoverable_user_tool``, with the official texts. ``tests/tau2/test_banking.py`` replays the
reference actions of the tasks that use only these against what the official code answered
(``tests/data/tau2/banking/gold.json.gz``). The 44 tools the agent discovers, the 4 the user is
given, and the domain's grading are still to come: the domain is not offered yet.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from typing import Any

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


class BankingTools:
    """The agent's tools that are not discovered (the official ``KnowledgeTools`` base tools)."""

    def __init__(self, db: dict[str, dict[str, Any]]) -> None:
        self.db = db

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


class BankingUserTools:
    """The customer's tools (the official ``KnowledgeUserTools``), on the same database."""

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
