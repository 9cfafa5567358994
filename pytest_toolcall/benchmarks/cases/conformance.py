"""The serving-contract probes (``--toolcall-bench=conformance``): case files shipped in
``conformance_probes/``, one per contract, asked and scored by the rules of the case format; their
metrics block gives the pass rate of each contract. The contracts: the tool-calling API's own
(``tool_choice``, ``parallel_tool_calls``, ``strict_schemas``, ``multi_turn``, ``reasoning``,
``usage``), Kimi Vendor Verifier's checks (``immutable_parameters``, ``tool_call_schemas``: the walle
schemas, ``response_format``, ``dynamic_tools``, ``prompt_tokens``) and MiniMax's provider verifier's
(``language_following``, ``repetition``, ``key_order``; its reasoning-only check is ``reasoning``).

Items are ``toolcall::conformance[<contract>/<case id>]``, marked ``conformance`` and with the
contract's name. The probes of the ``usage`` contract also require the answer's ``usage`` (positive
prompt and completion tokens), which the case format cannot state; the oracle sends no usage, so it
is not asked of it.

``--toolcall-conformance-paths`` asks every probe through several serving paths in one run: each API
(``chat``, ``responses``, ``messages``) plain and streamed (``all``: every API). Items are then
``<contract>/<case id>@<api>/<mode>``, a streamed answer that broke a stream rule fails as
``stream_protocol``, and the block's ``paths`` table has each contract's pass rate per API and mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pytest_toolcall.api import (
    STREAM_PROTOCOL,
    Dialogue,
    Loaded,
    Metrics,
    Models,
    Part,
    Plan,
    Requests,
    Rows,
    Unit,
    Verdict,
    usage_error,
)
from pytest_toolcall.benchmarks.cases.benchmark import Cases
from pytest_toolcall.benchmarks.cases.conformance_options import OPTIONS

PROBES = Path(__file__).with_name("conformance_probes")
CONTRACTS = (
    "tool_choice",
    "parallel_tool_calls",
    "strict_schemas",
    "multi_turn",
    "reasoning",
    "usage",
    "immutable_parameters",
    "tool_call_schemas",
    "response_format",
    "dynamic_tools",
    "prompt_tokens",
    "language_following",
    "repetition",
    "key_order",
)
USAGE_MISSING = "usage_missing"
APIS = ("chat", "responses", "messages")
MODES = ("plain", "streamed")


class Conformance(Cases):
    name = "conformance"
    #: A row per contract (``conformance.<contract>``, with the probes that failed) and OVERALL, every
    #: probe alike; probes that got no answer (errors) or were skipped are counted apart, in no rate.
    #: A run asking several serving paths adds the contract x path table (``paths``).
    metrics = Metrics(
        rows=(Rows(key="contracts", names=CONTRACTS, failed_ids=True),), apart=True, fields=lambda _, r: _paths_table(r)
    )
    markers: ClassVar[Mapping[str, str]] = {
        "conformance": "serving-contract probes",
        **{c: f"conformance probes of {c}" for c in CONTRACTS},
    }
    file_suffixes = ()  # its own files only, never the users'
    fixtures = None
    counted_fixtures = ()
    options = OPTIONS

    def __init__(self, settings: Any) -> None:
        super().__init__(settings)
        #: (api, mode) of every path asked; empty: the run's own (--toolcall-api, --toolcall-stream).
        self.paths = _paths(settings.option("paths"))
        if self.paths and (settings.option("stream") or "off") != "off":
            raise usage_error(
                "conformance-paths", "asks each path plain and streamed itself: leave --toolcall-stream off"
            )
        if any(api == "messages" for api, _ in self.paths) and not settings.is_oracle:
            import importlib.util

            if importlib.util.find_spec("anthropic") is None:
                raise usage_error(
                    "conformance-paths", "messages needs the anthropic SDK: pip install 'pytest-toolcall[anthropic]'"
                )

    def header(self) -> str:
        paths = f" x {len(self.paths)} paths" if self.paths else ""
        return f"conformance={len(CONTRACTS)} contracts{paths}"

    def load(self) -> Loaded:
        from pytest_toolcall.benchmarks.cases.format import CaseFileError, case_file_stem
        from pytest_toolcall.benchmarks.cases.loading import load_case_file

        units, problems = [], []
        files = sorted([*PROBES.glob("*.toolcall.yaml"), *PROBES.glob("*.toolcall.jsonl")])
        for path in files:
            try:
                cases = load_case_file(path)
            except CaseFileError as exc:  # shipped files: only a broken installation gets here
                problems.append((path.name, f"{path}:{exc.line}: {exc.message}"))
                continue
            contract = case_file_stem(path)
            for case in cases:
                fields = {"contract": contract, "file": f"{PROBES.name}/{path.name}", "line": case.line}
                paths: list[tuple[str | None, str | None]] = [*self.paths] or [(None, None)]
                for api, mode in paths:
                    at = f"@{api}/{mode}" if api else ""
                    units.append(
                        Unit(
                            benchmark=self.name,
                            key=f"{contract}/{case.id}{at}",
                            category=contract,
                            id=f"{case.id}{at}",
                            markers=(contract, *case.tags, *((api, mode) if api else ())),
                            fields={**fields, **({"api": api, "mode": mode} if api else {})},
                            sample=case,
                            source=f"{path}:{case.line}",
                        )
                    )
        return Loaded(units=units, problems=problems)

    def plan(self, unit: Unit, models: Models) -> Plan:
        """A probe's request, through its path's model when the run asks several paths."""
        plan = super().plan(unit, models)
        api, mode = unit.fields.get("api"), unit.fields.get("mode")
        if api is None or not isinstance(plan, Requests):
            return plan
        model = models.through(str(api), mode == "streamed")
        requests = plan.requests
        return Dialogue(lambda: [future.result() for future in [model.submit(r) for r in requests]], len(requests))

    def datasets(self) -> dict[str, Any]:
        return {"contracts": list(CONTRACTS)}

    def load_file(self, path: Path, name: str) -> Loaded:
        raise NotImplementedError("the conformance probes are the benchmark's own files")

    def score(self, unit: Unit, answer: Any) -> Verdict:
        verdict = super().score(unit, answer)
        # The case's identity fields are the cases benchmark's: the unit's own stand.
        verdict.fields = {k: v for k, v in verdict.fields.items() if k not in ("benchmark", "category", "file", "tags")}
        if "id" in verdict.fields:
            verdict.fields["id"] = unit.id  # (with its path, when the run asks several)
        (response,) = answer
        problems = list(response.stream_problems) if unit.fields.get("mode") == "streamed" else []
        if problems:  # (under the run's own --toolcall-stream, the runner judges its streams)
            brief = f"{STREAM_PROTOCOL}: {problems[0]}"
            message = "\n  ".join([brief, *problems[1:]])
            fields = {**verdict.fields, "failure_kind": STREAM_PROTOCOL, "stream_problems": problems}
            return Verdict(False, message, fields, brief=brief)
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
        if block.get("paths"):
            columns = list(dict.fromkeys(path for row in block["paths"].values() for path in row))
            table = [
                [contract, *(_cell(row.get(path)) for path in columns)] for contract, row in block["paths"].items()
            ]
            lines += ["passed / asked, per serving path:", Table(["contract", *columns], table)]
        if block.get("errors"):
            lines.append(f"{block['errors']} probe(s) got no answer (errors, not counted)")
        return lines


def _paths(value: str | None) -> list[tuple[str, str]]:
    """``--toolcall-conformance-paths``: (api, mode) pairs, in the order of ``APIS`` and ``MODES``."""
    if not value:
        return []
    wanted: set[tuple[str, str]] = set()
    for item in (v.strip() for v in value.split(",") if v.strip()):
        api, _, mode = item.partition("/")
        if item == "all":
            wanted |= {(a, m) for a in APIS for m in MODES}
        elif api in APIS and (not mode or mode in MODES):
            wanted |= {(api, m) for m in ([mode] if mode else MODES)}
        else:
            choices = f"all, or an API ({', '.join(APIS)}) alone or with a mode ({'/'.join(MODES)})"
            raise usage_error("conformance-paths", f"unknown path {item!r}; give {choices}")
    return [(a, m) for a in APIS for m in MODES if (a, m) in wanted]


def _paths_table(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"paths": {contract: {"api/mode": {"n", "passed", "accuracy"}}}}`` of a run that asked
    several serving paths (probes answered; errors and skips are counted apart); nothing otherwise."""
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for record in records:
        if not record.get("api") or record.get("outcome") in ("error", "skipped"):
            continue
        cell = table.setdefault(str(record.get("category")), {}).setdefault(
            f"{record['api']}/{record.get('mode')}", {"n": 0, "passed": 0}
        )
        cell["n"] += 1
        cell["passed"] += record.get("score") == 1.0
    for row in table.values():
        for cell in row.values():
            cell["accuracy"] = cell["passed"] / cell["n"]
    order = {f"{a}/{m}": n for n, (a, m) in enumerate((a, m) for a in APIS for m in MODES)}
    ordered = {
        contract: dict(sorted(table[contract].items(), key=lambda kv: order.get(kv[0], 99)))
        for contract in CONTRACTS
        if contract in table
    }
    return {"paths": ordered} if ordered else {}


def _cell(cell: dict[str, Any] | None) -> str:
    return "-" if cell is None else f"{cell['passed']}/{cell['n']}"
