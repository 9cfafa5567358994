"""The ``pytest-toolcall`` command (also ``python -m pytest_toolcall``): what is done with reports
and stores after the runs.

    pytest-toolcall merge A.json B.json ... -o merged.json [--allow-partial]
    pytest-toolcall gate REPORT.json --fail-under overall=0.8,... [--max-errors N]
    pytest-toolcall html REPORT.json -o report.html
    pytest-toolcall export --format FORMAT REPORT.json -o PATH
    pytest-toolcall diff BASE.json NOW.json -o diff.html
    pytest-toolcall compare A.json B.json ... [-o compare.html]
    pytest-toolcall merge-junit A.xml B.xml ... -o merged.xml [--report merged.json]
    pytest-toolcall merge-store STORE_A STORE_B ... -o STORE

Exit status: 0 done (gate: every threshold holds), 1 the gate failed, 2 bad input (one message
naming the file, never a traceback).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_toolcall import __version__
from pytest_toolcall.core.protocol.blocks import BlockError
from pytest_toolcall.core.safety.files import check_regular_file

if TYPE_CHECKING:
    from pytest_toolcall.results.run_result import RunResult

BAD_INPUT = 2


class CliError(Exception):
    """Bad input: the message is printed as is, the exit status is 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        _check_outputs(args)
        return int(args.command(args))
    except (CliError, BlockError) as exc:  # BlockError: a benchmark's block breaks the naming rules
        print(f"pytest-toolcall {args.name}: {exc}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError, sqlite3.Error) as exc:
        # The readers check what they can name field by field; whatever else a hostile file still
        # trips on is bad input all the same: one line naming the files, never a traceback.
        inputs = ", ".join(str(p) for p in _inputs(args))
        print(f"pytest-toolcall {args.name}: {inputs}: cannot be used ({type(exc).__name__}: {exc})", file=sys.stderr)
        return BAD_INPUT


def _check_outputs(args: argparse.Namespace) -> None:
    """No output is written over an input of the command (or over another of its outputs)."""
    from pytest_toolcall.core.safety.files import clash

    outputs = [(f"--{name}", getattr(args, name)) for name in ("output", "html") if getattr(args, name, None)]
    roles = {"reports": "REPORT", "report": "REPORT", "junit": "XML", "stores": "STORE", "baseline": "--baseline"}
    inputs = []
    for attribute, role in roles.items():
        value = getattr(args, attribute, None)
        inputs += [(role, path) for path in (value if isinstance(value, list) else [value]) if path is not None]
    if args.name == "merge-store":  # stores are folders or files: their files are what is read
        outputs = [(name, path / "responses.sqlite3" if path.suffix != ".sqlite3" else path) for name, path in outputs]
        inputs = [(name, path / "responses.sqlite3" if path.is_dir() else path) for name, path in inputs]
    problem = clash(outputs, inputs)
    if problem is not None:
        raise CliError(problem)


def _inputs(args: argparse.Namespace) -> list[Path]:
    named = [getattr(args, name, None) for name in ("reports", "report", "junit", "stores", "baseline")]
    return [p for value in named for p in (value if isinstance(value, list) else [value]) if p is not None]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pytest-toolcall", description="Work with pytest-toolcall reports and stores."
    )
    parser.add_argument("--version", action="version", version=f"pytest-toolcall {__version__}")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    merge = commands.add_parser("merge", help="merge the JSON reports of the shards of one run")
    merge.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    merge.add_argument("-o", "--output", type=Path, required=True, metavar="PATH", help="merged JSON report")
    merge.add_argument("--allow-partial", action="store_true", help="merge even if shards are missing (marked partial)")
    merge.add_argument("--html", type=Path, metavar="PATH", help="also write the merged HTML report")
    merge.set_defaults(command=_merge, name="merge")

    gate = commands.add_parser("gate", help="apply the quality gate to a JSON report (exit 1 when it fails)")
    gate.add_argument("report", type=Path, metavar="REPORT")
    gate.add_argument("--fail-under", metavar="METRIC=VALUE,...", help="as --toolcall-fail-under")
    gate.add_argument("--max-errors", type=int, default=0, metavar="N", help="as --toolcall-max-errors (default 0)")
    gate.add_argument("--gate-on", choices=("point", "lower"), default="point", help="as --toolcall-gate-on")
    gate.add_argument("--gate-value", choices=("strict", "measured"), default="strict", help="as --toolcall-gate-value")
    gate.add_argument("--baseline", type=Path, metavar="REPORT", help="as --toolcall-baseline")
    gate.add_argument(
        "--fail-on-regression", nargs="?", const="0.05", metavar="ALPHA", help="as --toolcall-fail-on-regression"
    )
    gate.add_argument(
        "--allow-partial",
        action="store_true",
        help="judge a report merged from some of its shards (merge --allow-partial) instead of failing it",
    )
    gate.set_defaults(command=_gate, name="gate")

    html = commands.add_parser("html", help="render a JSON report as a single-file HTML report")
    html.add_argument("report", type=Path, metavar="REPORT")
    html.add_argument("-o", "--output", type=Path, required=True, metavar="PATH")
    html.set_defaults(command=_html, name="html")

    export = commands.add_parser(
        "export",
        help="write a JSON report in another format: html, markdown, or one of its benchmarks' own",
        description="Formats are offered by plugins (docs/hooks.md): html and markdown are built in, a "
        "benchmark adds its own; an unknown FORMAT lists those offered for the report.",
    )
    export.add_argument("report", type=Path, metavar="REPORT")
    export.add_argument("--format", required=True, metavar="FORMAT", help="the format to write")
    export.add_argument("-o", "--output", type=Path, required=True, metavar="PATH", help="file or folder to write")
    export.set_defaults(command=_export, name="export")

    diff = commands.add_parser("diff", help="every unit whose verdict or answer changed between two runs")
    diff.add_argument("reports", nargs=2, type=Path, metavar="REPORT", help="BASE.json NOW.json")
    diff.add_argument("-o", "--output", type=Path, required=True, metavar="PATH", help="the HTML page")
    diff.set_defaults(command=_diff, name="diff")

    compare = commands.add_parser("compare", help="runs of the same data side by side, tested against the first")
    compare.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    compare.add_argument("-o", "--output", type=Path, metavar="PATH", help="also write the HTML page")
    compare.set_defaults(command=_compare, name="compare")

    junit = commands.add_parser("merge-junit", help="merge the JUnit XML files of the shards of one run")
    junit.add_argument("junit", nargs="+", type=Path, metavar="XML")
    junit.add_argument("-o", "--output", type=Path, required=True, metavar="PATH", help="merged JUnit XML")
    junit.add_argument(
        "--report", type=Path, metavar="REPORT", help="the merged JSON report: its aggregates as suite properties"
    )
    junit.set_defaults(command=_merge_junit, name="merge-junit")

    stores = commands.add_parser("merge-store", help="combine the response stores of shards into one")
    stores.add_argument("stores", nargs="+", type=Path, metavar="STORE", help="a store folder or its .sqlite3 file")
    stores.add_argument("-o", "--output", type=Path, required=True, metavar="STORE", help="store folder to write")
    stores.set_defaults(command=_merge_store, name="merge-store")
    return parser


