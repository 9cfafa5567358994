"""The official prompts (tau2 1.0.1): the agent's system prompt, the user simulator's, the judge's.

The texts are the official ones character for character (``tests/data/tau2/prompts.json`` holds
what the official code builds for two tasks, and a test compares).
"""

from __future__ import annotations

import functools
import textwrap
from typing import Any

from pytest_toolcall.benchmarks.tau2.environment import DATA, policy

AGENT_INSTRUCTION = """You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only."""

AGENT_SYSTEM_PROMPT = """<instructions>
{agent_instruction}
</instructions>
<policy>
{domain_policy}
</policy>"""

USER_SYSTEM_PROMPT = """{global_user_sim_guidelines_with_persona}

<scenario>
{instructions}
</scenario>"""

#: The agent's first message, which the official orchestrator sends before anyone speaks.
GREETING = "Hi! How can I help you today?"
STOP, TRANSFER, OUT_OF_SCOPE = "###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"

# The judge's prompt keeps the indentation of the official source (a triple-quoted literal inside
# a method): the model is sent those spaces, also on the two lines that hold only spaces (``~`` here).
JUDGE_SYSTEM_PROMPT = """
        TASK
        - You will be given a list of expected outcomes and a conversation that was collected during a test case run.
        - The conversation is between an agent and a customer.
        - Your job is to evaluate whether the agent satisfies each of the expected outcomes.
        - Grade each expected outcome individually.

        FORMAT
        - Your response should be a JSON object with the following fields:
        - `reasoning`: a short explanation for your classification
        - `metExpectation`: `true` if the agent satisfies the expected outcomes, `false` otherwise
        - `expectedOutcome`: repeat the expectation from the input that you are grading
~
        Example response structure:
        {
            "results": [
                {
                    "expectedOutcome": "<one of the expected outcomes from the input>",
                    "reasoning": "<reasoning trace>",
                    "metExpectation": <false or true>,
                }
            ]
        }
        """.replace("\n~\n", "\n        \n")

JUDGE_USER_PROMPT = """
        conversation:
        {trajectory}
~
        expectedOutcomes:
        {assertions}
        """.replace("\n~\n", "\n        \n")


def agent_system_prompt(domain: str, task: dict[str, Any] | None = None, retrieval: str = "bm25") -> str:
    """The agent's system prompt: banking_knowledge's policy is its retrieval configuration's (and,
    for ``golden_retrieval``, the task's)."""
    if domain == "banking_knowledge":
        from pytest_toolcall.benchmarks.tau2.knowledge import policy as knowledge_policy

        text = knowledge_policy(retrieval, task)
    else:
        text = policy(domain)
    return AGENT_SYSTEM_PROMPT.format(domain_policy=text, agent_instruction=AGENT_INSTRUCTION)


#: The domains whose user simulator has tools of its own (telecom's device): its prompt then has
#: the official guidelines for tools.
USER_TOOL_DOMAINS = ("telecom",)


@functools.cache
def _guidelines(use_tools: bool = False) -> str:
    # The persona guidelines of the default persona are empty.
    name = "simulation_guidelines_tools.md" if use_tools else "simulation_guidelines.md"
    text = (DATA / "user_simulator" / name).read_text(encoding="utf-8")
    return text.replace("<PERSONA_GUIDELINES>", "")


def user_system_prompt(task: dict[str, Any], has_tools: bool | None = None) -> str:
    """The user simulator's prompt: the guidelines for tools when it is given tools (``has_tools``;
    when not said, as the telecom tasks, whose user always has its phone, name their domain)."""
    scenario = task["user_scenario"]
    instructions = scenario.get("instructions")
    domain = instructions.get("domain") if isinstance(instructions, dict) else None
    use_tools = domain in USER_TOOL_DOMAINS if has_tools is None else has_tools
    return USER_SYSTEM_PROMPT.format(
        global_user_sim_guidelines_with_persona=_guidelines(use_tools),
        instructions=scenario_text(scenario),
    )


def scenario_text(scenario: dict[str, Any]) -> str:
    """``str(UserScenario)``: the persona, then the instructions (structured ones field by field)."""
    lines = []
    if scenario.get("persona") is not None:
        lines += ["Persona:", textwrap.indent(scenario["persona"], "\t")]
    lines += ["Instructions:", textwrap.indent(_instructions_text(scenario["instructions"]), "\t")]
    return "\n".join(lines)


def _instructions_text(instructions: Any) -> str:
    if isinstance(instructions, str):
        return instructions
    tab = "\t"
    lines = [f"Domain: {instructions['domain']}"]
    lines.append(f"Reason for call:\n{textwrap.indent(instructions['reason_for_call'], tab)}")
    if instructions.get("known_info") is not None:
        lines.append(f"Known info:\n{textwrap.indent(instructions['known_info'], tab)}")
    if instructions.get("unknown_info") is not None:
        lines.append(f"Unknown info:\n{textwrap.indent(instructions['unknown_info'], tab)}")
    lines.append(f"Task instructions:\n{textwrap.indent(instructions['task_instructions'], tab)}")
    return "\n".join(lines)


def is_user_stop(content: str | None) -> bool:
    return content is not None and any(token in content for token in (STOP, TRANSFER, OUT_OF_SCOPE))
