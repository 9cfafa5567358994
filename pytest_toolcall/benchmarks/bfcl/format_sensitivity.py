"""BFCL V4 format sensitivity: 200 single-turn entries asked in each of the 26 official prompt formats
(prompting mode only), judged by the official checker after the format's own decoder; the metric is
the spread of accuracy across the formats (``metrics.format_sensitivity_fields``).

A format ("configuration") is the return format the system prompt asks for (a python call list,
JSON, verbose or concise XML), whether the calls are wrapped in ``<TOOLCALL>`` tags, the format the
function docs are printed in (python, XML, JSON), plaintext or markdown headings, and the classic or
experimental wording: the 4 x 2 x 3 plaintext classic ones, plus markdown and experimental variants
of the default. The entries are those listed in ``BFCL_v4_format_sensitivity.json``, in the order of
their categories' files; ``n`` below is the
official running index (entry x 26 + format); the unit's id is the official one,
``format_sensitivity_<n>:<format>:<entry id>``.

As the official generation step does, the function docs of these entries carry the language note
twice (once from their own category, once as format-sensitivity entries); the checker reads the
docs without notes. XML replies are read with the standard library's parser (no external entities;
expat refuses entity-expansion attacks); typed values (``array``, ``dict`` ...) are read as Python
literals, never evaluated.
"""

from __future__ import annotations

import ast
import json
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolcall.benchmarks.bfcl.checker import Verdict, check_decoded
from pytest_toolcall.benchmarks.bfcl.data import DATA_DIR, FILE_PREFIX, BfclSample, Problem, load_category
from pytest_toolcall.benchmarks.bfcl.decode import DecodeError, is_call_list, parse_python_calls
from pytest_toolcall.benchmarks.bfcl.request import hinted_functions

CATEGORY = "format_sensitivity"
RETURN_FORMATS = ("python", "json", "verbose_xml", "concise_xml")
DOC_FORMATS = ("python", "xml", "json")


def all_formats() -> list[str]:
    """The 26 official configurations, in the official order."""
    formats = [
        f"ret_fmt={ret}&tool_call_tag={tag}&func_doc_fmt={doc}&prompt_fmt=plaintext&style=classic"
        for ret in RETURN_FORMATS
        for tag in ("True", "False")
        for doc in DOC_FORMATS
    ]
    formats.append("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=markdown&style=classic")
    formats.append("ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&prompt_fmt=plaintext&style=experimental")
    return formats


_FORMAT = re.compile(
    r"^ret_fmt=(?P<ret>python|json|verbose_xml|concise_xml)&tool_call_tag=(?P<tag>True|False)"
    r"&func_doc_fmt=(?P<doc>python|xml|json)&prompt_fmt=(?P<prompt>plaintext|markdown)"
    r"&style=(?P<style>classic|experimental)$"
)


@dataclass(frozen=True)
class PromptFormat:
    return_format: str
    tool_call_tag: bool
    doc_format: str
    prompt_format: str
    style: str

    @classmethod
    def parse(cls, text: str) -> PromptFormat:
        match = _FORMAT.match(text)
        if match is None:
            raise ValueError(f"not a format-sensitivity configuration: {text!r}")
        return cls(match["ret"], match["tag"] == "True", match["doc"], match["prompt"], match["style"])


@dataclass(frozen=True)
class FormatSample:
    """One entry asked in one format. ``entry`` is the single-turn sample it copies."""

    id: str
    category: str
    format: str
    entry: BfclSample
    source: str | None = field(default=None, compare=False)

    @property
    def ground_truth(self) -> Any:
        return self.entry.ground_truth


# --- the system prompt (the official texts) -------------------------------------------------------

