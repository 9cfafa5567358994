"""Case files (``*.toolcall.yaml``, ``*.toolcall.yml``, ``*.toolcall.jsonl``): read, validated, expanded.

Every problem is found here, before any request, and reported as ONE ``CaseFileError`` naming the file
and, for each problem (the first of each case: one run shows them all), the line of the offending case,
so that the collector can turn it into a collection error of that file while the other files still run.
Checks, in order: the syntax (YAML or JSON), duplicate keys, the shipped JSON Schema of the format, then
what a schema cannot say (unique ids, tools whose ``parameters`` are valid JSON Schemas, expected calls
naming declared tools, regexes that compile).
``loading.load_case_file`` then checks that the oracle's answer passes each case (that needs the
oracle and the matcher, which build on this module).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import yaml
from jsonschema.exceptions import best_match

from pytest_toolcall.api import door, jsonl, patterns
from pytest_toolcall.api.files import read_regular_file
from pytest_toolcall.api.native import schema_problem
from pytest_toolcall.api.text import clip
from pytest_toolcall.benchmarks.cases.names import SUFFIXES, case_file_stem

if TYPE_CHECKING:
    from pytest_toolcall.benchmarks.cases.mcp_servers import ServerPool

EXPECT_KINDS = ("no_call", "should_call_tool", "calls", "any_of", "status")
MATCHER_SHAPES = "{$regex: string}, {$one_of: [values]}, {$approx: number, $tol: number} or {$any: true}"


class CaseFileError(Exception):
    """An invalid case file: ``str()`` is ``<path>:<line>: <message>``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message

    @classmethod
    def several(cls, path: str, problems: list[tuple[int, str]]) -> CaseFileError:
        """One error for all the problems of a file (in line order): ``line`` and the start of ``message``
        are the first one's; each further one follows on its own ``<path>:<line>: <message>`` line, so
        that the usual ``f"{path}:{line}: {message}"`` shows them all."""
        ordered = sorted(problems, key=lambda problem: problem[0])
        line, first = ordered[0]
        rest = "".join(f"\n{path}:{number}: {message}" for number, message in ordered[1:])
        return cls(path, line, first + rest)


@dataclass(frozen=True)
class Case:
    """One case, with the file's defaults applied; the unit of one pytest item (``<file>::<id>``)."""

    file: str  # the path as given to the loader
    line: int  # 1-based line where the case starts
    id: str
    messages: list[dict[str, Any]]  # the system message and the prompt already expanded
    tools: list[dict[str, Any]]
    tags: tuple[str, ...]
    settings: dict[str, Any]  # generation settings, as written (``extra_body`` nested)
    expect: dict[str, Any]
    source: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the case as written
    #: The MCP server whose tools the case uses (``mcp`` as written), or None.
    mcp: dict[str, Any] | None = None
    #: MCP tool name -> chat-API name, for the names that differ (shown where a name is).
    tool_names: dict[str, str] = field(default_factory=dict)
    steps: int = 1
    tool_results: dict[str, Any] | None = None
    #: The MCP server's tools are not known yet (a replay: the run takes them from the store).
    tools_pending: bool = False

    @property
    def multi_step(self) -> bool:
        """Whether the case runs as a dialogue whose calls are executed (else: one request, one answer)."""
        expect = self.expect
        return bool(self.mcp or self.tool_results or self.steps > 1 or "trajectory" in expect or "final" in expect)

    @property
    def stem(self) -> str:
        """The file name without its case-file suffix: ``weather`` for ``tests/weather.toolcall.yaml``."""
        return case_file_stem(self.file)

    def sampling(self) -> dict[str, Any]:
        """The settings as request-body fields: ``extra_body``'s fields are sent at the top level."""
        body = {k: v for k, v in self.settings.items() if k != "extra_body"}
        body.update(self.settings.get("extra_body") or {})
        return body


def is_case_file(path: str | Path) -> bool:
    return Path(path).name.endswith(SUFFIXES)


