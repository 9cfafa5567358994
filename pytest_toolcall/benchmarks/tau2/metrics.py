"""The ``tau2`` metrics, declared (``METRICS``), its block and its terminal table.

As the official ``compute_metrics``: a simulation succeeds when its reward is 1 (within 1e-6);
per domain, a task with c successes in n trials contributes C(c, k)/C(n, k) to pass^k, k = 1 … the
smallest trial count, and pass^k is the mean over tasks. Infrastructure errors (an item whose
requests failed, a re-graded simulation that ended ``infrastructure_error``) are counted apart and in
no denominator; so are rewards not measured (an NL assertion with no judge), said in the summary.

``tau2.overall`` is the mean of the domains' pass^1 (the leaderboard reports domains side by side;
their mean is what a single gate can hold).
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.api import PASS_HAT_K, Metrics, Part, Rows, Table, interval
from pytest_toolcall.api.statistics import accuracy_interval, as_list, pass_hat_k
from pytest_toolcall.benchmarks.tau2.names import ALL_DOMAINS, COMPONENTS, INFRASTRUCTURE_ERROR

BLOCK = "tau2"
DOMAIN_ORDER = ALL_DOMAINS


#: τ²'s metrics, declared: a row per domain (pass^1 with its interval, the pass^k curve), OVERALL the
#: mean of the domains' pass^1, and each domain's pass^k as a gate name. The block is τ²'s own shape
#: (``tau2_metrics``: tasks, simulations, infrastructure errors and reward components per domain).
METRICS = Metrics(
    rows=(Rows(names=ALL_DOMAINS),),
    overall_of_rows=True,
    reducer=PASS_HAT_K,
    numbers=tuple(f"{domain}.pass_hat_<k>" for domain in ALL_DOMAINS),
    block=lambda benchmark, records: tau2_metrics(records),
)


def success(reward: float) -> bool:
    return 1 - 1e-6 <= reward <= 1 + 1e-6


def tau2_metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    domains: dict[str, dict[str, Any]] = {}
    for record in records:
        domain = record.get("domain")
        if domain is None:
            continue
        row = domains.setdefault(
            domain,
            {"tasks": {}, "infra_errors": 0, "not_measured": 0, "skipped": 0, "components": {}},
        )
        outcome = record.get("outcome")
        if outcome == "error" or record.get("termination_reason") == INFRASTRUCTURE_ERROR:
            row["infra_errors"] += 1
            continue
        if outcome == "skipped" and not record.get("not_measured"):  # (not scored: no reward at all)
            row["skipped"] += 1
            continue
        if record.get("retrieval"):  # banking_knowledge's configuration: its scores compare only within one
            row["retrieval"] = record["retrieval"]
        breakdown = record.get("reward_breakdown") or {}
        for component, value in breakdown.items():
            if value is not None:
                counts = row["components"].setdefault(component, [0, 0])
                counts[0] += 1
                counts[1] += int(success(value))
        reward = record.get("reward")
        if reward is None:
            row["not_measured"] += 1
            continue
        row["tasks"].setdefault(str(record.get("task_id")), []).append(1.0 if success(reward) else 0.0)
    block: dict[str, Any] = {"categories": {}}
    for domain in sorted(domains, key=lambda d: (DOMAIN_ORDER.index(d) if d in DOMAIN_ORDER else 9, d)):
        row = block["categories"][domain] = _domain(domains[domain])
        # pass^k as top-level numbers too, so that the gate names ``tau2.<domain>.pass_hat_<k>`` are
        # the default gate's (``tau2.<domain>`` is the category's accuracy: pass^1).
        for k, value in row["pass_hat_k"].items():
            block[f"{domain}.pass_hat_{k}"] = value
    values = [row["accuracy"] for row in block["categories"].values() if row["accuracy"] is not None]
    block["overall"] = sum(values) / len(values) if values else None
    return block


def _domain(row: dict[str, Any]) -> dict[str, Any]:
    tasks: dict[str, list[float]] = row["tasks"]
    curve = pass_hat_k((int(sum(scores)), len(scores)) for scores in tasks.values())
    extra = {"retrieval": row["retrieval"]} if "retrieval" in row else {}
    return {
        **extra,
        "tasks": len(tasks),
        "simulations": sum(len(scores) for scores in tasks.values()),
        "accuracy": curve.get(1),  # pass^1
        "ci95": as_list(accuracy_interval(tasks)) if tasks else None,
        "pass_hat_k": {str(k): value for k, value in curve.items()},
        "infra_errors": row["infra_errors"],
        "not_measured": row["not_measured"],
        "skipped": row["skipped"],
        "components": {
            name: {"n": n, "passed": passed, "rate": passed / n}
            for name in COMPONENTS
            if name in row["components"]
            for n, passed in [row["components"][name]]
        },
    }


def summary_parts(block: dict[str, Any]) -> list[Part]:
    rows = []
    notes = []
    for domain, row in block["categories"].items():
        curve = row["pass_hat_k"]
        rows.append(
            [
                f"{domain} ({row['retrieval']})" if row.get("retrieval") else domain,
                row["tasks"],
                row["simulations"],
                _number(row["accuracy"]),
                interval(row["ci95"]),
                " / ".join(f"{curve[k]:.3f}" for k in sorted(curve, key=int)[1:]) or "-",
                " ".join(f"{c}={v['rate']:.2f}" for c, v in row["components"].items()) or "-",
                row["infra_errors"],
            ]
        )
        if row["not_measured"]:
            notes.append(
                f"{domain}: {row['not_measured']} reward(s) not measured (NL assertions need "
                "--toolcall-judge-model); pass^k is over the measured ones"
            )
        if row["skipped"]:
            notes.append(f"{domain}: {row['skipped']} simulation(s) skipped")
    headers = ["domain", "tasks", "sims", "pass^1", "95% CI", "pass^2..k", "components", "infra errors"]
    overall = f"tau2 overall (mean of domains' pass^1): {_number(block.get('overall'))}"
    return [overall, Table(headers, rows, disable_numparse=False), *notes]


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
