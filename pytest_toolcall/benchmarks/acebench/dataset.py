"""ACEBench data: categories, groups, and loading a data root into scoring units.

A data root holds ``data_all/data_{en,zh}/data_<category>.json`` (prompts), the matching
``possible_answer/`` files (ground truth) and ``prompts.json``. Both data files are JSON lines that
pair line by line; every problem is reported with its file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.api import DataError, jsonl
from pytest_toolcall.api.files import check_regular_file

LANGUAGES = ("en", "zh")

NORMAL = (
    "normal_atom_bool",
    "normal_atom_enum",
    "normal_atom_number",
    "normal_atom_list",
    "normal_atom_object_deep",
    "normal_atom_object_short",
    "normal_single_turn_single_function",
    "normal_single_turn_parallel_function",
    "normal_multi_turn_user_adjust",
    "normal_multi_turn_user_switch",
    "normal_similar_api",
    "normal_preference",
)
SPECIAL = ("special_incomplete", "special_error_param", "special_irrelevant")
AGENT = ("agent_multi_step", "agent_multi_turn")
CATEGORIES = NORMAL + SPECIAL + AGENT

#: Official summary groups: unweighted means of category accuracies (evaluation_helper.py).
GROUPS: dict[str, tuple[str, ...]] = {
    "atom": NORMAL[:6],
    "single_turn": NORMAL[6:8],
    "multi_turn": NORMAL[8:10],
    "normal": NORMAL,
    "special": SPECIAL,
    "agent": AGENT,
}
#: OVERALL = Σ weight·group over these three groups.
OVERALL_WEIGHTS = {"normal": 0.578, "special": 0.2676, "agent": 0.1545}


def family(category: str) -> str:
    return category.split("_", 1)[0]


_INDEX_SUFFIX = re.compile(r"_\d+$")


def api_name(key: str) -> str:
    """The API a ground-truth key names: ``f_1`` and ``f_2`` (two calls of ``f``) are ``f``."""
    return _INDEX_SUFFIX.sub("", key)


def is_multi_turn_normal(category: str) -> bool:
    return category.startswith("normal_multi_turn")


@dataclass(frozen=True)
class Step:
    """One line of a data file with its ground-truth line."""

    id: str
    row: dict[str, Any]
    answer: dict[str, Any]
    source: str  # "path:line", for messages

    @property
    def ground_truth(self) -> Any:
        return self.answer["ground_truth"]


@dataclass(frozen=True)
class Sample:
    """One scoring unit: a sample, or a whole normal multi-turn dialogue (its steps in order)."""

    lang: str
    category: str
    id: str
    steps: tuple[Step, ...]

    @property
    def first(self) -> Step:
        return self.steps[0]


_FIELDS = {
    "normal_preference": ("id", "question", "function", "profile"),
    "agent": ("id", "question", "function", "initial_config", "involved_classes"),
    "default": ("id", "question", "function", "time"),
}


def data_file(root: Path, lang: str, category: str) -> Path:
    return root / "data_all" / f"data_{lang}" / f"data_{category}.json"


def answer_file(root: Path, lang: str, category: str) -> Path:
    return root / "data_all" / f"data_{lang}" / "possible_answer" / f"data_{category}.json"


def load_category(root: Path, lang: str, category: str) -> list[Sample]:
    """All scoring units of one category, in data order."""
    data_path, answer_path = data_file(root, lang, category), answer_file(root, lang, category)
    rows, answers = _read_jsonl(data_path), _read_jsonl(answer_path)
    if len(rows) != len(answers):
        raise DataError(
            f"{data_path} has {len(rows)} lines but {answer_path} has {len(answers)}; "
            "the two files must pair line by line"
        )
    fields = _FIELDS.get(category) or _FIELDS["agent" if family(category) == "agent" else "default"]
    steps = []
    first_line: dict[str, int] = {}  # id -> line it first appeared on
    for (line, row), (answer_line, answer) in zip(rows, answers, strict=True):
        where = f"{data_path}:{line}"
        missing = [f for f in fields if f not in row]
        if missing:
            raise DataError(f"{where}: missing field(s) {', '.join(missing)}")
        if "ground_truth" not in answer:
            raise DataError(f"{answer_path}:{answer_line}: missing field ground_truth")
        if answer.get("id") != row["id"]:
            raise DataError(
                f"{answer_path}:{answer_line}: id {answer.get('id')!r} does not match {row['id']!r} at {where}"
            )
        if not str(row["id"]).startswith(category + "_"):
            raise DataError(f"{where}: id {row['id']!r} does not belong to category {category}")
        # Two samples with one id would get one item id: pytest renames them and neither is scored.
        seen = first_line.setdefault(str(row["id"]), line)
        if seen != line:
            raise DataError(f"{where}: duplicate id {row['id']!r} (first on line {seen})")
        steps.append(Step(row["id"], row, answer, where))
    if is_multi_turn_normal(category):
        return _dialogues(lang, category, steps)
    return [Sample(lang, category, step.id, (step,)) for step in steps]


def _dialogues(lang: str, category: str, steps: list[Step]) -> list[Sample]:
    """Group steps ``<category>_<dialogue>_<step>`` into dialogues; their lines must be contiguous."""
    groups: dict[str, list[Step]] = {}
    previous = None
    for step in steps:
        match = re.fullmatch(re.escape(category) + r"_(\d+)_(\d+)", step.id)
        if not match:
            raise DataError(f"{step.source}: id {step.id!r} is not <category>_<dialogue>_<step>")
        dialogue = f"{category}_{match.group(1)}"
        if dialogue != previous and dialogue in groups:
            raise DataError(f"{step.source}: the steps of dialogue {dialogue} are not contiguous")
        groups.setdefault(dialogue, []).append(step)
        previous = dialogue
    return [Sample(lang, category, dialogue, tuple(group)) for dialogue, group in groups.items()]


def _read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line."""
    rows = []
    try:
        check_regular_file(path, what="data file")  # a FIFO would block the run, /dev/zero never ends
        with open(path, "rb") as handle:
            for line in jsonl.lines(handle):
                try:
                    row = jsonl.parse_object(line, objects_only=False)
                except jsonl.JsonlError as exc:
                    raise DataError(f"{path}:{exc.line}: {exc.message}") from None
                if not isinstance(row, dict):
                    raise DataError(f"{path}:{line.number}: expected a JSON object, got {type(row).__name__}")
                rows.append((line.number, row))
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except (OSError, jsonl.JsonlError) as exc:
        raise DataError(f"{path}: cannot read: {exc}") from None
    return rows
