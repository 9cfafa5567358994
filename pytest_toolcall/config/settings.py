"""Command-line options (group ``toolcall``), their ini twins, and the resolved settings.

Option values stay plain strings until resolved here (xdist workers parse the same command line).
Precedence: command line, then the ini file, then the environment, then the default. The generic
options (``config/run_options.py``) are resolved into ``Settings``; a benchmark's own options are
declared by the benchmark, registered in its namespace (``--toolcall-<benchmark>-<name>``, see
``config/registry.py``) and read by it through ``Settings.option`` of its view (``for_benchmark``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.config import registry
from pytest_toolcall.config.registration import all_options, model_given, resolved
from pytest_toolcall.config.run_options import DEFAULT_BENCH
from pytest_toolcall.core.protocol.nodeids import is_module_nodeid
from pytest_toolcall.core.protocol.options import Option, one_of, parse_choices, parse_number, usage_error
from pytest_toolcall.core.safety.urls import redact_url

MODES = ("read-write", "reuse", "read-only", "replay", "off")
#: The modes that write what arrives to the store.
WRITING_MODES = ("read-write", "reuse")


@dataclass(frozen=True)
class Settings:
    model: str
    base_url: str | None
    api_key_env: str
    benches: tuple[str, ...]
    limit: int | None
    concurrency: int
    timeout: float
    max_retries: int
    #: ``--toolcall-temperature`` and ``--toolcall-max-tokens`` as given (None: not given, or ``none``):
    #: what requests that belong to no benchmark are sent with.
    temperature: float | None
    max_tokens: int | None
    extra_body: dict[str, Any]
    cache: Path | None  # None: the default location under pytest's cache dir
    cache_mode: str
    report: Path | None
    html: Path | None
    fail_under: str | None
    max_errors: int
    repeat: int
    baseline: Path | None
    #: Significance level of --toolcall-fail-on-regression; None: regressions do not fail the gate.
    fail_on_regression: float | None
    gate_on: str
    gate_value: str
    #: (USD per million prompt tokens, per million completion tokens), or None.
    price: tuple[float, float] | None
    budget: float | None
    #: Every option's resolved text (benchmark options are read through ``option``).
    raw: Mapping[str, str | None]
    #: Model names that benchmark options name (user simulators).
    other_models: tuple[str, ...] = ()
    #: ``--toolcall-shard K/N`` as (K, N), or None.
    shard: tuple[int, int] | None = None
    #: ``--toolcall-cache-max-age`` in seconds, or None (any age).
    cache_max_age: float | None = None
    #: ``--toolcall-model`` typed on the command line with no path argument, in a folder whose ini file
    #: does not configure the plugin: the run collects only the benchmark items (docs/contract.md,
    #: "Activation and collection"), whatever the ini file's testpaths.
    benchmark_items_only: bool = False
    #: ``--toolcall-stream``: off, on or both.
    stream: str = "off"
    #: ``--toolcall-api``: chat, responses or messages.
    api: str = "chat"
    #: The sampling settings given on the command line or in the ini file (``temperature``,
    #: ``max_tokens``; None: send none): they replace every benchmark's own (``Benchmark.sampling``).
    sampling: Mapping[str, Any] = field(default_factory=dict)
    #: The benchmark whose view of the settings this is (``for_benchmark``), or None.
    benchmark: str | None = None

    def option(self, name: str) -> str | None:
        """The resolved text of an option by its full name (``"acebench-lang"``, ``"model"``); in a
        benchmark's view, of its own options by the name it declared (``"lang"``) first."""
        if self.benchmark is not None:
            own = f"{registry.namespace(self.benchmark)}-{name}"
            if own in self.raw:
                return self.raw[own]
        return self.raw[name]

    def for_benchmark(self, name: str) -> Settings:
        """The settings as the benchmark ``name`` reads them: ``option("lang")`` is its own ``lang``."""
        return replace(self, benchmark=name)

    def sampling_for(self, declared: Mapping[str, Any]) -> dict[str, Any]:
        """What a benchmark's requests are sent with: its declared sampling (``Benchmark.sampling``),
        each setting given for the run replacing its own (None: the field is left out)."""
        return {**declared, **self.sampling}

    @property
    def is_oracle(self) -> bool:
        """Whether the model under test is the built-in oracle."""
        from pytest_toolcall.model import oracle  # (not at import: this module is read in every pytest run)

        return oracle.chooses(self.model)

    @property
    def sends_requests(self) -> bool:
        """Whether a model of this run is reached over the network."""
        return self.cache_mode != "replay" and not self.only_oracle

    @property
    def only_oracle(self) -> bool:
        """Whether every model this run names is the oracle (nothing to send, nothing to store)."""
        from pytest_toolcall.model import oracle

        return all(oracle.chooses(m) for m in (self.model, *self.other_models))

    @property
    def api_key(self) -> str | None:
        """Read when needed, never stored: settings may be printed."""
        return os.environ.get(self.api_key_env)

    @classmethod
    def from_config(cls, config: pytest.Config, namespace: Any = None) -> Settings | None:
        """The settings of an active run, or None when no model is given (``--toolcall-model`` or the
        ``toolcall_model`` ini option)."""
        if not model_given(config, namespace):
            return None
        raw = {option.name: resolved(config, option, namespace) for _, option in all_options()}
        source = config.option if namespace is None else namespace
        typed = getattr(source, "toolcall_model", None) is not None  # on the command line, not from the ini
        if namespace is None:
            args = config.args if config.args_source == pytest.Config.ArgsSource.ARGS else []
        else:  # before pytest has resolved its arguments: the positional ones as parsed
            args = getattr(namespace, "file_or_dir", None) or []
        # A benchmark item's node id pasted as an argument is not a path (``runner/selection.py``).
        paths_given = any(not is_module_nodeid(str(arg)) for arg in args)
        return cls.from_raw(raw, items_only=typed and not paths_given and not ini_configures(config))

    @classmethod
    def from_raw(
        cls, raw: Mapping[str, str | None], items_only: bool = False, benches: tuple[str, ...] | None = None
    ) -> Settings | None:
        """The settings from every option's resolved text (as a report's ``run.options`` keeps them;
        options it does not name take their defaults); ``benches``: the benchmarks, when known."""
        options = all_options()
        raw = {option.name: _recorded(raw, option) for _, option in options}
        if not raw["model"]:
            return None
        found = registry.names()
        if benches is None:
            benches = _benches(raw, options, found, default=(DEFAULT_BENCH,) if items_only else ())
        for bench in benches:
            problem = registry.broken(bench)
            if problem is not None:
                raise pytest.UsageError(f"--toolcall-bench: {problem}")
        for owner, option in options:
            if owner is not None and option.selects and raw[option.name] and owner not in benches:
                raise usage_error(option.name, f"given, but --toolcall-bench does not include {owner}")
        sampling: dict[str, Any] = {}
        temperature = parse_number("temperature", raw["temperature"], float, minimum=0.0, maximum=2.0, none="none")
        max_tokens = parse_number("max-tokens", raw["max-tokens"], int, minimum=1, none="none")
        if raw["temperature"] is not None:
            sampling["temperature"] = temperature
        if raw["max-tokens"] is not None:
            sampling["max_tokens"] = max_tokens
        return cls(
            model=raw["model"],
            base_url=_base_url(raw["base-url"]),
            api_key_env=_given(raw, "api-key-env"),
            benches=benches,
            limit=parse_number("limit", raw["limit"], int, minimum=1),
            concurrency=parse_number("concurrency", raw["concurrency"], int, minimum=1, maximum=MAX_CONCURRENCY),
            timeout=parse_number("timeout", raw["timeout"], float, minimum=0.001, maximum=86400.0),
            max_retries=parse_number("max-retries", raw["max-retries"], int, minimum=0, maximum=MAX_RETRIES),
            temperature=temperature,
            max_tokens=max_tokens,
            extra_body=_json_object("extra-body", raw["extra-body"]),
            cache=Path(raw["cache"]).expanduser() if raw["cache"] and raw["cache"] != "off" else None,
            cache_mode="off"
            if raw["cache"] == "off"
            else parse_choices("cache-mode", _given(raw, "cache-mode"), MODES)[0],
            report=Path(raw["report"]) if raw["report"] else None,
            html=Path(raw["html"]) if raw["html"] else None,
            fail_under=raw["fail-under"] or None,
            max_errors=parse_number("max-errors", raw["max-errors"], int, minimum=0),
            repeat=parse_number("repeat", raw["repeat"], int, minimum=1, maximum=MAX_REPEAT),
            baseline=Path(raw["baseline"]).expanduser() if raw["baseline"] else None,
            fail_on_regression=_alpha(raw["fail-on-regression"]),
            gate_on=parse_choices("gate-on", _given(raw, "gate-on"), ("point", "lower"))[0],
            gate_value=parse_choices("gate-value", _given(raw, "gate-value"), ("strict", "measured"))[0],
            price=_price(raw["price"]),
            budget=_budget(raw["budget"], raw["price"]),
            raw=raw,
            other_models=tuple(
                name
                for owner, o in options
                if o.names_model and (owner is None or owner in benches) and (name := raw[o.name])
            ),
            shard=parse_shard(raw["shard"]),
            cache_max_age=parse_duration("cache-max-age", raw["cache-max-age"]),
            benchmark_items_only=items_only,
            stream=one_of("stream", _given(raw, "stream"), ("off", "on", "both")),
            api=_api(_given(raw, "api"), raw["model"]),
            sampling=sampling,
        )


