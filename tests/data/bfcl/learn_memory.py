"""How ``memory_official.jsonl.gz`` was learned: the official BFCL pipeline at gorilla@6ea5797 (its
``OpenAICompletionsHandler``, in native-tool (FC) and prompting mode) answering the memory categories
``memory_kv`` and ``memory_rec_sum`` with a scripted model, then the official agentic evaluation of
each question. Run outside the test suite, with the official code installed (``pip install -e
berkeley-function-call-leaderboard`` with its dependencies; ``qwen_agent`` and
``sentence_transformers`` may be missing, they are stubbed here):

    BFCL_PROJECT_ROOT=/tmp/bfcl python learn_memory.py OUT.jsonl.gz

The scripted model is the real ``openai`` client over an ``httpx.MockTransport``: the official handler
sends its requests through the SDK as always (the body the endpoint would get is captured), and gets
the scripted replies as parsed chat completions. A text reply comes either without ``tool_calls``
or, as vLLM and SGLang send it, with ``"tool_calls": []``; in FC mode each memory category runs twice,
once with 6ea5797's handler as it is (the ``official`` reading) and once with the upstream fix of
``_parse_query_response_FC`` patched in (the ``fixed`` reading: an empty list counts as no calls,
the text is kept; gorilla PRs #1316, #1328, #1351).

Scripts are drawn per entry from a seeded generator: tool calls with valid and invalid keys, long
values, searches with odd ``k``, unknown functions, malformed arguments, text turns, and for the
questions final answers that contain a possible answer, another text, nothing, or a run past the
step limit. Each line holds one entry of one run: the scripted replies in order, the sha256 of every
request's ``messages`` and ``tools`` (canonical JSON), for a prerequisite conversation the memory
snapshot the official code saved after it, for a question the official verdict.
"""

import gzip
import hashlib
import json
import os
import random
import sys
import tempfile
import types
from pathlib import Path

import httpx

os.environ.setdefault("OPENAI_API_KEY", "learn")  # the handler builds a client before ours replaces it


