"""Grading an agent rollout as the official scorer does (``eval_main.py : agent_eval``,
``agent_eval_process``; ``model_eval/checker.py : agent_checker``).

End state: the number of class entries must equal the ground truth's. Each ground-truth entry is
paired with the first end-state entry that has the same key set; an entry with no partner (a
misspelled class in the ground truth, e.g. ``ReminderAPI``) repeats the previous verdict, which
means it is never graded. Within a class, every attribute of the END STATE must exist in the ground
truth; a dict attribute is compared on the ground truth's keys only (extra keys pass), any other
attribute with ``==``.

Process (reported, never part of accuracy): 1.0 when the end state passes; otherwise the greedy
in-order count of milestones matched exactly (after ``.strip()``) by the replies sent to
execution, over the path length; with alternative paths each path is rounded to 3 decimals and
the best counts. A single path is not rounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.api.text import show
from pytest_toolcall.benchmarks.acebench.agents.rollout import Rollout
from pytest_toolcall.benchmarks.acebench.dataset import Sample

WRONG_CLASS_COUNT = "wrong number of class"
WRONG_ATTRIBUTES = "class attributes wrong"
UNSERIALISABLE = "unserialisable end state"


@dataclass(frozen=True)
class AgentResult:
    passed: bool
    #: The official per-sample process score (category value = round(mean, 3)).
    process: float
    #: The official error type ("" when passed).
    error_type: str = ""
    #: One line per failed check, attribute by attribute.
    differences: tuple[str, ...] = ()
    #: Ground-truth classes the official checker never grades (no end-state entry has that name).
    ungraded: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        if self.passed:
            return "end state matches"
        lines = [f"{self.error_type}:", *(f"  {line}" for line in self.differences)]
        if self.ungraded:
            lines.append(f"  (not graded, as officially: {', '.join(self.ungraded)})")
        lines.append(f"  process score: {self.process:.3f}")
        return "\n".join(lines)


def score_rollout(sample: Sample, rollout: Rollout) -> AgentResult:
    answer = sample.first.answer
    if rollout.end_state is None:  # the official run crashes writing such a result
        detail = rollout.state_error or "end state not serialisable"
        return AgentResult(False, process_score(rollout.process, answer["mile_stone"]), UNSERIALISABLE, (detail,))
    return score_agent(answer["ground_truth"], answer["mile_stone"], rollout.end_state, rollout.process)


def score_agent(
    ground_truth: Any, milestones: Any, end_state: list[dict[str, Any]], process: Sequence[str]
) -> AgentResult:
    """Grade recorded data: ``end_state`` is the official result list after its JSON round trip."""
    valid, error_type, differences, ungraded = check_end_state(ground_truth, end_state)
    score = 1.0 if valid else process_score(process, milestones)
    return AgentResult(valid, score, error_type, tuple(differences), tuple(ungraded))


def check_end_state(ground_truth: Any, end_state: list[dict[str, Any]]) -> tuple[bool, str, list[str], list[str]]:
    """(valid, official error type, human differences, ungraded classes)."""
    expected = ground_truth if isinstance(ground_truth, list) else [ground_truth]
    if len(expected) != len(end_state):
        names = ", ".join(_entry_name(e) for e in end_state) or "nothing (no call was ever executed)"
        return (
            False,
            WRONG_CLASS_COUNT,
            [f"expected {len(expected)} classes ({', '.join(_entry_name(e) for e in expected)}), got {names}"],
            [],
        )
    differences: list[str] = []
    ungraded: list[str] = []
    for entry in expected:
        partner = next((got for got in end_state if set(got) == set(entry)), None)
        if partner is None:
            ungraded.append(_entry_name(entry))
            continue
        differences.extend(_check_class(entry, partner))
    return (not differences, WRONG_ATTRIBUTES if differences else "", differences, ungraded)


def _check_class(expected_entry: dict[str, Any], got_entry: dict[str, Any]) -> list[str]:
    name = next(iter(expected_entry))
    expected = next(iter(expected_entry.values()))
    got = next(iter(got_entry.values()))
    problems = []
    for attr, value in got.items():  # the official loop runs over the END STATE's attributes
        where = f"{name}.{attr}"
        if attr not in expected:
            problems.append(f"{where}: not in the expected state (the official checker fails any such attribute)")
            continue
        want = expected[attr]
        if isinstance(want, dict):
            for key, item in want.items():
                here = f"{where}[{key!r}]"
                if key not in value:
                    problems.append(f"{here}: missing, expected {show(item, 200)}")
                elif item != value[key]:
                    problems.extend(_diff(here, item, value[key]))
        elif want != value:
            problems.extend(_diff(where, want, value))
    return problems


def _diff(where: str, expected: Any, got: Any) -> list[str]:
    """The leaves that differ, for a person (the verdict itself is plain ``==``)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        lines = []
        for key in expected:
            if key not in got:
                lines.append(f"{_path(where, key)}: missing, expected {show(expected[key], 200)}")
            elif expected[key] != got[key]:
                lines.extend(_diff(_path(where, key), expected[key], got[key]))
        for key in got:
            if key not in expected:
                lines.append(f"{_path(where, key)}: unexpected, got {show(got[key], 200)}")
        return lines or [f"{where}: expected {show(expected, 200)}, got {show(got, 200)}"]
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        lines = []
        for i, (want, have) in enumerate(zip(expected, got, strict=True)):
            if want != have:
                lines.extend(_diff(f"{where}[{i}]", want, have))
        return lines
    if isinstance(expected, list) and isinstance(got, list):
        return [f"{where}: expected {len(expected)} item(s) {show(expected, 300)}, got {len(got)} {show(got, 300)}"]
    return [f"{where}: expected {show(expected, 200)}, got {show(got, 200)}"]


def _path(where: str, key: Any) -> str:
    return f"{where}.{key}" if isinstance(key, str) and key.isidentifier() else f"{where}[{key!r}]"


def _entry_name(entry: dict[str, Any]) -> str:
    return "+".join(map(str, entry)) or "{}"


def process_score(process: Sequence[str], milestones: Any) -> float:
    """The official process score of one sample whose end state failed."""
    if milestones and isinstance(milestones[0], list):
        return max(round(_path_score(process, path), 3) for path in milestones)
    return _path_score(process, milestones or [])


def _path_score(process: Sequence[str], path: Sequence[str]) -> float:
    if not path:
        return 1.0
    matched = 0
    cursor = 0
    for stone in path:
        target = stone.strip()
        while cursor < len(process):
            cursor += 1
            if process[cursor - 1].strip() == target:
                matched += 1
                break
    return matched / len(path)
