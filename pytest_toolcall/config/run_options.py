"""The run options: every run's ``--toolcall-*`` options (a benchmark's own are declared by the benchmark,
in its namespace: ``config/registry.py``). Declarations only, imported in every pytest run."""

from __future__ import annotations

from pytest_toolcall.core.protocol.options import Option

#: Options shared by every benchmark (user simulator and judge included): not any one benchmark's.
MODEL = Option("model", "model to evaluate; 'oracle' is the built-in reference model (no network)", metavar="NAME")
OPTIONS = (
    MODEL,
    Option("base-url", "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)", env="OPENAI_BASE_URL", metavar="URL"),
    Option("api-key-env", "environment variable holding the API key", default="OPENAI_API_KEY", metavar="NAME"),
    Option(
        "user-model",
        "user simulator of the agent dialogues (ACEBench agent_multi_turn, τ²-bench; default: none, those items "
        "are skipped; 'oracle' plays the user from the reference)",
        metavar="NAME",
        names_model=True,
    ),
    Option("user-base-url", "endpoint of the user simulator (default: the model's endpoint)", metavar="URL"),
    Option(
        "user-api-key-env",
        "environment variable holding the user simulator's key (default: the model's)",
        metavar="NAME",
    ),
    Option(
        "judge-model",
        "LLM judge of what no rule scores (τ²-bench NL assertions; official: gpt-4.1-2025-04-14; default: none, "
        "those parts are not measured)",
        metavar="NAME",
        names_model=True,
    ),
    Option("judge-base-url", "endpoint of the judge (default: the model's endpoint)", metavar="URL"),
    Option("judge-api-key-env", "environment variable holding the judge's key (default: the model's)", metavar="NAME"),
    Option(
        "bench",
        "benchmarks to run, comma-separated, or 'all' (default: acebench when --toolcall-model is typed with no "
        "path; with paths or a model from the ini file, only the benchmarks named here)",
        metavar="LIST",
    ),
    Option("limit", "at most N items per category (per file for general_fc)", metavar="N"),
    Option("concurrency", "model requests in flight per process", default="8", metavar="N"),
    Option("timeout", "seconds per request", default="120", metavar="S"),
    Option("max-retries", "retries per request (429, 5xx, resets, timeouts, bad bodies)", default="4", metavar="N"),
    Option(
        "temperature",
        "sampling temperature of every benchmark's requests, or 'none' to send none (default: each benchmark's "
        "official value, e.g. ACEBench 0.7; a benchmark that declares none sends none)",
        metavar="T",
    ),
    Option(
        "max-tokens",
        "max_tokens per answer for every benchmark's requests, or 'none' to send none (default: each "
        "benchmark's official value, e.g. ACEBench 1200)",
        metavar="N",
    ),
    Option("extra-body", "JSON object merged into every request body", metavar="JSON"),
    Option("cache", "response store folder, or 'off' (default: under pytest's cache dir)", metavar="DIR|off"),
    Option(
        "cache-mode",
        "read-write (answers reused only to finish an interrupted run of the same selection, and for "
        "--lf), reuse (read-write, and answers of completed runs reused too), read-only, replay (no "
        "network: a missing response is an error) or off",
        default="read-write",
        metavar="MODE",
    ),
    Option(
        "cache-max-age",
        "stored answers of earlier runs older than this are asked anew (e.g. 12h, 7d; units s, m, h, d)",
        metavar="DURATION",
    ),
    Option("report", "write the JSON report to PATH", metavar="PATH"),
    Option("html", "write a single-file HTML report to PATH", metavar="PATH"),
    Option("fail-under", "quality gate, e.g. overall=0.8,atom=0.9", metavar="METRIC=VALUE,..."),
    Option("max-errors", "request errors the gate tolerates", default="0", metavar="N"),
    Option(
        "repeat",
        "run every unit N times, as N items (ids end in @1 ... @N), each asking anew",
        default="1",
        metavar="N",
    ),
    Option("baseline", "JSON report of an earlier run: changes, paired tests, regressed units", metavar="REPORT"),
    Option(
        "fail-on-regression",
        "gate: fail on a significant regression against --toolcall-baseline (ALPHA default 0.05)",
        metavar="ALPHA",
        const="0.05",
    ),
    Option(
        "gate-on",
        "point: thresholds hold for the value; lower: for the lower bound of its 95 percent interval",
        default="point",
        metavar="point|lower",
    ),
    Option(
        "gate-value",
        "strict: thresholds hold for the smaller of the measured and the official value (missing units and "
        "failed requests count against the model); measured: for the value over what ran and was answered",
        default="strict",
        metavar="strict|measured",
    ),
    Option("price", "USD per million prompt and completion tokens: a cost estimate", metavar="IN,OUT"),
    Option(
        "budget",
        "stop sending new requests once the estimated cost passes USD (needs --toolcall-price)",
        metavar="USD",
    ),
    Option(
        "stream",
        "off: plain requests; on: every request streamed (answers reassembled from the deltas, stream rules "
        "checked); both: asked both ways, official numbers from the plain answers, streamed ones compared",
        default="off",
        metavar="off|on|both",
    ),
    Option(
        "api",
        "the wire format: chat (Chat Completions), responses (the Responses API) or messages (Anthropic's "
        "Messages API, through the anthropic SDK: pytest-toolcall[anthropic])",
        default="chat",
        metavar="chat|responses|messages",
    ),
    Option(
        "shard", "run only shard K of N (1-based): a deterministic subset balanced by cost", ini=False, metavar="K/N"
    ),
)
DEFAULT_BENCH = "acebench"
