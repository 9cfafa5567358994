"""Command-line options (group ``toolcall``), their ini twins, and the resolved settings.

Option values stay plain strings until resolved here (xdist workers parse the same command line).
Precedence: command line, then the ini file, then the environment, then the default.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.client import ORACLE
from pytest_toolcall.datasets.acebench import LANGUAGES

MODES = ("read-write", "read-only", "replay", "off")
BENCHMARKS = ("acebench", "general_fc")


@dataclass(frozen=True)
class Option:
    name: str  # without the --toolcall- prefix
    help: str
    default: str | None = None
    env: str | None = None
    ini: bool = True
    metavar: str | None = None

    @property
    def dest(self) -> str:
        return "toolcall_" + self.name.replace("-", "_")


OPTIONS = (
    Option(
        "model", "model to evaluate; 'oracle' is the built-in reference model (no network)", ini=False, metavar="NAME"
    ),
    Option("base-url", "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)", env="OPENAI_BASE_URL", metavar="URL"),
    Option("api-key-env", "environment variable holding the API key", default="OPENAI_API_KEY", metavar="NAME"),
    Option(
        "bench", "benchmarks to run: acebench, general_fc, or both, comma-separated", default="acebench", metavar="LIST"
    ),
    Option("lang", "ACEBench language: en, zh or all", default="en"),
    Option(
        "data-dir",
        "ACEBench data root holding data_all/ and prompts.json "
        "(default: $TOOLCALL_DATA_DIR, else a per-user cache filled by download)",
        env="TOOLCALL_DATA_DIR",
        metavar="DIR",
    ),
    Option(
        "general-fc",
        "general_fc JSONL file(s), comma-separated (messages, tools, should_call_tool per line)",
        metavar="PATH",
    ),
    Option(
        "reference",
        "JSON report of a reference run on the same general_fc file(s): trigger agreement",
        metavar="REPORT",
    ),
    Option("limit", "at most N items per category (per file for general_fc)", metavar="N"),
    Option("concurrency", "model requests in flight per process", default="8", metavar="N"),
    Option("timeout", "seconds per request", default="120", metavar="S"),
    Option("max-retries", "retries per request (429, 5xx, resets, timeouts, bad bodies)", default="4", metavar="N"),
    Option("temperature", "sampling temperature (official ACEBench runner: 0.7)", default="0.7"),
    Option("max-tokens", "max_tokens per answer (official ACEBench runner: 1200)", default="1200", metavar="N"),
    Option("extra-body", "JSON object merged into every request body", metavar="JSON"),
    Option("cache", "response store folder, or 'off' (default: under pytest's cache dir)", metavar="DIR|off"),
    Option(
        "cache-mode",
        "read-write, read-only, replay (no network: a missing response is an error) or off",
        default="read-write",
        metavar="MODE",
    ),
    Option(
        "user-model",
        "user simulator for ACEBench agent_multi_turn (default: none, those items are skipped; "
        "with --toolcall-model oracle the oracle plays the user)",
        metavar="NAME",
    ),
    Option("user-base-url", "endpoint of the user simulator (default: the model's endpoint)", metavar="URL"),
    Option(
        "user-api-key-env",
        "environment variable holding the user simulator's key (default: the model's)",
        metavar="NAME",
    ),
    Option(
        "step-prompt-lang",
        "prompt language of agent_multi_step: 'sample' (the sample's) or 'zh' (what the "
        "official API runner sends for both languages)",
        default="sample",
        metavar="LANG",
    ),
    Option("max-dialog-turns", "message cap of an ACEBench agent dialogue (official: 40)", default="40", metavar="N"),
    Option("report", "write the JSON report to PATH", metavar="PATH"),
    Option("fail-under", "quality gate, e.g. overall=0.8,atom=0.9", metavar="METRIC=VALUE,..."),
    Option("max-errors", "request errors the gate tolerates", default="0", metavar="N"),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolcall", "tool-calling benchmarks (pytest-toolcall)")
    for option in OPTIONS:
        group.addoption(
            f"--toolcall-{option.name}", dest=option.dest, default=None, metavar=option.metavar, help=option.help
        )
        if option.ini:
            parser.addini(option.dest, f"{option.help} (--toolcall-{option.name})", default=None)


@dataclass(frozen=True)
class Settings:
    model: str
    base_url: str | None
    api_key_env: str
    benches: tuple[str, ...]
    langs: tuple[str, ...]
    data_dir: Path | None
    general_fc: tuple[Path, ...]
    reference: Path | None
    limit: int | None
    concurrency: int
    timeout: float
    max_retries: int
    temperature: float | None
    max_tokens: int | None
    extra_body: dict[str, Any]
    user_model: str | None
    user_base_url: str | None
    user_api_key_env: str
    max_dialog_turns: int
    step_prompt_lang: str | None  # None: the sample's language
    cache: Path | None  # None: the default location under pytest's cache dir
    cache_mode: str
    report: Path | None
    fail_under: str | None
    max_errors: int

    @property
    def sends_requests(self) -> bool:
        """Whether a model of this run is reached over the network."""
        models = (self.model, self.user_model or ORACLE)
        return self.cache_mode != "replay" and any(model != ORACLE for model in models)

    @property
    def api_key(self) -> str | None:
        """Read when needed, never stored: settings may be printed."""
        return os.environ.get(self.api_key_env)

    @property
    def user_api_key(self) -> str | None:
        return os.environ.get(self.user_api_key_env)

    @classmethod
    def from_config(cls, config: pytest.Config, namespace: Any = None) -> Settings | None:
        """The settings of an active run, or None when ``--toolcall-model`` is not given."""
        raw = {option.name: _raw(config, option, namespace) for option in OPTIONS}
        if not raw["model"]:
            return None
        settings = cls(
            model=raw["model"],
            base_url=raw["base-url"] or None,
            api_key_env=raw["api-key-env"],
            benches=_choices("bench", raw["bench"], BENCHMARKS),
            langs=LANGUAGES if raw["lang"] == "all" else _choices("lang", raw["lang"], LANGUAGES),
            data_dir=Path(raw["data-dir"]).expanduser() if raw["data-dir"] else None,
            general_fc=tuple(Path(p.strip()).expanduser() for p in (raw["general-fc"] or "").split(",") if p.strip()),
            reference=Path(raw["reference"]).expanduser() if raw["reference"] else None,
            limit=_number("limit", raw["limit"], int, minimum=1),
            concurrency=_number("concurrency", raw["concurrency"], int, minimum=1),
            timeout=_number("timeout", raw["timeout"], float, minimum=0.001),
            max_retries=_number("max-retries", raw["max-retries"], int, minimum=0),
            temperature=_number("temperature", raw["temperature"], float, minimum=0.0, none="none"),
            max_tokens=_number("max-tokens", raw["max-tokens"], int, minimum=1, none="none"),
            extra_body=_json_object("extra-body", raw["extra-body"]),
            user_model=raw["user-model"] or None,
            user_base_url=raw["user-base-url"] or None,
            user_api_key_env=raw["user-api-key-env"] or raw["api-key-env"],
            max_dialog_turns=_number("max-dialog-turns", raw["max-dialog-turns"], int, minimum=1),
            step_prompt_lang=_choices("step-prompt-lang", raw["step-prompt-lang"], ("sample", *LANGUAGES))[0]
            if raw["step-prompt-lang"] != "sample"
            else None,
            cache=Path(raw["cache"]).expanduser() if raw["cache"] and raw["cache"] != "off" else None,
            cache_mode="off" if raw["cache"] == "off" else _choices("cache-mode", raw["cache-mode"], MODES)[0],
            report=Path(raw["report"]) if raw["report"] else None,
            fail_under=raw["fail-under"] or None,
            max_errors=_number("max-errors", raw["max-errors"], int, minimum=0),
        )
        if "general_fc" in settings.benches and not settings.general_fc:
            raise _usage("bench", "general_fc needs --toolcall-general-fc=PATH (a JSONL file)")
        if settings.general_fc and "general_fc" not in settings.benches:
            raise _usage("general-fc", "given, but --toolcall-bench does not include general_fc")
        stems = [path.stem for path in settings.general_fc]
        if len(set(stems)) != len(stems):
            raise _usage("general-fc", f"file names must differ (item ids use them): {', '.join(stems)}")
        return settings


def needs_client_early(config: pytest.Config) -> bool:
    """Whether this process should start the run's model client process, judged from the command
    line alone (before pytest has configured itself), so that it can start early. A wrong guess
    costs time, never results: an unneeded client is stopped, a missing one started later."""
    namespace = config.known_args_namespace
    try:
        settings = Settings.from_config(config, namespace)
    except pytest.UsageError:
        return False  # reported once pytest configures
    if settings is None or not settings.sends_requests or getattr(namespace, "collectonly", False):
        return False
    # Under xdist the controller starts it and its workers connect to it.
    return "PYTEST_XDIST_WORKER" not in os.environ


def _raw(config: pytest.Config, option: Option, namespace: Any = None) -> Any:
    value = config.getoption(option.dest) if namespace is None else getattr(namespace, option.dest, None)
    if value is None and option.ini:
        value = config.getini(option.dest)
    if value is None and option.env:
        value = os.environ.get(option.env)
    return option.default if value is None else value


def _usage(name: str, message: str) -> pytest.UsageError:
    return pytest.UsageError(f"--toolcall-{name}: {message}")


def _choices(name: str, value: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    unknown = [v for v in chosen if v not in allowed]
    if unknown or not chosen:
        raise _usage(name, f"unknown value {', '.join(unknown) or repr(value)}; choose from {', '.join(allowed)}")
    return chosen


def _number(
    name: str, value: str | None, kind: Callable[[str], Any], *, minimum: float, none: str | None = None
) -> Any:
    if value is None or (none is not None and str(value).lower() == none):
        return None
    try:
        number = kind(str(value))
    except ValueError:
        raise _usage(name, f"expected a{'n integer' if kind is int else ' number'}, got {value!r}") from None
    if number < minimum:
        raise _usage(name, f"must be at least {minimum}, got {value!r}")
    return number


def _json_object(name: str, value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise _usage(name, f"not valid JSON: {exc.msg}") from None
    if not isinstance(parsed, dict):
        raise _usage(name, "expected a JSON object")
    return parsed
