"""Builds ``conformance_probes/tool_call_schemas.toolcall.jsonl`` from the walle validator schemas
that Kimi Vendor Verifier ships (``conformance_probes/kvv/walle_validator_cases``, MIT):

    python tests/data/kvv/make_tool_call_schemas.py          # rewrite the probe file
    python tests/data/kvv/make_tool_call_schemas.py --check  # exit 1 when it is out of date

Each schema becomes one probe, as Kimi Vendor Verifier asks it: the schema is the one argument
``value`` of a strict tool (``required``, no other property; its ``$defs`` kept at the root, a
reference to the root ``#`` pointed at a copy of the schema), ``default`` keywords left out (they
made decoders drop required properties), the call forced with ``tool_choice: required``; the
arguments must validate. Left out, as Kimi Vendor Verifier leaves them out: schemas with property
names a decoder mangles (empty, padded with spaces, or holding a written escape such as ``\\n``) and
strings of more than 1000 characters; and, here, schemas no valid argument exists for that the
plugin's generator can find (the case format requires the oracle to answer every probe). What was
left out, and why, is written beside the probes (``tool_call_schemas.left_out.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
PROBES = ROOT / "pytest_toolcall" / "benchmarks" / "cases" / "conformance_probes"
SOURCE = PROBES / "kvv" / "walle_validator_cases" / "validator_cases"
TARGET = PROBES / "tool_call_schemas.toolcall.jsonl"
LEFT_OUT = PROBES / "tool_call_schemas.left_out.json"
TOOL = "kvv_walle_case"
PROMPT = (
    f"Call the {TOOL} tool once, with the smallest arguments that are valid against its parameters. "
    "Give every required property and respect every constraint (enum, const, minimum, minLength, "
    "minItems, minProperties). Write arguments, not the schema; do not answer in text."
)
ESCAPES = ("\\n", "\\t", "\\r", "\\b", "\\f")


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    probes, left_out = build()
    text = "".join(json.dumps(p, ensure_ascii=False, separators=(",", ":")) + "\n" for p in probes)
    skipped = json.dumps(left_out, ensure_ascii=False, indent=1) + "\n"
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8"), LEFT_OUT.read_text(encoding="utf-8")
        return 0 if current == (text, skipped) else 1
    TARGET.write_text(text, encoding="utf-8")
    LEFT_OUT.write_text(skipped, encoding="utf-8")
    print(f"{len(probes)} probes, {len(left_out)} left out")
    return 0


def build() -> tuple[list[dict[str, Any]], dict[str, str]]:
    from pytest_toolcall.api.native import Generator, Unsatisfiable, compile_schema

    probes, left_out = [], {}
    for suite in sorted(p for p in SOURCE.iterdir() if p.is_dir()):
        lines = (suite / "valid.jsonl").read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            name = f"{suite.name}_{number}"
            schema = json.loads(line)
            reason = _left_out(schema)
            if reason:
                left_out[name] = reason
                continue
            parameters = _without_defaults(_wrapped(schema))
            compiled = compile_schema(parameters)
            try:
                if compiled.validator is None:
                    raise Unsatisfiable(compiled.problem)
                Generator(parameters, compiled.validator).value(parameters)
            except (Unsatisfiable, RecursionError) as exc:
                left_out[name] = f"no valid arguments found by the generator: {exc}"[:300]
                continue
            tool = {"name": TOOL, "description": "Takes arguments valid against its parameters.", "strict": True}
            probes.append(
                {
                    "id": name,
                    "tags": [suite.name],
                    "prompt": PROMPT,
                    "tools": [{"type": "function", "function": {**tool, "parameters": parameters}}],
                    "settings": {"tool_choice": "required"},
                    "expect": {"should_call_tool": True},
                }
            )
    return probes, left_out


def _left_out(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "not a JSON object"
    if schema.get("type") == "string" and (schema.get("minLength") or 0) > 1000:
        return "a string of more than 1000 characters"
    for key in schema.get("properties") or {}:
        if key == "" or key != key.strip() or any(e in key for e in ESCAPES):
            return f"a property name a decoder mangles: {key!r}"
    return ""


def _wrapped(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema as the one required property ``value`` of an object."""
    defs = dict(schema.get("$defs") or {})
    body = {k: v for k, v in schema.items() if k not in ("$defs", "$id")}
    if _refers_to_root(schema):
        name = "__case_schema"
        while name in defs:
            name = "_" + name
        defs[name] = _rooted(body, f"#/$defs/{name}")
        defs = {k: _rooted(v, f"#/$defs/{name}") for k, v in defs.items()}
        value: dict[str, Any] = {"$ref": f"#/$defs/{name}"}
    else:
        value = body
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"value": value},
        "required": ["value"],
        "additionalProperties": False,
    }
    if defs:
        wrapped["$defs"] = defs
    return wrapped


def _refers_to_root(node: Any) -> bool:
    if isinstance(node, dict):
        return node.get("$ref") == "#" or any(_refers_to_root(v) for v in node.values())
    return isinstance(node, list) and any(_refers_to_root(v) for v in node)


def _rooted(node: Any, target: str) -> Any:
    if isinstance(node, dict):
        return {k: (target if k == "$ref" and v == "#" else _rooted(v, target)) for k, v in node.items()}
    if isinstance(node, list):
        return [_rooted(v, target) for v in node]
    return node


def _without_defaults(node: Any, names: bool = False) -> Any:
    """``node`` without ``default`` keywords (``names``: ``node`` maps property names to schemas,
    where a property called ``default`` stays)."""
    if isinstance(node, dict):
        return {
            k: _without_defaults(v, names=k in ("properties", "$defs", "patternProperties") and not names)
            for k, v in node.items()
            if names or k != "default"
        }
    if isinstance(node, list):
        return [_without_defaults(v) for v in node]
    return node


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
