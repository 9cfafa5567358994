"""How ``empty_tool_calls_official.jsonl`` was learned: single-turn replies of ``"tool_calls": []``
with a text, through the official ``OpenAICompletionsHandler`` (FC) at gorilla@6ea5797 as it is
(``official``: the recorded response is the empty list) and with the upstream fix of
``_parse_query_response_FC`` patched in (``fixed``: the text is kept, as for ``tool_calls: null``),
then the official evaluation of the category. Run outside the test suite (see ``learn_memory.py``):

    BFCL_PROJECT_ROOT=/tmp/bfcl python learn_empty_tool_calls.py OUT.jsonl

For three entries of every single-turn category, the replies' texts are: prose, the first possible
answer written as a python call list, an empty text, and none.
"""

import json
import os
import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("OPENAI_API_KEY", "learn")

from learn_memory import OFFICIAL_PARSE, fixed_parse_query_response_fc, import_with_stubs

eval_runner = import_with_stubs("bfcl_eval.eval_checker.eval_runner")

from bfcl_eval.constants.category_mapping import SINGLE_TURN_CATEGORY  # noqa: E402
from bfcl_eval.constants.enums import Language, ReturnFormat  # noqa: E402
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig  # noqa: E402
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler  # noqa: E402
from bfcl_eval.utils import (  # noqa: E402
    is_java,
    is_js,
    is_relevance_or_irrelevance,
    load_dataset_entry,
    load_ground_truth_entry,
)
from openai import OpenAI  # noqa: E402


def python_text(ground_truth):
    calls = []
    for expected in ground_truth:
        name, params = next(iter(expected.items()))
        args = {k: v[0] for k, v in params.items() if isinstance(v, list) and v and v[0] != ""}
        calls.append(f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})")
    return "[" + ", ".join(calls) + "]"


def main():
    MODEL_CONFIG_MAPPING["model-FC"] = ModelConfig(
        model_name="model",
        display_name="model",
        url="",
        org="",
        license="",
        model_handler=OpenAICompletionsHandler,
        input_price=None,
        output_price=None,
        is_fc_model=True,
        underscore_to_dot=True,
    )
    current = {}

    def endpoint(request):
        message = {"role": "assistant", "content": current["content"], "tool_calls": []}
        completion = {
            "id": "learn",
            "object": "chat.completion",
            "created": 0,
            "model": "model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return httpx.Response(200, json=completion)

    out = []
    for reading in ("official", "fixed"):
        OpenAICompletionsHandler._parse_query_response_FC = (
            OFFICIAL_PARSE if reading == "official" else fixed_parse_query_response_fc
        )
        handler = OpenAICompletionsHandler("model", 0.001, "model-FC", True)
        handler.client = OpenAI(
            api_key="learn",
            base_url="http://learn.invalid/v1",
            http_client=httpx.Client(transport=httpx.MockTransport(endpoint)),
        )
        for category in SINGLE_TURN_CATEGORY:
            entries = load_dataset_entry(category)
            prompts = load_dataset_entry(category, include_language_specific_hint=False)
            relevance = is_relevance_or_irrelevance(category)
            truths = None if relevance else load_ground_truth_entry(category)
            for index in (0, len(entries) // 2, len(entries) - 1):
                entry, prompt = entries[index], prompts[index]
                texts = ["I cannot do that with these tools.", "", None]
                if truths is not None:
                    texts.insert(1, python_text(truths[index]["ground_truth"]))
                for text in texts:
                    current["content"] = text
                    result, _ = handler.inference(dict(entry), include_input_log=False, exclude_state_log=True)
                    if relevance:
                        verdict = eval_runner._evaluate_single_relevance_entry(
                            handler, entry["id"], result, prompt, "model-FC", category
                        )
                    else:
                        language = (
                            Language.JAVA
                            if is_java(category)
                            else Language.JAVASCRIPT
                            if is_js(category)
                            else Language.PYTHON
                        )
                        verdict = eval_runner._evaluate_single_ast_entry(
                            handler,
                            entry["id"],
                            result,
                            truths[index]["ground_truth"],
                            prompt,
                            "model-FC",
                            category,
                            language=language,
                            return_format=ReturnFormat.PYTHON,
                        )
                    out.append(
                        {
                            "category": category,
                            "id": entry["id"],
                            "content": text,
                            "empty_tool_calls": reading,
                            "recorded": result,
                            "valid": verdict["valid"],
                            "error_type": verdict.get("error_type"),
                        }
                    )
    with open(sys.argv[1], "w", encoding="utf-8") as handle:
        for line in out:
            handle.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
