"""The serving-contract probes (``--toolcall-bench=conformance``): case files shipped in
``conformance_probes/``, one per contract (``tool_choice``, ``parallel_tool_calls``,
``strict_schemas``, ``multi_turn``, ``reasoning``, ``usage``), asked and scored by the rules of the case
format; their metrics block gives the pass rate of each contract.

Items are ``toolcall::conformance[<contract>/<case id>]``, marked ``conformance`` and with the
contract's name. The probes of the ``usage`` contract also require the answer's ``usage`` (positive
prompt and completion tokens), which the case format cannot state; the oracle sends no usage, so it
is not asked of it. Run with ``--toolcall-stream both`` this is a deployment's verification in one
command: every probe is asked plain and streamed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.api import Loaded, Metrics, Part, Rows, Unit, Verdict
from pytest_toolcall.benchmarks.cases.benchmark import Cases

PROBES = Path(__file__).with_name("conformance_probes")
CONTRACTS = ("tool_choice", "parallel_tool_calls", "strict_schemas", "multi_turn", "reasoning", "usage")
USAGE_MISSING = "usage_missing"


def conformance_block(benchmark: Any, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The block: per contract the probes scored, passed, the pass rate with its interval and the
    probes that failed; OVERALL over every probe scored. Probes that got no answer (errors) or were
    skipped are counted apart, in no rate."""
    from pytest_toolcall.api import failure_kind_counts
    from pytest_toolcall.api.statistics import category_fields

    scored: list[Mapping[str, Any]] = [r for r in records if r.get("outcome") not in ("error", "skipped")]
    contracts: dict[str, dict[str, Any]] = {}
    for contract in sorted({str(r.get("category")) for r in records}):
        rows = [r for r in scored if r.get("category") == contract]
        passed = sum(1 for r in rows if r.get("score") == 1.0)
        contracts[contract] = {
            "n": len(rows),
            "passed": passed,
            "accuracy": passed / len(rows) if rows else None,
            "ci95": category_fields(rows)["ci95"] if rows else None,
            "failed": sorted(str(r.get("id")) for r in rows if r.get("score") != 1.0),
        }
    passed = sum(1 for r in scored if r.get("score") == 1.0)
    return {
        "contracts": contracts,
        "n": len(scored),
        "passed": passed,
        "overall": passed / len(scored) if scored else None,
        "overall_ci95": category_fields(scored)["ci95"] if scored else None,
        "errors": sum(1 for r in records if r.get("outcome") == "error"),
        "skipped": sum(1 for r in records if r.get("outcome") == "skipped"),
        "failure_kinds": failure_kind_counts([dict(r) for r in scored if r.get("score") != 1.0]),
    }


class Conformance(Cases):
    name = "conformance"
    #: A row per contract (``conformance.<contract>``) and OVERALL, every probe alike.
    metrics = Metrics(rows=(Rows(key="contracts", names=CONTRACTS),), block=conformance_block)
    markers: ClassVar[Mapping[str, str]] = {
        "conformance": "serving-contract probes",
        **{c: f"conformance probes of {c}" for c in CONTRACTS},
    }
    file_suffixes = ()  # its own files only, never the users'
    fixtures = None
    counted_fixtures = ()

    def header(self) -> str:
        return f"conformance={len(CONTRACTS)} contracts"

    def load(self) -> Loaded:
        from pytest_toolcall.benchmarks.cases.format import CaseFileError, case_file_stem
        from pytest_toolcall.benchmarks.cases.loading import load_case_file

        units, problems = [], []
        for path in sorted(PROBES.glob("*.toolcall.yaml")):
            try:
                cases = load_case_file(path)
            except CaseFileError as exc:  # shipped files: only a broken installation gets here
                problems.append((path.name, f"{path}:{exc.line}: {exc.message}"))
                continue
            contract = case_file_stem(path)
            for case in cases:
                units.append(
                    Unit(
                        benchmark=self.name,
                        key=f"{contract}/{case.id}",
                        category=contract,
                        id=case.id,
                        markers=(contract, *case.tags),
                        fields={"contract": contract, "file": f"{PROBES.name}/{path.name}", "line": case.line},
                        sample=case,
                        source=f"{path}:{case.line}",
                    )
                )
        return Loaded(units=units, problems=problems)

    def datasets(self) -> dict[str, Any]:
        return {"contracts": list(CONTRACTS)}

    def load_file(self, path: Path, name: str) -> Loaded:
        raise NotImplementedError("the conformance probes are the benchmark's own files")

    def score(self, unit: Unit, answer: Any) -> Verdict:
        verdict = super().score(unit, answer)
        # The case's identity fields are the cases benchmark's: the unit's own stand.
        verdict.fields = {k: v for k, v in verdict.fields.items() if k not in ("benchmark", "category", "file", "tags")}
        (response,) = answer
        if verdict.passed and unit.category == "usage" and not self.settings.is_oracle:
            usage = response.usage or {}
            if not (usage.get("prompt_tokens", 0) > 0 and usage.get("completion_tokens", 0) > 0):
                message = f"{USAGE_MISSING}: the answer carries no positive prompt and completion token counts: {usage}"
                return Verdict(False, message, {**verdict.fields, "failure_kind": USAGE_MISSING}, brief=message)
        return verdict

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        from pytest_toolcall.api import Table

        def rate(row: dict[str, Any], key: str = "accuracy", ci: str = "ci95") -> list[Any]:
            value, interval = row.get(key), row.get(ci)
            shown = "-" if value is None else f"{value:.3f}"
            return [shown, "" if not interval else f"[{interval[0]:.3f}, {interval[1]:.3f}]"]

        rows = [
            [contract, row["n"], row["passed"], *rate(row), ", ".join(row["failed"])[:60]]
            for contract, row in block["contracts"].items()
        ]
        rows.append(["OVERALL", block["n"], block["passed"], *rate(block, "overall", "overall_ci95"), ""])
        headers = ["contract", "n", "passed", "pass rate", "95% CI", "failed"]
        lines: list[Part] = [Table(headers, rows)]
        if block.get("errors"):
            lines.append(f"{block['errors']} probe(s) got no answer (errors, not counted)")
        return lines
