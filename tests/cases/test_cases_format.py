"""Loading case files: what a valid file becomes, and every kind of invalid file as ONE error naming
the file and the line of the offending case."""

from __future__ import annotations

import json
import textwrap

import pytest

from pytest_toolcall.benchmarks.cases.format import (
    Case,
    CaseFileError,
    case_file_stem,
    format_schema,
    is_case_file,
)
from pytest_toolcall.benchmarks.cases.loading import load_case_file
from tests.cases.cases_support import TOOLS, WEATHER, write

HEADER = """\
defaults:
  system: "Be brief."
  tags: [weather]
  settings: {temperature: 0, max_tokens: 100, extra_body: {top_k: 5}}
  tools:
    - type: function
      function:
        name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
"""  # the first case starts on line 11


def load(tmp_path, cases_text, header=HEADER, name="t.toolcall.yaml"):
    return load_case_file(write(tmp_path, name, header + textwrap.dedent(cases_text)))


def error(tmp_path, cases_text, header=HEADER, name="t.toolcall.yaml") -> CaseFileError:
    with pytest.raises(CaseFileError) as info:
        load(tmp_path, cases_text, header, name)
    return info.value


# ---- valid files -----------------------------------------------------------------------------------


def test_defaults_are_applied(tmp_path):
    cases = load(
        tmp_path,
        """\
        - id: paris
          prompt: "Weather in Paris?"
          tags: [smoke, weather]
          settings: {max_tokens: 50, extra_body: {min_p: 0.1}}
          expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
        - id: own_tools
          system: "Be very brief."
          prompt: "Hi"
          tools: []
          expect: {no_call: true}
        """,
    )
    paris, own = cases
    path = str(tmp_path / "t.toolcall.yaml")
    assert paris == Case(
        file=path,
        line=11,
        id="paris",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
        tools=[
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                },
            }
        ],
        tags=("weather", "smoke"),
        settings={"temperature": 0, "max_tokens": 50, "extra_body": {"top_k": 5, "min_p": 0.1}},
        expect={"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    )
    assert paris.sampling() == {"temperature": 0, "max_tokens": 50, "top_k": 5, "min_p": 0.1}
    assert paris.stem == "t"
    assert own.line == 16 and own.tools == [] and own.tags == ("weather",)
    assert own.messages[0] == {"role": "system", "content": "Be very brief."}


def test_messages_with_earlier_tool_calls_and_results(tmp_path):
    (case,) = load(
        tmp_path,
        """\
        - id: follow_up
          messages:
            - {role: system, content: "Own system message."}
            - {role: user, content: "Weather in Rome?"}
            - role: assistant
              content: null
              tool_calls: [{id: c1, type: function, function: {name: get_weather, arguments: '{"city": "Rome"}'}}]
            - {role: tool, tool_call_id: c1, content: "24 C"}
            - {role: user, content: "And in Naples?"}
          expect: {calls: [{name: get_weather, arguments: {city: Naples}}]}
        """,
    )
    # A case that opens with its own system message keeps it, without the default one.
    assert [m["role"] for m in case.messages] == ["system", "user", "assistant", "tool", "user"]
    assert case.messages[0]["content"] == "Own system message."
    assert case.messages[2]["tool_calls"][0]["function"]["arguments"] == '{"city": "Rome"}'


def test_yaml_dates_stay_strings_and_exponents_are_numbers(tmp_path):
    header = HEADER.replace("{city: {type: string}}", "{city: {type: string}, when: {type: string}, x: {type: number}}")
    (case,) = load(
        tmp_path,
        """\
        - id: d
          prompt: "?"
          expect:
            calls: [{name: get_weather, arguments: {city: Oslo, when: 2025-03-11, x: {$approx: 1e-3, $tol: 1e-9}}}]
        """,
        header,
    )
    assert case.expect["calls"][0]["arguments"] == {
        "city": "Oslo",
        "when": "2025-03-11",
        "x": {"$approx": 0.001, "$tol": 1e-9},
    }


def test_jsonl_one_case_per_line(tmp_path):
    line = {"id": "a", "prompt": "Weather in Oslo?", "tools": [WEATHER], "expect": {"should_call_tool": True}}
    other = {"id": "b", "prompt": "Hi", "tags": ["smoke"], "expect": {"no_call": True}}
    path = write(tmp_path, "s.toolcall.jsonl", json.dumps(line) + "\n\n" + json.dumps(other) + "\n")
    a, b = load_case_file(path)
    assert (a.line, a.id, a.tools, a.tags) == (1, "a", [WEATHER], ())
    assert (b.line, b.id, b.tools, b.tags, b.messages) == (3, "b", [], ("smoke",), [{"role": "user", "content": "Hi"}])


def test_names():
    assert (
        is_case_file("x/weather.toolcall.yaml") and is_case_file("a.toolcall.yml") and is_case_file("b.toolcall.jsonl")
    )
    assert (
        not is_case_file("weather.yaml") and not is_case_file("toolcall.yaml") and not is_case_file("a.toolcall.json")
    )
    assert case_file_stem("x/weather.toolcall.yaml") == "weather" and case_file_stem("s.toolcall.jsonl") == "s"


def test_the_schema_ships_with_the_package():
    schema = format_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(schema["$defs"]["expect"]["properties"]) == {
        "no_call",
        "should_call_tool",
        "calls",
        "ordered",
        "allow_extra",
        "any_of",
        "max_calls",
        "status",
        "trajectory",
        "final",
        "json_output",
        "usage",
        "language",
        "repetition",
        "key_order",
    }


# ---- invalid files: one error, file and line --------------------------------------------------------

GOOD = """\
- id: first
  prompt: "Weather in Paris?"
  expect: {calls: [{name: get_weather, arguments: {city: Paris}}]}
"""  # lines 11-13: the case after it starts on line 14


def test_bad_yaml(tmp_path):
    exc = error(tmp_path, GOOD + "- id: second\n  prompt: [unclosed\n  expect: {no_call: true}\n")
    assert exc.path == str(tmp_path / "t.toolcall.yaml")
    assert exc.line == 16 and "invalid YAML" in exc.message
    assert str(exc).startswith(f"{exc.path}:16")


def test_an_unclosed_quote_is_reported_where_it_opened(tmp_path):
    exc = error(tmp_path, GOOD + '- id: second\n  prompt: "Hi\n  expect: {no_call: true}\n- id: third\n  prompt: Hi\n')
    assert exc.line == 15 and "invalid YAML" in exc.message and "quoted scalar" in exc.message


def test_python_tags_are_refused(tmp_path):
    exc = error(
        tmp_path,
        GOOD + "- id: second\n  prompt: !!python/object/apply:os.system [echo hi]\n  expect: {no_call: true}\n",
    )
    assert exc.line == 15 and "invalid YAML" in exc.message and "python/object" in exc.message


def test_unknown_key_in_a_case(tmp_path):
    exc = error(tmp_path, GOOD + "- id: second\n  prompt: Hi\n  expected: {no_call: true}\n  expect: {no_call: true}\n")
    assert str(exc) == (
        f"{tmp_path / 't.toolcall.yaml'}:14: case 'second': unknown key 'expected' "
        "(allowed: expect, id, mcp, messages, prompt, settings, steps, system, tags, tool_results, tools)"
    )


def test_a_typo_of_expect_is_an_unknown_key_with_a_suggestion(tmp_path):
    exc = error(tmp_path, GOOD + "- id: second\n  prompt: Hi\n  expected: {no_call: true}\n")
    assert (exc.line, exc.message) == (
        14,
        "case 'second': unknown key 'expected' (did you mean 'expect'?) "
        "(allowed: expect, id, mcp, messages, prompt, settings, steps, system, tags, tool_results, tools)",
    )


def test_every_problem_of_a_file_in_one_error(tmp_path):
    mistakes = (
        "- id: a\n  prompt: Hi\n  expected: {no_call: true}\n"  # line 14: unknown key
        "- id: b\n  prompt: Hi\n"  # 17: no expect
        "- id: a\n  prompt: Hi\n  expect: {no_call: true}\n"  # 19: duplicate id ('a' of line 14 is still seen)
        "- id: c\n  prompt: Hi\n  expect: {calls: [{name: nowhere}]}\n"  # 22: undeclared tool
        "- id: d\n  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {city: {$regex: '('}}}]}\n"  # 25
        "- id: e\n  prompt: Hi\n  expect: {no_call: true, status: 400}\n"  # 28: two kinds
    )
    exc = error(tmp_path, GOOD + "- id: ok\n  prompt: Hi\n  expect: {no_call: true}\n" + mistakes)
    path = str(tmp_path / "t.toolcall.yaml")
    problems = str(exc).split("\n")
    assert [p.split(":")[len(path.split(":"))] for p in problems] == ["17", "20", "22", "25", "28", "31"]
    assert all(p.startswith(f"{path}:") for p in problems)
    assert "did you mean 'expect'" in problems[0] and "no 'expect'" in problems[1]
    assert "duplicate case id 'a'" in problems[2] and "undeclared tool 'nowhere'" in problems[3]
    assert "$regex" in problems[4] and "exactly one of" in problems[5]
    assert exc.line == 17 and str(exc) == f"{path}:{exc.line}: {exc.message}"


def test_every_problem_of_every_case_is_said(tmp_path):
    # Each case has two problems: both are said, not only the first.
    mistakes = (
        "- id: a\n  prompt: Hi\n  tags: smoke\n  steps: 0\n  expect: {no_call: true}\n"  # 14: tags, steps
        "- id: b\n  prompt: Hi\n  expect: {calls: [{name: nowhere}, {name: elsewhere}]}\n"  # 19: two tools
        "- id: c\n  prompt: Hi\n  expect:\n    calls: [{name: get_weather, arguments: {city: {$regex: '('}}}]\n"
        "    max_calls: -1\n"  # 22: a bad max_calls (schema) hides nothing of the case's other keys
    )
    exc = error(tmp_path, GOOD + mistakes)
    problems = [line.partition(".yaml:")[2] for line in str(exc).split("\n")]
    a = [p for p in problems if "case 'a'" in p]
    b = [p for p in problems if "case 'b'" in p]
    assert len(a) == 2 and any("tags" in p for p in a) and any("steps" in p for p in a), problems
    assert len(b) == 2 and "'nowhere'" in b[0] and "'elsewhere'" in b[1], problems
    assert any("case 'c'" in p and "max_calls" in p for p in problems), problems


def test_unknown_key_in_defaults_and_at_the_top(tmp_path):
    exc = error(tmp_path, GOOD, HEADER.replace("  tags: [weather]\n", "  tag: [weather]\n"))
    assert (exc.line, exc.message) == (
        2,
        "defaults: unknown key 'tag' (did you mean 'tags'?) "
        "(allowed: mcp, settings, steps, system, tags, tool_results, tools)",
    )
    exc = error(tmp_path, GOOD, "version: 1\n" + HEADER)
    assert (exc.line, exc.message) == (1, "unknown key 'version' (allowed: cases, defaults)")


def test_unknown_setting(tmp_path):
    exc = error(tmp_path, "- id: a\n  prompt: Hi\n  settings: {temprature: 0}\n  expect: {no_call: true}\n")
    assert exc.line == 11 and "settings: unknown key 'temprature'" in exc.message


def test_no_expect(tmp_path):
    exc = error(tmp_path, GOOD + "- id: second\n  prompt: Hi\n")
    assert (exc.line, exc.message) == (14, "case 'second': no 'expect'")


def test_expect_needs_exactly_one_kind(tmp_path):
    exc = error(tmp_path, GOOD + "- id: two\n  prompt: Hi\n  expect: {no_call: true, should_call_tool: false}\n")
    assert exc.line == 14
    assert exc.message == (
        "case 'two': expect: expect needs exactly one of no_call, should_call_tool, calls, any_of, status "
        "(found no_call, should_call_tool)"
    )
    exc = error(tmp_path, "- id: none\n  prompt: Hi\n  expect: {}\n")
    assert exc.line == 11 and "(found none)" in exc.message
    exc = error(tmp_path, "- id: o\n  prompt: Hi\n  expect: {no_call: true, ordered: true}\n")
    assert exc.line == 11 and "calls" in exc.message


def test_prompt_or_messages(tmp_path):
    exc = error(
        tmp_path, "- id: both\n  prompt: Hi\n  messages: [{role: user, content: Hi}]\n  expect: {no_call: true}\n"
    )
    assert (exc.line, exc.message) == (11, "case 'both': a case has 'prompt' or 'messages', not both")
    exc = error(tmp_path, GOOD + "- id: neither\n  expect: {no_call: true}\n")
    assert (exc.line, exc.message) == (14, "case 'neither': a case needs 'prompt' or 'messages'")


def test_duplicate_id(tmp_path):
    exc = error(tmp_path, GOOD + "- id: first\n  prompt: Hi\n  expect: {no_call: true}\n")
    assert (exc.line, exc.message) == (14, "duplicate case id 'first' (first at line 11)")


def test_duplicate_yaml_key(tmp_path):
    exc = error(tmp_path, "- id: a\n  prompt: Hi\n  prompt: Hello\n  expect: {no_call: true}\n")
    assert (exc.line, exc.message) == (13, "duplicate key 'prompt'")


@pytest.mark.parametrize(
    "matcher",
    [
        "{$regex: 1}",
        "{$regex: a, $tol: 1}",
        "{$one_of: []}",
        "{$one_of: Paris}",
        "{$approx: '1'}",
        "{$approx: 1, $tol: -1}",
        "{$any: false}",
        "{$anything: true}",
        "{$regex: a, extra: 1}",
    ],
)
def test_matcher_with_a_wrong_shape(tmp_path, matcher):
    exc = error(
        tmp_path,
        GOOD + f"- id: m\n  prompt: Hi\n  expect: {{calls: [{{name: get_weather, arguments: {{city: {matcher}}}}}]}}\n",
    )
    assert exc.line == 14
    assert exc.message.startswith("case 'm': expect.calls[0].arguments.city: invalid matcher "), exc.message


def test_nested_matcher_with_a_wrong_shape(tmp_path):
    exc = error(
        tmp_path,
        "- id: m\n  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {city: {a: [{$any: 1}]}}}]}\n",
    )
    assert exc.line == 11 and "expect.calls[0].arguments.city.a[0]: invalid matcher" in exc.message


def test_regex_that_does_not_compile(tmp_path):
    exc = error(
        tmp_path,
        "- id: r\n  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {city: {$regex: '(Paris'}}}]}\n",
    )
    assert exc.line == 11 and "invalid $regex '(Paris'" in exc.message


def test_regex_the_oracle_cannot_satisfy(tmp_path):
    exc = error(
        tmp_path,
        GOOD
        + "- id: r\n  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {city: {$regex: '(a)\\1'}}}]}\n",
    )
    assert exc.line == 14
    assert "get_weather.city: cannot produce a string that fully matches $regex '(a)\\\\1'" in exc.message


def test_every_case_the_oracle_cannot_pass_in_one_error(tmp_path):
    unpassable = "  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {city: {$regex: '(a)\\1'}}}]}\n"
    exc = error(tmp_path, GOOD + "- id: r\n" + unpassable + "- id: s\n" + unpassable)
    problems = str(exc).split("\n")
    assert len(problems) == 2 and exc.line == 14 and exc.message.startswith("case 'r': ")
    assert ":17: case 's': " in problems[1] and "cannot produce a string" in problems[1]


def test_tool_parameters_that_are_not_a_json_schema(tmp_path):
    exc = error(tmp_path, GOOD, HEADER.replace("{type: object, properties", "{type: objekt, properties"))
    assert (
        exc.line == 2
        and "defaults.tools: the parameters of tool 'get_weather' are not a valid JSON Schema" in exc.message
    )
    bad_tool = "[{type: function, function: {name: f, parameters: {type: object, required: city}}}]"
    exc = error(tmp_path, GOOD + f"- id: t\n  prompt: Hi\n  tools: {bad_tool}\n  expect: {{no_call: true}}\n")
    assert exc.line == 14 and "case 't': tools: the parameters of tool 'f' are not a valid JSON Schema" in exc.message


def test_tool_without_parameters(tmp_path):
    exc = error(
        tmp_path,
        "- id: t\n  prompt: Hi\n  tools: [{type: function, function: {name: f, parameters: {}}}]\n"
        "  expect: {no_call: true}\n",
    )
    assert exc.line == 11
    assert (
        exc.message == "case 't': tools[0].function.parameters: empty: "
        "a tool with no arguments declares {type: object, properties: {}}"
    )
    exc = error(
        tmp_path, "- id: t\n  prompt: Hi\n  tools: [{type: function, function: {name: f}}]\n  expect: {no_call: true}\n"
    )
    assert exc.line == 11 and "'parameters' is a required property" in exc.message


def test_tool_declared_twice(tmp_path):
    tools = f"[{json.dumps(WEATHER)}, {json.dumps(WEATHER)}]"
    exc = error(tmp_path, f"- id: t\n  prompt: Hi\n  tools: {tools}\n  expect: {{no_call: true}}\n")
    assert (exc.line, exc.message) == (11, "case 't': tools: tool 'get_weather' is declared twice")


def test_expected_call_to_an_undeclared_tool(tmp_path):
    exc = error(
        tmp_path,
        GOOD + "- id: u\n  prompt: Hi\n  expect: {any_of: [{no_call: true}, {calls: [{name: get_forecast}]}]}\n",
    )
    assert (exc.line, exc.message) == (
        14,
        "case 'u': expected call to undeclared tool 'get_forecast' (declared: get_weather)",
    )


def test_expected_values_the_schema_forbids(tmp_path):
    exc = error(
        tmp_path, GOOD + "- id: v\n  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {city: 12}}]}\n"
    )
    assert exc.line == 14 and "no model can pass it" in exc.message and "$.city" in exc.message
    # A required argument that the case does not list, without allow_extra, can never be matched either.
    exc = error(tmp_path, GOOD + "- id: w\n  prompt: Hi\n  expect: {calls: [{name: get_weather, arguments: {}}]}\n")
    assert exc.line == 14 and "'city' is a required property" in exc.message


def test_bad_tags_and_ids(tmp_path):
    exc = error(tmp_path, "- id: a\n  prompt: Hi\n  tags: [two words]\n  expect: {no_call: true}\n")
    assert exc.line == 11 and "tags[0]" in exc.message
    exc = error(tmp_path, GOOD + "- id: 'a::b'\n  prompt: Hi\n  expect: {no_call: true}\n")
    assert exc.line == 14 and "id" in exc.message


def test_empty_and_shapeless_files(tmp_path):
    exc = error(tmp_path, "", header="")
    assert exc.line == 1 and "empty" in exc.message
    exc = error(tmp_path, "", header="- just\n- a list\n")
    assert exc.line == 1 and "is not of type 'object'" in exc.message
    exc = error(tmp_path, "", header="cases: []\n")
    assert exc.line == 1 and "cases" in exc.message


def test_unreadable_file(tmp_path):
    path = tmp_path / "bin.toolcall.yaml"
    path.write_bytes(b"cases: \xff\xfe\n")
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    assert info.value.line == 1 and "cannot read" in info.value.message


def test_jsonl_errors_name_the_line(tmp_path):
    good = json.dumps({"id": "a", "prompt": "Hi", "expect": {"no_call": True}})
    path = write(tmp_path, "s.toolcall.jsonl", good + "\n{not json\n")
    with pytest.raises(CaseFileError, match=r"s\.toolcall\.jsonl:2: invalid JSON"):
        load_case_file(path)
    unknown = json.dumps({"id": "b", "prompt": "Hi", "expect": {"no_call": True}, "defaults": {}})
    path = write(tmp_path, "s.toolcall.jsonl", good + "\n\n" + unknown + "\n")
    with pytest.raises(CaseFileError, match=r"s\.toolcall\.jsonl:3: case 'b': unknown key 'defaults'"):
        load_case_file(path)
    path = write(tmp_path, "s.toolcall.jsonl", good + "\n" + good + "\n")
    with pytest.raises(CaseFileError, match=r"s\.toolcall\.jsonl:2: duplicate case id 'a' \(first at line 1\)"):
        load_case_file(path)
    path = write(tmp_path, "s.toolcall.jsonl", '{"id": "a", "id": "b", "prompt": "Hi", "expect": {"no_call": true}}\n')
    with pytest.raises(CaseFileError, match=r"s\.toolcall\.jsonl:1: invalid JSON: duplicate key 'id'"):
        load_case_file(path)
    path = write(tmp_path, "s.toolcall.jsonl", "\n\n")
    with pytest.raises(CaseFileError, match=r"s\.toolcall\.jsonl:1: the file has no case"):
        load_case_file(path)


def test_tools_of_the_support_module_are_valid(tmp_path):
    # The tools the matching tests use load as case-file tools (no test scores against a broken schema).
    line = {"id": "a", "prompt": "Hi", "tools": TOOLS, "expect": {"should_call_tool": True}}
    (case,) = load_case_file(write(tmp_path, "x.toolcall.jsonl", json.dumps(line) + "\n"))
    assert case.tools == TOOLS


def test_yaml_anchors_are_fine_but_a_billion_laughs_is_refused(tmp_path):
    (a, b) = load(
        tmp_path,
        "- id: a\n  prompt: &p Weather in Oslo?\n  expect: &e {calls: [{name: get_weather, arguments: {city: Oslo}}]}\n"
        "- id: b\n  prompt: *p\n  expect: *e\n",
    )
    assert a.expect == b.expect and b.messages[-1]["content"] == "Weather in Oslo?"
    laughs = "x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    laughs += "".join(f"x{i}: &x{i} [{', '.join([f'*x{i - 1}'] * 10)}]\n" for i in range(1, 7))
    path = write(tmp_path, "laughs.toolcall.yaml", laughs + "cases: [*x6]\n")
    with pytest.raises(
        CaseFileError, match=r"laughs\.toolcall\.yaml:1: the file expands to more than 1,000,000 values"
    ):
        load_case_file(path)


def test_tool_result_without_its_call(tmp_path):
    exc = error(
        tmp_path,
        GOOD + "- id: orphan\n  messages:\n    - {role: user, content: Hi}\n"
        "    - role: assistant\n"
        "      tool_calls: [{id: c1, type: function, function: {name: get_weather, arguments: '{}'}}]\n"
        "    - {role: tool, tool_call_id: c2, content: '20 C'}\n  expect: {no_call: true}\n",
    )
    assert (exc.line, exc.message) == (
        14,
        "case 'orphan': messages[2]: tool result for 'c2', which no earlier tool call has",
    )
    exc = error(tmp_path, "- id: t\n  messages: [{role: tool, content: x}]\n  expect: {no_call: true}\n")
    assert exc.line == 11 and "'tool_call_id' is a required property" in exc.message
