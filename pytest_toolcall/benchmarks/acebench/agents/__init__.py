"""ACEBench agent categories: simulated APIs, dispatch, the official loops, oracle and scoring.

Data flows one way: sample -> ``prompts`` -> agent text -> ``parse`` -> ``dispatch`` -> ``envs``
-> end state -> ``scoring``. Model output is only ever parsed and looked up in a declared API
table; it is never evaluated. ``rollout`` runs the official loops, ``oracle`` plays the reference.

Deliberate deviations from the official code (56dd66c), none of which changes a verdict for text
a model would plausibly send:

* a nested keyword call inside an argument runs only for a few pure builtins (``dict``, ``str``,
  ...); the official eval would also run ``open``, ``__import__``, ``print`` or its runner's own
  globals: here they fail as undefined names;
* a dotted call name whose base is bound in the official runner (``json.turn_on_wifi()``) fails
  with a ``NameError`` text instead of an ``AttributeError`` naming the runner's instance (both
  fail, only the multi_step message text differs);
* arithmetic that names anything (``len('ab') + 1``) does not parse, and huge literals hit the
  decoder's caps (``decode.py``), where the official code evaluates them;
* a missing reply (``None``) counts as empty text; an end state that JSON cannot carry fails the
  sample (the official writer crashes); an empty milestone list scores process 1.0 (official crash).
"""

from __future__ import annotations

from pytest_toolcall.benchmarks.acebench.agents.oracle import oracle_agent, oracle_user
from pytest_toolcall.benchmarks.acebench.agents.rollout import (
    AGENT_SAMPLING,
    FINISH,
    MAX_TURNS,
    USER_SAMPLING,
    Message,
    Rollout,
    run_multi_step,
    run_multi_turn,
)
from pytest_toolcall.benchmarks.acebench.agents.scoring import AgentResult, score_agent, score_rollout
from pytest_toolcall.benchmarks.acebench.agents.transcript import format_transcript

__all__ = [
    "AGENT_SAMPLING",
    "FINISH",
    "MAX_TURNS",
    "USER_SAMPLING",
    "AgentResult",
    "Message",
    "Rollout",
    "format_transcript",
    "oracle_agent",
    "oracle_user",
    "run_multi_step",
    "run_multi_turn",
    "score_agent",
    "score_rollout",
]