@cache
def format_schema() -> dict[str, Any]:
    """The JSON Schema of a case file (shipped as ``case_file.schema.json``)."""
    text = resources.files(__package__).joinpath("case_file.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _file_validator() -> Any:
    return jsonschema.Draft202012Validator(format_schema(), format_checker=jsonschema.FormatChecker(["regex"]))


@cache
def _expect_validator() -> Any:
    # The same definitions, rooted at ``expect``: for ``assert_tool_calls`` in Python tests.
    schema = {**format_schema(), "$ref": "#/$defs/expect"}
    for key in ("properties", "required", "additionalProperties", "type"):
        schema.pop(key, None)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker(["regex"]))


def read_case_file(path: str | Path, servers: ServerPool | None = None, name: str | None = None) -> list[Case]:
    """Every case of a file, or a ``CaseFileError`` for the first problem found (all but the oracle's
    check: ``loading.load_case_file``). ``servers`` gives the tools of the MCP servers the cases name
    (started once); without it those tools are not known here (a replay takes them from the store:
    ``Case.tools_pending``) and the checks that need them are left out. ``name``: the file as cases
    and messages name it (default: ``path``)."""
    name = name or str(path)
    try:
        text = read_regular_file(Path(path), MAX_CASE_FILE_BYTES, "case file").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError(name, 1, f"cannot read the file: {exc}") from None
    if name.endswith(".jsonl"):
        document, lines = _read_jsonl(name, text)
    else:
        document, lines = _read_yaml(name, text)
    # Through the door: no deeper than a YAML file may be (a JSON line can be), the run's keys masked.
    try:
        document = door.redact(door.check_depth(document, "the file", MAX_YAML_DEPTH))
    except door.Refused as exc:
        raise CaseFileError(name, 1, str(exc)) from None
    return _build(name, document, lines, servers)


def expect_problem(expect: Any, tool_names: set[str] | None = None) -> str:
    """Why ``expect`` is not an expectation of the case-file syntax; "" when it is. With ``tool_names``,
    every expected call must name one of them."""
    error = best_match(_expect_validator().iter_errors(expect))
    if error is None:
        return _semantic_expect_problem(expect, tool_names)
    return _describe(error)


# ---- reading --------------------------------------------------------------------------------------


@dataclass
class _Lines:
    """Where things start: the whole document, ``defaults`` and each case (1-based)."""

    document: int = 1
    defaults: int = 1
    cases: list[int] = field(default_factory=list)

    def of(self, path: list[Any] | tuple[Any, ...]) -> int:
        if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int) and path[1] < len(self.cases):
            return self.cases[path[1]]
        if path and path[0] == "defaults":
            return self.defaults
        return self.document


#: The deepest a case file nests (a real one: a handful of levels; an expectation of nested objects: tens).
MAX_YAML_DEPTH = 200
#: The largest case file read (bytes).
MAX_CASE_FILE_BYTES = 64 * 2**20


class _CaseLoader(yaml.SafeLoader):
    """pyyaml's safe loader (YAML 1.1), with two YAML 1.2 habits users expect: no timestamps, so that
    ``date: 2024-05-01`` stays the string a tool expects (a ``datetime.date`` is not JSON and could never
    equal a model's argument), and ``1e-9`` is a number (YAML 1.1 wants ``1.0e-9``, else a string).
    Nesting is bounded (pyyaml composes recursively: a file 100,000 levels deep is a RecursionError)."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_CaseLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CaseLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def _read_yaml(name: str, text: str) -> tuple[Any, _Lines]:
    try:  # (the reader refuses control characters, such as an ESC, as it is made)
        loader = _CaseLoader(text)
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise CaseFileError(name, line, f"invalid YAML: character {exc.character!r} is not allowed") from None
    try:
        node = loader.get_single_node()
        if node is None:
            raise CaseFileError(name, 1, "the file is empty: expected a mapping with 'cases'")
        _check_duplicate_keys(name, node)
        _check_expanded_size(name, node)
        document = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark is not None and "end of stream" in (exc.problem or ""):
            mark = exc.context_mark  # an unclosed quote or bracket: where it opened, not the file's end
        line = mark.line + 1 if mark is not None else 1
        problem = " ".join(str(part) for part in (exc.context, exc.problem) if part)
        raise CaseFileError(name, line, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise CaseFileError(name, 1, f"invalid YAML: {exc}") from None
    except ValueError as exc:  # a number beyond Python's digit limit (constructed without a mark)
        raise CaseFileError(name, 1, f"invalid YAML: {clip(str(exc), 120)}") from None
    finally:
        loader.dispose()
    return document, _node_lines(node)


def _node_lines(root: yaml.Node) -> _Lines:
    """Start lines from the composed node tree (constructed dicts carry no position)."""
    lines = _Lines(document=root.start_mark.line + 1)
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if key.value == "defaults":
                lines.defaults = value.start_mark.line + 1
            elif key.value == "cases" and isinstance(value, yaml.SequenceNode):
                lines.cases = [item.start_mark.line + 1 for item in value.value]
    return lines


def _check_duplicate_keys(name: str, root: yaml.Node) -> None:
    """YAML keeps the last of two equal keys silently; a case file with one is a mistake."""
    stack = [root]
    seen_nodes: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:  # aliases share nodes
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in keys:
                        raise CaseFileError(name, key.start_mark.line + 1, f"duplicate key {key.value!r}")
                    keys.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


MAX_VALUES = 1_000_000  # far beyond any real case file; aliases of aliases can reach billions


def _check_expanded_size(name: str, root: yaml.Node) -> None:
    """A file whose aliases expand to an enormous document ("billion laughs") is refused before it is
    built: validating or sending it would take forever, though the loader itself shares the objects."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        sizes[id(node)] = 1  # a recursive alias counts once: it cannot be sent as JSON anyway
        if isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(item) for item in node.value)
        else:
            total = 1
        sizes[id(node)] = total
        return total

    try:
        too_big = size(root) > MAX_VALUES
    except RecursionError:
        too_big = True
    if too_big:
        raise CaseFileError(name, 1, f"the file expands to more than {MAX_VALUES:,} values (YAML aliases)")


