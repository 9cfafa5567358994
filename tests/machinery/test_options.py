"""Options per benchmark, the registry that finds them without importing benchmarks, sampling per
benchmark, gate names checked against the selected benchmarks, and the lazy public floor.

Third-party benchmarks are planted here as modules in a temporary folder with entry points added to
the installed ones (``fake_installation``); ``test_third_party.py`` installs one for real."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_toolcall import api
from pytest_toolcall.config import registry
from pytest_toolcall.config.registration import all_options
from pytest_toolcall.config.settings import Settings
from pytest_toolcall.results import gate

REAL_ENTRY_POINTS = registry.entry_points

BENCHMARK = """
from pytest_toolcall.api import Benchmark, Loaded, Option, Requests, Verdict

class {cls}(Benchmark):
    name = "{name}"
    options = ({options})
    sampling = {sampling}

    def __init__(self, settings):
        super().__init__(settings)
        self.lang = settings.option("lang") if {reads_lang} else None

    def load(self):
        return Loaded(units=[])

    def plan(self, unit, models):
        return Requests([])

    def score(self, unit, answer):
        return Verdict(True)
"""


@pytest.fixture
def fake_installation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Adds third-party benchmarks to the installed ones: ``add(name, options=..., declaration=...)``."""
    monkeypatch.syspath_prepend(str(tmp_path))
    extra: dict[str, list[importlib.metadata.EntryPoint]] = {registry.GROUP: [], registry.DECLARATIONS: []}

    def fake() -> dict[str, dict[str, importlib.metadata.EntryPoint]]:
        found = REAL_ENTRY_POINTS()
        for group, points in extra.items():
            found[group].update((point.name, point) for point in points)
        return found

    def add(
        name: str,
        options: str = "",
        sampling: str = "{}",
        declaration: str | None = None,
        module_text: str | None = None,
        reads_lang: bool = False,
    ) -> None:
        package = f"thirdparty_{name}"
        (tmp_path / package).mkdir()
        text = module_text or BENCHMARK.format(
            cls="ThirdParty", name=name, options=options, sampling=sampling, reads_lang=reads_lang
        )
        # The package imports nothing: its declaration module is imported without the benchmark.
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
        (tmp_path / package / "benchmark.py").write_text(textwrap.dedent(text), encoding="utf-8")
        point = importlib.metadata.EntryPoint(name, f"{package}.benchmark:ThirdParty", registry.GROUP)
        extra[registry.GROUP].append(point)
        if declaration is not None:
            (tmp_path / package / "options.py").write_text(textwrap.dedent(declaration), encoding="utf-8")
            extra[registry.DECLARATIONS].append(
                importlib.metadata.EntryPoint(name, f"{package}.options", registry.DECLARATIONS)
            )
        importlib.invalidate_caches()
        registry.installation.cache_clear()
        registry.collected_file_suffixes.cache_clear()

    monkeypatch.setattr(registry, "entry_points", fake)
    registry.installation.cache_clear()
    yield add
    for module in [m for m in sys.modules if m.startswith("thirdparty_")]:
        del sys.modules[module]
    registry.installation.cache_clear()
    registry.collected_file_suffixes.cache_clear()


def flags() -> dict[str, str | None]:
    """Every registered flag -> the benchmark that owns it (None: a run option)."""
    return {flag: owner for owner, option in all_options() for flag in option.flags}


# --- namespaces and aliases ------------------------------------------------------------------------


def test_a_benchmark_option_lives_in_its_namespace_and_a_built_in_keeps_its_old_name() -> None:
    found = flags()
    assert found["--toolcall-acebench-lang"] == "acebench"
    assert found["--toolcall-lang"] == "acebench"  # the alias
    assert found["--toolcall-general-fc-files"] == found["--toolcall-general-fc"] == "general_fc"
    assert found["--toolcall-tau2-domains"] == "tau2"  # already namespaced: no alias needed
    assert found["--toolcall-judge-model"] is None  # shared by benchmarks: a run option
    assert found["--toolcall-user-model"] is None


def test_two_benchmarks_may_both_declare_lang(fake_installation: Callable[..., None]) -> None:
    fake_installation("lang3p", options='Option("lang", "its language"),', reads_lang=True)
    found = flags()
    assert (found["--toolcall-lang3p-lang"], found["--toolcall-acebench-lang"]) == ("lang3p", "acebench")
    assert registry.problems() == []
    settings = Settings.from_raw({"model": "oracle", "bench": "lang3p,acebench", "lang3p-lang": "xx"})
    assert settings is not None
    benchmark = registry.benchmark_class("lang3p")(settings.for_benchmark("lang3p"))
    assert benchmark.lang == "xx"  # type: ignore[attr-defined]
    assert settings.for_benchmark("acebench").option("lang") == "en"  # ACEBench's own, untouched


