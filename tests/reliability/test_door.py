"""The door (issue 31): one hostile corpus walked through every entry point of bytes from outside.

Each entry point is what the rest of the package calls on input from one source: model answers
(plain, streamed, Responses; the user simulator and the judge are model answers too), MCP servers
(tool lists, results, errors, stderr), results files, reports, the response store and case files.
For every input of the corpus, an entry point either returns what other code then holds, or refuses
with its source's own failure (one line). Whatever it returns or says carries no key and no URL
credential; what it says (a message, printed) carries no escape byte and no line a CI runner would
take as a command; nothing nested deeper than the bound gets through, and nothing raises a
RecursionError, a TypeError or anything else the source's failure is not. Sizes are bounded where
the door caps them (an MCP result); the bound is on sizes, never on time.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.api import DataError, RequestError
from pytest_toolcall.benchmarks.cases.format import CaseFileError, read_case_file
from pytest_toolcall.benchmarks.cases.mcp_servers import McpError, admitted_tools, result_text
from pytest_toolcall.benchmarks.tau2.judge import parse_verdicts
from pytest_toolcall.benchmarks.tau2.results_file import load_results
from pytest_toolcall.core.safety import door
from pytest_toolcall.core.safety.reports import ReportError, read_report
from pytest_toolcall.model import responses_api
from pytest_toolcall.model.responses_api import ResponsesStream
from pytest_toolcall.model.sdk_server import _response
from pytest_toolcall.model.store import row_answer, row_exchange
from pytest_toolcall.model.streaming import ChatStream

KEY = "sk-door-walk-0123456789abcdef"
PASSWORD = "hunter2-walk-password"
URL = f"https://user:{PASSWORD}@models.example/v1?api-key=qk-walk-0123456789abcdef"
SECRETS = (KEY, PASSWORD, "qk-walk-0123456789abcdef")
EVIL = (
    f"::error title=X::forged\n##[error]forged\n::add-mask::x\n\x1b[2J\x1b]8;;http://x\x07link\rover "
    f"{KEY} https://user:{PASSWORD}@h/?token={KEY} \u202e"
)
DEEP = "[" * 200_000 + "]" * 200_000
HUGE = "x" * 2**20 + KEY  # past every cap the door sets on a field (a 1 MiB string)


def corpus() -> Iterator[tuple[str, str]]:
    """(name, JSON text) of every hostile input; each entry point gets it where its source puts text."""
    answer = {
        "choices": [
            {
                "message": {
                    "content": EVIL,
                    "tool_calls": [{"id": EVIL, "function": {"name": EVIL, "arguments": EVIL}}],
                },
                "finish_reason": EVIL,
            }
        ]
    }
    yield "evil text", json.dumps(EVIL)
    yield "evil answer", json.dumps(answer)
    yield "evil keys", json.dumps({EVIL: {KEY: [KEY, {KEY: KEY}]}})
    yield "deep", DEEP
    yield "deep object", '{"a":' * 5_000 + "1" + "}" * 5_000
    yield "huge", json.dumps(HUGE)
    yield "not json", EVIL
    for odd in ("5", "[]", "{}", "null", "true", '"text"', "1e999", "9" * 5000, '{"content": 5, "usage": "x"}'):
        yield f"odd {odd[:12]}", odd


@pytest.fixture(autouse=True)
def secrets() -> Iterator[None]:
    door.add_secret(KEY)
    door.add_url(URL)
    yield
    door.forget_secrets()


def _held(value: Any) -> str:
    """What an entry point returned, as text (JSON escapes decoded: a key in any form is found)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):
        return repr(value)


def assert_held_safe(name: str, value: Any) -> None:
    text = _held(value)
    for secret in SECRETS:
        assert secret not in text, (name, secret)
    assert not door.too_deep(value) or isinstance(value, str), name


def assert_said_safe(name: str, message: str) -> None:
    for secret in SECRETS:
        assert secret not in message, (name, secret)
    assert "\x1b" not in message and "\x07" not in message and "\r" not in message, (name, message[:200])
    for line in message.splitlines():
        assert not line.lstrip(" \t").startswith(("::", "##[")), (name, line)
    assert len(message) < 30_000, name


# --- the entry points: (name, call, the failures its source may have) -------------------------------


def _chat_answer(text: str) -> Any:
    """A plain Chat Completions body, as the SDK process reads it and hands it over."""
    value = door.loads(text, "HTTP 200 answer")
    response = _response(value, 0.1)
    import dataclasses

    return door.chat_response(dataclasses.asdict(response), "the answer")