def _read_jsonl(name: str, text: str) -> tuple[Any, _Lines]:
    """One case per non-blank line; no defaults."""
    cases: list[Any] = []
    lines = _Lines()
    for line in jsonl.lines(jsonl.pieces(text.encode("utf-8", "surrogatepass"))):
        try:
            cases.append(json.loads(line.text, object_pairs_hook=_no_duplicates))
        except (ValueError, RecursionError) as exc:
            raise CaseFileError(name, line.number, f"invalid JSON: {exc}") from None
        lines.cases.append(line.number)
    if not cases:
        raise CaseFileError(name, 1, "the file has no case")
    return {"cases": cases}, lines


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


# ---- checking and expanding -----------------------------------------------------------------------


def _build(name: str, document: Any, lines: _Lines, servers: ServerPool | None = None) -> list[Case]:
    """Every case, or one ``CaseFileError`` with every problem of every case (and of ``defaults``)."""
    problems = _schema_problems(document, lines)
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list) or ("document", 0) in problems:
        raise CaseFileError.several(name, [p for found in problems.values() for p in found])
    defaults = document.get("defaults") or {}
    if ("defaults", 0) not in problems:
        found = [(lines.defaults, p) for p in _tools_problems(defaults.get("tools") or [], "defaults.tools")]
        if found:
            problems["defaults", 0] = found
    if ("defaults", 0) in problems:  # every case inherits defaults: their own problems would follow from it
        raise CaseFileError.several(name, [p for found in problems.values() for p in found])
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(document["cases"]):
        line = lines.cases[index]
        case_id = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(case_id, str) and case_id in seen:  # also of a case with other problems
            message = f"duplicate case id {case_id!r} (first at line {seen[case_id]})"
            problems.setdefault(("cases", index), []).insert(0, (line, message))
        elif isinstance(case_id, str):
            seen[case_id] = line
        if ("cases", index) in problems:
            continue
        try:
            cases.append(_build_case(name, line, raw, defaults, lines, servers))
        except CaseFileError as exc:
            problems["cases", index] = [(exc.line, text) for text in _messages_of(name, exc)]
    if problems:
        raise CaseFileError.several(name, [p for found in problems.values() for p in found])
    return cases


def _messages_of(name: str, error: CaseFileError) -> list[str]:
    """The problems ``CaseFileError.several`` joined into one error, each without its location."""
    first, *rest = error.message.split(f"\n{name}:")
    return [first, *(line.partition(": ")[2] for line in rest)]


