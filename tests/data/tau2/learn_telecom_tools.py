"""How ``telecom/agent_tools.json`` was learned: the official telecom agent tools (tau2 1.0.1,
a2c0247) run on sequences of calls (each sequence on a fresh environment, before the user's phone
knows its number, so nothing syncs), recording every answer as the official environment sends it
and the hash of the agent's database after the sequence. Run outside the test suite, with the
official code installed (see ``learn_official.py``):

    TAU2_DATA_DIR=... python learn_telecom_tools.py OUT.json

A step is a tool call (``get_response``: the answer text and the error flag) or a function of
the agent's side that tasks call outside the dialogue (its return value, or the error text).
"""

import json
import sys

from tau2.data_model.message import ToolCall
from tau2.environment.environment import Environment
from tau2.registry import registry


def tool(name, **arguments):
    return {"tool": name, "arguments": arguments}


def function(name, **arguments):
    return {"function": name, "arguments": arguments}


SEQUENCES = {
    "lookups": [
        tool("get_customer_by_phone", phone_number="555-123-2002"),
        tool("get_customer_by_phone", phone_number="555-123-2005"),
        tool("get_customer_by_phone", phone_number="555-000-0000"),
        tool("get_customer_by_id", customer_id="C1003"),
        tool("get_customer_by_id", customer_id="C9999"),
        tool("get_customer_by_name", full_name="john smith", dob="1985-06-15"),
        tool("get_customer_by_name", full_name="John Smith", dob="1985-06-16"),
        tool("get_details_by_id", id="L1003"),
        tool("get_details_by_id", id="D1002"),
        tool("get_details_by_id", id="B1002"),
        tool("get_details_by_id", id="C1004"),
        tool("get_details_by_id", id="P1003"),
        tool("get_details_by_id", id="L9999"),
        tool("get_details_by_id", id="X1"),
        tool("get_bills_for_customer", customer_id="C1001"),
        tool("get_bills_for_customer", customer_id="C1001", limit=1),
        tool("get_bills_for_customer", customer_id="C1004"),
        tool("get_data_usage", customer_id="C1001", line_id="L1002"),
        tool("get_data_usage", customer_id="C1001", line_id="L1004"),
        tool("transfer_to_human_agents", summary="The user wants a human."),
        tool("get_customer_by_id", id="C1001"),
        tool("get_customer_by_id"),
        tool("no_such_tool", x=1),
    ],
    "line_writes": [
        tool("suspend_line", customer_id="C1001", line_id="L1001", reason="travel"),
        tool("suspend_line", customer_id="C1001", line_id="L1001", reason="again"),
        tool("suspend_line", customer_id="C1002", line_id="L1001", reason="not theirs"),
        tool("resume_line", customer_id="C1001", line_id="L1003"),
        tool("resume_line", customer_id="C1001", line_id="L1002"),
        tool("enable_roaming", customer_id="C1001", line_id="L1001"),
        tool("enable_roaming", customer_id="C1001", line_id="L1001"),
        tool("disable_roaming", customer_id="C1001", line_id="L1002"),
        tool("disable_roaming", customer_id="C1001", line_id="L1002"),
        function("assert_line_status", customer_id="C1001", line_id="L1001", expected_status="Suspended"),
        function("assert_line_status", customer_id="C1001", line_id="L1003", expected_status="Suspended"),
    ],
    "payments": [
        tool("send_payment_request", customer_id="C1001", bill_id="B1004"),
        tool("send_payment_request", customer_id="C1001", bill_id="B1002"),
        tool("send_payment_request", customer_id="C1001", bill_id="B1001"),
        tool("get_bills_for_customer", customer_id="C1001", limit=2),
        function("set_data_usage", customer_id="C1001", line_id="L1002", data_used_gb=9),
    ],
    "refuel_on_a_draft_bill": [
        tool("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=2),
        tool("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=1.5),
        tool("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=0),
        tool("refuel_data", customer_id="C1001", line_id="L1002", gb_amount=-1),
        tool("get_data_usage", customer_id="C1001", line_id="L1002"),
        tool("get_details_by_id", id="B1003"),
        function("assert_data_refueling_amount", customer_id="C1001", line_id="L1002", expected_amount=3.5),
        function("assert_data_refueling_amount", customer_id="C1001", line_id="L1002", expected_amount=3),
    ],
    "set_up_functions": [
        function("set_data_usage", customer_id="C1002", line_id="L1005", data_used_gb=20),
        function("set_data_usage", customer_id="C1002", line_id="L1005", data_used_gb=16.25),
        function("set_data_usage", customer_id="C1002", line_id="L1001", data_used_gb=1),
        function(
            "suspend_line_for_overdue_bill",
            customer_id="C1001",
            line_id="L1001",
            new_bill_id="B9001",
            contract_ended=True,
        ),
        function(
            "suspend_line_for_overdue_bill",
            customer_id="C1001",
            line_id="L1002",
            new_bill_id="B9002",
            contract_ended=False,
        ),
        function(
            "suspend_line_for_overdue_bill",
            customer_id="C1003",
            line_id="L1009",
            new_bill_id="B9003",
            contract_ended=False,
        ),
        function(
            "suspend_line_for_overdue_bill",
            customer_id="C1002",
            line_id="L1006",
            new_bill_id="B9004",
            contract_ended=False,
        ),
        function("assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B9001"),
        function("assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B1002"),
        function("assert_overdue_bill_exists", customer_id="C1001", overdue_bill_id="B1004"),
        function("assert_no_overdue_bill", overdue_bill_id="B9001"),
        function("assert_no_overdue_bill", overdue_bill_id="B1004"),
        function("assert_no_overdue_bill", overdue_bill_id="B0000"),
        tool("get_details_by_id", id="L1001"),
        tool("get_details_by_id", id="B9001"),
        tool("get_bills_for_customer", customer_id="C1001"),
        tool("send_payment_request", customer_id="C1001", bill_id="B9001"),
        tool("resume_line", customer_id="C1001", line_id="L1001"),
        tool("get_data_usage", customer_id="C1002", line_id="L1005"),
    ],
    # A customer without a draft bill: the official tool makes one with a random id, so the hash
    # of the database after it is not reproducible (recorded as null).
    "refuel_on_a_new_bill": [
        tool("refuel_data", customer_id="C1002", line_id="L1005", gb_amount=3),
        tool("refuel_data", customer_id="C1002", line_id="L1005", gb_amount=0.5),
        tool("get_data_usage", customer_id="C1002", line_id="L1005"),
        tool("refuel_data", customer_id="C1003", line_id="L1009", gb_amount="2"),
    ],
}


def run(steps):
    env = registry.get_env_constructor("telecom")()
    answers = []
    for index, step in enumerate(steps):
        if "tool" in step:
            call = ToolCall(id=f"c{index}", name=step["tool"], arguments=step["arguments"], requestor="assistant")
            message = env.get_response(call)
            answers.append({"content": message.content, "error": message.error})
            continue
        try:
            value = getattr(env.tools, step["function"])(**step["arguments"])
            answers.append({"value": Environment.to_json_str(value)})
        except Exception as exc:
            answers.append({"error_text": f"{type(exc).__name__}: {exc}"})
    return answers, env.get_db_hash()


def main():
    out = {}
    for name, steps in SEQUENCES.items():
        answers, digest = run(steps)
        out[name] = {"steps": steps, "answers": answers, "db_hash": None if "new_bill" in name else digest}
    with open(sys.argv[1], "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
