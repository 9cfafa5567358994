"""The official NL-assertion judge (tau2 1.0.1 ``NLAssertionsEvaluator``) on a model of the run:
the official prompt, temperature 0, the answer read as the official JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from pytest_toolcall.api import ChatRequest, Model, RequestError, door
from pytest_toolcall.api.text import clip, inert, one_line
from pytest_toolcall.benchmarks.tau2.prompts import JUDGE_SYSTEM_PROMPT, JUDGE_USER_PROMPT


def judge_messages(messages: Sequence[dict[str, Any]], assertions: list[str]) -> list[dict[str, Any]]:
    # Every message as ``role: content`` (a tool call's empty content reads "None"); the assertions
    # as Python prints a list, as officially.
    trajectory = "\n".join(f"{m.get('role')}: {m.get('content')}" for m in messages)
    user = JUDGE_USER_PROMPT.format(trajectory=trajectory, assertions=assertions)
    return [{"role": "system", "content": JUDGE_SYSTEM_PROMPT}, {"role": "user", "content": user}]


class _Check(BaseModel):
    """The official ``NLAssertionCheck``: the judge's answer is read into it, so that its coercions
    are the official ones (``"false"`` is false, ``1`` true, ``"maybe"`` or ``2`` not a verdict)."""

    nl_assertion: str
    met: bool
    justification: str


def parse_verdicts(content: str | None) -> list[tuple[str, bool, str]]:
    """The judge's verdicts as the official evaluator reads them: its JSON through the door (bounded,
    secrets masked), each result into the official typed model. What the official code cannot read
    (not JSON, a field missing or of a type it does not coerce) raises there: the simulation is not
    graded, and here it is a ``RequestError`` of one line, never a pass."""
    content = door.redact(content)  # (the model client masks its own key; this, every key of the run)
    try:
        data = door.loads(content if isinstance(content, str) else "", "the judge's answer")
        results = data.get("results", [])  # (officially: a dict's ``get``, so not a dict raises)
        return [
            (check.nl_assertion, check.met, check.justification)
            for check in (
                _Check(nl_assertion=r["expectedOutcome"], met=r["metExpectation"], justification=r["reasoning"])
                for r in results
            )
        ]
    except door.Refused as exc:
        why = str(exc)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = {"nl_assertion": "expectedOutcome", "met": "metExpectation", "justification": "reasoning"}
        name = field.get(str(first["loc"][0]), str(first["loc"][0])) if first["loc"] else "a result"
        why = f"{name}: {first['msg']}, got {clip(repr(first.get('input')), 60)}"
    except KeyError as exc:
        why = f"a result has no {exc}"
    except (TypeError, AttributeError) as exc:
        why = f"not the official shape ({type(exc).__name__}: {exc})"
    # The official evaluator raises too: the simulation is not graded. The answer is quoted inert.
    raise RequestError(
        f"the judge's answer is not the official JSON ({inert(why, 200)}): {one_line(inert(str(content)[:200]), 200)}"
    )


def model_judge(model: Model) -> Any:
    def judge(messages: Sequence[dict[str, Any]], assertions: list[str]) -> list[tuple[str, bool, str]]:
        request = ChatRequest(
            judge_messages(messages, assertions),
            sampling={"temperature": 0.0, "max_tokens": None},
        )
        return parse_verdicts(model.submit(request).result().content)

    return judge