def _read(path: Path) -> dict:
    from pytest_toolcall.results.merge import ReportError, read_report

    try:
        return read_report(path)
    except ReportError as exc:
        raise CliError(str(exc)) from None


def _merge(args: argparse.Namespace) -> int:
    from pytest_toolcall.results.merge import ReportError
    from pytest_toolcall.results.report import write_json_atomic
    from pytest_toolcall.results.run_result import RunResult

    reports = [(path, _read(path)) for path in args.reports]
    try:
        merged = RunResult.merge(reports, allow_partial=args.allow_partial).document()
    except ReportError as exc:
        raise CliError(str(exc)) from None
    write_json_atomic(args.output, merged)
    run = merged["run"]
    note = f" (PARTIAL: {'; '.join(run['missing'])})" if run.get("missing") else ""
    print(f"merged {len(reports)} report(s), {len(merged['samples'])} sample(s): {args.output}{note}")
    if args.html is not None:
        from pytest_toolcall.results.html import write_html

        write_html(merged, args.html)
        print(f"HTML report: {args.html}")
    return 0


def _merge_junit(args: argparse.Namespace) -> int:
    from pytest_toolcall.results.merge import ReportError, merge_junit, rebuild_benchmarks
    from pytest_toolcall.results.run_result import RunResult

    properties = None
    if args.report is not None:
        document = _read(args.report)
        try:
            benchmarks = rebuild_benchmarks(args.report, document["run"])
        except ReportError as exc:
            raise CliError(str(exc)) from None
        properties = list(RunResult.of_report(document, benchmarks=benchmarks).suite_properties())
    try:
        tree = merge_junit(args.junit, properties)
    except ReportError as exc:
        raise CliError(str(exc)) from None
    args.output.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.output.with_name(f".{args.output.name}.tmp")
    tree.write(temporary, encoding="utf-8", xml_declaration=True)
    temporary.replace(args.output)  # CI never finds half a file
    cases = len(tree.getroot().findall("testsuite/testcase"))
    print(f"merged {len(args.junit)} JUnit file(s), {cases} testcase(s): {args.output}")
    return 0


