"""The trajectory modes × argument modes, and ``final``, on held-out runs: each verdict below was
derived by hand from the definitions (docs/cases.md), not by running the code.

Listed calls L = [A(x=1), B(y=2)]. The runs:
  same      [A(x=1), B(y=2)]
  swapped   [B(y=2), A(x=1)]
  short     [A(x=1)]                     B is missing
  longer    [A(x=1), B(y=2), C()]        one call more
  more_args [A(x=1, z=3), B(y=2)]        A has an argument more
  less_args [A(), B(y=2)]                A lacks x
  other_val [A(x=9), B(y=2)]             x differs
  twice_a   [A(x=1), A(x=1)]             A twice, no B
"""

from __future__ import annotations

import json

import pytest

from pytest_toolcall import assert_trajectory
from pytest_toolcall.benchmarks.cases.steps import Transcript
from pytest_toolcall.benchmarks.cases.trajectory import judge_final, judge_trajectory
from pytest_toolcall.core.protocol.types import ChatResponse


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": json.dumps(arguments)}


LISTED = [{"name": "A", "arguments": {"x": 1}}, {"name": "B", "arguments": {"y": 2}}]
RUNS = {
    "same": [call("A", x=1), call("B", y=2)],
    "swapped": [call("B", y=2), call("A", x=1)],
    "short": [call("A", x=1)],
    "longer": [call("A", x=1), call("B", y=2), call("C")],
    "more_args": [call("A", x=1, z=3), call("B", y=2)],
    "less_args": [call("A"), call("B", y=2)],
    "other_val": [call("A", x=9), call("B", y=2)],
    "twice_a": [call("A", x=1), call("A", x=1)],
}
P = None  # passes
MISSING, EXTRA, VALUE, ORDER = "missing_call", "extra_call", "wrong_value", "wrong_order"

# (match, args) -> the verdict of each run: None passes, else the failure kind.
TABLE = {
    ("strict", "exact"): {
        "same": P, "swapped": ORDER, "short": MISSING, "longer": EXTRA,
        "more_args": VALUE, "less_args": VALUE, "other_val": VALUE, "twice_a": MISSING,
    },
    ("unordered", "exact"): {
        "same": P, "swapped": P, "short": MISSING, "longer": EXTRA,
        "more_args": VALUE, "less_args": VALUE, "other_val": VALUE, "twice_a": MISSING,
    },
    # superset: the run includes the listed calls (more calls allowed)
    ("superset", "exact"): {
        "same": P, "swapped": P, "short": MISSING, "longer": P,
        "more_args": VALUE, "less_args": VALUE, "other_val": VALUE, "twice_a": MISSING,
    },
    # subset: the run's calls are among the listed ones (fewer allowed), each listed call used once
    ("subset", "exact"): {
        "same": P, "swapped": P, "short": P, "longer": EXTRA,
        "more_args": VALUE, "less_args": VALUE, "other_val": VALUE, "twice_a": EXTRA,
    },
    # args superset: the run's arguments include the listed ones
    ("strict", "superset"): {
        "same": P, "swapped": ORDER, "short": MISSING, "longer": EXTRA,
        "more_args": P, "less_args": VALUE, "other_val": VALUE, "twice_a": MISSING,
    },
    # args subset: the run's arguments are among the listed ones
    ("strict", "subset"): {
        "same": P, "swapped": ORDER, "short": MISSING, "longer": EXTRA,
        "more_args": VALUE, "less_args": P, "other_val": VALUE, "twice_a": MISSING,
    },
    ("strict", "ignore"): {
        "same": P, "swapped": ORDER, "short": MISSING, "longer": EXTRA,
        "more_args": P, "less_args": P, "other_val": P, "twice_a": MISSING,
    },
    ("unordered", "ignore"): {
        "same": P, "swapped": P, "short": MISSING, "longer": EXTRA,
        "more_args": P, "less_args": P, "other_val": P, "twice_a": MISSING,
    },
    ("superset", "ignore"): {
        "same": P, "swapped": P, "short": MISSING, "longer": P,
        "more_args": P, "less_args": P, "other_val": P, "twice_a": MISSING,
    },
    ("subset", "ignore"): {
        "same": P, "swapped": P, "short": P, "longer": EXTRA,
        "more_args": P, "less_args": P, "other_val": P, "twice_a": EXTRA,
    },
    ("unordered", "superset"): {
        "same": P, "swapped": P, "short": MISSING, "longer": EXTRA,
        "more_args": P, "less_args": VALUE, "other_val": VALUE, "twice_a": MISSING,
    },
    ("subset", "subset"): {
        "same": P, "swapped": P, "short": P, "longer": EXTRA,
        "more_args": VALUE, "less_args": P, "other_val": VALUE, "twice_a": EXTRA,
    },
    ("unordered", "subset"): {
        "same": P, "swapped": P, "short": MISSING, "longer": EXTRA,
        "more_args": VALUE, "less_args": P, "other_val": VALUE, "twice_a": MISSING,
    },
    ("subset", "superset"): {
        "same": P, "swapped": P, "short": P, "longer": EXTRA,
        "more_args": P, "less_args": VALUE, "other_val": VALUE, "twice_a": EXTRA,
    },
    ("superset", "subset"): {
        "same": P, "swapped": P, "short": MISSING, "longer": P,
        "more_args": VALUE, "less_args": P, "other_val": VALUE, "twice_a": MISSING,
    },
    ("superset", "superset"): {
        "same": P, "swapped": P, "short": MISSING, "longer": P,
        "more_args": P, "less_args": VALUE, "other_val": VALUE, "twice_a": MISSING,
    },
}  # fmt: skip


