"""The data shipped in the package is the pinned data, byte for byte, with its licence beside it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pytest_toolcall.benchmarks.acebench.benchmark import SHIPPED_ROOT
from pytest_toolcall.benchmarks.general_fc.benchmark import SHIPPED_SET

FOLDERS = {"acebench": SHIPPED_ROOT, "general_fc": SHIPPED_SET.parent}


@pytest.mark.parametrize("benchmark", sorted(FOLDERS))
def test_every_shipped_file_matches_the_manifest(benchmark: str) -> None:
    folder = FOLDERS[benchmark]
    manifest = json.loads((folder.parent / "manifest.json").read_text(encoding="utf-8"))["files"]
    shipped = {str(p.relative_to(folder)): p for p in folder.rglob("*") if p.is_file()}
    assert set(shipped) == set(manifest)
    wrong = [name for name, path in shipped.items() if hashlib.sha256(path.read_bytes()).hexdigest() != manifest[name]]
    assert wrong == []


def test_acebench_is_the_pinned_commit_with_its_licence() -> None:
    manifest = json.loads((SHIPPED_ROOT.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["commit"] == "56dd66cf6439b0d9655ee1b353e4cd745c6f664e"
    assert (SHIPPED_ROOT / "COMMIT").read_text(encoding="utf-8").strip() == manifest["commit"]
    assert "MIT License" in (SHIPPED_ROOT / "LICENSE.md").read_text(encoding="utf-8")
    assert len(list((SHIPPED_ROOT / "data_all").rglob("*.json"))) == 2 * 17 * 2


def test_general_fc_set_has_its_licence_and_provenance() -> None:
    assert "MIT License" in (SHIPPED_SET.parent / "LICENSE").read_text(encoding="utf-8")
    assert "K2-Vendor-Verifier" in (SHIPPED_SET.parent / "PROVENANCE.md").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in SHIPPED_SET.read_text(encoding="utf-8").splitlines()]
    assert (len(lines), sum(line["should_call_tool"] for line in lines)) == (511, 453)


def test_the_package_data_globs_cover_every_shipped_file() -> None:
    """A file the globs miss would be left out of the wheel: an installed plugin without its data."""
    import tomllib

    globs = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = globs["package-data"]["pytest_toolcall"]
    package = SHIPPED_ROOT.parents[2]
    declared = {path for pattern in patterns for path in package.glob(pattern)}
    shipped = {path for folder in FOLDERS.values() for path in folder.rglob("*") if path.is_file()}
    assert shipped - declared == set()
