"""How ``judge_verdicts.json`` was learned: each candidate answer of the NL-assertion judge is given
to the official ``NLAssertionsEvaluator.calculate_reward`` (tau2-bench a2c0247, its own virtualenv,
never in the test suite) in place of the LLM's answer; the official outcome is the reward it
computes, or ``error`` when it raises (the simulation is then not graded).

    python learn_judge.py OUT.json
"""

import json
import sys

import tau2.evaluator.evaluator_nl_assertions as nl_module
from tau2.data_model.message import AssistantMessage, UserMessage
from tau2.data_model.tasks import Task

ASSERTIONS = ["The agent refunds the order", "The agent is polite"]


def result(met, outcome="The agent refunds the order", reasoning="because"):
    return {"expectedOutcome": outcome, "reasoning": reasoning, "metExpectation": met}


def answer(*results):
    return json.dumps({"results": list(results)})


CANDIDATES = [
    answer(result(True), result(True, ASSERTIONS[1])),
    answer(result(True), result(False, ASSERTIONS[1])),
    *[answer(result(value)) for value in ["false", "true", "False", "TRUE", "yes", "no", "on", "off", "y", "n"]],
    *[answer(result(value)) for value in ["t", "f", "1", "0", " true", "true ", "maybe", "", "1.0", "null"]],
    *[answer(result(value)) for value in [None, 1, 0, 2, -1, 1.0, 0.0, 0.5, [], {}, [True], {"v": True}]],
    answer({"expectedOutcome": "x", "reasoning": "r"}),  # no metExpectation
    answer({"expectedOutcome": "x", "metExpectation": True}),  # no reasoning
    answer({"reasoning": "r", "metExpectation": True}),  # no expectedOutcome
    answer(result(True, reasoning=5)),
    answer(result(True, reasoning=None)),
    answer(result(True, outcome=5)),
    answer(result(True, outcome=None)),
    answer(result(True, reasoning=["a"])),
    answer({**result(True), "extra": 1}),
    answer(),  # no result: nothing failed
    json.dumps({}),
    json.dumps({"results": {}}),
    json.dumps({"results": {"a": 1}}),
    json.dumps({"results": "x"}),
    json.dumps({"results": None}),
    json.dumps({"results": [5]}),
    json.dumps([result(True)]),
    json.dumps("true"),
    json.dumps(True),
    '{"results": [{"expectedOutcome": "x", "reasoning": "r", "metExpectation": NaN}]}',
    '{"results": [{"expectedOutcome": "x", "reasoning": "r", "metExpectation": true, "metExpectation": false}]}',
    "```json\n" + answer(result(True)) + "\n```",
    "The agent did well.",
    "",
    "[" * 5000 + "]" * 5000,
    '{"results": [{"expectedOutcome": "x", "reasoning": "r", "metExpectation": true}]} trailing',
]

CURRENT = {}


def fake_generate(model, messages, **kwargs):
    return AssistantMessage(role="assistant", content=CURRENT["content"])


nl_module.generate = fake_generate
task = Task.model_validate(
    {
        "id": "judge",
        "user_scenario": {"instructions": "x"},
        "evaluation_criteria": {"nl_assertions": ASSERTIONS, "reward_basis": ["NL_ASSERTION"]},
    }
)
trajectory = [UserMessage(role="user", content="hello")]
learned = []
for content in CANDIDATES:
    CURRENT["content"] = content
    try:
        reward = nl_module.NLAssertionsEvaluator.calculate_reward(task, trajectory)
        outcome = reward.reward
    except Exception as exc:
        outcome = f"error {type(exc).__name__}"
    learned.append({"content": content, "official": outcome})
with open(sys.argv[1], "w") as out:
    json.dump(learned, out, indent=1)
print(json.dumps([[c["content"][:70], c["official"]] for c in learned], indent=0))