_OUTPUT_FORMAT = {
    "python": "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]",
    "json": '```json\n[{"function":"func_name1","parameters":{"param1":"value1","param2":"value2"...}},'
    '{"function":"func_name2","parameters":{"param":"value"}}]\n```',
    "verbose_xml": '<functions><function name="func_name1"><params><param name="param1" value="value1" '
    'type="type1"/><param name="param2" value="value2" type="type2"/>...</params></function><function '
    'name="func_name2"><params><param name="param3" value="value3" type="type3"/></params></function></functions>',
    "concise_xml": '<functions><function name="func_name1"><param name="param1" type="type1">value1</param>'
    '<param name="param2" type="type2">value2</param>...</function><function name="func_name2"><param '
    'name="param3" type="type3">value</param></function></functions>',
}
_XML_TYPES = (
    "The type fields of the parameters in your function calls must be one of: string, integer, float, boolean, "
    "array, dict, or tuple."
)
_PARAM_TYPES = {"python": "", "json": "", "verbose_xml": _XML_TYPES, "concise_xml": _XML_TYPES}
_STYLES = {
    "classic": {
        "persona": "You are an expert in composing functions.",
        "task": "You are given a question and a set of possible functions. Based on the question, you will need to "
        "make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it "
        "out. If the given question lacks the parameters required by the function, also point it out.",
        "no_tag": "You should only return the function calls in your response.\n\nIf you decide to invoke any of the "
        "function(s), you MUST put it in the format of {output_format}. {param_types} You SHOULD NOT include any other "
        "text in the response.",
        "tag": "You should only return the function calls in the <TOOLCALL> section. If you decide to invoke any of "
        "the function(s), you MUST put it in the format of <TOOLCALL>{output_format}</TOOLCALL>. {param_types} You "
        "SHOULD NOT include any other text in the response.",
        "multiturn": "At each turn, you should try your best to complete the tasks requested by the user within the "
        "current turn. Continue to output functions to call until you have fulfilled the user's request to the best "
        "of your ability. Once you have no more functions to call, the system will consider the current turn "
        "complete and proceed to the next turn or task.",
        "tools": "Here is a list of functions in {format} format that you can invoke.\n{functions}\n",
    },
    "experimental": {
        "persona": "You are an expert in generating structured function calls.",
        "task": "You are given a user query and a set of available functions. Your task is to produce one or more "
        "function/tool calls to fulfill the user's request. If no suitable function exists, or required parameters "
        "are missing, clearly indicate this.",
        "no_tag": "Respond with only the function calls.\n\nYou MUST format it exactly as {output_format}. "
        "{param_types} Do NOT include any other text.",
        "tag": "Return only the function calls enclosed in <TOOLCALL> tags.\n\nYou MUST format it exactly as "
        "<TOOLCALL>{output_format}</TOOLCALL>. {param_types} Do NOT include any other text.",
        "multiturn": "At every turn, aim to complete the user's tasks within that turn. Continue emitting function "
        "calls until the request is satisfied to the best of your ability. Once no more calls are needed, the system "
        "will proceed to the next turn.",
        "tools": "Below is a list of callable functions in the {format} style:\n{functions}\n",
    },
}
_TEMPLATES = {
    "plaintext": "{persona}{task}\n\n{tool_call_format}\n\n{multiturn_behavior}\n\n{available_tools}",
    "markdown": "{persona}\n\n## Task\n{task}\n\n## Tool Call Format\n{tool_call_format}\n\n## Multi-turn Behavior\n"
    "{multiturn_behavior}\n\n## Available Tools\n{available_tools}",
}


def system_prompt(config: str, functions: list[dict[str, Any]]) -> str:
    """The official system prompt of a configuration listing ``functions`` (already hinted)."""
    fmt = PromptFormat.parse(config)
    style = _STYLES[fmt.style]
    call_format = style["tag" if fmt.tool_call_tag else "no_tag"].format(
        output_format=_OUTPUT_FORMAT[fmt.return_format], param_types=_PARAM_TYPES[fmt.return_format]
    )
    tools = style["tools"].format(format=fmt.doc_format, functions=function_docs(functions, fmt.doc_format))
    return _TEMPLATES[fmt.prompt_format].format(
        persona=style["persona"],
        task=style["task"],
        tool_call_format=call_format,
        multiturn_behavior=style["multiturn"],
        available_tools=tools,
    )


def function_docs(functions: list[dict[str, Any]], doc_format: str) -> str:
    if doc_format == "json":
        return json.dumps(functions, indent=4)
    if doc_format == "xml":
        return "\n".join(_xml_doc(doc) for doc in functions)
    return "\n\n".join(part for doc in functions for part in (_python_doc(doc), "\n"))


def _xml_param(name: str, meta: dict[str, Any], required: list[str] | None, level: int) -> str:
    indent = " " * level * 2
    kind = meta.get("type", "string")
    description = meta.get("description", "")
    is_required = "true" if required is None or name in required else "false"
    if "enum" in meta:
        description += f" Enum values: {meta['enum']}."
    if "items" in meta and "type" in meta["items"]:
        kind = f"{kind}[{meta['items']['type']}]"
    elif "additionalProperties" in meta:
        kind = f"{kind}[{meta['additionalProperties'].get('type', 'string')}]"
    attributes = [f'name="{name}", type="{kind}", required="{is_required}"']
    if "default" in meta:
        attributes.append(f'default="{meta["default"]!r}"')
    # The official tag drops every comma of its attributes (defaults and names included).
    opening = f"{indent}<param " + " ".join(attributes).replace(",", "") + ">\n"
    parts = [opening, f"{indent}  <desc>{description}</desc>\n"]
    if "properties" in meta:
        parts.append(f"{indent}  <params>\n")
        for child, child_meta in meta["properties"].items():
            parts.append(_xml_param(child, child_meta, meta.get("required"), level + 2))
        parts.append(f"{indent}  </params>\n")
    parts.append(f"{indent}</param>\n")
    return "".join(parts)


