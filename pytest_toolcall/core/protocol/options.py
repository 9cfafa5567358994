"""How a benchmark declares its options, and the parsers that turn an option's text into a value
with a usage error naming the option. Also what a benchmark reads of a run's settings
(``BenchmarkSettings``): the concrete settings are resolved by ``pytest_toolcall.config``."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import pytest


@dataclass(frozen=True)
class Option:
    """A command-line option and its ini twin. A benchmark's own options live in its namespace: its
    ``Option("lang")`` is ``--toolcall-<benchmark>-lang`` (ini ``toolcall_<benchmark>_lang``), so two
    benchmarks never clash; the registry gives the option that full name (``config/registry.py``)."""

    name: str  # without the --toolcall- prefix
    help: str
    default: str | None = None
    env: str | None = None
    ini: bool = True
    metavar: str | None = None
    #: The value names a model (so the run may reach the network for it).
    names_model: bool = False
    #: Giving the option selects its benchmark when --toolcall-bench is not given.
    selects: bool = False
    #: The value given when the flag stands alone (``--toolcall-fail-on-regression``): the value is optional.
    const: str | None = None
    #: Other full names (without ``--toolcall-``) that set the same option, flag and ini alike: the
    #: names the built-in benchmarks' options had before they moved into their namespace (``lang``).
    aliases: tuple[str, ...] = ()

    @property
    def dest(self) -> str:
        return dest_of(self.name)

    @property
    def flags(self) -> tuple[str, ...]:
        """``--toolcall-<name>`` and the aliases' flags."""
        return tuple(f"--toolcall-{name}" for name in (self.name, *self.aliases))

    @property
    def ini_names(self) -> tuple[str, ...]:
        """The ini names of the option and its aliases, its own first."""
        return tuple(dest_of(name) for name in (self.name, *self.aliases))


def dest_of(name: str) -> str:
    """The attribute and ini name of an option's full name (``acebench-lang`` -> ``toolcall_acebench_lang``)."""
    return "toolcall_" + name.replace("-", "_")


class BenchmarkSettings(Protocol):
    """What a benchmark reads of the run's settings."""

    @property
    def model(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...

    @property
    def api_key_env(self) -> str: ...

    @property
    def cache_mode(self) -> str: ...

    @property
    def is_oracle(self) -> bool: ...

    def option(self, name: str) -> str | None:
        """The resolved text of one of the benchmark's own options, by the name it declared (``"lang"``
        for ``--toolcall-acebench-lang``), or of a run option (``"user-model"``)."""
        ...


def usage_error(name: str, message: str) -> pytest.UsageError:
    return pytest.UsageError(f"--toolcall-{name}: {message}")


def parse_choices(name: str, value: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    chosen = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    unknown = [v for v in chosen if v not in allowed]
    if unknown or not chosen:
        raise usage_error(name, f"unknown value {', '.join(unknown) or repr(value)}; choose from {', '.join(allowed)}")
    return chosen


def one_of(name: str, value: str, allowed: tuple[str, ...]) -> str:
    chosen = parse_choices(name, value, allowed)
    if len(chosen) > 1:
        raise usage_error(name, f"one value, not {value!r}; choose from {', '.join(allowed)}")
    return chosen[0]


def parse_number(
    name: str,
    value: str | None,
    kind: Callable[[str], Any],
    *,
    minimum: float,
    maximum: float | None = None,
    none: str | None = None,
) -> Any:
    if value is None or (none is not None and str(value).strip().lower() == none):
        return None
    try:
        number = kind(str(value))
    except ValueError:
        raise usage_error(name, f"expected a{'n integer' if kind is int else ' number'}, got {value!r}") from None
    # float() takes "nan" and "inf": neither is a setting anyone means, and nan passes every comparison.
    if not math.isfinite(number):
        raise usage_error(name, f"expected a finite number, got {value!r}")
    if number < minimum:
        raise usage_error(name, f"must be at least {minimum}, got {value!r}")
    if maximum is not None and number > maximum:
        raise usage_error(name, f"must be at most {maximum}, got {value!r}")
    return number