def ini_configures(config: pytest.Config) -> bool:
    """Whether the ini file configures the plugin (``toolcall_model`` or ``toolcall_bench``): then it
    decides what the project runs, and a model typed on the command line only replaces the model."""
    return any(config.getini(name) not in (None, "") for name in ("toolcall_model", "toolcall_bench"))


def _benches(
    raw: dict[str, Any], options: list[tuple[str | None, Option]], found: tuple[str, ...], default: tuple[str, ...]
) -> tuple[str, ...]:
    """The selected benchmarks: as given (``all`` = every one found), else those an option selects,
    else the default (``acebench`` for a typed model with no path; none with paths or an ini model,
    where a benchmark joins only when named)."""
    if raw["bench"]:
        if raw["bench"].strip() == "all":
            return found
        return parse_choices("bench", raw["bench"], found)
    selected = tuple(dict.fromkeys(o for o, option in options if o and option.selects and raw[option.name]))
    return selected or default


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


def _recorded(raw: Mapping[str, str | None], option: Option) -> str | None:
    """An option's text in resolved options, under its full name or, in a report written before the
    option moved into its benchmark's namespace, under an alias (``lang``); else its default."""
    for name in (option.name, *option.aliases):
        if name in raw:
            return raw[name]
    return option.default


def _given(raw: Mapping[str, str | None], name: str) -> str:
    """The text of an option that has a default (only a report's options could still leave it out)."""
    value = raw[name]
    if value is None:
        raise usage_error(name, "needs a value")
    return value


