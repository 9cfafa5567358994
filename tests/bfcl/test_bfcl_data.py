"""The shipped BFCL data: integrity against the manifest, sizes, and how bad lines are reported."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pytest_toolcall.benchmarks.bfcl import data
from pytest_toolcall.benchmarks.bfcl.data import load_category, load_samples

PACKAGE = Path(data.__file__).parent
MANIFEST = json.loads((PACKAGE / "manifest.json").read_text(encoding="utf-8"))


def test_shipped_files_match_the_manifest() -> None:
    shipped = {
        path.relative_to(data.DATA_DIR).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in data.DATA_DIR.rglob("*")
        if path.is_file()
    }
    assert shipped == MANIFEST["files"]


def test_manifest_names_the_pinned_commit_and_licence() -> None:
    assert MANIFEST["commit"] == "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8"
    assert MANIFEST["commit"] in (data.DATA_DIR / "COMMIT").read_text(encoding="utf-8")
    assert "Apache License" in (data.DATA_DIR / "LICENSE").read_text(encoding="utf-8")


# Sizes of the BFCL v4 single-turn categories (the leaderboard's published counts).
SIZES = {
    "simple_python": 400,
    "simple_java": 100,
    "simple_javascript": 50,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "irrelevance": 240,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


@pytest.mark.parametrize("category", list(SIZES))
def test_category_loads_without_problems(category: str) -> None:
    samples, problems = load_category(category)
    assert problems == []
    assert len(samples) == SIZES[category]
    assert all(sample.category == category for sample in samples)
    assert len({sample.id for sample in samples}) == len(samples)
    if category in data.RELEVANCE_CATEGORIES:
        assert all(sample.ground_truth is None for sample in samples)
    else:
        assert all(sample.ground_truth for sample in samples)


def test_a_sample_as_in_the_file() -> None:
    samples, _ = load_category("simple_java")
    first = samples[0]
    assert first.id == "simple_java_0"
    assert first.functions[0]["name"] == "GeometryPresentation.createPresentation"
    assert first.question[0][0]["role"] == "user"
    assert first.ground_truth == [
        {"GeometryPresentation.createPresentation": {"controller": ["mapController"], "parent": ["mapArea"]}}
    ]
    # The checker reads the docs without language notes.
    assert "Java 8" not in first.functions[0]["description"]


def test_languages_follow_the_official_substring_rule() -> None:
    assert data.language_of("simple_javascript") == "javascript"
    assert data.language_of("simple_java") == "java"
    assert data.language_of("live_multiple") == "python"


def test_unknown_category_is_refused() -> None:
    with pytest.raises(ValueError):
        load_category("multi_turn_base")


GOOD = {
    "id": "simple_python_0",
    "question": [[{"role": "user", "content": "hi"}]],
    "function": [{"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {}, "required": []}}],
}


def test_bad_lines_are_problems_naming_file_and_line(tmp_path: Path) -> None:
    lines = [
        json.dumps(GOOD),
        "{not json",
        "[1, 2]",
        json.dumps({**GOOD, "id": "simple_python_3", "question": "hello"}),
        "",
        json.dumps({**GOOD, "id": "simple_python_4", "function": [{"name": "g"}]}),
        json.dumps({**GOOD, "id": "simple_python_5"}),
    ]
    (tmp_path / "BFCL_v4_simple_python.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "possible_answer").mkdir()
    answers = [
        {"id": "simple_python_0", "ground_truth": [{"f": {}}]},
        {"id": "simple_python_3", "ground_truth": [{"f": {}}]},
        {"id": "simple_python_4", "ground_truth": [{"f": {}}]},
        {"id": "wrong_id", "ground_truth": [{"f": {}}]},
    ]
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text(
        "\n".join(json.dumps(a) for a in answers), encoding="utf-8"
    )
    samples, problems = load_category("simple_python", tmp_path)
    assert [sample.id for sample in samples] == ["simple_python_0"]
    where = sorted((Path(problem.file).parent.name, problem.line) for problem in problems)
    # Lines 2 (not JSON), 3 (not an object), 4 (question not a list of turns), 6 (function without
    # parameters); line 7 pairs with the fourth possible answer, whose id differs (answer file, line 4).
    assert where == [
        ("possible_answer", 4),
        (tmp_path.name, 2),
        (tmp_path.name, 3),
        (tmp_path.name, 4),
        (tmp_path.name, 6),
    ]
    assert all(str(problem).startswith(problem.file) for problem in problems)


def test_missing_file_is_a_problem(tmp_path: Path) -> None:
    samples, problems = load_category("irrelevance", tmp_path)
    assert samples == [] and len(problems) == 1 and "cannot read" in problems[0].message


def test_load_samples_keeps_category_order() -> None:
    samples, problems = load_samples(["live_parallel", "live_relevance"])
    assert problems == []
    assert [s.category for s in samples] == ["live_parallel"] * 16 + ["live_relevance"] * 16