def _stream(text: str) -> Any:
    stream = ChatStream([])
    stream.event(text)
    stream.event('{"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}')
    stream.event("[DONE]")
    return stream.finish(), stream.problems


def _responses_stream(text: str) -> Any:
    stream = ResponsesStream([])
    stream.event(text)
    stream.event('{"type": "response.completed", "response": {"status": "completed", "usage": {}}}')
    return stream.finish(), stream.problems


def _responses_answer(text: str) -> Any:
    value = door.loads(text, "HTTP 200 answer")
    return _response(responses_api.completion(value) if isinstance(value, dict) else value, 0.1)


def _value(text: str) -> Any:
    """The value an SDK would hand over for ``text`` (deep ones built without recursion)."""
    if text.startswith("[" * 100):
        value: Any = []
        for _ in range(5_000):
            value = [value]
        return value
    if text.startswith('{"a":' * 100):
        value = 1
        for _ in range(5_000):
            value = {"a": value}
        return value
    try:
        return json.loads(text)
    except ValueError:
        return text


def _tool(name: Any, description: Any, schema: Any) -> Any:
    return types.SimpleNamespace(name=name, description=description, input_schema=schema)


def _mcp_tools(text: str) -> Any:
    value = _value(text)
    return admitted_tools([_tool(EVIL, value if isinstance(value, str) else EVIL, {"type": "object", "x": value})], "S")


def _mcp_tool_named(text: str) -> Any:
    return admitted_tools([_tool(_value(text), "d", {"type": "object"})], "S")


def _mcp_result(text: str) -> Any:
    value = _value(text)
    blocks = [types.SimpleNamespace(type=EVIL, text=value)]
    result = result_text(types.SimpleNamespace(content=blocks, structured_content=None))
    assert len(result) <= door.MCP_RESULT_LIMIT + 200
    structured = result_text(types.SimpleNamespace(content=[], structured_content=value))
    assert len(structured) <= door.MCP_RESULT_LIMIT + 200
    return result, structured


def _mcp_error(text: str) -> Any:
    raise McpError(f"MCP server S did not start: {text}; its stderr ends: {text[-600:]}")


def _judge(text: str) -> Any:
    return parse_verdicts(text)


def _store_row(text: str) -> Any:
    return row_answer((text, 1.0, None))


def _store_exchange(text: str) -> Any:
    return row_exchange((text, 1.0, None))


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _results_file(tmp_path: Path) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        return load_results(_file(tmp_path, "results.json", text))

    return read


def _report(tmp_path: Path) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        return read_report(_file(tmp_path, "report.json", text))

    return read


def _case_file(tmp_path: Path) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        call = f'{{"name": "f", "arguments": {{"x": {text}}}}}'
        body = f'{{"cases": [{{"id": "a", "prompt": {json.dumps(EVIL)}, "expect": {{"calls": [{call}]}}}}]}}'
        return read_case_file(_file(tmp_path, "c.toolcall.json", body))

    return read


def entry_points(tmp_path: Path) -> list[tuple[str, Callable[[str], Any], tuple[type[BaseException], ...]]]:
    return [
        ("model answer (Chat Completions)", _chat_answer, (door.Refused, ValueError)),
        ("model answer (stream chunk)", _stream, ()),
        ("model answer (Responses)", _responses_answer, (door.Refused, ValueError)),
        ("model answer (Responses stream event)", _responses_stream, (ValueError,)),
        ("judge answer", _judge, (RequestError,)),
        ("MCP tool list", _mcp_tools, (McpError,)),
        ("MCP tool name", _mcp_tool_named, (McpError,)),
        ("MCP result", _mcp_result, ()),
        ("MCP error and stderr", _mcp_error, (McpError,)),
        ("response store row", _store_row, (door.Refused,)),
        ("response store exchange", _store_exchange, (door.Refused,)),
        ("τ² results file", _results_file(tmp_path), (DataError,)),
        ("JSON report", _report(tmp_path), (ReportError,)),
        ("case file", _case_file(tmp_path), (CaseFileError,)),
    ]


def test_every_entry_point_holds_against_the_corpus(tmp_path: Path) -> None:
    for entry, call, failures in entry_points(tmp_path):
        for name, text in corpus():
            where = f"{entry} / {name}"
            try:
                held = call(text)
            except failures as exc:  # the source's own failure: one line (the MCP stderr quoted on it)
                message = str(exc)
                assert_said_safe(where, message)
                if not isinstance(exc, McpError) or "\n" in message:
                    assert "\n" not in message.strip() or isinstance(exc, (door.Refused, ValueError)), where
                continue
            assert_held_safe(where, held)
            if entry.startswith("model answer (stream"):  # a broken chunk is the model's stream failure
                _, problems = held
                for problem in problems:
                    assert_said_safe(where, problem)


