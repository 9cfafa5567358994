"""The official ACEBench messages for a sample, filled exactly as the official runner fills them.

Texts come from ``prompts.json`` (the module-level constants of the official prompt files, keyed by
file and constant name). ``{function}`` is Python's ``str()`` of the spec list as loaded from JSON
(single quotes, ``True``/``None``): it is not JSON, and the model sees exactly that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_toolcall.api import ChatRequest
from pytest_toolcall.benchmarks.acebench.dataset import DataError, Sample, Step
from pytest_toolcall.benchmarks.acebench.oracle import acebench_answer

PROMPT_FILE = {lang: f"model_inference/prompt_{lang}.py" for lang in ("en", "zh")}


@dataclass(frozen=True)
class Prompts:
    files: dict[str, dict[str, str]]
    source: str

    @classmethod
    def load(cls, root: Path) -> Prompts:
        path = root / "prompts.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            files = data["files"]
        except FileNotFoundError:
            raise DataError(f"{path}: file not found (a data root needs data_all/ and prompts.json)") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(f"{path}: not a prompts file ({type(exc).__name__}: {exc})") from None
        return cls(files, str(path))

    def text(self, file: str, constant: str) -> str:
        try:
            return self.files[file][constant]
        except KeyError:
            raise DataError(f"{self.source}: no constant {constant} for {file}") from None


def single_turn_messages(prompts: Prompts, lang: str, category: str, step: Step) -> list[dict[str, str]]:
    """System and user message of a normal or special sample (or one normal multi-turn step)."""
    suffix = lang.upper()
    file = PROMPT_FILE[lang]
    row = step.row
    functions = function_list(row["function"])
    # Template choice by substring of the category, in the official order.
    if "special" in category:
        system = prompts.text(file, f"SYSTEM_PROMPT_FOR_SPECIAL_DATA_{suffix}").format(
            time=row["time"], function=functions
        )
    elif "preference" in category:
        system = prompts.text(file, f"SYSTEM_PROMPT_FOR_PREFERENCE_DATA_{suffix}").format(
            profile=row["profile"], function=functions
        )
    else:
        system = prompts.text(file, f"SYSTEM_PROMPT_FOR_NORMAL_DATA_{suffix}").format(
            time=row["time"], function=functions
        )
    user = prompts.text(file, f"USER_PROMPT_{suffix}").format(question=row["question"])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def function_list(functions: Any) -> list[Any]:
    """The official runner wraps a lone spec (dict or string) in a list."""
    return [functions] if isinstance(functions, (dict, str)) else functions


def acebench_requests(prompts: Prompts, sample: Sample) -> list[ChatRequest]:
    """One request per step (normal multi-turn steps are teacher-forced, so they are independent)."""
    return [
        ChatRequest(
            single_turn_messages(prompts, sample.lang, sample.category, step),
            reference=acebench_answer(sample.lang, sample.category, step),
        )
        for step in sample.steps
    ]
