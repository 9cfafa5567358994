"""The chat request a generic OpenAI-compatible model receives for a single-turn BFCL sample.

Two modes, as the official harness runs an OpenAI-compatible model:

* ``fc``: the function docs become ``tools`` (OpenAI chat-completions style) and the first turn's
  messages are sent unchanged;
* ``prompting``: no tools; the function docs are printed as JSON inside the official default system
  prompt (python call-list return format, plaintext, "classic" wording), which is merged into the
  first message when that is a system message and put in front otherwise.

In both modes the docs first get the official language notes (a sentence appended to every function
description; for Java/JavaScript every parameter becomes a string described by its original type),
because the official generation step loads the data that way. The checker, in contrast, reads the docs
*without* these notes (``BfclSample.functions``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.benchmarks.bfcl.data import BfclSample, language_of

MODES = ("fc", "prompting")

# The official generation default (``--temperature 0.001``). The official OpenAI handler also sends
# ``store: False``, an OpenAI-platform logging switch with no effect on the answer; it is left out so
# that servers which reject unknown fields still work.
GENERATION_SETTINGS: dict[str, Any] = {"temperature": 0.001}

# BFCL type names -> JSON-schema type names, as the official OpenAPI mapping has them.
OPENAPI_TYPE = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
    "byte": "integer",
    "short": "integer",
    "long": "integer",
    "double": "number",
    "char": "string",
    "ArrayList": "array",
    "Array": "array",
    "HashMap": "object",
    "Hashtable": "object",
    "Queue": "array",
    "Stack": "array",
    "Any": "string",
    "String": "string",
    "Bigint": "integer",
}

# The official default system prompt (BFCL, Apache-2.0): configuration
# ret_fmt=python, tool_call_tag=False, func_doc_fmt=json, prompt_fmt=plaintext, style=classic.
# Its pieces are joined exactly as the official template joins them (no space after the persona).
_PERSONA = "You are an expert in composing functions."
_TASK = (
    "You are given a question and a set of possible functions. Based on the question, you will need to make one"
    " or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If"
    " the given question lacks the parameters required by the function, also point it out."
)
_PYTHON_OUTPUT_FORMAT = "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]"
_TOOL_CALL_FORMAT = (
    "You should only return the function calls in your response.\n\nIf you decide to invoke any of the"
    f" function(s), you MUST put it in the format of {_PYTHON_OUTPUT_FORMAT}.  You SHOULD NOT include any other"
    " text in the response."
)
_MULTI_TURN_BEHAVIOUR = (
    "At each turn, you should try your best to complete the tasks requested by the user within the current turn."
    " Continue to output functions to call until you have fulfilled the user's request to the best of your"
    " ability. Once you have no more functions to call, the system will consider the current turn complete and"
    " proceed to the next turn or task."
)
_AVAILABLE_TOOLS = "Here is a list of functions in json format that you can invoke.\n{functions}\n"


@dataclass(frozen=True)
class BfclRequest:
    """Plain data for one chat-completions call: send ``messages`` (and ``tools`` when not None) with
    ``settings`` merged over the run's own generation settings."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    settings: dict[str, Any] = field(default_factory=lambda: dict(GENERATION_SETTINGS))


def language_hint(category: str) -> str:
    language = language_of(category)
    if language == "java":
        return " Note that the provided function is in Java 8 SDK syntax."
    if language == "javascript":
        return " Note that the provided function is in JavaScript syntax."
    return " Note that the provided function is in Python 3 syntax."


