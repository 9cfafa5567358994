"""The documentation is part of the product: the README stays a quickstart, every link resolves, the
options reference equals the option declarations, and the CI workflow files run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from pytest_toolcall import cli, options_reference
from pytest_toolcall.config.registration import all_options

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted(
    [
        README,
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "pytest_toolcall" / "benchmarks").glob("*/README.md"),
        *(ROOT / "examples").rglob("README.md"),
        ROOT / "benchmarks" / "README.md",
    ]
)
WORKFLOWS = sorted((ROOT / "examples" / "ci").glob("*.yml"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    headings = [line.lstrip("#") for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    return {slug(h) for h in headings}


def test_readme_is_a_quickstart() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move reference material to docs/"
    commands = [line for line in lines[:6] if line.startswith("pip install")]
    assert any("--toolcall-model oracle" in line for line in commands), "the main job's command comes first"
    assert any("pytest" in line and "oracle" not in line for line in commands), "then the tests' command"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading #{anchor}")
    assert not broken, f"{doc.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_cite_only_the_repository(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    # (The folder's name is spelt in two parts so that this guard is not itself a path outside the
    # repository to the checks that look for one.)
    outside = "../" + "shared"
    assert "DESIGN.md" not in text and outside not in text


def test_every_public_testing_name_is_documented() -> None:
    import pytest_toolcall.testing as testing

    text = (ROOT / "docs" / "writing-a-benchmark.md").read_text(encoding="utf-8")
    assert testing.__all__ and all(hasattr(testing, name) for name in testing.__all__)
    assert [name for name in testing.__all__ if f"`{name}" not in text] == []


def test_options_reference_equals_the_declarations() -> None:
    document = (ROOT / options_reference.DOCUMENT).read_text(encoding="utf-8")
    assert options_reference.updated(document) == document, (
        "docs/options.md is out of date: python -m pytest_toolcall.options_reference --write"
    )


def test_options_reference_names_every_option() -> None:
    rendered = options_reference.render()
    shipped = [o for owner, o in all_options() if owner is None or owner in _shipped_benchmarks()]
    assert shipped
    for option in shipped:
        assert f"`--toolcall-{option.name}" in rendered


def test_options_reference_refuses_a_document_without_its_block() -> None:
    with pytest.raises(ValueError, match="no line"):
        options_reference.updated("# Options\n\nno generated block here\n")


def _shipped_benchmarks() -> set[str]:
    from pytest_toolcall.config import registry

    return {name for name, declared in registry.declared().items() if declared.built_in}


def _commands(workflow: Path) -> list[str]:
    """Every shell command line of the workflow's `run` steps, continuation lines joined and GitHub
    expressions replaced by a placeholder."""
    document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    lines: list[str] = []
    for job in document["jobs"].values():
        for step in job["steps"]:
            if "run" not in step:
                continue
            script = re.sub(r"\$\{\{[^}]*\}\}", "X", step["run"]).replace("\\\n", " ")
            if script.lstrip().startswith("pytest "):  # a folded block (`>`): one command over several lines
                lines.append(script.replace("\n", " "))
            else:
                lines += script.splitlines()
    return [line.strip() for line in lines if line.strip()]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_ci_workflow_uses_only_what_exists(workflow: Path) -> None:
    known = {flag for _, option in all_options() for flag in option.flags}  # aliases too
    commands = _commands(workflow)
    pytest_lines = [c for c in commands if c.startswith("pytest ")]
    tool_lines = [c for c in commands if c.startswith("pytest-toolcall ")]
    installs = [c for c in commands if c.startswith("pip install")]
    assert pytest_lines or tool_lines, f"{workflow.name}: runs nothing of the plugin"
    assert installs, f"{workflow.name}: installs nothing"
    for line in installs:
        # No package index serves the plugin: it is installed from its repository.
        assert "pytest-toolcall @" in line, f"{workflow.name}: {line!r} installs from an index"
    for line in pytest_lines:
        for flag in re.findall(r"--toolcall-[a-z0-9-]+", line):
            assert flag in known, f"{workflow.name}: {flag} is not an option"
    for line in tool_lines:
        words = [w for w in shlex.split(line)[1:] if not w.startswith("#")]
        words = words[: words.index("#")] if "#" in words else words
        try:
            cli._parser().parse_args(words)
        except SystemExit as exc:
            pytest.fail(f"{workflow.name}: {line!r} does not parse (exit {exc.code})")


def test_ci_workflow_check_finds_an_unknown_option(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        'jobs:\n  j:\n    steps:\n      - run: pip install "pytest-toolcall @ git+https://x"\n'
        "      - run: pytest --toolcall-modle=m\n",
        encoding="utf-8",
    )
    with pytest.raises(AssertionError, match="--toolcall-modle is not an option"):
        test_ci_workflow_uses_only_what_exists(bad)


# --- the lists the docs keep ---------------------------------------------------------------------------

BUILT_IN = ("acebench", "general_fc", "bfcl", "tau2", "cases", "conformance")
#: pytest's own marks: registered by pytest itself.
PYTEST_MARKS = frozenset({"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"})


def test_every_built_in_benchmark_is_where_the_docs_list_the_benchmarks() -> None:
    from pytest_toolcall.config import registry

    assert set(BUILT_IN) <= set(registry.benchmark_classes())
    readme = README.read_text(encoding="utf-8")
    options = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    bench_line = options[options.index("- `--toolcall-bench LIST`:") :].split("\n- ", 1)[0]
    for name in BUILT_IN:
        assert f"| `{name}` |" in readme, f"README's benchmark table lacks {name}"
        assert f"`{name}`" in bench_line, f"docs/options.md's --toolcall-bench list lacks {name}"


def test_every_expect_key_of_the_case_format_is_documented() -> None:
    import json

    schema = json.loads((ROOT / "pytest_toolcall" / "benchmarks" / "cases" / "case_file.schema.json").read_text())
    keys = set(schema["$defs"]["expect"]["properties"])
    assert {"calls", "status", "max_calls", "trajectory", "final"} <= keys  # the reading itself
    text = (ROOT / "examples" / "cases" / "README.md").read_text(encoding="utf-8")
    missing = sorted(k for k in keys if f"`{k}" not in text)
    assert not missing, f"examples/cases/README.md does not document expect keys {missing}"


def marks_used(text: str) -> set[str]:
    return set(re.findall(r"@pytest\.mark\.(\w+)", text))


def registered_marks(text: str) -> set[str]:
    """Marks a text registers itself (``markers = ["smoke: ..."]``, ``addinivalue_line("markers", "smoke: ...")``)."""
    return set(re.findall(r"[\"'](\w+):[^\"']*[\"']", text))


EXAMPLE_CODE = sorted(p for p in (ROOT / "examples").rglob("*.py") if "build" not in p.relative_to(ROOT).parts)


@pytest.mark.parametrize("doc", [*DOCS, *EXAMPLE_CODE], ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_use_only_registered_marks(doc: Path) -> None:
    # A mark nobody registered warns (and fails under --strict-markers): an example must not teach it.
    text = doc.read_text(encoding="utf-8")
    own = registered_marks(text) | registered_marks((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    unknown = sorted(marks_used(text) - PYTEST_MARKS - own - set(BUILT_IN))
    assert not unknown, f"{doc.relative_to(ROOT)} uses marks nobody registers: {unknown}"


def test_the_marks_check_finds_an_unregistered_mark() -> None:
    assert marks_used("@pytest.mark.smoke\ndef test(): ...") == {"smoke"}
    assert registered_marks('markers = ["smoke: quick checks"]') == {"smoke"}
    assert registered_marks("@pytest.mark.smoke") == set()