class _Stub(types.ModuleType):
    """A module the official code imports for handlers and backends these runs never use."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        return _Stub(f"{self.__name__}.{name}")


def import_with_stubs(name):
    """Import ``name``, standing in stubs for packages that are not installed (model SDKs, the
    embedding libraries of the vector backend)."""
    import importlib

    for _ in range(50):
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            missing = exc.name
            for stale in [m for m in sys.modules if m.startswith("bfcl_eval")]:
                del sys.modules[stale]
            parts = missing.split(".")
            for i in range(1, len(parts) + 1):
                sys.modules.setdefault(".".join(parts[:i]), _Stub(".".join(parts[:i])))
    raise RuntimeError(f"cannot import {name}")


eval_runner = import_with_stubs("bfcl_eval.eval_checker.eval_runner")

from bfcl_eval.constants.category_mapping import MEMORY_SCENARIO_NAME  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils  # noqa: E402
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler  # noqa: E402
from bfcl_eval.utils import (  # noqa: E402
    load_dataset_entry,
    load_ground_truth_entry,
    populate_initial_settings_for_memory_test_cases,
)
from openai import OpenAI  # noqa: E402

RUNS = [
    ("memory_kv", "fc", "official"),
    ("memory_kv", "fc", "fixed"),
    ("memory_kv", "prompting", "official"),
    ("memory_rec_sum", "fc", "official"),
    ("memory_rec_sum", "fc", "fixed"),
    ("memory_rec_sum", "prompting", "official"),
]


def fixed_parse_query_response_fc(self, api_response):
    """``_parse_query_response_FC`` as the upstream fixes have it: no calls (None or []) keeps the text."""
    message = api_response.choices[0].message
    if message.tool_calls:
        model_responses = [{call.function.name: call.function.arguments} for call in message.tool_calls]
        tool_call_ids = [call.id for call in message.tool_calls]
    else:
        model_responses, tool_call_ids = message.content, []
    return {
        "model_responses": model_responses,
        "model_responses_message_for_chat_history": message,
        "tool_call_ids": tool_call_ids,
        "input_token": api_response.usage.prompt_tokens,
        "output_token": api_response.usage.completion_tokens,
    }


OFFICIAL_PARSE = OpenAICompletionsHandler._parse_query_response_FC


def canonical_hash(body):
    text = json.dumps({"messages": body["messages"], "tools": body.get("tools")}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class Scripted:
    """The endpoint: pops the current entry's replies, records each request's hash."""

    def __init__(self):
        self.replies, self.hashes = [], []

    def __call__(self, request):
        body = json.loads(request.content)
        self.hashes.append(canonical_hash(body))
        reply = self.replies.pop(0) if self.replies else {"content": "Done."}
        message = {"role": "assistant", "content": reply.get("content")}
        if "tool_calls" in reply:
            message["tool_calls"] = [
                {"id": f"call_{n}", "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for n, c in enumerate(reply["tool_calls"])
            ]
        completion = {
            "id": "learn",
            "object": "chat.completion",
            "created": 0,
            "model": "model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return httpx.Response(200, json=completion)


# --- the scripts ------------------------------------------------------------------------------------

WORDS = "name age city latte kitchen order discount exam course major project deadline doctor allergy budget".split()


def kv_call(rng, text):
    words = [w.strip(".,!?'\"").lower() for w in text.split() if w.strip(".,!?'\"").isalpha()] or WORDS
    key = "_".join(rng.sample(words, min(len(words), rng.randint(1, 3))))
    value = " ".join(rng.sample(text.split(), min(len(text.split()), rng.randint(2, 12)))) or "x"
    memory = rng.choice(["core", "archival"])
    kind = rng.random()
    if kind < 0.35:
        return f"{memory}_memory_add", {"key": key, "value": value}
    if kind < 0.40:
        return f"{memory}_memory_add", {"key": rng.choice(["Bad Key", "x-y", "1abc", key + "\n"]), "value": value}
    if kind < 0.43:
        return "core_memory_add", {"key": key, "value": value * 40}
    if kind < 0.50:
        return f"{memory}_memory_replace", {"key": key, "value": value}
    if kind < 0.57:
        return f"{memory}_memory_retrieve", {"key": key}
    if kind < 0.66:
        return f"{memory}_memory_key_search", {
            "query": rng.choice([key, " ".join(words[:3]), "zzz"]),
            "k": rng.choice([1, 2, 5, 10]),
        }
    if kind < 0.70:
        return f"{memory}_memory_key_search", {"query": key}
    if kind < 0.76:
        return f"{memory}_memory_list_keys", {}
    if kind < 0.80:
        return f"{memory}_memory_remove", {"key": key}
    if kind < 0.83:
        return "core_memory_retrieve_all", {}
    if kind < 0.85:
        return f"{memory}_memory_clear", {}
    if kind < 0.88:
        return "core_memory_add", {"key": key}  # a missing argument
    if kind < 0.90:
        return "memory_forget", {"key": key}  # no such function
    return f"{memory}_memory_add", {"key": key, "value": rng.choice([42, 3.5, True, None, ["a", 1]])}


def rec_sum_call(rng, text):
    snippet = " ".join(text.split()[: rng.randint(1, 15)])
    kind = rng.random()
    if kind < 0.45:
        return "memory_append", {"text": snippet + "\n"}
    if kind < 0.55:
        return "memory_update", {"text": snippet}
    if kind < 0.58:
        return "memory_append", {"text": snippet * 300}
    if kind < 0.70:
        return "memory_replace", {
            "old_text": rng.choice(text.split() or ["x"]),
            "new_text": rng.choice(["", "X", snippet]),
        }
    if kind < 0.82:
        return "memory_retrieve", {}
    if kind < 0.85:
        return "memory_clear", {}
    if kind < 0.88:
        return "memory_replace", {"old_text": "never written here"}
    if kind < 0.90:
        return "memory_forget", {}
    return "memory_append", {"text": rng.choice([7, 2.5, False, None, {"a": 1}])}


def tool_reply(rng, calls, mode):
    if mode == "fc":
        arguments = [json.dumps(a) for _, a in calls]
        if rng.random() < 0.05:
            arguments[0] = arguments[0][:-1]  # malformed JSON arguments
        return {
            "content": None,
            "tool_calls": [{"name": n, "arguments": a} for (n, _), a in zip(calls, arguments, strict=True)],
        }
    text = "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls) + "]"
    if rng.random() < 0.05:
        text = text[:-2]  # undecodable
    return {"content": text}


def text_reply(rng, text, mode):
    reply = {"content": text}
    if mode == "fc" and rng.random() < 0.4:
        reply["tool_calls"] = []  # as vLLM and SGLang send a text turn
    return reply


def turn_script(rng, category, user_text, mode, *, answer=None, force_quit=False):
    make = kv_call if category == "memory_kv" else rec_sum_call
    replies = []
    steps = 22 if force_quit else rng.choice([0, 1, 1, 2, 2, 3])
    for _ in range(steps):
        calls = [make(rng, user_text) for _ in range(rng.choice([1, 1, 1, 2]))]
        replies.append(tool_reply(rng, calls, mode))
    final = answer if answer is not None else rng.choice(["Got it, I will remember that.", "Thanks!", ""])
    replies.append(text_reply(rng, final, mode))
    return replies


def question_answer(rng, possible):
    kind = rng.random()
    if kind < 0.45:
        return "{'answer': " + repr(rng.choice(possible)) + ", 'context': 'from memory'}"
    if kind < 0.55:
        return f"It is {rng.choice(possible).upper()}."
    if kind < 0.8:
        return "{'answer': 'I do not know', 'context': 'I do not know'}"
    if kind < 0.9:
        return None  # no text at all
    return "{'answer': 'something else', 'context': 'a guess'}"


# --- the runs ---------------------------------------------------------------------------------------


def clear_instances():
    for name in [n for n in vars(multi_turn_utils) if n.endswith("_instance")]:
        del vars(multi_turn_utils)[name]


def run(category, mode, reading, out):
    clear_instances()
    OpenAICompletionsHandler._parse_query_response_FC = (
        OFFICIAL_PARSE if reading == "official" else fixed_parse_query_response_fc
    )
    handler = OpenAICompletionsHandler("model", 0.001, "model-FC" if mode == "fc" else "model", mode == "fc")
    endpoint = Scripted()
    handler.client = OpenAI(
        api_key="learn",
        base_url="http://learn.invalid/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(endpoint)),
    )
    result_dir = Path(tempfile.mkdtemp())
    entries = populate_initial_settings_for_memory_test_cases(load_dataset_entry(category), result_dir)
    prompts = {
        e["id"]: e for e in load_dataset_entry(category, include_prereq=False, include_language_specific_hint=False)
    }
    truths = dict(zip(prompts, (t["ground_truth"] for t in load_ground_truth_entry(category)), strict=True))
    lines = []
    for scenario in MEMORY_SCENARIO_NAME:
        chain = [e for e in entries if e["scenario"] == scenario and "prereq" in e["id"]]
        questions = [e for e in entries if e["scenario"] == scenario and "prereq" not in e["id"]]
        for entry in chain + questions:
            rng = random.Random(f"{category}/{mode}/{reading}/{entry['id']}")
            is_question = "prereq" not in entry["id"]
            script = []
            for turn in entry["question"]:
                user_text = " ".join(m["content"] for m in turn if m["role"] == "user")
                if is_question:
                    quit_now = rng.random() < 0.04
                    answer = question_answer(rng, truths[entry["id"]])
                    script += turn_script(rng, category, user_text, mode, answer=answer, force_quit=quit_now)
                else:
                    script += turn_script(rng, category, user_text, mode)
            endpoint.replies, endpoint.hashes = list(script), []
            result, _ = handler.inference(entry, include_input_log=False, exclude_state_log=True)
            line = {
                "category": category,
                "mode": mode,
                "empty_tool_calls": reading,
                "id": entry["id"],
                "replies": script,
                "requests": endpoint.hashes,
                "unused_replies": len(endpoint.replies),
            }
            if is_question:
                verdict = eval_runner._evaluate_single_agentic_entry(
                    handler, entry["id"], result, truths[entry["id"]], dict(prompts[entry["id"]]), "model", category
                )
                line["verdict"] = {
                    "valid": verdict["valid"],
                    "error_type": (verdict.get("error") or {}).get("error_type"),
                }
            else:
                snapshot = result_dir / "agentic" / "memory" / category.removeprefix("memory_") / "memory_snapshot"
                line["snapshot"] = json.loads((snapshot / f"{scenario}_final.json").read_text())
            lines.append(line)
    out.extend(lines)


def main():
    out = []
    for category, mode, reading in RUNS:
        run(category, mode, reading, out)
    with gzip.open(sys.argv[1], "wt", encoding="utf-8") as handle:
        for line in out:
            handle.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