def hinted_functions(functions: list[dict[str, Any]], category: str) -> list[dict[str, Any]]:
    """The docs as the official generation step sees them: language sentence appended to each function
    description; for Java/JavaScript each parameter turned into a string whose description names the
    original type (and, for lists and objects, the element type or entry schema that was dropped)."""
    docs = copy.deepcopy(functions)
    language = language_of(category)
    for doc in docs:
        doc["description"] = doc["description"] + language_hint(category)
        if language == "python":
            continue
        name = "Java" if language == "java" else "JavaScript"
        for param in doc["parameters"]["properties"].values():
            kind = param["type"]
            if kind == "any":
                param["description"] += f" This parameter can be of any type of {name} object in string representation."
            else:
                param["description"] += f" This is {name} {kind} type parameter in string representation."
            list_types = ("ArrayList", "Array") if language == "java" else ("array",)
            if kind in list_types:
                param["description"] += (
                    f" The list elements are of type {param['items']['type']}; they are not in string representation."
                )
                del param["items"]
            if language == "javascript" and kind == "dict" and "properties" in param:
                param["description"] += (
                    " The dictionary entries have the following schema; they are not in string representation. "
                    + json.dumps(param["properties"])
                )
                del param["properties"]
            param["type"] = "string"
    return docs


def _openapi_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """Rewrite BFCL parameter types to JSON-schema ones in place, following the official converter: an
    unknown or absent type becomes "string"; "float" keeps a float hint; nesting is followed for object
    properties, array items, arrays of arrays and arrays of objects (one level each, like the original)."""
    for param in properties.values():
        if "type" not in param:
            param["type"] = "string"
        else:
            kind = param["type"]
            if kind == "float":
                param["format"] = "float"
                param["description"] += " This is a float type value."
            param["type"] = OPENAPI_TYPE.get(kind, "string")
        if param["type"] in ("array", "object"):
            if "properties" in param:
                param["properties"] = _openapi_properties(param["properties"])
            elif "items" in param:
                items = param["items"]
                items["type"] = OPENAPI_TYPE[items["type"]]
                if items["type"] == "array" and "items" in items:
                    items["items"]["type"] = OPENAPI_TYPE[items["items"]["type"]]
                elif items["type"] == "object" and "properties" in items:
                    items["properties"] = _openapi_properties(items["properties"])
    return properties


def openai_tools(functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Function docs as chat-completions tools: dots in names become underscores (OpenAI names allow
    neither dots nor spaces), the parameter object gets type "object", types are mapped to JSON schema.
    Other keys (e.g. "response") stay as they are, as the official OpenAI handler leaves them."""
    tools = []
    for doc in copy.deepcopy(functions):
        doc["name"] = doc["name"].replace(".", "_")
        doc["parameters"]["type"] = "object"
        doc["parameters"]["properties"] = _openapi_properties(doc["parameters"]["properties"])
        tools.append({"type": "function", "function": doc})
    return tools


def default_system_prompt(functions: list[dict[str, Any]]) -> str:
    """The official default prompting-mode system prompt listing ``functions`` (already hinted)."""
    tools = _AVAILABLE_TOOLS.format(functions=json.dumps(functions, indent=4))
    return f"{_PERSONA}{_TASK}\n\n{_TOOL_CALL_FORMAT}\n\n{_MULTI_TURN_BEHAVIOUR}\n\n{tools}"


def build_request(sample: BfclSample, mode: str) -> BfclRequest:
    """The request of the first (only) turn of a single-turn sample in ``mode`` ("fc" or "prompting")."""
    if mode not in MODES:
        raise ValueError(f"unknown BFCL mode {mode!r} (expected one of {MODES})")
    messages = copy.deepcopy(sample.question[0])
    functions = hinted_functions(sample.functions, sample.category)
    if mode == "fc":
        tools = openai_tools(functions)
        return BfclRequest(messages=messages, tools=tools or None)
    return BfclRequest(messages=with_system_prompt(messages, functions), tools=None)


def with_system_prompt(messages: list[dict[str, Any]], functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Prompting mode: the first turn's messages with the default system prompt listing ``functions``
    (already hinted) merged into the first message when that is a system message, else put first."""
    messages = copy.deepcopy(messages)
    prompt = default_system_prompt(functions)
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + messages[0]["content"]
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return messages