def test_deep_json_in_a_stream_chunk_is_the_models_stream_failure() -> None:
    completion, problems = _stream(DEEP)
    assert any(p.startswith("not_a_chunk at chunk 1:") and "nested deeper than" in p for p in problems), problems
    assert completion["choices"][0]["message"]["content"] == "ok"


def test_secrets_are_masked_in_keys_values_and_any_depth() -> None:
    value = door.loads(json.dumps({KEY: [{"a": f"x{PASSWORD}y"}], "n": 5}), "v")
    assert value == {"***": [{"a": "x***y"}], "n": 5}
    with pytest.raises(door.Refused, match="nested deeper than 100 levels"):
        door.loads("[" * 101 + "]" * 101, "v")
    assert door.loads("[" * 100 + "]" * 100, "v") is not None


def test_a_urls_user_name_and_short_values_are_not_masked_and_runs_forget_each_others() -> None:
    """A URL's user name is a word data carries (a role ``user``, a tool ``set_user_info``), and a
    short password a placeholder: masking them would rewrite cases and answers. A run's secrets are
    its own: the next run in the process (a pytester run) does not mask them."""
    from types import SimpleNamespace

    from pytest_toolcall.runner.run import register_secrets

    door.add_url("http://user:pw@local.test/v1")
    assert door.redact({"role": "user", "name": "set_user_info pw"}) == {"role": "user", "name": "set_user_info pw"}
    assert door.redact(f"x{PASSWORD}") == "x***"
    settings = SimpleNamespace(
        api_key="sk-next-run-0123456789",
        base_url="http://local.test/v1",
        model="m",
        api_key_env="",
        is_oracle=False,
        option=lambda name: None,
    )
    register_secrets(settings)  # type: ignore[arg-type]
    assert door.redact(f"{KEY} {PASSWORD} sk-next-run-0123456789") == f"{KEY} {PASSWORD} ***"


def test_a_child_gets_a_minimal_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = door.child_environment({"NOTES_TOKEN": "tok-0123456789abcdefgh", "MODE": "x"})
    assert "OPENAI_API_KEY" not in env and env["LC_ALL"] == "C.UTF-8" and env["MODE"] == "x"
    assert set(env) <= {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LC_ALL", "NOTES_TOKEN", "MODE"}
    # A secret handed to the child is masked in what it sends back; a short plain value is not.
    assert door.redact("got tok-0123456789abcdefgh and x") == "got *** and x"


def test_every_field_of_an_answer_is_checked_by_its_type() -> None:
    import dataclasses

    from pytest_toolcall.core.protocol.types import ChatResponse

    good = dataclasses.asdict(
        ChatResponse("hi", "stop", [{"id": "c", "name": "f", "arguments": "{}"}], None, 0.5, {"prompt_tokens": 3})
    )
    assert door.chat_response(good, "answer") == ChatResponse(**good)
    for key in good:
        for wrong in ("text", -1, 1.5, None, [1], {"a": "b"}, True):
            fields = {**good, key: wrong}
            try:
                door.chat_response(fields, "answer")
            except door.Refused as exc:
                assert str(exc).startswith(f"answer: {key}"), (key, wrong, str(exc))
                continue
            # What was let in is of the field's type (a timing field added later: a number or null).
            assert ADMITTED.get(key, lambda v: v is None or _number(v))(wrong), (key, wrong)


def _number(value: Any) -> bool:
    return type(value) in (int, float)


#: Independently of the door: what each field of an answer may hold.
ADMITTED: dict[str, Callable[[Any], bool]] = {
    "content": lambda v: v is None or type(v) is str,
    "finish_reason": lambda v: v is None or type(v) is str,
    "reasoning": lambda v: v is None or type(v) is str,
    "latency_s": _number,
    "usage": lambda v: v is None or (type(v) is dict and all(type(n) is int and n >= 0 for n in v.values())),
    "retries": lambda v: type(v) is int and v >= 0,
    "status": lambda v: type(v) is int and v >= 0,
    "from_store": lambda v: type(v) is bool,
    "empty_tool_calls": lambda v: type(v) is bool,
    "stored_at": lambda v: v is None or _number(v),
    "stream_problems": lambda v: type(v) is list and all(type(p) is str for p in v),
    "tool_calls": lambda v: type(v) is list and all(type(c) is dict for c in v),
}
