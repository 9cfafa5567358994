"""Loading the single-turn BFCL categories (non-live and live) with their possible answers.

The data is the pinned BFCL v4 tree shipped beside this module (``data/``, see ``manifest.json``). Each
category is one JSON-lines file ``BFCL_v4_<category>.json``; the AST categories have a twin under
``possible_answer/``. The official runner pairs a question with its possible answer by *position* in
the two files, not by id, so we do the same and report a pair whose ids differ as a problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolcall.api import jsonl
from pytest_toolcall.api.files import check_regular_file

DATA_DIR = Path(__file__).with_name("data")
FILE_PREFIX = "BFCL_v4"

NON_LIVE_AST = ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple")
LIVE_AST = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
NON_LIVE = (*NON_LIVE_AST, "irrelevance")
LIVE = (*LIVE_AST, "live_irrelevance", "live_relevance")
SINGLE_TURN_CATEGORIES = (*NON_LIVE, *LIVE)
# Categories judged only on "did the model call something" (no possible answer file).
RELEVANCE_CATEGORIES = ("irrelevance", "live_irrelevance", "live_relevance")


@dataclass(frozen=True)
class BfclSample:
    """One official BFCL entry. ``question`` is the list of turns (each a list of chat messages), exactly
    as in the file; ``functions`` are the raw function docs (no language hint: the checker reads these);
    ``ground_truth`` is the possible-answer list, or None for the relevance categories."""

    id: str
    category: str
    question: list[list[dict[str, Any]]]
    functions: list[dict[str, Any]]
    ground_truth: list[dict[str, Any]] | None
    #: Where the entry is written (``path:line``), for messages.
    source: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Problem:
    """A line of a data file that could not be used; the other lines still load."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


def language_of(category: str) -> str:
    """The checker language of a category, by the official substring rule (javascript before java)."""
    if "javascript" in category:
        return "javascript"
    if "java" in category:
        return "java"
    return "python"


def is_relevance_category(category: str) -> bool:
    return "relevance" in category  # also matches "irrelevance", like the official predicate


def category_file(category: str, data_dir: Path | None = None) -> Path:
    return (data_dir or DATA_DIR) / f"{FILE_PREFIX}_{category}.json"


def answer_file(category: str, data_dir: Path | None = None) -> Path:
    return (data_dir or DATA_DIR) / "possible_answer" / f"{FILE_PREFIX}_{category}.json"