def _schema_problems(document: Any, lines: _Lines) -> dict[tuple[str, int], list[tuple[int, str]]]:
    """Every problem the schema finds, by case, ``defaults`` and the rest of the document: each
    error of the document (a combinator's as its best match), but a missing key that an unknown
    one at the same place explains (``expected:`` for ``expect:``)."""
    groups: dict[tuple[str, int], list[jsonschema.ValidationError]] = {}
    for error in _file_validator().iter_errors(document):
        path = list(error.absolute_path)
        if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
            key = ("cases", path[1])
        elif path[:1] == ["defaults"]:
            key = ("defaults", 0)
        else:
            key = ("document", 0)
        groups.setdefault(key, []).append(error)
    problems: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for key, errors in groups.items():
        unknown = {tuple(e.absolute_path) for e in errors if e.validator == "additionalProperties"}
        for error in errors:
            path = list(error.absolute_path)
            if error.validator == "required" and tuple(path) in unknown:
                continue
            shown = best_match([error]) if error.context else error
            message = _describe(shown)
            if len(path) >= 2 and path[0] == "cases" and isinstance(document["cases"][path[1]], dict):
                case_id = document["cases"][path[1]].get("id")
                label = f"case {case_id!r}" if isinstance(case_id, str) else f"case {path[1] + 1}"
                message = f"{label}: {message}"
            problems.setdefault(key, []).append((lines.of(list(shown.absolute_path)), message))
    return problems


def _build_case(
    name: str,
    line: int,
    raw: dict[str, Any],
    defaults: dict[str, Any],
    lines: _Lines,
    servers: ServerPool | None,
) -> Case:
    """The case, or one ``CaseFileError`` with every problem of it."""
    case = _expand(name, line, raw, defaults)
    where = f"case {case.id!r}"
    problems = list(_tools_problems(case.tools, f"{where}: tools")) if "tools" in raw else []
    if ("tools" in raw and "mcp" in raw) or ("tools" in defaults and "mcp" in defaults):
        problems.append(f"{where}: 'mcp' and 'tools' both given: the server's tools replace 'tools'")
    if problems:  # the server is not started for a case that cannot run anyway
        raise CaseFileError.several(name, [(line, problem) for problem in problems])
    known = True
    if case.mcp is not None:
        case, known = _with_server_tools(case, lines.defaults if "mcp" not in raw else line, servers)
    declared = {t["function"]["name"] for t in case.tools} if known else None
    problems = [
        f"{where}: {problem}"
        for problem in (
            *_messages_problems(raw.get("messages") or []),
            *_semantic_expect_problems(case.expect, declared),
            *_multi_step_problems(case, declared),
        )
    ]
    if problems:
        raise CaseFileError.several(name, [(line, problem) for problem in problems])
    return case


def _with_server_tools(case: Case, line: int, servers: ServerPool | None) -> tuple[Case, bool]:
    """The case with its MCP server's tools, and the tool names its expectations and mocks use mapped
    to the chat-API names; (case, False) when the tools are not known here."""
    from pytest_toolcall.benchmarks.cases.mcp_servers import McpError

    assert case.mcp is not None
    if servers is None:
        return dataclasses.replace(case, tools_pending=True), False
    try:
        listed = servers.listed(case.file, case.mcp)
    except McpError as exc:
        raise CaseFileError(case.file, line, f"case {case.id!r}: {exc}") from None
    if listed is None:
        return dataclasses.replace(case, tools_pending=True), False
    try:
        tools, mapping = servers.tools_of(listed, case.mcp)
    except McpError as exc:
        raise CaseFileError(case.file, line, f"case {case.id!r}: {exc}") from None
    renamed = {mcp: chat for mcp, chat in mapping.items() if mcp != chat}
    return with_tools(case, tools, renamed), True


def with_tools(case: Case, tools: list[dict[str, Any]], renamed: dict[str, str]) -> Case:
    """The case with these tools; the MCP names in its expectations and mocks become chat-API names."""

    def calls(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**call, "name": renamed.get(call["name"], call["name"])} for call in listed]

    def rename(expect: dict[str, Any]) -> dict[str, Any]:
        out = dict(expect)
        if "calls" in expect:
            out["calls"] = calls(expect["calls"])
        if "any_of" in expect:
            out["any_of"] = [rename(alternative) for alternative in expect["any_of"]]
        if "trajectory" in expect:
            out["trajectory"] = {**expect["trajectory"], "calls": calls(expect["trajectory"]["calls"])}
        return out

    expect = rename(case.expect) if renamed else case.expect
    results = {renamed.get(k, k): v for k, v in case.tool_results.items()} if case.tool_results else case.tool_results
    return dataclasses.replace(
        case, tools=tools, tool_names=renamed, expect=expect, tool_results=results, tools_pending=False
    )