def _xml_doc(doc: dict[str, Any]) -> str:
    schema = doc["parameters"]
    text = f'<function name="{doc["name"]}">\n  <desc>{doc.get("description", "")}</desc>\n  <params>\n'
    for name, meta in schema.get("properties", {}).items():
        text += _xml_param(name, meta, schema.get("required"), 2)
    return text + "  </params>\n</function>\n"


def _python_type(meta: dict[str, Any]) -> str:
    kind = meta.get("type", "string")
    primitive = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}
    if kind in primitive:
        return primitive[kind]
    if kind in {"array", "list", "tuple"} and "items" in meta:
        return f"list[{_python_type(meta['items'])}]"
    if kind in {"object", "dict"}:
        if "additionalProperties" in meta:
            return f"dict[str, {_python_type(meta['additionalProperties'])}]"
        return "dict"
    return str(kind)


def _python_param(name: str, meta: dict[str, Any], depth: int) -> list[str]:
    description = meta.get("description", "")
    if "enum" in meta:
        description += f" Enum values: {meta['enum']}."
    default = f", default={meta['default']!r}" if "default" in meta else ""
    lines = [f"{' ' * 8}{' ' * 4 * depth}{name} ({_python_type(meta)}{default}): {description}\n"]
    for child, child_meta in meta.get("properties", {}).items():
        lines += _python_param(child, child_meta, depth + 1)
    return lines


def _python_doc(doc: dict[str, Any]) -> str:
    lines = [f"# Function: {doc['name']}\n", '    """\n', f"    {doc.get('description', '')}\n\n"]
    properties = doc.get("parameters", {}).get("properties", {})
    if properties:
        lines.append("    Args:\n")
        for name, meta in properties.items():
            lines += _python_param(name, meta, 0)
    lines.append('    """\n')
    return "".join(lines)


def build_messages(sample: FormatSample) -> list[dict[str, Any]]:
    """The request's messages: the entry's first turn with the format's system prompt merged into
    its system message or put first; the docs carry the language note twice (see the module doc)."""
    functions = hinted_functions(hinted_functions(sample.entry.functions, sample.entry.category), CATEGORY)
    prompt = system_prompt(sample.format, functions)
    messages = [dict(message) for message in sample.entry.question[0]]
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + messages[0]["content"]
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return messages


# --- decoding and the verdict ---------------------------------------------------------------------


def decode(text: Any, config: str) -> Any:
    """The official prompting decoder of a configuration: trim backticks, newlines and spaces, wrap
    in brackets, take the ``<TOOLCALL>`` section when the format asks for tags, then read the return
    format. Raises :class:`DecodeError` where the official decoder raises."""
    fmt = PromptFormat.parse(config)
    if not isinstance(text, str):
        raise DecodeError(f"no text to decode ({type(text).__name__})")
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text += "]"
    if fmt.tool_call_tag:
        match = re.search(r"<TOOLCALL>(.*?)</TOOLCALL>", text, re.DOTALL)
        if match is None:
            raise DecodeError("no <TOOLCALL> section")
        text = match.group(1).strip()
    try:
        if fmt.return_format == "python":
            return parse_python_calls(text)
        if fmt.return_format == "json":
            whole = re.search(r"\[.*\]", text, re.DOTALL)
            return _json_calls(whole.group(0) if whole else text)
        found = re.search(r"<functions>(.*?)</functions>", text, re.DOTALL)
        if found is None:
            raise DecodeError("no <functions> element")
        return _xml_calls(found.group(0), verbose=fmt.return_format == "verbose_xml")
    except DecodeError:
        raise
    except (Exception, RecursionError) as exc:  # the official readers fail on odd input in many ways
        raise DecodeError(f"{type(exc).__name__}: {exc}") from exc


def _json_calls(text: str) -> list[dict[str, Any]]:
    array = re.search(r"\[\s*{.*?}\s*(?:,\s*{.*?}\s*)*\]", text, re.DOTALL)
    if array:
        text = array.group(0)
    try:
        items = json.loads(text)
    except json.JSONDecodeError:
        return []  # officially: no calls (then judged as such), not a decoding failure
    return [{item["function"]: item["parameters"]} for item in items if isinstance(item, dict)]


def _typed(raw: str, kind: str) -> Any:
    if kind == "string":
        return raw
    if kind == "integer":
        return int(raw)
    if kind == "float":
        return float(raw)
    if kind == "boolean":
        return raw.lower() == "true"
    if kind == "null":
        return None
    if kind in ("array", "tuple", "object", "dict"):
        return ast.literal_eval(raw)  # literals only: nothing is run
    return raw


