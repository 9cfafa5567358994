"""The chat messages the official agent loops send to the agent and to the user simulator.

Texts come from ``prompts.json`` by file and constant (the multi_step and multi_turn agent files
define the same constant names with different texts). ``{functions}`` is Python's ``str()`` of the
sample's function list; ``{history}`` is the loop's running history string.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_toolcall.benchmarks.acebench.prompts import PROMPT_FILE, Prompts

STEP_AGENT_FILE = "model_inference/multi_step/APIModel_agent.py"
TURN_AGENT_FILE = "model_inference/multi_turn/APIModel_agent.py"
USER_FILE = "model_inference/multi_turn/APIModel_user.py"

#: The official API runner builds its multi_step agent without passing the language, so the agent
#: gets the zh prompt pair even for en data. Pass this as ``prompt_lang`` to reproduce that.
OFFICIAL_API_STEP_PROMPT_LANG = "zh"

#: The first line the user simulator receives (hard-coded in ``APIModel_user.py``, not in prompts.json).
USER_OPENING_REQUEST = {"en": "Is there anything you need help with today?", "zh": "今天有什么需要帮助的吗？"}

Messages = list[dict[str, str]]


def _pair(system: str, user: str, merge: bool) -> Messages:
    # Official: model names containing "o1" get system and user text as one user message.
    if merge:
        return [{"role": "user", "content": system + "\n\n" + user}]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def step_agent_messages(
    prompts: Prompts, lang: str, functions: Sequence[Any], history: str, *, merge: bool = False
) -> Messages:
    """agent_multi_step: the system prompt and the functions + history user message."""
    suffix = lang.upper()
    # The official runner formats the system text with time="" (it has no placeholder).
    system = prompts.text(STEP_AGENT_FILE, f"MULTI_TURN_AGENT_PROMPT_SYSTEM_{suffix}").format(time="")
    user = prompts.text(STEP_AGENT_FILE, f"MULTI_TURN_AGENT_PROMPT_USER_{suffix}").format(
        functions=list(functions), history=history
    )
    return _pair(system, user, merge)


def turn_agent_messages(
    prompts: Prompts,
    lang: str,
    functions: Sequence[Any],
    involved_classes: Sequence[str],
    history: str,
    *,
    merge: bool = False,
) -> Messages:
    """agent_multi_turn: system = agent prompt + TRAVEL prompt (Travel) + BASE prompt (BaseApi)."""
    suffix = lang.upper()
    system = prompts.text(TURN_AGENT_FILE, f"MULTI_TURN_AGENT_PROMPT_SYSTEM_{suffix}")
    if "Travel" in involved_classes:
        system += prompts.text(PROMPT_FILE[lang], f"TRAVEL_PROMPT_{suffix}")
    if "BaseApi" in involved_classes:
        system += prompts.text(PROMPT_FILE[lang], f"BASE_PROMPT_{suffix}")
    user = prompts.text(TURN_AGENT_FILE, f"MULTI_TURN_AGENT_PROMPT_USER_{suffix}").format(
        functions=list(functions), history=history
    )
    return _pair(system, user, merge)


def user_seed_messages(prompts: Prompts, lang: str, involved_classes: Sequence[str], question: str) -> Messages:
    """The user simulator's first request: its role prompt (the sample's question as instruction)
    and the fixed opening line. Later turns append its replies (role ``system``) and the agent's
    messages (role ``user``)."""
    suffix = lang.upper()
    if "BaseApi" in involved_classes:
        constant = f"SYSTEM_PROMPT_BASE_{suffix}"
    elif "Travel" in involved_classes:
        constant = f"SYSTEM_PROMPT_TRAVEL_{suffix}"
    else:  # the official code has no prompt for this case (it crashes)
        raise ValueError(f"no user-simulator prompt for classes {list(involved_classes)} (needs BaseApi or Travel)")
    system = prompts.text(USER_FILE, constant).format(instruction=question)
    return [{"role": "system", "content": system}, {"role": "user", "content": USER_OPENING_REQUEST[lang]}]


def strip_speaker(text: str) -> str:
    """What the user simulator sees of an agent message: one leading ``user:`` or ``agent:`` removed."""
    for prefix in ("user:", "agent:"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text
