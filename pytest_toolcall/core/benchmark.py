"""The benchmark protocol: everything the generic machinery knows of a benchmark.

A benchmark turns its data into *units* (one pytest item each), says what to ask the model for a
unit (a ``plan``), scores the answer into a ``Verdict``, and aggregates the records of its units into
metrics blocks that it also renders and gates. Collection, model access, the response store,
prefetching, records, the JSON report, JUnit and the gate only ever call these methods, so a new
benchmark is one package registered under the entry-point group ``pytest_toolcall.benchmarks``.

Data flows one way: sample -> ``plan`` (requests) -> responses -> ``score`` (verdict) -> record ->
``aggregate`` (metrics block) -> ``summary`` / ``gate_values`` / report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_toolcall.core.settings import Option, Settings
    from pytest_toolcall.core.types import ChatRequest, Model

#: The node id of the module node that holds every benchmark item.
MODULE_NODEID = "toolcall"


@dataclass(frozen=True)
class Unit:
    """One scored unit: one pytest item, one record."""

    benchmark: str
    #: Unique within the benchmark; the node id's parameter (``en/normal_atom_bool_12``).
    key: str
    category: str
    id: str
    lang: str | None = None
    #: Marker names of the item, besides the benchmark's name.
    markers: tuple[str, ...] = ()
    #: Identity fields the record carries besides the common ones (a general_fc file stem and line).
    fields: Mapping[str, Any] = field(default_factory=dict, compare=False)
    #: The benchmark's own sample object; only the benchmark looks inside.
    sample: Any = field(default=None, compare=False, repr=False)
    #: The node id of the user's file that holds the unit (a case file, a test module); None: the
    #: unit is one of the benchmark's items under the ``toolcall`` module node.
    file: str | None = None
    #: Where the sample is written (``path:line``), for messages.
    source: str | None = field(default=None, compare=False)
    #: Under ``--toolcall-repeat N``: which of the N attempts this item is (1-based); None without repeats.
    attempt: int | None = None

    @property
    def param_id(self) -> str:
        """The node id's parameter: the key, and ``@k`` for attempt k under repeats."""
        return self.key if self.attempt is None else f"{self.key}@{self.attempt}"

    @property
    def nodeid(self) -> str:
        if self.file is not None:
            return f"{self.file}::{self.param_id}"
        return f"{MODULE_NODEID}::{self.benchmark}[{self.param_id}]"

    @property
    def asker(self) -> str:
        """Who asks, for the response store's key: the unit and the attempt (attempt 1 without repeats,
        so a later run with repeats reuses the answers as its first attempt)."""
        return f"{self.benchmark}\x00{self.file or ''}\x00{self.key}\x00{self.attempt or 1}"

    def identity(self) -> dict[str, Any]:
        """The record fields that say which unit a record belongs to."""
        return {
            "nodeid": self.nodeid,
            "benchmark": self.benchmark,
            "lang": self.lang,
            "category": self.category,
            "id": self.id,
            "repeat": self.attempt or 1,
            **self.fields,
        }


def is_module_nodeid(nodeid: str) -> bool:
    """Whether a node id is of the ``toolcall`` module node (a benchmark item, a data problem, a
    benchmark's function): never a path pytest could open."""
    return nodeid.startswith(f"{MODULE_NODEID}::")


# --- what to ask ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Requests:
    """Independent requests, all sent at once; the answer is the list of their responses."""

    requests: list[ChatRequest]


@dataclass(frozen=True)
class Dialogue:
    """A conversation whose next request depends on the last answer (agents): ``run`` is called on a
    thread of its own and its return value is the answer."""

    run: Callable[[], Any]


@dataclass(frozen=True)
class Skip:
    """The unit cannot run in this configuration; the item is skipped with this reason."""

    reason: str


Plan = Requests | Dialogue | Skip


class Models(Protocol):
    """The models a plan may use: the model under test, and others by name (user simulators)."""

    @property
    def model(self) -> Model: ...

    @property
    def oracle(self) -> bool:
        """Whether the model under test is the built-in oracle (plans then attach references)."""
        ...

    def named(self, name: str, base_url: str | None, api_key_env: str) -> Model: ...


# --- verdicts and data ------------------------------------------------------------------------


class DataError(Exception):
    """A problem of a benchmark's data, with the file and line it was found at."""


@dataclass
class Verdict:
    passed: bool
    #: Why it failed, everything a person needs (``--tb=long``); empty when it passed.
    message: str = ""
    #: Record fields: ``output``, ``process``, ``ceiling``, ``error_type``, benchmark-specific ones.
    fields: dict[str, Any] = field(default_factory=dict)
    #: The reason and the raw output only (``--tb=short``, the JSON report's ``reason``); by
    #: default the message's first line.
    brief: str = ""


@dataclass
class Loaded:
    """A benchmark's data as loaded for this run."""

    units: list[Unit]
    #: (collector name, message naming file and line) for each part that could not be loaded; each
    #: becomes a collection error while the rest runs.
    problems: list[tuple[str, str]] = field(default_factory=list)


class OtherModel(NamedTuple):
    """A model a benchmark asks besides the one under test (ACEBench's user simulator)."""

    name: str
    base_url: str | None
    api_key_env: str  # the variable holding its key ("" when its endpoint needs none)
    key_option: str  # the option naming that variable, for messages (``user-api-key-env``)