@pytest.mark.parametrize(("match", "args", "run"), [(m, a, r) for (m, a), row in TABLE.items() for r in row])
def test_mode_table(match: str, args: str, run: str) -> None:
    outcome = judge_trajectory({"calls": LISTED, "match": match, "args": args}, RUNS[run])
    assert outcome.kind == TABLE[(match, args)][run], "\n".join(outcome.lines)
    if outcome.kind is not None:
        assert outcome.lines[0].startswith(f"trajectory (match {match}, args {args}): expected [A, B]; got [")


def test_every_mode_pair_is_in_the_table() -> None:
    from pytest_toolcall.benchmarks.cases.trajectory import ARGS_MODES, MATCH_MODES

    assert set(TABLE) == {(m, a) for m in MATCH_MODES for a in ARGS_MODES}


@pytest.mark.parametrize(
    ("listed", "run", "match", "kind"),
    [
        ([], [], "strict", P),
        ([], [call("A")], "strict", EXTRA),
        ([], [call("A")], "superset", P),  # nothing listed: every run includes it
        ([], [call("A")], "subset", EXTRA),
        ([{"name": "A"}], [], "subset", P),  # no call is among any list
        ([{"name": "A"}], [], "superset", MISSING),
    ],
)
def test_empty_sides(listed: list, run: list, match: str, kind: str | None) -> None:
    assert judge_trajectory({"calls": listed, "match": match}, run).kind == kind


def test_matchers_in_listed_arguments_and_a_two_way_choice_solved_by_matching() -> None:
    listed = [{"name": "A", "arguments": {"x": {"$one_of": [1, 2]}}}, {"name": "A", "arguments": {"x": 1}}]
    # Greedy would give the run's first call (x=1) to the first listed call and leave x=2 unmatched.
    assert judge_trajectory({"calls": listed, "match": "unordered"}, [call("A", x=1), call("A", x=2)]).kind is None
    assert judge_trajectory({"calls": listed, "match": "strict"}, [call("A", x=1), call("A", x=2)]).kind == ORDER


def test_the_diff_says_what_differed() -> None:
    outcome = judge_trajectory({"calls": LISTED}, RUNS["other_val"])
    assert outcome.lines == (
        "trajectory (match strict, args exact): expected [A, B]; got [A, B]",
        "run call 1 A (listed call 1): A.x: expected 1, got 9",
    )
    outcome = judge_trajectory({"calls": LISTED, "match": "unordered"}, RUNS["twice_a"])
    assert outcome.lines[1:] == (
        'missing listed call 2: B({"y": 2})',
        'run call 2 is not among the listed calls: A({"x": 1})',
    )


def test_final_answer() -> None:
    assert judge_final({"$regex": "(?s).*09:00.*"}, "It is\n09:00 in Tokyo.", False, 3).kind is None
    assert judge_final("09:00", "It is 09:00.", False, 3).kind == "wrong_final"
    spent = judge_final("09:00", None, True, 3)
    assert (spent.kind, spent.lines) == ("step_limit", ("final: the step budget (3) was spent before a text answer",))


def test_assert_trajectory_raises_with_the_diff_and_the_run() -> None:
    run = Transcript([{"role": "user", "content": "go"}], steps=2)
    run.responses = [ChatResponse(None, "tool_calls", [{"id": "1", **call("A", x=9)}]), ChatResponse("done")]
    run.calls = [{"step": 1, "id": "1", **call("A", x=9), "result": "ok", "is_error": False}]
    assert_trajectory(run, [{"name": "A"}], args="ignore", final="done")
    with pytest.raises(AssertionError) as excinfo:
        assert_trajectory(run, [{"name": "A", "arguments": {"x": 1}}], final="done")
    message = str(excinfo.value)
    assert message.startswith("wrong_value: trajectory failed\ntrajectory:\n")
    assert "A.x: expected 1, got 9" in message and 'step 1: A({"x": 9}) -> ok' in message
    with pytest.raises(ValueError, match="invalid expectation"):
        assert_trajectory(run, [{"name": "A"}], match="sideways")
