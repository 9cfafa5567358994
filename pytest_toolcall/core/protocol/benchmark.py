"""The benchmark protocol: everything the generic machinery knows of a benchmark.

A benchmark turns its data into *units* (one pytest item each, ``load``), says what to ask the model
for a unit (``plan``) and scores the answer into a ``Verdict`` (``score``): those three are required.
It declares what it measures (``metrics``: ``core.protocol.metrics.Metrics``, rows, groups and
weights, the repeats' reducer, gate names), and the generic layer derives from that declaration the
metrics block (per-category accuracy with its interval, OVERALL, the official value, repeats and
flaky units, failure kinds, what is missing: ``core.protocol.blocks``), its gate names and values,
its JUnit properties and the paired comparison against a baseline; those methods are final. The
rest has defaults here; a benchmark overrides ``summary_parts`` only for a table of its own.
Collection, model access, the response store, records, the JSON report, JUnit and the gate only ever
call these methods, so a new benchmark is one package registered under the entry-point group
``pytest_toolcall.benchmarks`` (``docs/writing-a-benchmark.md``).

Data flows one way: sample -> ``plan`` (requests) -> responses -> ``score`` (verdict) -> record ->
``aggregate`` (metrics block, by the declaration) -> ``summary`` / ``gate_values`` / report.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, final

from pytest_toolcall.core.protocol.metrics import Metrics
from pytest_toolcall.core.protocol.nodeids import MODULE_NODEID
from pytest_toolcall.core.protocol.nodeids import is_module_nodeid as is_module_nodeid  # (for the runner)

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_toolcall.core.protocol.options import BenchmarkSettings, Option
    from pytest_toolcall.core.protocol.tables import Part
    from pytest_toolcall.core.protocol.types import ChatRequest, Model, Role


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
    def part(self) -> str:
        """The part of the data the unit belongs to: its language, its file (a general_fc stem, a
        user's file), else "". ``--toolcall-limit`` counts per part and category."""
        return self.lang or str(self.fields.get("stem") or "") or self.file or ""

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
    #: The requests it is expected to send (its turns, a case's ``steps``), relative to a one-request
    #: unit: what it weighs when ``--toolcall-shard`` cuts the run before anything is measured.
    expected_requests: float = 1.0


@dataclass(frozen=True)
class Skip:
    """The unit cannot run in this configuration; the item is skipped with this reason."""

    reason: str


Plan = Requests | Dialogue | Skip


class Models(Protocol):
    """The models a plan may ask, by the role they play in the run. Each is configured by the run's
    options (its name, endpoint and key), never by the benchmark; a request is sent as its plan says.
    """

    @property
    def model(self) -> Model:
        """The model under test (``--toolcall-model``): the one measured."""
        ...

    @property
    def user(self) -> Model | None:
        """The user simulator of dialogues (``--toolcall-user-model``, its endpoint and key defaulting to
        the model's), or None when the run has none (skip the units that need one, saying so). Under
        ``--toolcall-model oracle`` with no user simulator given, the oracle plays the user
        (``user.oracle``: attach the user's references)."""
        ...

    @property
    def judge(self) -> Model | None:
        """The judge of what no rule can score (``--toolcall-judge-model``, its endpoint and key
        defaulting to the model's), or None when the run has none (the verdict is then not measured)."""
        ...

    @property
    def oracle(self) -> bool:
        """Whether the model under test is the built-in oracle (``model.oracle``): plans then attach
        references."""
        ...

    def through(self, api: str, stream: bool) -> Model:
        """The model under test asked through this wire format (``chat``, ``responses``,
        ``messages``), streamed or not, whatever the run's ``--toolcall-api`` and ``--toolcall-stream``
        (the conformance probes ask every path); the oracle's answers are the oracle's."""
        ...

    def exchange(self, kind: str, request: Any, perform: Callable[[], Any]) -> Any:
        """What an environment outside the model (an MCP server) answers to ``request`` (plain JSON),
        kept in the response store with the unit's answers so that a replay needs no environment:
        a kept answer is reused (``replay`` never performs, a missing one is a ``RequestError``), else
        ``perform()`` gives it and its JSON result is kept."""
        ...


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
    #: Why the verdict is not known though the answer was scored (an LLM judge is needed and none was
    #: given); "" when it is. The item is then skipped with this reason (``passed`` is ignored) and
    #: its record kept with ``fields``, outcome ``skipped``, score None and ``not_measured`` the
    #: reason: the benchmark's ``aggregate`` still sees it (to count it apart, or the parts that were
    #: measured). Keep the reason the same for every such unit: pytest folds equal skip reasons.
    not_measured: str = ""


class _Replanning:
    """The ``Models`` of a plan made again after the run, only to read its requests: a plan that
    would ask a model (a dialogue's) cannot be re-made, so it gets none."""

    oracle = False

    @property
    def model(self) -> Model:
        raise _NoModel

    @property
    def user(self) -> Model | None:
        raise _NoModel

    @property
    def judge(self) -> Model | None:
        raise _NoModel

    def through(self, api: str, stream: bool) -> Model:
        raise _NoModel

    def exchange(self, kind: str, request: Any, perform: Callable[[], Any]) -> Any:
        raise _NoModel


class _NoModel(Exception):
    pass


@dataclass
class Loaded:
    """A benchmark's data as loaded for this run."""

    units: list[Unit]
    #: (collector name, message naming file and line) for each part that could not be loaded; each
    #: becomes a collection error while the rest runs.
    problems: list[tuple[str, str]] = field(default_factory=list)


class Benchmark(ABC):
    """Base class of every benchmark. One instance per pytest process of a run, made from the
    resolved settings; its options are registered with pytest whether or not it is selected.

    Required: ``name``, ``load`` (or ``load_file`` with ``file_suffixes``), ``plan``, ``score``. The
    rest has defaults, documented on each member."""

    name: ClassVar[str]
    #: Marker name -> description, for ``--help``/``--markers``; the benchmark's name and every marker a
    #: unit carries are registered anyway (so ``--strict-markers`` never needs this).
    markers: ClassVar[Mapping[str, str]] = {}
    #: Options of its own, registered in the ``toolcall`` group in its namespace: ``Option("lang")`` is
    #: ``--toolcall-<benchmark>-lang``, read as ``settings.option("lang")``. Declare them in a light
    #: module registered under ``pytest_toolcall.options`` too, so that pytest need not import the
    #: benchmark to know them (``docs/writing-a-benchmark.md``); then that declaration is the one read.
    options: ClassVar[tuple[Option, ...]] = ()
    #: What its requests are sent with besides messages and tools, as its official runner sends them
    #: (``{"temperature": 0.7, "max_tokens": 1200}``; None: the field is left out); empty: nothing.
    #: ``--toolcall-temperature`` and ``--toolcall-max-tokens`` replace these when given; a request's
    #: own ``ChatRequest.sampling`` replaces both.
    sampling: ClassVar[Mapping[str, Any]] = {}
    #: A module of pytest fixtures for users' own tests (``acebench_env``), registered as a pytest
    #: plugin whenever a model is given, whether or not the benchmark is selected.
    fixtures: ClassVar[str | None] = None
    #: A module of hook implementations (``pytest_toolcall_*``, docs/hooks.md): the benchmark's own
    #: outputs of a run and its export formats (``pytest-toolcall export``). Registered in the runs
    #: that select the benchmark (where reports land) and by ``pytest-toolcall export`` for a report
    #: of a run that had it.
    hooks: ClassVar[str | None] = None
    #: Fixtures among those that make a user's test that asks for one a unit of this benchmark
    #: (``toolcall_chat``): it carries the benchmark's marker, gets its unit from ``test_unit`` and
    #: its record is counted in its block like an item's.
    counted_fixtures: ClassVar[tuple[str, ...]] = ()
    #: File-name endings of the users' own files this benchmark makes items of, wherever they are
    #: among the paths pytest is given (``.toolcall.yaml``): one item per unit ``load_file`` finds,
    #: under that file's node (``<file>::<key>``). Such a benchmark is active in every run.
    file_suffixes: ClassVar[tuple[str, ...]] = ()
    #: What it measures (``core.protocol.metrics.Metrics``): rows, groups and weights, the repeats'
    #: reducer, gate names. From it come the metrics block, its gate names and values, its JUnit
    #: properties and the comparison with a baseline. Default: accuracy per category and OVERALL,
    #: every unit alike; any category is a gate name.
    metrics: ClassVar[Metrics] = Metrics()

    def __init__(self, settings: BenchmarkSettings) -> None:
        """Read and check the benchmark's options (``settings.option(name)``); raise
        ``pytest.UsageError`` for a bad value, before anything runs."""
        self.settings = settings
        #: Units per block and category in the data, before ``--toolcall-limit`` and any selection
        #: (``count_units``): what makes a block partial and its official value.
        self.sizes_by_block: dict[str, dict[str, int]] = {}

    # --- required ------------------------------------------------------------------------------

    @abstractmethod
    def load(self) -> Loaded:
        """Every unit of the data this run was configured for (the runner applies
        ``--toolcall-limit`` and the selection), and the parts that could not be loaded."""

    @abstractmethod
    def plan(self, unit: Unit, models: Models) -> Plan:
        """What to ask for a unit: ``Requests`` (with each request's ``reference`` answer when
        ``models.oracle``), a ``Dialogue`` or ``Skip``."""

    @abstractmethod
    def score(self, unit: Unit, answer: Any) -> Verdict:
        """The verdict on the answer of a unit's plan (``Requests``: the list of responses;
        ``Dialogue``: what ``run`` returned)."""

    # --- optional, with defaults ---------------------------------------------------------------

    def explain(self, unit: Unit) -> dict[str, Any]:
        """Record fields kept on a unit that did not pass, so that a report says why without the data
        at hand: by default ``request``, the first request of its plan as sent (``messages``,
        ``tools``; none for a dialogue, whose ``transcript`` the verdict gives). A benchmark adds its
        ``expected`` answer here when the verdict has not. Called only for failed units: a report of a
        good model does not carry the prompts of every unit."""
        try:
            plan = self.plan(unit, _Replanning())
        except _NoModel:
            return {}
        if not isinstance(plan, Requests) or not plan.requests:
            return {}
        first = plan.requests[0]
        return {"request": {"messages": first.messages, "tools": first.tools or []}}

    def test_unit(self, item: Any) -> Unit:
        """The unit of a user's test (a pytest item) that asks for one of ``counted_fixtures``. The
        runner makes it before the test's fixtures, with its record, and gives the fixtures the unit
        (fixture ``toolcall_unit``) and the models it asks through (``toolcall_unit_models``, whose
        requests are the record's ``usage``); ``score(unit, error)`` then judges what the test's call
        raised (None: nothing). A ``RequestError`` it raised makes the test an error, as for an item
        whose request got no answer."""
        raise NotImplementedError(f"{self.name} counts no users' tests (it has no counted_fixtures)")

    def read_inputs(self) -> None:
        """Read and check what a run needs besides the data and the options' text (general_fc's
        ``--toolcall-reference`` report); raise ``pytest.UsageError`` for one that cannot be used.
        Called once per process at the start of a run, before any request; never when
        ``pytest-toolcall merge|gate|html`` rebuild the benchmark from a report's options, whose
        metrics must come from its samples alone. Default: nothing to read."""
        return None

    def check_selected(self, units: Iterable[Unit]) -> None:
        """This benchmark's units that the run selected (after ``-k``, ``-m``, ``--lf``,
        ``--toolcall-limit``, the shard), before any of them is asked: raise ``pytest.UsageError``
        when an input does not fit them (a reference report that lacks some). Iterate them only when
        there is something to check: the xdist controller looks them up in the data as they are
        iterated. Default: anything fits."""
        return None

    def load_file(self, path: Path, name: str) -> Loaded:
        """The units of one of the users' files (``file_suffixes``), each with ``file=name`` (the
        file's node id), or its problems; called while pytest collects that file."""
        raise NotImplementedError(f"{self.name} collects no files (it has no file_suffixes)")

    def roles(self) -> tuple[Role, ...]:
        """The roles besides the model under test whose models this run's plans ask (``Role.USER``
        for a user simulator, ``Role.JUDGE``): the models given for them have their API keys checked
        at start-up, like the model under test's. Default: none."""
        return ()

    def header(self) -> str:
        """What the terminal header says of this benchmark's data (``lang=en acebench=56dd66c``)."""
        return ""

    def datasets(self) -> dict[str, Any]:
        """The report's ``run.datasets`` entry of this benchmark; a baseline with another entry is not
        compared with. Default: nothing."""
        return {}

    def expected_cost(self, unit: Unit) -> float | None:
        """What a unit is expected to cost relative to a one-request unit (1.0), for balancing
        shards. Default None: read from its plan (the number of its ``Requests``, a ``Dialogue``'s
        ``expected_requests``); override only when the plan cannot say it cheaply."""
        return None

    # --- derived from ``metrics``: not to be overridden -------------------------------------------

    @final
    def block_of(self, record: Mapping[str, Any]) -> str:
        """The metrics block a record (or a unit's ``identity()``) counts in: ``name``, or
        ``<name>/<part>`` when the declaration splits blocks (``Metrics.per``)."""
        from pytest_toolcall.core.protocol.metrics import block_of

        return block_of(self, record)

    @final
    def count_units(self, units: list[Unit]) -> None:
        """Take note of how many units the data holds per block and category (the runner calls it
        with every unit ``load`` returned, before ``--toolcall-limit``)."""
        for unit in units:
            if (unit.attempt or 1) == 1:
                sizes = self.sizes_by_block.setdefault(self.block_of(unit.identity()), {})
                sizes[unit.category] = sizes.get(unit.category, 0) + 1

    @final
    def aggregate(self, records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Metrics blocks (name -> block) from the records of this benchmark's units, derived from the
        declaration (``core.protocol.metrics.derive_blocks``); no block without records."""
        from pytest_toolcall.core.protocol.metrics import derive_blocks

        return derive_blocks(self, records)

    @final
    def aggregate_context(self) -> dict[str, Any]:
        """What ``aggregate`` needs besides the records, kept in the report (``run.aggregation``) so
        that ``pytest-toolcall merge`` recomputes the same metrics without loading the data."""
        from pytest_toolcall.core.protocol.metrics import aggregation_context

        return aggregation_context(self)

    @final
    def restore_aggregate_context(self, context: dict[str, Any]) -> None:
        """Take back what ``aggregate_context`` returned in the run (before ``aggregate`` in merge)."""
        from pytest_toolcall.core.protocol.metrics import restore_context

        restore_context(self, context)

    @final
    def summary(self, name: str, block: dict[str, Any]) -> list[str]:
        """Terminal lines of one metrics block: its ``summary_parts`` rendered (override those)."""
        from pytest_toolcall.core.protocol.tables import render

        return render(self.summary_parts(name, block))

    @final
    def suite_properties(self, name: str, block: dict[str, Any]) -> list[tuple[str, Any]]:
        """JUnit suite properties of a block (``core.protocol.metrics.suite_properties``)."""
        from pytest_toolcall.core.protocol.metrics import suite_properties

        return suite_properties(self, name, block)

    @final
    @classmethod
    def claims_metric(cls, name: str) -> bool:
        """Whether a gate name is this benchmark's, by its declared names; ``ValueError`` for a name of
        it that it does not measure."""
        from pytest_toolcall.core.protocol.metrics import claims

        return claims(cls, name)

    @final
    @classmethod
    def gate_values(cls, name: str, metrics: dict[str, dict[str, Any]]) -> list[tuple[str, float | None]]:
        """(label, value) of a claimed metric in every block it applies to; None: not measured."""
        from pytest_toolcall.core.protocol.metrics import gate_values

        return gate_values(cls, name, metrics)

    @final
    def compare(
        self,
        baseline_samples: list[dict[str, Any]],
        baseline_metrics: dict[str, dict[str, Any]],
        samples: list[dict[str, Any]],
        blocks: dict[str, dict[str, Any]],
    ) -> dict[str, dict[str, Any]]:
        """This benchmark's metrics against a baseline run (``--toolcall-baseline``), by the
        declaration: ``core.protocol.metrics.compare``."""
        from pytest_toolcall.core.protocol.metrics import compare

        return compare(self, baseline_samples, baseline_metrics, samples, blocks)

    # --- optional, with defaults (continued) -------------------------------------------------------

    def summary_parts(self, name: str, block: dict[str, Any]) -> list[Part]:
        """The summary of one metrics block: text lines and tables (``core.protocol.tables.Table``), which the
        terminal renders with tabulate and the GitHub step summary as markdown tables. Default:
        ``core.protocol.tables.default_parts``; override only for a table that is the benchmark's own."""
        from pytest_toolcall.core.protocol.tables import default_parts

        return default_parts(block)

    def gate_metric_problem(self, name: str) -> str | None:
        """Why a metric name this benchmark claims names nothing this run (or report) measures, when
        only its options tell (general_fc's ``agreement`` without a reference): a threshold on it is
        then a usage error, like an unknown name. Default: None (every claimed name can be measured)."""
        return None

    # --- selection and references ----------------------------------------------------------------

    def selection_hint(self, names: set[str]) -> str | None:
        """When ``-m``/``-k`` selected none of this benchmark's items: which option would load the
        data that the names in the expressions refer to (``zh`` -> ``--toolcall-lang=zh``)."""
        return None

    def known_failure(self, unit: Unit) -> str | None:
        """Why the unit's own reference answer fails the official scorer (the item is then an
        expected failure, not strict: metrics are unchanged); None when it passes."""
        return None

    def close(self) -> None:
        """Stop what ``load_file`` or ``plan`` started for the run (servers); called once at its end."""
        return None