#: Bounds of counts that multiply work: a typo (``--toolcall-repeat=100000000``) is a usage error at
#: once, not a run that sits silent building a hundred million items.
MAX_REPEAT = 1000
MAX_CONCURRENCY = 1024
MAX_RETRIES = 100


def _api(value: str, model: str | None) -> str:
    """``--toolcall-api``; ``messages`` needs the ``anthropic`` SDK, checked before any request (found,
    not imported: the import takes seconds and is the client process's)."""
    import importlib.util

    from pytest_toolcall.model import oracle

    api = one_of("api", value, ("chat", "responses", "messages"))
    if api == "messages" and model and not oracle.chooses(model) and importlib.util.find_spec("anthropic") is None:
        raise usage_error("api", "messages needs the anthropic SDK: pip install 'pytest-toolcall[anthropic]'")
    return api


def _base_url(value: str | None) -> str | None:
    if not value:
        return None
    if "#" in value:  # a fragment is never sent: whatever follows it (a path, a query) would be lost
        raise usage_error("base-url", f"a URL fragment ('#...') is never sent to a server: {redact_url(value)}")
    return value


_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(name: str, value: str | None) -> float | None:
    """``12h``, ``7d``, ``30m``, ``90s`` in seconds; None when not given."""
    if not value:
        return None
    match = _DURATION.fullmatch(value)
    if match is None:
        raise usage_error(name, f"{value!r} is not a duration: a number and a unit s, m, h or d (12h, 7d)")
    return float(match.group(1)) * _UNIT_S[match.group(2)]


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """``K/N`` with 1 <= K <= N, as (K, N)."""
    if not value:
        return None
    index, sep, count = str(value).partition("/")
    try:
        shard = (int(index), int(count))
    except ValueError:
        shard = None
    if not sep or shard is None or not 1 <= shard[0] <= shard[1]:
        raise usage_error("shard", f"expected K/N with 1 <= K <= N (e.g. 2/4), got {value!r}")
    return shard


def _alpha(value: str | None) -> float | None:
    if not value:
        return None
    alpha = parse_number("fail-on-regression", value, float, minimum=0.0)
    if not 0.0 < alpha < 1.0 or alpha != alpha:
        raise usage_error("fail-on-regression", f"ALPHA is a significance level between 0 and 1, got {value!r}")
    return float(alpha)


def _price(value: str | None) -> tuple[float, float] | None:
    if not value:
        return None
    try:
        return parse_price(value)
    except ValueError as exc:
        raise usage_error("price", str(exc)) from None


def parse_price(text: str) -> tuple[float, float]:
    """``"IN,OUT"`` (USD per million prompt / completion tokens) → (IN, OUT); ValueError naming the
    problem otherwise."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"a price is IN,OUT in USD per million prompt and completion tokens, got {text!r}")
    try:
        price = (float(parts[0]), float(parts[1]))
    except ValueError:
        raise ValueError(f"a price is two numbers IN,OUT, got {text!r}") from None
    if any(p < 0 or p != p or p == float("inf") for p in price):
        raise ValueError(f"prices must be finite and non-negative, got {text!r}")
    return price


def _budget(value: str | None, price: str | None) -> float | None:
    if not value:
        return None
    budget = parse_number("budget", value, float, minimum=0.0)
    if budget != budget or budget == float("inf"):
        raise usage_error("budget", f"expected a finite amount of USD, got {value!r}")
    if not price:
        raise usage_error("budget", "needs --toolcall-price IN,OUT to estimate what requests cost")
    return float(budget)


def _json_object(name: str, value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise usage_error(name, f"not valid JSON: {exc.msg}") from None
    if not isinstance(parsed, dict):
        raise usage_error(name, "expected a JSON object")
    return parsed
