"""How ``format_sensitivity_official.jsonl.gz`` was learned: the official BFCL pipeline at
gorilla@6ea5797 on its ``format_sensitivity`` category (200 entries x 26 prompt formats, prompting
mode). Run outside the test suite with the official code installed (see ``learn_memory.py``):

    BFCL_PROJECT_ROOT=/tmp/bfcl python learn_format_sensitivity.py OUT.jsonl.gz

1. Requests: the official ``OpenAICompletionsHandler`` (prompting) asks each of the 5,200 items once
   through the real ``openai`` client over an ``httpx.MockTransport``; the sha256 of each request's
   ``messages`` (canonical JSON) is kept (``kind: request``).
2. Verdicts and the metric: two scripted "models" answer every item (``kind: verdict``, ``script``
   0 and 1): the first possible answer written in the item's return format, often edited (a wrong
   value, a dropped parameter, the wrong format, tags missing or added, code fences and prose, broken
   JSON or XML, wrong XML types, empty text). The official ``format_sensitivity_runner`` scores each
   script's 5,200 replies; its score file gives each failing item's error type and the header's
   per-format accuracies and spread (``kind: metric``).
"""

import gzip
import hashlib
import json
import os
import random
import sys
import tempfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("OPENAI_API_KEY", "learn")

from learn_memory import import_with_stubs

eval_runner = import_with_stubs("bfcl_eval.eval_checker.eval_runner")

from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig  # noqa: E402
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler  # noqa: E402
from bfcl_eval.model_handler.utils import parse_prompt_variation_params  # noqa: E402
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry  # noqa: E402
from openai import OpenAI  # noqa: E402


def messages_hash(body):
    text = json.dumps(body["messages"], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def first_values(ground_truth):
    calls = []
    for expected in ground_truth:
        name, params = next(iter(expected.items()))
        args = {}
        for key, options in params.items():
            value = options[0] if isinstance(options, list) and options else options
            if value == "":
                continue
            if isinstance(value, dict):
                value = {k: (v[0] if isinstance(v, list) and v else v) for k, v in value.items()}
            args[key] = value
        calls.append((name, args))
    return calls


XML_TYPE = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "dict"}


def escape(text, quote=False):
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def write(calls, return_format, rng):
    if return_format == "python":
        return "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls) + "]"
    if return_format == "json":
        return json.dumps([{"function": n, "parameters": a} for n, a in calls])
    parts = []
    for name, args in calls:
        params = []
        for key, value in args.items():
            kind = XML_TYPE.get(type(value), "string")
            raw = repr(value) if kind in ("array", "dict") else str(value)
            if rng.random() < 0.05:
                kind = rng.choice(["integer", "float", "boolean", "string", "tuple"])  # a wrong type
            if return_format == "verbose_xml":
                params.append(f'<param name="{key}" value="{escape(raw, True)}" type="{kind}"/>')
            else:
                pad = " " if rng.random() < 0.1 else ""
                params.append(f'<param name="{key}" type="{kind}">{pad}{escape(raw)}{pad}</param>')
        inner = "".join(params)
        if return_format == "verbose_xml" and rng.random() < 0.9:
            inner = f"<params>{inner}</params>"
        parts.append(f'<function name="{name}">{inner}</function>')
    return "<functions>" + "".join(parts) + "</functions>"


def edited(calls, rng):
    calls = [(n, dict(a)) for n, a in calls]
    _, args = calls[0]
    if args and rng.random() < 0.5:
        key = rng.choice(sorted(args))
        value = args[key]
        if isinstance(value, bool):
            args[key] = not value
        elif isinstance(value, (int, float)):
            args[key] = value + 1
        elif isinstance(value, str):
            args[key] = value + " extra"
        else:
            del args[key]
    elif len(calls) > 1:
        calls.pop()
    else:
        calls.append(calls[0])
    return calls


def reply(entry_truth, config, rng):
    return_format, tag, _, _, _ = parse_prompt_variation_params(config)
    calls = first_values(entry_truth)
    kind = rng.random()
    if kind < 0.15:
        calls = edited(calls, rng)
    if kind > 0.93:
        return rng.choice(["", "I cannot help with that.", "```\n```", "[]", "<functions></functions>", "[{}]"])
    fmt = return_format
    if 0.85 < kind <= 0.9:
        fmt = rng.choice(["python", "json", "verbose_xml", "concise_xml"])  # possibly the wrong format
    text = write(calls, fmt, rng)
    if 0.9 < kind <= 0.93:
        text = text[: len(text) // 2]  # cut off
    if fmt == "json" and rng.random() < 0.3:
        text = f"```json\n{text}\n```"
    if rng.random() < 0.1:
        text = "Here you go: " + text
    use_tag = tag if rng.random() < 0.92 else not tag
    return f"<TOOLCALL>{text}</TOOLCALL>" if use_tag else text


def main():
    # The checker looks the model up: a prompting model keeps dotted function names.
    MODEL_CONFIG_MAPPING["model"] = ModelConfig(
        model_name="model",
        display_name="model",
        url="",
        org="",
        license="",
        model_handler=OpenAICompletionsHandler,
        input_price=None,
        output_price=None,
        is_fc_model=False,
        underscore_to_dot=False,
    )
    out = []
    entries = load_dataset_entry("format_sensitivity")
    handler = OpenAICompletionsHandler("model", 0.001, "model", False)
    captured = []

    def endpoint(request):
        captured.append(messages_hash(json.loads(request.content)))
        message = {"role": "assistant", "content": "[]"}
        completion = {
            "id": "learn",
            "object": "chat.completion",
            "created": 0,
            "model": "model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return httpx.Response(200, json=completion)

    handler.client = OpenAI(
        api_key="learn",
        base_url="http://learn.invalid/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(endpoint)),
    )
    for entry in entries:
        captured.clear()
        handler.inference(entry, include_input_log=False, exclude_state_log=True)
        out.append({"kind": "request", "id": entry["id"], "messages": captured[0]})

    prompts = load_dataset_entry("format_sensitivity", include_prereq=False, include_language_specific_hint=False)
    truths = load_ground_truth_entry("format_sensitivity")
    for script in (0, 1):
        model_result = []
        for prompt, truth in zip(prompts, truths, strict=True):
            config = prompt["id"].split(":")[1]
            rng = random.Random(f"{script}/{prompt['id']}")
            model_result.append({"id": prompt["id"], "result": reply(truth["ground_truth"], config, rng)})
        score_dir = Path(tempfile.mkdtemp())
        eval_runner.format_sensitivity_runner(
            handler, model_result, [dict(p) for p in prompts], truths, "model", "format_sensitivity", score_dir
        )
        score_file = next(score_dir.rglob("*_score.json"))
        rows = [json.loads(line) for line in score_file.read_text().splitlines()]
        header, failures = rows[0], {row["id"]: row for row in rows[1:]}
        for item in model_result:
            failure = failures.get(item["id"])
            out.append(
                {
                    "kind": "verdict",
                    "script": script,
                    "id": item["id"],
                    "reply": item["result"],
                    "valid": failure is None,
                    "error_type": None if failure is None else failure["error_type"],
                }
            )
        out.append({"kind": "metric", "script": script, **header})
    with gzip.open(sys.argv[1], "wt", encoding="utf-8") as handle:
        for line in out:
            handle.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