def _multi_step_problems(case: Case, declared: set[str] | None) -> Iterator[str]:
    expect = case.expect
    for alternative in expect.get("any_of") or []:
        if "trajectory" in alternative or "final" in alternative:
            yield "trajectory and final judge the whole run: they go in expect, not in an any_of alternative"
            break
    first = [k for k in EXPECT_KINDS if k in expect]
    if len(first) > 1:
        yield f"expect has at most one of {', '.join(EXPECT_KINDS)} (found {', '.join(first)})"
    calls = (expect.get("trajectory") or {}).get("calls") or []
    names = [c["name"] for c in calls] + list(case.tool_results or {})
    for name in names:
        if declared is not None and name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            yield f"tool {name!r} is not declared (declared: {known})"
    for call in calls:
        for pattern in _regexes(call.get("arguments") or {}):
            try:
                re.compile(pattern)
            except re.error as exc:
                yield f"trajectory call {call['name']!r}: invalid $regex {pattern!r}: {exc}"
    if case.tool_results and case.mcp:
        yield "tool_results and mcp both given: a call is executed by the server or mocked, not both"


def _expand(name: str, line: int, raw: dict[str, Any], defaults: dict[str, Any]) -> Case:
    system = raw.get("system", defaults.get("system"))
    if "prompt" in raw:
        messages: list[dict[str, Any]] = [{"role": "user", "content": raw["prompt"]}]
    else:
        messages = [dict(m) for m in raw["messages"]]
    # The system message goes first, unless the messages already open with their own.
    if system is not None and messages[0]["role"] not in ("system", "developer"):
        messages.insert(0, {"role": "system", "content": system})
    base, own = defaults.get("settings") or {}, raw.get("settings") or {}
    settings = {**base, **own}
    extra_body = {**base.get("extra_body", {}), **own.get("extra_body", {})}  # merged one level deeper
    if extra_body:
        settings["extra_body"] = extra_body
    tags = tuple(dict.fromkeys([*(defaults.get("tags") or []), *(raw.get("tags") or [])]))
    results = {**(defaults.get("tool_results") or {}), **(raw.get("tool_results") or {})}
    # A case's own tools drop the file's server, as its own server drops the file's tools.
    mcp = raw["mcp"] if "mcp" in raw else None if "tools" in raw else defaults.get("mcp")
    return Case(
        file=name,
        line=line,
        id=raw["id"],
        messages=messages,
        tools=[] if mcp is not None else list(raw["tools"] if "tools" in raw else defaults.get("tools") or []),
        tags=tags,
        settings=settings,
        expect=raw["expect"],
        source=raw,
        mcp=mcp,
        steps=raw.get("steps", defaults.get("steps", 1)),
        tool_results=results or None,
    )


def _tools_problems(tools: list[dict[str, Any]], where: str) -> Iterator[str]:
    seen: set[str] = set()
    for tool in tools:
        function = tool["function"]
        if function["name"] in seen:
            # The first of two equal names is the one a call validates against (K2-Vendor-Verifier).
            yield f"{where}: tool {function['name']!r} is declared twice"
        seen.add(function["name"])
        problem = schema_problem(function["parameters"])
        if problem:
            yield f"{where}: the parameters of tool {function['name']!r} are not a valid JSON Schema: {problem}"


def _messages_problems(messages: list[dict[str, Any]]) -> Iterator[str]:
    """A tool result must answer an earlier assistant tool call: chat APIs refuse the request otherwise,
    and that is better said now than as a request error of every run."""
    call_ids: set[str] = set()
    for number, message in enumerate(messages):
        call_ids.update(call["id"] for call in message.get("tool_calls") or [])
        if message["role"] == "tool" and message["tool_call_id"] not in call_ids:
            yield f"messages[{number}]: tool result for {message['tool_call_id']!r}, which no earlier tool call has"