def _gate(args: argparse.Namespace) -> int:
    """The run's own gate (``results.gate.decide``) on a report: thresholds, regressions against a
    baseline, completeness; the same messages, the same line, the same exit status."""
    from pytest_toolcall.results import gate

    if not args.fail_under and args.fail_on_regression is None:
        raise CliError("nothing to gate on: give --fail-under and/or --fail-on-regression")
    try:
        thresholds = tuple(gate.parse_thresholds(args.fail_under)) if args.fail_under else ()
    except ValueError as exc:
        raise CliError(f"--fail-under: {exc}") from None
    if args.max_errors < 0:
        raise CliError("--max-errors: must be at least 0")
    alpha = None
    if args.fail_on_regression is not None:
        try:
            alpha = float(args.fail_on_regression)
        except ValueError:
            alpha = -1.0
        if not 0.0 < alpha < 1.0:
            raise CliError(
                f"--fail-on-regression: ALPHA is a significance level between 0 and 1, got {args.fail_on_regression!r}"
            )
    options = gate.GateOptions(thresholds, args.max_errors, args.gate_on, args.gate_value, alpha, args.allow_partial)
    document = _read(args.report)
    if alpha is not None and args.baseline is None and document.get("comparison") is None:
        raise CliError(
            f"--fail-on-regression: {args.report} holds no comparison with a baseline: give --baseline=REPORT.json"
        )
    result = _result(args, document, compare=alpha is not None)
    problem = gate.threshold_problem(thresholds, result.benchmarks)
    if problem is not None:
        raise CliError(f"--fail-under: {args.report}: {problem}")
    verdict = gate.decide(result, options)
    print(verdict.line)
    return 1 if gate.exit_failed(verdict, result) else 0


def _result(args: argparse.Namespace, document: dict, compare: bool) -> RunResult:
    """The report's result; with ``compare`` and ``--baseline``, compared anew with that baseline
    (else the report's own comparison stands)."""
    from pytest_toolcall.results.baseline import BaselineError, load_baseline
    from pytest_toolcall.results.run_result import RunResult

    benchmarks = _checked(args.report, document)
    if compare and args.baseline is None:  # the report's own comparison: only once recomputed
        from pytest_toolcall.results.recompute import ReportError, check_comparison

        try:
            check_comparison(args.report, document, benchmarks)
        except ReportError as exc:
            raise CliError(str(exc)) from None
    if not compare or args.baseline is None:
        return RunResult.of_report(document, benchmarks=benchmarks)
    try:
        baseline = load_baseline(args.baseline)
    except BaselineError as exc:
        raise CliError(str(exc)) from None
    return RunResult.of_report(document, benchmarks=benchmarks, baseline=baseline)


def _checked(path: Path, document: dict) -> dict:
    """The report's benchmarks, once its stated metrics are those recomputed from its samples."""
    from pytest_toolcall.results.recompute import ReportError, checked_benchmarks

    try:
        return checked_benchmarks(path, document)
    except ReportError as exc:
        raise CliError(str(exc)) from None


def _html(args: argparse.Namespace) -> int:
    from pytest_toolcall.results.html import write_html

    document = _read(args.report)
    _checked(args.report, document)
    write_html(document, args.output)
    print(f"HTML report: {args.output}")
    return 0