def _xml_calls(text: str, *, verbose: bool) -> list[dict[str, Any]]:
    root = ElementTree.fromstring(text)
    calls = []
    for function in root.findall("function"):
        name = function.attrib["name"]
        params: dict[str, Any] = {}
        if verbose:
            container = function.find("params")
            for param in container.findall("param") if container is not None else function.findall("param"):
                params[param.attrib.get("name")] = _typed(  # type: ignore[index]
                    param.attrib.get("value", ""), param.attrib.get("type", "string")
                )
        else:
            for param in function.findall("param"):
                params[param.attrib["name"]] = _typed((param.text or "").strip(), param.attrib.get("type", "string"))
        calls.append({name: params})
    return calls


def check(sample: FormatSample, text: Any) -> Verdict:
    """The official verdict: decoder failure, wrong output format, or the AST checker's, judged as
    the entry's own category (the checker picks its rules from the entry id)."""
    try:
        decoded = decode(text, sample.format)
    except DecodeError as exc:
        return Verdict(False, "ast_decoder:decoder_failed", [f"cannot decode the reply: {exc}"])
    if not is_call_list(decoded):
        return Verdict(False, "ast_decoder:decoder_wrong_output_format", ["the reply is not a list of calls"])
    assert sample.entry.ground_truth is not None
    return check_decoded(sample.entry.functions, decoded, sample.entry.ground_truth, sample.entry.id, "prompting")


# --- loading --------------------------------------------------------------------------------------


def load_format_sensitivity(
    category: str = CATEGORY, data_dir: Path | None = None
) -> tuple[list[FormatSample], list[Problem]]:
    """Every listed entry in every format, in the official order."""
    path = (data_dir or DATA_DIR) / f"{FILE_PREFIX}_{CATEGORY}.json"
    problems: list[Problem] = []
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [], [Problem(str(path), 0, f"cannot read: {exc}")]
    if not isinstance(listed, dict) or not all(isinstance(ids, list) for ids in listed.values()):
        return [], [Problem(str(path), 0, "not an object of category -> list of entry ids")]
    entries: list[BfclSample] = []
    for source_category, ids in listed.items():
        if not ids:
            continue
        try:
            samples, bad = load_category(source_category, data_dir)
        except ValueError as exc:
            problems.append(Problem(str(path), 0, str(exc)))
            continue
        problems += bad
        wanted = set(ids)
        entries += [sample for sample in samples if sample.id in wanted]
        missing = wanted - {sample.id for sample in samples}
        if missing:
            problems.append(Problem(str(path), 0, f"{source_category}: no entry {sorted(missing)[0]!r}"))
    formats = all_formats()
    samples_out = []
    for index, entry in enumerate(entries):
        for offset, config in enumerate(formats):
            number = index * len(formats) + offset
            official_id = f"{CATEGORY}_{number}:{config}:{entry.id}"
            samples_out.append(FormatSample(official_id, CATEGORY, config, entry, source=entry.source))
    return samples_out, problems


# --- the oracle -----------------------------------------------------------------------------------

_XML_TYPE = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "dict"}


def oracle_text(sample: FormatSample) -> str:
    """The reply giving the entry's first possible answer, written in the configuration's format."""
    from xml.sax.saxutils import quoteattr

    from pytest_toolcall.benchmarks.bfcl.oracle import expected_arguments

    assert sample.entry.ground_truth is not None
    fmt = PromptFormat.parse(sample.format)
    calls = []
    for expected in sample.entry.ground_truth:
        name, params = next(iter(expected.items()))
        doc = next((d for d in sample.entry.functions if d["name"] == name), None)
        calls.append((name, expected_arguments(doc, params)))
    if fmt.return_format == "python":
        text = "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls) + "]"
    elif fmt.return_format == "json":
        text = json.dumps([{"function": n, "parameters": a} for n, a in calls])
    else:

        def typed(value: Any) -> tuple[str, str]:
            kind = _XML_TYPE.get(type(value), "string")
            return kind, (repr(value) if kind in ("array", "dict") else str(value))

        parts = []
        for n, arguments in calls:
            params = []
            for k, v in arguments.items():
                kind, raw = typed(v)
                if fmt.return_format == "verbose_xml":
                    params.append(f"<param name={quoteattr(k)} value={quoteattr(raw)} type={quoteattr(kind)}/>")
                else:
                    escaped = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                    params.append(f"<param name={quoteattr(k)} type={quoteattr(kind)}>{escaped}</param>")
            inner = "".join(params)
            if fmt.return_format == "verbose_xml":
                inner = f"<params>{inner}</params>"
            parts.append(f"<function name={quoteattr(n)}>{inner}</function>")
        text = "<functions>" + "".join(parts) + "</functions>"
    return f"<TOOLCALL>{text}</TOOLCALL>" if fmt.tool_call_tag else text
