"""What every pytest run does with the options, model or not: register them (the run options and every
installed benchmark's declared ones) and ask whether a model is given. Light, as it runs in every
pytest process: ``settings.py``, which resolves an active run's options, is imported only when a
model is given."""

from __future__ import annotations

import os
from typing import Any

import pytest

from pytest_toolcall.config import registry
from pytest_toolcall.config.run_options import MODEL, OPTIONS
from pytest_toolcall.core.protocol.options import Option


def all_options() -> list[tuple[str | None, Option]]:
    """(owning benchmark or None, option) for the run options and every usable benchmark's, under their
    full names, read from the declarations (no benchmark's code is imported for them)."""
    options: list[tuple[str | None, Option]] = [(None, option) for option in OPTIONS]
    for name, declared in registry.declared().items():
        options += [(name, option) for option in declared.options]
    return options


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolcall", "tool-calling benchmarks (pytest-toolcall)")
    for _, option in all_options():
        # The default stays None here (an unset option falls back to the ini file and the
        # environment); the help says what an unset option means.
        shown = option.help if option.default is None else f"{option.help} (default: {option.default})"
        optional = {"nargs": "?", "const": option.const} if option.const is not None else {}
        group.addoption(*option.flags, dest=option.dest, default=None, metavar=option.metavar, help=shown, **optional)
        if option.ini:
            for ini in option.ini_names:
                parser.addini(ini, f"{option.help} (--toolcall-{option.name})", default=None)


def resolved(config: pytest.Config, option: Option, namespace: Any = None) -> Any:
    """An option's text: the command line (``namespace``: as parsed before pytest configured itself),
    else its ini names, else its environment variable, else its default."""
    value = config.getoption(option.dest) if namespace is None else getattr(namespace, option.dest, None)
    if value is None and option.ini:
        # The option's own ini name first, then its aliases' (``toolcall_lang``).
        value = next((v for ini in option.ini_names if (v := config.getini(ini)) is not None), None)
    if value is None and option.env:
        value = os.environ.get(option.env)
    return option.default if value is None else value


def model_given(config: pytest.Config, namespace: Any = None) -> bool:
    """Whether a model is given (``--toolcall-model`` or ``toolcall_model``): without one, a run only
    has the plugin's options."""
    return bool(resolved(config, MODEL, namespace))