def _export(args: argparse.Namespace) -> int:
    """The report, checked as every offline tool checks it, handed to the plugin that offers the format."""
    from pytest_toolcall.results import exporting
    from pytest_toolcall.results.run_result import RunResult

    document = _read(args.report)
    benchmarks = _checked(args.report, document)
    result = RunResult.of_report(document, benchmarks=benchmarks)
    try:
        manager = exporting.manager(benchmarks)
        written = exporting.export(manager, args.format, document, args.output, result)
    except exporting.ExportError as exc:
        raise CliError(f"--format {args.format}: {exc}") from None
    except ValueError as exc:  # the exporter's word on a report it cannot export
        raise CliError(f"{args.report}: {exc}") from None
    except OSError as exc:
        raise CliError(f"{args.output}: cannot be written ({exc.strerror or exc})") from None
    print(f"{args.format}: {', '.join(str(p) for p in written) or 'nothing written'}")
    return 0


def _same_data(args: argparse.Namespace) -> list[dict]:
    """The reports, refused with one line when they are not runs of the same data and selection."""
    from pytest_toolcall.results.diffing import same_data_problem

    documents = [_read(path) for path in args.reports]
    problem = same_data_problem([str(p) for p in args.reports], documents)
    if problem is not None:
        raise CliError(problem)
    return documents


def _diff(args: argparse.Namespace) -> int:
    from pytest_toolcall.results.diff_html import diff_page
    from pytest_toolcall.results.diffing import diff_runs
    from pytest_toolcall.results.html import write_page

    base, now = _same_data(args)
    diff = diff_runs(base["samples"], now["samples"])
    names = [p.name for p in args.reports]
    write_page(diff_page(diff, names[0], names[1], base["run"], now["run"]), args.output)
    counts = diff.counts()
    print(
        f"{counts['regressed']} regressed, {counts['fixed']} fixed, {counts['changed']} changed with the same "
        f"verdict ({diff.reordered()} of the changes only reordered their calls); "
        f"{len(diff.only_base)} only in {names[0]}, {len(diff.only_now)} only in {names[1]}: {args.output}"
    )
    return 0


def _compare(args: argparse.Namespace) -> int:
    from pytest_toolcall.results.comparing import compare_page, compare_reports, terminal_table
    from pytest_toolcall.results.html import write_page
    from pytest_toolcall.results.merge import ReportError

    if len(args.reports) < 2:
        raise CliError("give two reports or more: the first is the one the others are tested against")
    documents = _same_data(args)
    try:
        comparison = compare_reports(args.reports, documents)
    except ReportError as exc:
        raise CliError(str(exc)) from None
    for line in terminal_table(comparison):
        print(line)
    if args.output is not None:
        write_page(compare_page(comparison), args.output)
        print(f"HTML page: {args.output}")
    return 0


def _merge_store(args: argparse.Namespace) -> int:
    from pytest_toolcall.model.store import STORE_FILE, StoreError, merge_stores

    sources = [_store_file(path, STORE_FILE) for path in args.stores]
    target = args.output / STORE_FILE if args.output.suffix != ".sqlite3" else args.output
    if any(source.resolve() == target.resolve() for source in sources):
        raise CliError(f"{target}: the output is also an input")
    try:
        copied = merge_stores(sources, target)
    except StoreError as exc:
        raise CliError(str(exc)) from None
    except sqlite3.Error as exc:
        raise CliError(f"{target}: cannot be written ({exc})") from None
    print(f"merged {len(sources)} store(s), {copied} response(s): {target}")
    return 0


def _store_file(path: Path, name: str) -> Path:
    """The SQLite file of a store given as its folder or as the file, checked to be a store."""
    from pytest_toolcall.model.store import store_shape_problem

    file = path / name if path.is_dir() else path
    if not file.exists():
        raise CliError(f"{path}: no response store here (expected a folder holding {name}, or the file)")
    try:
        check_regular_file(file, what="response store")
    except OSError as exc:
        raise CliError(f"{file}: {exc}") from None
    try:
        with closing(sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True)) as db:
            problem = store_shape_problem(db)
    except sqlite3.DatabaseError as exc:
        raise CliError(f"{file}: not a response store ({exc})") from None
    if problem:
        raise CliError(f"{file}: not a response store this version can merge ({problem})")
    return file


if __name__ == "__main__":
    sys.exit(main())
