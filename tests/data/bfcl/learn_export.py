"""How ``export_official.json`` was learned: the official leaderboard tables of gorilla@6ea5797
(``generate_leaderboard_csv``) for a few made-up runs, given per-category counts (and, for one, the
format-sensitivity header). Run outside the test suite (see ``learn_memory.py``):

    BFCL_PROJECT_ROOT=/tmp/bfcl python learn_export.py OUT.json

The model is registered with ``N/A`` for its link, organisation and licence, and no cost or latency
is recorded, so that every column is one a run's report decides.
"""

import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("OPENAI_API_KEY", "learn")

from learn_memory import import_with_stubs

helper = import_with_stubs("bfcl_eval.eval_checker.eval_runner_helper")

from bfcl_eval.constants.category_mapping import ALL_SCORING_CATEGORIES  # noqa: E402
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig  # noqa: E402
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler  # noqa: E402
from bfcl_eval.utils import get_all_format_sensitivity_configs, load_dataset_entry  # noqa: E402

SIZES = {}


def size(category):
    if category not in SIZES:
        SIZES[category] = len(load_dataset_entry(category, include_prereq=False, include_language_specific_hint=False))
    return SIZES[category]


def main():
    MODEL_CONFIG_MAPPING["model"] = ModelConfig(
        model_name="model",
        display_name="model",
        url="N/A",
        org="N/A",
        license="N/A",
        model_handler=OpenAICompletionsHandler,
        input_price=None,
        output_price=None,
        is_fc_model=True,
        underscore_to_dot=True,
    )
    rng = random.Random(35)
    measured = [c for c in ALL_SCORING_CATEGORIES if not c.startswith("web_search") and c != "memory_vector"]
    cases = []
    for name, categories, spread in (
        ("everything measured here", measured, True),
        ("memory only", ["memory_kv", "memory_rec_sum"], False),
        ("a few single-turn", ["simple_python", "simple_java", "live_simple", "live_multiple", "irrelevance"], False),
    ):
        counts = {}
        for category in categories:
            total = size(category)
            counts[category] = {"correct_count": rng.randint(0, total), "total_count": total}
        table = {"model": {c: {"accuracy": v["correct_count"] / v["total_count"], **v} for c, v in counts.items()}}
        fs = None
        if spread:
            configs = get_all_format_sensitivity_configs()
            by_format = {}
            for config in configs:
                correct = rng.randint(100, 200)
                by_format[config] = {"accuracy": correct / 200, "correct_count": correct, "total_count": 200}
            fs = {"accuracy_max_delta": 12.5, "accuracy_std": 3.21, **by_format}
            table["model"]["format_sensitivity"] = fs
        folder = Path(tempfile.mkdtemp())
        helper.generate_leaderboard_csv(table, folder)
        csvs = {path.name: path.read_text() for path in sorted(folder.glob("*.csv"))}
        cases.append({"name": name, "counts": counts, "format_sensitivity": fs, "csv": csvs})
    Path(sys.argv[1]).write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