def _read_json_lines(path: Path, problems: list[Problem]) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line that is a JSON object; problems for the others."""
    rows: list[tuple[int, dict[str, Any]]] = []
    try:
        check_regular_file(path, what="data file")  # a FIFO would block the run, /dev/zero never ends
        with open(path, "rb") as handle:
            for line in jsonl.lines(handle):
                try:
                    rows.append((line.number, jsonl.parse_object(line)))
                except jsonl.JsonlError as exc:
                    problems.append(Problem(str(path), exc.line, exc.message))
    except OSError as exc:
        problems.append(Problem(str(path), 0, f"cannot read: {exc}"))
    except jsonl.JsonlError as exc:  # not UTF-8: the rest of the file is not read
        problems.append(Problem(str(path), exc.line, f"cannot read: {exc.message}"))
    return rows


def _entry_problem(obj: dict[str, Any]) -> str | None:
    """Why an entry cannot be used, or None."""
    if not isinstance(obj.get("id"), str):
        return "missing string 'id'"
    question = obj.get("question")
    if not isinstance(question, list) or not question or not all(isinstance(turn, list) for turn in question):
        return "'question' is not a non-empty list of turns"
    for turn in question:
        for message in turn:
            if not isinstance(message, dict) or "role" not in message or "content" not in message:
                return "a question message lacks 'role' or 'content'"
    functions = obj.get("function")
    if not isinstance(functions, list):
        return "'function' is not a list"
    for doc in functions:
        if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
            return "a function doc has no 'name'"
        params = doc.get("parameters")
        if not isinstance(params, dict) or not isinstance(params.get("properties"), dict):
            return f"function {doc.get('name')!r} has no 'parameters.properties' object"
    return None


def _paired_answer(
    answers: list[tuple[int, dict[str, Any]]],
    index: int,
    entry: dict[str, Any],
    where: tuple[Path, int],
    answer_path: Path,
    problems: list[Problem],
) -> tuple[int, dict[str, Any]] | None:
    """The possible answer at the entry's position, carrying the entry's id; else a problem, None."""
    if index >= len(answers):
        problems.append(Problem(str(where[0]), where[1], "no possible answer at this position"))
        return None
    answer_line, answer = answers[index]
    if answer.get("id") != entry["id"]:
        problems.append(
            Problem(str(answer_path), answer_line, f"id {answer.get('id')!r} where {entry['id']!r} expected")
        )
        return None
    return answer_line, answer


def load_category(category: str, data_dir: Path | None = None) -> tuple[list[BfclSample], list[Problem]]:
    """All samples of one single-turn category, in file order, and the problems met on the way."""
    if category not in SINGLE_TURN_CATEGORIES:
        raise ValueError(f"not a single-turn BFCL category: {category!r}")
    problems: list[Problem] = []
    path = category_file(category, data_dir)
    entries = _read_json_lines(path, problems)
    answers: list[tuple[int, dict[str, Any]]] | None = None
    answer_path = answer_file(category, data_dir)
    if not is_relevance_category(category):
        answers = _read_json_lines(answer_path, problems)
        if len(answers) != len(entries):
            problems.append(
                Problem(str(answer_path), 0, f"{len(answers)} possible answers for {len(entries)} questions")
            )
    samples: list[BfclSample] = []
    for index, (number, obj) in enumerate(entries):
        why = _entry_problem(obj)
        if why:
            problems.append(Problem(str(path), number, why))
            continue
        ground_truth = None
        if answers is not None:
            paired = _paired_answer(answers, index, obj, (path, number), answer_path, problems)
            if paired is None:
                continue
            answer_line, answer = paired
            ground_truth = answer.get("ground_truth")
            if not isinstance(ground_truth, list) or not all(
                isinstance(call, dict) and len(call) == 1 and isinstance(next(iter(call.values())), dict)
                for call in ground_truth
            ):
                problems.append(
                    Problem(str(answer_path), answer_line, "'ground_truth' is not a list of {name: params}")
                )
                continue
        samples.append(
            BfclSample(
                id=obj["id"],
                category=category,
                question=obj["question"],
                functions=obj["function"],
                ground_truth=ground_truth,
                source=f"{path}:{number}",
            )
        )
    return samples, problems


def load_samples(
    categories: tuple[str, ...] | list[str] = SINGLE_TURN_CATEGORIES, data_dir: Path | None = None
) -> tuple[list[BfclSample], list[Problem]]:
    """Samples of several categories, concatenated in the order given."""
    samples: list[BfclSample] = []
    problems: list[Problem] = []
    for category in categories:
        got, bad = load_category(category, data_dir)
        samples.extend(got)
        problems.extend(bad)
    return samples, problems


# --------------------------------------------------------------------------------------------------
# Multi-turn categories

MULTI_TURN_CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")


@dataclass(frozen=True)
class MultiTurnSample:
    """One official multi-turn entry: ``entry`` as in the file (``question`` turns, ``initial_config``,
    ``involved_classes``, ``missed_function``...), ``ground_truth`` the official call strings per turn."""

    id: str
    category: str
    entry: dict[str, Any]
    ground_truth: list[list[str]]
    source: str | None = field(default=None, compare=False)


def _multi_turn_problem(obj: dict[str, Any]) -> str | None:
    if not isinstance(obj.get("id"), str):
        return "missing string 'id'"
    question = obj.get("question")
    if not isinstance(question, list) or not question or not all(isinstance(turn, list) for turn in question):
        return "'question' is not a non-empty list of turns"
    classes = obj.get("involved_classes")
    if not isinstance(classes, list) or not all(isinstance(name, str) for name in classes):
        return "'involved_classes' is not a list of class names"
    if not isinstance(obj.get("initial_config", {}), dict):
        return "'initial_config' is not an object"
    return None


def load_multi_turn_category(
    category: str, data_dir: Path | None = None
) -> tuple[list[MultiTurnSample], list[Problem]]:
    """All entries of one multi-turn category with their ground truth (paired by position, as the
    official runner pairs them), and the problems met on the way."""
    if category not in MULTI_TURN_CATEGORIES:
        raise ValueError(f"not a multi-turn BFCL category: {category!r}")
    problems: list[Problem] = []
    path = category_file(category, data_dir)
    entries = _read_json_lines(path, problems)
    answer_path = answer_file(category, data_dir)
    answers = _read_json_lines(answer_path, problems)
    if len(answers) != len(entries):
        problems.append(Problem(str(answer_path), 0, f"{len(answers)} possible answers for {len(entries)} questions"))
    samples: list[MultiTurnSample] = []
    for index, (number, obj) in enumerate(entries):
        why = _multi_turn_problem(obj)
        if why:
            problems.append(Problem(str(path), number, why))
            continue
        paired = _paired_answer(answers, index, obj, (path, number), answer_path, problems)
        if paired is None:
            continue
        answer_line, answer = paired
        truth = answer.get("ground_truth")
        if not (
            isinstance(truth, list)
            and len(truth) == len(obj["question"])
            and all(isinstance(turn, list) and all(isinstance(call, str) for call in turn) for turn in truth)
        ):
            problems.append(
                Problem(str(answer_path), answer_line, "'ground_truth' is not one list of call strings per turn")
            )
            continue
        samples.append(MultiTurnSample(obj["id"], category, obj, truth, source=f"{path}:{number}"))
    return samples, problems


# --------------------------------------------------------------------------------------------------
# Memory categories (BFCL V4 agentic)

#: The memory backends measured here; ``memory_vector`` needs a sentence-embedding model's weights.
MEMORY_CATEGORIES = ("memory_kv", "memory_rec_sum")
MEMORY_NOT_MEASURED = {
    "memory_vector": "its backend embeds texts with the sentence-transformers model all-MiniLM-L6-v2, whose weights "
    "are downloaded at run time; without them its results cannot be reproduced",
}
#: The scenarios, in the official order; each has its prerequisite conversations.
MEMORY_SCENARIOS = ("student", "customer", "finance", "healthcare", "notetaker")
PREREQ_DIR = "memory_prereq_conversation"


@dataclass(frozen=True)
class MemorySample:
    """One official memory question for one backend, with the scenario's prerequisite conversations.

    Ids are the official ones of the backend's category: the question ``memory_0-customer-0`` of
    the file is ``memory_kv_0-customer-0`` under the kv backend, a prerequisite conversation
    ``memory_kv_prereq_22-student-0``. ``entry`` and each of ``prereqs`` are entries as the official
    runner builds them (``id``, ``question`` turns, ``scenario``, ``involved_classes``)."""

    id: str
    category: str
    scenario: str
    entry: dict[str, Any]
    ground_truth: list[str]
    prereqs: tuple[dict[str, Any], ...]
    source: str | None = field(default=None, compare=False)

    @property
    def backend_class(self) -> str:
        return backend_class(self.category)


def backend_class(category: str) -> str:
    """The official class of a memory category's backend: ``MemoryAPI_kv`` for ``memory_kv``."""
    return f"MemoryAPI_{category.removeprefix('memory_')}"