class Benchmark:
    """Base class of every benchmark. One instance per pytest process of a run, made from the
    resolved settings; its options are registered with pytest whether or not it is selected."""

    name: ClassVar[str]
    #: Marker name -> description; the benchmark's own name is always a marker too.
    markers: ClassVar[Mapping[str, str]] = {}
    #: Options of its own, registered in the ``toolcall`` group (``--toolcall-<name>``).
    options: ClassVar[tuple[Option, ...]] = ()
    #: A module of pytest fixtures for users' own tests (``acebench_env``), registered as a pytest
    #: plugin whenever a model is given, whether or not the benchmark is selected.
    fixtures: ClassVar[str | None] = None
    #: Fixtures among those that make a user's test that asks for one a unit of this benchmark
    #: (``toolcall_chat``): it carries the benchmark's marker and its record is counted in its block.
    counted_fixtures: ClassVar[tuple[str, ...]] = ()
    #: File-name endings of the users' own files this benchmark makes items of, wherever they are
    #: among the paths pytest is given (``.toolcall.yaml``): one item per unit ``load_file`` finds,
    #: under that file's node (``<file>::<key>``). Such a benchmark is active in every run.
    file_suffixes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, settings: Settings) -> None:
        """Read and check the benchmark's options (``settings.option(name)``); raise
        ``pytest.UsageError`` for a bad value, before anything runs."""
        self.settings = settings

    def other_models(self) -> tuple[OtherModel, ...]:
        """The models besides the one under test that this benchmark will ask (their API keys are
        checked at start-up, like the main model's)."""
        return ()

    def header(self) -> str:
        """What the terminal header says of this benchmark's data (``lang=en acebench=56dd66c``)."""
        return ""

    def load(self) -> Loaded:
        raise NotImplementedError

    def load_file(self, path: Path, name: str) -> Loaded:
        """The units of one of the users' files (``file_suffixes``), each with ``file=name`` (the
        file's node id), or its problems; called while pytest collects that file."""
        raise NotImplementedError

    def datasets(self) -> dict[str, Any]:
        """The report's ``run.datasets`` entry of this benchmark."""
        return {}

    def expected_cost(self, unit: Unit) -> float:
        """What a unit is expected to cost relative to a one-request unit (1.0), for balancing
        shards when no latency of it was recorded: an agent dialogue weighs more."""
        return 1.0

    def plan(self, unit: Unit, models: Models) -> Plan:
        raise NotImplementedError

    def score(self, unit: Unit, answer: Any) -> Verdict:
        raise NotImplementedError

    def aggregate(self, records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Metrics blocks (name -> block) from the records of this benchmark's units."""
        raise NotImplementedError

    def aggregate_context(self) -> dict[str, Any]:
        """What ``aggregate`` needs besides the records (plain builtins, e.g. the size of each
        category in the data), kept in the report so that ``pytest-toolcall merge`` recomputes the
        same metrics without loading the data."""
        return {}

    def restore_aggregate_context(self, context: dict[str, Any]) -> None:
        """Take back what ``aggregate_context`` returned in the run (before ``aggregate`` in merge)."""

    def summary(self, name: str, block: dict[str, Any]) -> list[str]:
        """Terminal lines of one metrics block."""
        raise NotImplementedError

    def compare(
        self,
        baseline_samples: list[dict[str, Any]],
        baseline_metrics: dict[str, dict[str, Any]],
        samples: list[dict[str, Any]],
        blocks: dict[str, dict[str, Any]],
    ) -> dict[str, dict[str, Any]]:
        """This benchmark's metrics against a baseline run (``--toolcall-baseline``): full metric name
        (``<block>.<metric>``) → ``results.comparison.compare_metric``'s fields plus ``gated`` (a
        headline metric that ``--toolcall-fail-on-regression`` checks). ``baseline_samples`` and
        ``samples`` are this benchmark's; ``baseline_metrics`` every block of the baseline. The default
        compares nothing (the units that changed are still listed)."""
        return {}

    @classmethod
    def claims_metric(cls, name: str) -> bool:
        """Whether a gate metric name is this benchmark's; raise ``ValueError`` for a malformed name
        that is clearly meant for it."""
        return False

    @classmethod
    def gate_values(cls, name: str, metrics: dict[str, dict[str, Any]]) -> list[tuple[str, float | None]]:
        """(label, value) of a claimed metric in every block it applies to; None: not measured."""
        return []

    def selection_hint(self, names: set[str]) -> str | None:
        """When ``-m``/``-k`` selected none of this benchmark's items: which option would load the
        data that the names in the expressions refer to (``zh`` -> ``--toolcall-lang=zh``)."""
        return None

    def known_failure(self, unit: Unit) -> str | None:
        """Why the unit's own reference answer fails the official scorer (the item is then an
        expected failure, not strict: metrics are unchanged); None when it passes."""
        return None

    def suite_properties(self, name: str, block: dict[str, Any]) -> list[tuple[str, Any]]:
        """JUnit suite properties of a block; by default its top-level numbers."""
        return [(f"{name}.{key}", value) for key, value in block.items() if not isinstance(value, (dict, list))]
