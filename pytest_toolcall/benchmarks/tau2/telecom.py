"""The telecom agent's tools (tau2 1.0.1 ``domains/telecom/tools.py``), written anew, and the
functions of the agent's side that tasks run outside the dialogue: initialization actions
(``set_data_usage``, ``suspend_line_for_overdue_bill``, the roaming tools) and environment
assertions (``assert_*``), plus what the environment's sync with the user's phone reads.

Return values and error texts are the official ones (the agent reads them, a replay compares
them); so are method names and signatures (a wrong argument fails with the same ``TypeError``).
The clock is the official fixed day, 2025-02-25.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from pytest_toolcall.benchmarks.tau2.models import (
    Bill,
    BillStatus,
    Customer,
    Device,
    Line,
    LineItem,
    LineStatus,
    Plan,
    TelecomDB,
)

TODAY = datetime.date(2025, 2, 25)


def _find(rows: list[Any], field: str, value: Any, what: str) -> Any:
    """The first row whose ``field`` is ``value``; none raises ``<what> <value> not found``."""
    for row in rows:
        if getattr(row, field) == value:
            return row
    raise ValueError(f"{what} {value} not found")


def _first_of_next_month(day: datetime.date) -> datetime.date:
    return (day.replace(day=1) + datetime.timedelta(days=32)).replace(day=1)


class TelecomTools:
    def __init__(self, db: TelecomDB) -> None:
        self.db = db

    # --- lookups (each raises when the id is unknown) ---------------------------------------------

    def _get_line_by_phone(self, phone_number: str) -> Line:
        return _find(self.db.lines, "phone_number", phone_number, "Line with phone number")

    def _get_line_by_id(self, line_id: str) -> Line:
        return _find(self.db.lines, "line_id", line_id, "Line with ID")

    def _get_plan_by_id(self, plan_id: str) -> Plan:
        return _find(self.db.plans, "plan_id", plan_id, "Plan with ID")

    def _get_device_by_id(self, device_id: str) -> Device:
        return _find(self.db.devices, "device_id", device_id, "Device with ID")

    def _get_bill_by_id(self, bill_id: str) -> Bill:
        return _find(self.db.bills, "bill_id", bill_id, "Bill with ID")

    def _get_target_line(self, customer_id: str, line_id: str) -> Line:
        customer = self.get_customer_by_id(customer_id)
        if line_id not in customer.line_ids:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._get_line_by_id(line_id)

    def _get_bills_awaiting_payment(self, customer: Customer) -> list[Bill]:
        bills = (self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids)
        return [bill for bill in bills if bill.status == BillStatus.AWAITING_PAYMENT]

    def _set_bill_to_paid(self, bill_id: str) -> None:
        self._get_bill_by_id(bill_id).status = BillStatus.PAID

    def _apply_one_time_charge(self, customer_id: str, amount: float, description: str) -> None:
        """The charge goes on the customer's draft bill; without one, a new draft bill for next
        month is made, its id random as officially (so two runs that make one never hash alike)."""
        customer = self.get_customer_by_id(customer_id)
        draft = next(
            (bill for bill in map(self._get_bill_by_id, customer.bill_ids) if bill.status == BillStatus.DRAFT),
            None,
        )
        if draft is None:
            start = _first_of_next_month(TODAY)
            draft = Bill(
                bill_id=f"B{uuid.uuid4().hex[:8]}",
                customer_id=customer_id,
                period_start=start,
                period_end=_first_of_next_month(start) - datetime.timedelta(days=1),
                issue_date=start,
                total_due=0,
                due_date=start + datetime.timedelta(days=14),
                status=BillStatus.DRAFT,
            )
            self.db.bills.append(draft)
            customer.bill_ids.append(draft.bill_id)
        item_type = "Credit" if amount < 0 else "Charge"
        draft.line_items.append(LineItem(description=description, amount=amount, date=TODAY, item_type=item_type))
        draft.total_due += amount

    # --- tools -----------------------------------------------------------------------------------

    def get_customer_by_phone(self, phone_number: str) -> Customer:
        for customer in self.db.customers:
            if customer.phone_number == phone_number:
                return customer
            if any(self._get_line_by_id(line_id).phone_number == phone_number for line_id in customer.line_ids):
                return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    def get_customer_by_id(self, customer_id: str) -> Customer:
        return _find(self.db.customers, "customer_id", customer_id, "Customer with ID")

    def get_customer_by_name(self, full_name: str, dob: str) -> list[Customer]:
        return [c for c in self.db.customers if c.full_name.lower() == full_name.lower() and c.date_of_birth == dob]

    def get_details_by_id(self, id: str) -> Any:
        lookups = {
            "L": self._get_line_by_id,
            "D": self._get_device_by_id,
            "B": self._get_bill_by_id,
            "C": self.get_customer_by_id,
            "P": self._get_plan_by_id,
        }
        for prefix, lookup in lookups.items():
            if id.startswith(prefix):
                return lookup(id)
        raise ValueError(f"Unknown ID format or type: {id}")

    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend")
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = TODAY
        return {"message": "Line suspended successfully. $5/month holding fee will apply.", "line": line}

    def resume_line(self, customer_id: str, line_id: str) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        if line.status not in (LineStatus.SUSPENDED, LineStatus.PENDING_ACTIVATION):
            raise ValueError("Line must be suspended to resume")
        line.status = LineStatus.ACTIVE
        line.suspension_start_date = None
        return {"message": "Line resumed successfully", "line": line}

    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> list[Bill]:
        customer = self.get_customer_by_id(customer_id)
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        return sorted(bills, key=lambda bill: bill.issue_date, reverse=True)[:limit]

    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        customer = self.get_customer_by_id(customer_id)
        if self._get_bills_awaiting_payment(customer):
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer.bill_ids:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._get_bill_by_id(bill_id)
        bill.status = BillStatus.AWAITING_PAYMENT
        return f"Payment request sent to the customer for bill {bill.bill_id}"

    def get_data_usage(self, customer_id: str, line_id: str) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        plan = self._get_plan_by_id(line.plan_id)
        return {
            "line_id": line_id,
            "data_used_gb": line.data_used_gb,
            "data_limit_gb": plan.data_limit_gb,
            "data_refueling_gb": line.data_refueling_gb,
            "cycle_end_date": _first_of_next_month(TODAY) - datetime.timedelta(days=1),
        }

    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        line = self._get_target_line(customer_id, line_id)
        if line.roaming_enabled:
            return "Roaming was already enabled"
        line.roaming_enabled = True
        return "Roaming enabled successfully"

    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        line = self._get_target_line(customer_id, line_id)
        if not line.roaming_enabled:
            return "Roaming was already disabled"
        line.roaming_enabled = False
        return "Roaming disabled successfully"

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> dict[str, Any]:
        line = self._get_target_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._get_plan_by_id(line.plan_id)
        charge = gb_amount * plan.data_refueling_price_per_gb
        line.data_refueling_gb += gb_amount
        self._apply_one_time_charge(
            customer_id, charge, f"Data refueling: {gb_amount} GB at ${plan.data_refueling_price_per_gb}/GB"
        )
        return {
            "message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
            "new_data_refueling_gb": line.data_refueling_gb,
            "charge": charge,
        }

    # --- initialization functions (not tools) -----------------------------------------------------

    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        line = self._get_target_line(customer_id, line_id)
        line.data_used_gb = data_used_gb  # assigned unvalidated, as officially
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(
        self, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
    ) -> str:
        """An overdue bill of last month's plan price, and the line suspended for it."""
        line = self._get_line_by_id(line_id)
        if line.status != LineStatus.ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self._get_plan_by_id(line.plan_id).price_per_month
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self.get_customer_by_id(customer_id)
        bills = [self._get_bill_by_id(bill_id) for bill_id in customer.bill_ids]
        if any(bill.status == BillStatus.OVERDUE for bill in bills):
            raise ValueError("Customer already has an overdue bill")
        last_month_end = TODAY.replace(day=1) - datetime.timedelta(days=1)
        last_month_start = last_month_end.replace(day=1)
        bill = Bill(
            bill_id=new_bill_id,
            customer_id=customer_id,
            period_start=last_month_start,
            period_end=last_month_end,
            issue_date=last_month_start,
            total_due=0,
            due_date=last_month_start + datetime.timedelta(days=14),
            status=BillStatus.OVERDUE,
        )
        item_type = "Charge" if amount > 0 else "Credit"
        bill.line_items.append(
            LineItem(description=f"Charge for line {line.line_id}", amount=amount, date=TODAY, item_type=item_type)
        )
        bill.total_due += amount
        self.db.bills.append(bill)
        customer.bill_ids.append(new_bill_id)
        line.status = LineStatus.SUSPENDED
        line.suspension_start_date = TODAY
        if contract_ended:
            line.contract_end_date = last_month_end
        return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"

    # --- assertions ------------------------------------------------------------------------------

    def assert_data_refueling_amount(self, customer_id: str, line_id: str, expected_amount: float) -> bool:
        return abs(self._get_target_line(customer_id, line_id).data_refueling_gb - expected_amount) < 1e-6

    def assert_line_status(self, customer_id: str, line_id: str, expected_status: LineStatus) -> bool:
        return self._get_target_line(customer_id, line_id).status == expected_status

    def assert_overdue_bill_exists(self, customer_id: str, overdue_bill_id: str) -> bool:
        customer = self.get_customer_by_id(customer_id)
        if overdue_bill_id not in customer.bill_ids:
            raise ValueError(f"Overdue bill {overdue_bill_id} not found")
        if self._get_bill_by_id(overdue_bill_id).status != BillStatus.OVERDUE:
            raise ValueError(f"Overdue bill {overdue_bill_id} is not overdue")
        return True

    def assert_no_overdue_bill(self, overdue_bill_id: str) -> bool:
        """True when the bill is gone or paid."""
        try:
            return self._get_bill_by_id(overdue_bill_id).status == BillStatus.PAID
        except ValueError:
            return True