@pytest.mark.slow  # runs pytest inside
def test_an_alias_sets_the_option_and_an_old_report_is_read(pytester: pytest.Pytester) -> None:
    # A report written before the namespace keeps ``lang``: rebuilt, it is ACEBench's ``lang``.
    settings = Settings.from_raw({"model": "oracle", "lang": "zh", "reference": "r.json"})
    assert settings is not None
    assert settings.option("acebench-lang") == "zh"
    assert settings.for_benchmark("general_fc").option("reference") == "r.json"
    # On the command line and in the ini file, the old name sets the same option.
    config = pytester.parseconfig("--toolcall-lang=zh")
    assert config.getoption("toolcall_acebench_lang") == "zh"
    pytester.makeini("[pytest]\ntoolcall_data_dir = /somewhere\n")
    config = pytester.parseconfig("--toolcall-model=oracle")
    assert Settings.from_config(config).option("acebench-data-dir") == "/somewhere"  # type: ignore[union-attr]


# --- broken third-party benchmarks: one line, an error only when selected -------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("clash", "its option --toolcall-lang is also benchmark acebench's"),
        ("run option clash", "its option --toolcall-judge-model is also the run options's"),
        ("import error", "cannot import it (ModuleNotFoundError: No module named 'not_installed_anywhere')"),
        ("not a benchmark", "not a Benchmark subclass"),
        ("declaration error", "cannot import its options declaration thirdparty_bad.options (ZeroDivisionError"),
        ("twice", "it declares --toolcall-bad-x twice"),
    ],
)
def test_a_broken_benchmark_is_one_line_and_an_error_only_when_selected(
    fake_installation: Callable[..., None], kind: str, expected: str
) -> None:
    if kind == "clash":
        fake_installation("bad", options='Option("x", "x", aliases=("lang",)),')
    elif kind == "run option clash":
        fake_installation("bad", options='Option("x", "x", aliases=("judge-model",)),')
    elif kind == "import error":
        fake_installation("bad", module_text="import not_installed_anywhere\n")
    elif kind == "not a benchmark":
        fake_installation("bad", module_text="ThirdParty = 42\n")
    elif kind == "declaration error":
        fake_installation("bad", declaration="1 / 0\n")
    else:
        fake_installation("bad", options='Option("x", "x"), Option("x", "again"),')
    (line,) = registry.problems()
    assert line.startswith("benchmark bad (thirdparty_bad.benchmark:ThirdParty): ") and expected in line
    assert "\n" not in line
    # Unselected, it costs the others nothing: their options and settings are whole.
    assert "--toolcall-acebench-lang" in flags() and not any(f.startswith("--toolcall-bad-") for f in flags())
    assert Settings.from_raw({"model": "oracle", "bench": "acebench"}) is not None
    for bench in ("bad", "all", "acebench,bad"):
        with pytest.raises(pytest.UsageError, match=r"^--toolcall-bench: benchmark bad "):
            Settings.from_raw({"model": "oracle", "bench": bench})
    with pytest.raises(pytest.UsageError, match=r"^benchmark bad "):
        registry.benchmark_class("bad")


def test_a_declared_benchmark_is_imported_only_when_asked_for(fake_installation: Callable[..., None]) -> None:
    fake_installation(
        "lazy",
        module_text="raise RuntimeError('imported')\n",  # importing it is an error: it must not happen
        declaration='from pytest_toolcall.api import Option\nOPTIONS = (Option("lang", "x"),)\n',
    )
    assert flags()["--toolcall-lazy-lang"] == "lazy"
    assert registry.problems() == []
    assert "lazy" not in registry.loaded_classes()
    # Asked for, it is imported then, and its failure is one line naming it.
    refusal = r"^benchmark lazy \(thirdparty_lazy\.benchmark:ThirdParty\): cannot import it \(RuntimeError: imported\)"
    with pytest.raises(pytest.UsageError, match=refusal):
        registry.benchmark_class("lazy")


def test_the_built_ins_declarations_are_their_classes_own() -> None:
    for name, declared in registry.declared().items():
        if not declared.built_in:
            continue
        cls = registry.benchmark_class(name)
        own = [option.name for option in cls.options]
        assert [option.name for option in declared.options] == [f"{registry.namespace(name)}-{o}" for o in own]
        assert (declared.fixtures, declared.file_suffixes) == (cls.fixtures, cls.file_suffixes), name


