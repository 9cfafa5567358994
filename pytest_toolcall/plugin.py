"""pytest hooks of pytest-toolcall (entry point ``pytest11: toolcall``).

Without a model (``--toolcall-model``, or ``toolcall_model`` in the ini file) the plugin only adds its
options and two fixtures that skip (``runner/inert.py``); it does not even import its machinery. With
one, ``runner/session.py`` registers the run's plugin objects, which do the rest.
Hook reference: https://docs.pytest.org/en/stable/reference/reference.html#hooks
"""

from __future__ import annotations

import sys

import pytest

from pytest_toolcall.config import registry
from pytest_toolcall.config.registration import add_options, model_given
from pytest_toolcall.core.protocol.nodeids import is_module_nodeid


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The hooks of the run's outputs (``hookspecs.py``), known even when no model is given, so that
    a plugin implementing them loads in every run."""
    from pytest_toolcall import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """The earliest hook that sees the command line: start the model client's process here, so
    that its second of SDK import overlaps conftests, configuration and collection."""
    if not model_given(early_config, early_config.known_args_namespace):
        return
    from pytest_toolcall.config.settings import needs_client_early

    if needs_client_early(early_config):
        from pytest_toolcall.model import sdk_process

        sdk_process.prestart()


def pytest_configure(config: pytest.Config) -> None:
    for problem in registry.problems():  # in every run, model or not: one line each, no traceback
        config.issue_config_time_warning(pytest.PytestConfigWarning(f"pytest-toolcall: {problem}"), stacklevel=2)
    if not model_given(config):
        from pytest_toolcall.runner import inert

        config.pluginmanager.register(inert, "toolcall-inert")
        return
    from pytest_toolcall.config.settings import Settings

    settings = Settings.from_config(config)
    assert settings is not None  # a model is given
    from pytest_toolcall.runner import fixtures, session

    declared = registry.declared()
    for name, declaration in declared.items():
        config.addinivalue_line("markers", f"{name}: a {name} item")
        if declaration.fixtures:  # for users' own tests, selected or not
            config.pluginmanager.register(registry.import_fixtures(name), f"toolcall-{name}-fixtures")
    # Only the benchmarks this run uses are imported (the selected ones, and those of users' files).
    for name in (*settings.benches, *(n for n, d in declared.items() if d.file_suffixes)):
        for marker, description in registry.benchmark_class(name).markers.items():
            config.addinivalue_line("markers", f"{marker}: {description}")
    named = {part.strip() for part in (settings.option("bench") or "").split(",")}
    if settings.benchmark_items_only and not any(declared[name].file_suffixes for name in named & set(declared)):
        # A model typed with no path: only the benchmark items. A benchmark of the users' own files
        # named in --toolcall-bench (``cases``, not merely included in ``all``) keeps pytest's default
        # paths (testpaths, else the current directory): that is where those files are. Benchmark
        # node ids given as arguments stay, for the run to take (``runner/selection.py``).
        config.args = [arg for arg in config.args if is_module_nodeid(arg)]
    config.pluginmanager.register(fixtures, "toolcall-fixtures")
    session.start(config, settings)


def pytest_unconfigure() -> None:
    sdk_process = sys.modules.get("pytest_toolcall.model.sdk_process")  # loaded only if a client was started
    if sdk_process is not None:
        sdk_process.stop_client()  # one started early for a run that ended before using it
