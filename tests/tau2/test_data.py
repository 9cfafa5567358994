"""The shipped τ²-bench data is tau2-bench a2c0247's, file for file (git blob ids), and nothing else."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pytest_toolcall.benchmarks.tau2.benchmark import domain_tasks
from pytest_toolcall.benchmarks.tau2.environment import DATA, tool_specs

#: Files of the data folder that are not tau2-bench's own files: the list itself, the licence,
#: and the tool schemas the official code wrote (checked against the tools in test_environment).
NOT_LISTED = {"BLOBS.txt", "LICENSE", "tools.json"}


def git_blob_id(path: Path) -> str:
    content = path.read_bytes()
    return hashlib.sha1(b"blob %d\x00" % len(content) + content).hexdigest()


def listed() -> dict[str, str]:
    rows = (line.split() for line in (DATA / "BLOBS.txt").read_text(encoding="utf-8").splitlines() if line.strip())
    return {name.removeprefix("./"): blob for blob, name in rows}


def test_every_file_has_its_blob_id_at_a2c0247() -> None:
    blobs = listed()
    # the 20 files of airline, retail, telecom and the user simulator; banking_knowledge's 814
    # (its database, tasks, 698 documents, prompts)
    assert len(blobs) == 834
    assert sum(1 for name in blobs if name.startswith("banking_knowledge/")) == 814
    for name, blob in blobs.items():
        assert git_blob_id(DATA / name) == blob, name


def test_no_file_is_unlisted() -> None:
    files = {str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.is_file()}
    assert files - NOT_LISTED == set(listed())
    assert "MIT License" in (DATA / "LICENSE").read_text(encoding="utf-8")


def test_leaderboard_sets() -> None:
    assert len(domain_tasks("airline", "base")) == 50
    assert len(domain_tasks("retail", "base")) == 114
    assert len(domain_tasks("telecom", "base")) == 114
    assert len(domain_tasks("airline", "test")) == 20


def test_tool_lists() -> None:
    assert len(tool_specs("airline")) == 14 and len(tool_specs("retail")) == 16
    writes = {name for name, spec in tool_specs("airline").items() if spec.mutates_state}
    assert writes == {
        "book_reservation",
        "cancel_reservation",
        "send_certificate",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
    }
    # transfer_to_human_agents is GENERIC: never replayed
    assert not tool_specs("retail")["transfer_to_human_agents"].mutates_state


def test_the_package_data_globs_cover_the_data() -> None:
    """A file the globs miss would be left out of the wheel."""
    import tomllib

    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    patterns = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]["pytest_toolcall"]
    package = DATA.parents[2]
    declared = {path for pattern in patterns for path in package.glob(pattern)}
    assert {p for p in DATA.rglob("*") if p.is_file()} - declared == set()