# --- sampling per benchmark ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "declared", "sent"),
    [
        ({}, {}, {}),  # a benchmark that declares nothing sends nothing
        ({}, {"temperature": 0.7, "max_tokens": 1200}, {"temperature": 0.7, "max_tokens": 1200}),
        ({"temperature": "0.2"}, {"temperature": 0.7, "max_tokens": 1200}, {"temperature": 0.2, "max_tokens": 1200}),
        ({"max-tokens": "none"}, {"temperature": 0.7, "max_tokens": 1200}, {"temperature": 0.7, "max_tokens": None}),
        ({"temperature": "0", "max-tokens": "9"}, {}, {"temperature": 0.0, "max_tokens": 9}),
    ],
)
def test_the_run_sampling_replaces_a_benchmarks_own(
    given: dict[str, str], declared: dict[str, object], sent: dict[str, object]
) -> None:
    settings = Settings.from_raw({"model": "oracle", **given})
    assert settings is not None
    assert settings.sampling_for(declared) == sent


def test_each_built_in_declares_its_official_sampling() -> None:
    declared = {name: dict(registry.benchmark_class(name).sampling) for name in ("acebench", "bfcl", "tau2")}
    assert declared == {
        "acebench": {"temperature": 0.7, "max_tokens": 1200},  # ACEBench's official runner
        "bfcl": {"temperature": 0.001},  # gorilla@6ea5797: --temperature 0.001, no max_tokens
        "tau2": {"temperature": 0.0},  # tau2-bench@a2c0247: DEFAULT_LLM_ARGS_AGENT/USER
    }
    # K2-Vendor-Verifier sends the file's request bodies as they are; the users' cases their own.
    for name in ("general_fc", "cases", "conformance"):
        assert dict(registry.benchmark_class(name).sampling) == {}, name


@pytest.mark.parametrize(
    ("benchmark", "before_request", "now_request"),
    [
        # ACEBench: the run's defaults were its values, its requests set none of their own.
        ("acebench", {}, {}),
        # Its agent dialogues set their own, over the run's then, over the benchmark's now.
        ("acebench", {"temperature": 0.001, "top_p": 1, "max_tokens": 1000}, None),
        # BFCL and τ²-bench set theirs on every request, the run's defaults under them.
        ("bfcl", {"temperature": 0.001, "max_tokens": None}, {}),
        ("tau2", {"temperature": 0.0, "max_tokens": None}, {}),
    ],
)
def test_a_built_ins_requests_keep_their_store_keys(
    benchmark: str, before_request: dict[str, object], now_request: dict[str, object] | None
) -> None:
    """Answers stored before sampling moved onto the benchmarks are found again: a request's key
    (``model.store.request_key``) over what it was sent with is the same."""
    from pytest_toolcall.core.protocol.types import ChatRequest
    from pytest_toolcall.model.store import request_key

    messages = [{"role": "user", "content": "hi"}]
    # Before: the run's sampling (the options' defaults, ACEBench's values) under the request's own.
    before = request_key(
        "m",
        None,
        ChatRequest(messages, sampling=before_request),
        {"temperature": 0.7, "max_tokens": 1200, "extra_body": {}},
    )
    # Now: nothing given for the run; the unit's model adds the benchmark's sampling under the request's.
    settings = Settings.from_raw({"model": "m", "bench": benchmark})
    assert settings is not None
    own = before_request if now_request is None else now_request
    sent = {**settings.sampling_for(registry.benchmark_class(benchmark).sampling), **own}
    run_level = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "extra_body": {}}
    assert request_key("m", None, ChatRequest(messages, sampling=sent), run_level) == before


# --- gate names ------------------------------------------------------------------------------------


def test_a_gate_name_no_selected_benchmark_produces_is_refused_with_the_names_it_could_be(
    fake_installation: Callable[..., None],
) -> None:
    fake_installation("calc3p")
    calc = registry.benchmark_class("calc3p")
    with pytest.raises(ValueError, match="unknown metric 'overall'") as refused:
        gate.parse_thresholds("overall=0.9", [calc])
    assert "calc3p.overall, calc3p.<category>" in str(refused.value)
    # ACEBench's ``overall`` is ACEBench's only when ACEBench runs.
    (threshold,) = gate.parse_thresholds("overall=0.9", [registry.benchmark_class("acebench")])
    assert threshold.benchmark.name == "acebench"
    (threshold,) = gate.parse_thresholds("calc3p.overall=0.9", [calc])
    assert threshold.benchmark is calc


# --- the public floor, lazily ----------------------------------------------------------------------


def test_every_public_name_resolves() -> None:
    fresh = importlib.reload(api)
    for name in fresh.__all__:
        assert getattr(fresh, name) is not None, name
    assert fresh.Option is importlib.import_module("pytest_toolcall.core.protocol.options").Option
    with pytest.raises(AttributeError):
        fresh.not_a_public_name  # noqa: B018