def _semantic_expect_problem(expect: dict[str, Any], declared: set[str] | None = None) -> str:
    """The first of ``_semantic_expect_problems``; "" when there is none."""
    return next(_semantic_expect_problems(expect, declared), "")


def _semantic_expect_problems(expect: dict[str, Any], declared: set[str] | None = None) -> Iterator[str]:
    """What the schema cannot check: declared tool names, compiling regexes of a sane size."""
    for pattern in _regexes(expect):  # every $regex, at any place (calls, any_of, trajectory, final)
        problem = patterns.size_problem(pattern) if isinstance(pattern, str) else ""
        if problem:
            yield f"$regex {clip(pattern, 60)}: too large: {problem}"
            return  # (nothing compiles it, below)
    for call in _expected_calls(expect):
        if declared is not None and call["name"] not in declared:
            known = ", ".join(sorted(declared)) or "none"
            yield f"expected call to undeclared tool {call['name']!r} (declared: {known})"
        for pattern in _regexes(call.get("arguments") or {}):
            try:
                re.compile(pattern)
            except re.error as exc:
                yield f"call {call['name']!r}: invalid $regex {pattern!r}: {exc}"


def _expected_calls(expect: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from expect.get("calls") or []
    for alternative in expect.get("any_of") or []:
        yield from _expected_calls(alternative)


def _regexes(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if "$regex" in value:
            yield value["$regex"]
        else:
            for item in value.values():
                yield from _regexes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _regexes(item)


def _describe(error: jsonschema.ValidationError) -> str:
    """A schema error in the words of the format, with where it is."""
    matcher = _enclosing_matcher_error(error)
    if matcher is not None:
        where = _where(list(matcher.absolute_path))
        return f"{where}invalid matcher {_short(matcher.instance)}: a matcher is {MATCHER_SHAPES}"
    path = list(error.absolute_path)
    where = _where(path)
    instance = error.instance
    schema: Any = error.schema  # the format's own schema: a mapping (jsonschema types it loosely)
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted((schema.get("properties") or {}).keys())
        unknown = sorted(k for k in instance if k not in allowed)
        close = [m for k in unknown for m in difflib.get_close_matches(k, allowed, n=1) if m not in instance]
        hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
        return f"{where}unknown key {', '.join(map(repr, unknown))}{hint} (allowed: {', '.join(allowed)})"
    if error.validator == "oneOf" and isinstance(instance, dict):
        alternatives: Any = error.validator_value  # oneOf's value: a list of schemas
        if {"required": ["no_call"]} in alternatives:  # the oneOf of an expectation
            present = [k for k in EXPECT_KINDS if k in instance]
            found = f"found {', '.join(present)}" if present else "found none"
            return f"{where}expect needs exactly one of {', '.join(EXPECT_KINDS)} ({found})"
        if "prompt" in instance and "messages" in instance:
            return f"{where}a case has 'prompt' or 'messages', not both"
        return f"{where}a case needs 'prompt' or 'messages'"
    if error.validator == "required" and path[:1] == ["cases"] and len(path) == 2 and "expect" in error.message:
        return f"{where}no 'expect'"
    if error.validator == "minProperties" and path[-1:] == ["parameters"]:
        # K2-Vendor-Verifier's rule: no call to a tool without parameters validates.
        return f"{where}empty: a tool with no arguments declares {{type: object, properties: {{}}}}"
    if error.validator == "format" and error.validator_value == "regex":
        return f"{where}invalid $regex {error.instance!r}"
    return f"{where}{error.message}"


def _enclosing_matcher_error(error: jsonschema.ValidationError) -> jsonschema.ValidationError | None:
    """The error about a whole matcher, when ``error`` is about one of its parts: a matcher is judged
    as a whole (which shape was meant is a guess)."""
    if error.validator == "format":  # a regex that does not compile: the matcher's shape is right
        return None
    current: Any = error  # a ValidationError, or None above the root (``parent`` is typed loosely)
    while current is not None:
        if current.validator == "oneOf" and "arguments" in current.absolute_path and isinstance(current.instance, dict):
            return current
        current = current.parent
    return None


def _where(path: list[Any]) -> str:
    if len(path) >= 2 and path[0] == "cases":
        path = path[2:]
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".") + ": " if path else ""


def _short(value: Any, limit: int = 80) -> str:
    return clip(json.dumps(value, ensure_ascii=False), limit)
