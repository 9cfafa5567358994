"""A domain's environment together with the user's phone when the domain has one (telecom's dual
control): ``new_environment`` is how the evaluator and the loop make every environment.

It is apart from ``environment.py`` because the phone's module (``telecom_device.py``) builds on
that one (its data folder and tool specs): the environment gets its phone handed in.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.benchmarks.tau2.environment import DUAL_CONTROL, Environment
from pytest_toolcall.benchmarks.tau2.telecom_device import PaymentRequest, UserDevice


class Phone(UserDevice):
    """The user's phone with what the environment's sync needs besides ``UserDevice``'s interface:
    making the payment request it puts on the phone when a bill awaits payment."""

    def request_payment(self, bill_id: str, amount_due: float) -> PaymentRequest:
        return PaymentRequest(bill_id=bill_id, amount_due=amount_due)


def new_environment(domain: str, task: dict[str, Any] | None = None, retrieval: str = "bm25") -> Environment:
    """A fresh environment of the domain (telecom's with a phone in its shipped state;
    banking_knowledge's with the task's read-log allowlist and the retrieval configuration's tool)."""
    if domain == "banking_knowledge":
        from pytest_toolcall.benchmarks.tau2.banking_env import BankingEnvironment

        return BankingEnvironment(task, retrieval)
    return Environment(domain, Phone() if domain in DUAL_CONTROL else None)