def _prereq_entries(category: str, scenario: str, data_dir: Path | None, problems: list[Problem]) -> list[dict]:
    path = (data_dir or DATA_DIR) / PREREQ_DIR / f"memory_{scenario}.json"
    entries = []
    for number, obj in _read_json_lines(path, problems):
        why = _multi_turn_problem({**obj, "involved_classes": []})
        if why:
            problems.append(Problem(str(path), number, why))
            continue
        entries.append(
            {
                **obj,
                "id": obj["id"].replace("memory", category),
                "involved_classes": [backend_class(category)],
                "scenario": scenario,
            }
        )
    return entries


def load_memory_category(category: str, data_dir: Path | None = None) -> tuple[list[MemorySample], list[Problem]]:
    """The questions of one memory category, in file order, each with its scenario's prerequisite
    conversations; answers paired by position as the official runner pairs them."""
    if category not in MEMORY_CATEGORIES:
        raise ValueError(f"not a measured BFCL memory category: {category!r}")
    problems: list[Problem] = []
    path = category_file("memory", data_dir)
    entries = _read_json_lines(path, problems)
    answer_path = answer_file("memory", data_dir)
    answers = _read_json_lines(answer_path, problems)
    if len(answers) != len(entries):
        problems.append(Problem(str(answer_path), 0, f"{len(answers)} possible answers for {len(entries)} questions"))
    prereqs = {name: tuple(_prereq_entries(category, name, data_dir, problems)) for name in MEMORY_SCENARIOS}
    samples: list[MemorySample] = []
    for index, (number, obj) in enumerate(entries):
        why = _multi_turn_problem({**obj, "involved_classes": []})
        if why is None and obj.get("scenario") not in prereqs:
            why = f"unknown scenario {obj.get('scenario')!r}"
        if why is None and len(obj["question"]) != 1:
            why = "a memory question is one turn"
        if why:
            problems.append(Problem(str(path), number, why))
            continue
        paired = _paired_answer(answers, index, obj, (path, number), answer_path, problems)
        if paired is None:
            continue
        answer_line, answer = paired
        truth = answer.get("ground_truth")
        if not (isinstance(truth, list) and truth and all(isinstance(text, str) for text in truth)):
            problems.append(Problem(str(answer_path), answer_line, "'ground_truth' is not a list of answer texts"))
            continue
        entry = {
            **obj,
            "id": obj["id"].replace("memory", category),
            "involved_classes": [backend_class(category)],
        }
        samples.append(
            MemorySample(
                id=entry["id"],
                category=category,
                scenario=obj["scenario"],
                entry=entry,
                ground_truth=truth,
                prereqs=prereqs[obj["scenario"]],
                source=f"{path}:{number}",
            )
        )
    return samples, problems
