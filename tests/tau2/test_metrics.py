"""The tau2 block against numbers worked out by hand, and its gate names."""

from __future__ import annotations

import math

import pytest

from pytest_toolcall.benchmarks.tau2.benchmark import Tau2
from pytest_toolcall.benchmarks.tau2.metrics import tau2_metrics
from pytest_toolcall.core.protocol.blocks import check_blocks
from pytest_toolcall.core.protocol.tables import render


def record(domain: str, task: str, reward: float | None, **extra: object) -> dict[str, object]:
    breakdown = {} if reward is None else {"DB": reward}
    return {
        "domain": domain,
        "task_id": task,
        "reward": reward,
        "reward_breakdown": breakdown,
        "outcome": "passed",
        **extra,
    }


def test_pass_hat_k_by_hand() -> None:
    records = [
        *(record("airline", "0", r) for r in (1.0, 1.0, 1.0)),  # 3 of 3
        *(record("airline", "1", r) for r in (1.0, 0.0, 1.0)),  # 2 of 3
        *(record("airline", "2", r) for r in (0.0, 0.0, 1.0)),  # 1 of 3
        record("airline", "2", None, outcome="error"),  # an infrastructure error: in no denominator
        record("airline", "3", 1.0, termination_reason="infrastructure_error"),
    ]
    row = tau2_metrics(records)["categories"]["airline"]
    assert row["tasks"] == 3 and row["simulations"] == 9 and row["infra_errors"] == 2
    assert row["accuracy"] == pytest.approx((3 + 2 + 1) / 9)
    assert row["pass_hat_k"]["2"] == pytest.approx((1 + 1 / 3 + 0) / 3)  # C(2,2)/C(3,2) = 1/3
    assert row["pass_hat_k"]["3"] == pytest.approx(1 / 3)
    low, high = row["ci95"]
    assert low < 6 / 9 < high
    assert row["components"]["DB"] == {"n": 9, "passed": 6, "rate": 6 / 9}


def test_not_measured_rewards_are_apart() -> None:
    # As the runner records them: skipped, with the reason and the judge-free components.
    unmeasured = record(
        "retail", "0", None, outcome="skipped", not_measured="why", reward_breakdown={"DB": 1.0, "NL_ASSERTION": None}
    )
    skipped = record("retail", "2", None, outcome="skipped")  # not scored at all
    block = tau2_metrics([unmeasured, skipped, record("retail", "1", 1.0), record("airline", "0", 0.0)])
    retail = block["categories"]["retail"]
    assert retail["not_measured"] == 1 and retail["accuracy"] == 1.0 and retail["tasks"] == 1
    assert retail["skipped"] == 1
    assert retail["components"] == {"DB": {"n": 2, "passed": 2, "rate": 1.0}}  # the unmeasured one's DB too
    assert block["overall"] == pytest.approx(0.5)  # the mean of airline 0.0 and retail 1.0
    lines = render(Tau2.summary_parts(None, "tau2", block))  # type: ignore[arg-type]
    assert any("1 reward(s) not measured" in line for line in lines)


def test_rewards_within_a_millionth_succeed() -> None:
    row = tau2_metrics([record("airline", "0", 1 - 1e-7), record("airline", "1", 0.999)])["categories"]["airline"]
    assert row["accuracy"] == 0.5


def test_gate_names() -> None:
    block = {"tau2": tau2_metrics([record("airline", "0", 1.0), record("airline", "0", 0.0)])}
    assert Tau2.claims_metric("tau2.airline") and Tau2.claims_metric("tau2.overall")
    assert Tau2.claims_metric("tau2.retail.pass_hat_2") and not Tau2.claims_metric("acebench.overall")
    assert Tau2.gate_values("tau2.airline", block) == [("tau2.airline", 0.5)]
    assert Tau2.gate_values("tau2.airline.pass_hat_2", block) == [("tau2.airline.pass_hat_2", 0.0)]
    assert Tau2.gate_values("tau2.retail", block) == [("tau2.retail", None)]
    check_blocks("tau2", block)
    assert math.isclose(Tau2.gate_values("tau2.overall", block)[0][1] or 0, 0.5)
    with pytest.raises(ValueError, match="unknown metric"):
        Tau2.claims_metric("tau2.airline.accuracy")
