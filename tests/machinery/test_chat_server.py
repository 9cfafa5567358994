"""The local chat server, exercised through the real openai client over real HTTP."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from pytest_toolcall.testing.server import ChatServer, FaultPlan, Reply, ScriptResponder

# The HTTP library under the SDK: httpx2 for openai 3.x, httpx before.
transport = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__)

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
WEATHER_CALL = {"name": "get_weather", "arguments": '{"city": "Paris"}'}


def client(srv: ChatServer, **kwargs: object) -> OpenAI:
    kwargs.setdefault("max_retries", 0)
    return OpenAI(base_url=srv.base_url, api_key="test-key", **kwargs)  # type: ignore[arg-type]


def ask(c: OpenAI, content: str = MESSAGES[0]["content"]) -> object:
    messages = [{"role": "user", "content": content}]
    return c.chat.completions.create(model="test-model", messages=messages)  # type: ignore[arg-type]


@pytest.fixture
def srv() -> Iterator[ChatServer]:
    rules = [("weather", Reply(tool_calls=[WEATHER_CALL])), ("hello", Reply("hi!"))]
    with ChatServer(ScriptResponder(rules, Reply(content="default"))) as server:
        yield server


@pytest.mark.slow
def test_content_reply_and_recording(srv: ChatServer) -> None:
    resp = ask(client(srv), "hello there")
    choice = resp.choices[0]  # type: ignore[attr-defined]
    assert choice.message.content == "hi!"
    assert choice.finish_reason == "stop"
    assert resp.model == "test-model"  # type: ignore[attr-defined]
    assert resp.usage.total_tokens > 0  # type: ignore[attr-defined]
    assert srv.count == 1
    assert srv.requests[0]["messages"][0]["content"] == "hello there"
    assert srv.auth_headers == ["Bearer test-key"]


@pytest.mark.slow
def test_tool_call_reply(srv: ChatServer) -> None:
    choice = ask(client(srv)).choices[0]  # type: ignore[attr-defined]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    call = choice.message.tool_calls[0]
    assert call.id.startswith("call_")
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}


@pytest.mark.slow
def test_script_from_file_with_default(tmp_path: Path) -> None:
    script = {
        "rules": [{"match": "ping", "reply": {"content": "pong"}}],
        "default": {"content": "[]", "reasoning_content": "thinking"},
    }
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(script))
    with ChatServer(ScriptResponder.from_file(path)) as srv:
        c = client(srv)
        assert ask(c, "ping").choices[0].message.content == "pong"  # type: ignore[attr-defined]
        other = ask(c, "something else").choices[0].message  # type: ignore[attr-defined]
        assert other.content == "[]"
        assert other.model_extra["reasoning_content"] == "thinking"


@pytest.mark.slow
def test_stream_reassembles_to_the_plain_answer(srv: ChatServer) -> None:
    """The SDK's own stream reader and accumulator get from the SSE stream what a plain request gets."""
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state = ChatCompletionStreamState()
    chunks = list(
        client(srv).chat.completions.create(
            model="m",
            messages=MESSAGES,  # type: ignore[arg-type]
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    for chunk in chunks:
        state.handle_chunk(chunk)
    final = state.get_final_completion()
    call = final.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert (call.function.name, json.loads(call.function.arguments)) == ("get_weather", {"city": "Paris"})
    assert final.choices[0].finish_reason == "tool_calls"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    assert srv.requests[0]["stream"] is True


@pytest.mark.slow
def test_responses_api_function_call(srv: ChatServer) -> None:
    """The Responses API through the SDK's typed client: function_call output items and usage."""
    answer = client(srv).responses.create(model="m", input="What is the weather in Paris?")
    calls = [item for item in answer.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert calls[0].call_id.startswith("call_")
    assert answer.usage is not None and answer.usage.input_tokens > 0
    with client(srv).responses.stream(model="m", input="hello there") as stream:
        final = stream.get_final_response()
    assert final.output_text == "hi!"


# What the openai client raises for each injected fault.
# "truncated" is a 200 whose JSON is cut short: the SDK calls response.json() after
# the retry loop, so a bare json.JSONDecodeError (a ValueError, *not* an
# openai.OpenAIError) escapes, and it is never retried.
# A reset or a hang usually arrives wrapped (APIConnectionError / APITimeoutError), but the SDK lets
# the transport's own exception escape on some paths (seen under load): both mean the same here.
TRANSPORT_ERRORS = (openai.APIConnectionError, transport.TransportError)
FAULT_ERRORS: dict[str, type[Exception] | tuple[type[Exception], ...]] = {
    "429": openai.RateLimitError,
    "500": openai.InternalServerError,
    "503": openai.InternalServerError,
    "reset": TRANSPORT_ERRORS,  # cause: ReadError (ECONNRESET)
    "hang": (openai.APITimeoutError, transport.TimeoutException),  # cause: ReadTimeout
    "truncated": json.JSONDecodeError,
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", FAULT_ERRORS)
def test_fault_reaches_client_as(kind: str) -> None:
    with ChatServer(faults=FaultPlan(1.0, (kind,), seed=1)) as srv:
        with pytest.raises(FAULT_ERRORS[kind]) as info:
            ask(client(srv, timeout=0.5))
        assert srv.count == 1
        assert srv.faults_injected == {kind: 1}
    if kind == "429":
        assert info.value.response.headers["retry-after"] == "0.05"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_retries_honour_retry_after_and_keep_alive_survives() -> None:
    # A lower bound, which no busy machine can break: the SDK's own backoff before two retries is at
    # most 0.5 + 1 s, so waiting at least 2 x 1 s means it slept what Retry-After said.
    with ChatServer(faults=FaultPlan(1.0, ("429",), retry_after=1.0)) as srv:
        start = time.monotonic()
        with pytest.raises(openai.RateLimitError):
            ask(client(srv, max_retries=2))
        assert srv.count == 3
        assert time.monotonic() - start >= 2.0


@pytest.mark.slow
def test_faults_are_deterministic_per_request_body() -> None:
    def outcomes() -> list[str]:
        plan = FaultPlan(0.5, ("429", "500", "reset", "truncated"), seed=7)
        with ChatServer(faults=plan) as srv:
            c = client(srv)
            result = []
            for i in [*range(12), 0, 0]:  # repeats of request 0 are independent draws
                try:
                    ask(c, f"question {i}")
                    result.append("ok")
                except Exception as exc:
                    result.append(type(exc).__name__)
            return result

    first = outcomes()
    assert first == outcomes()
    assert "ok" in first
    assert len(set(first)) > 2


@pytest.mark.slow
def test_stop_releases_hanging_request() -> None:
    srv = ChatServer(faults=FaultPlan(1.0, ("hang",), hang=30.0)).start()
    errors: list[Exception] = []

    def call() -> None:
        try:
            ask(client(srv, timeout=10))
        except Exception as exc:
            errors.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    while srv.count == 0:
        time.sleep(0.01)
    srv.stop()
    caller.join(10)  # a hang guard: the request would hang for 30 s, the client waits 10
    assert not caller.is_alive()
    assert isinstance(errors[0], TRANSPORT_ERRORS)


@pytest.mark.slow
def test_concurrent_requests_overlap() -> None:
    # Counted by the server, not timed: each request is held 1 s, so requests that overlap are open at
    # once there (32 threads start within far less than that).
    with ChatServer(ScriptResponder(default=Reply("ok")), latency=1.0) as srv:
        c = client(srv)
        threads = [threading.Thread(target=ask, args=(c,)) for _ in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert srv.count == 32
        assert srv.max_in_flight >= 8


@pytest.mark.slow
def test_cli_subprocess() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest_toolcall.testing.server", "--port", "0", "--latency", "0.01"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline().split()
        assert ready[0] == "READY"
        c = OpenAI(base_url=ready[1], api_key="k", max_retries=0)
        assert ask(c).choices[0].message.content == "[]"  # type: ignore[attr-defined]
        proc.terminate()
        out, _ = proc.communicate(timeout=5)
    finally:
        proc.kill()
    stats = json.loads(out)
    assert (stats["requests"], stats["faults"], stats["max_in_flight"]) == (1, {}, 1)
    assert stats["first_request_at"] <= stats["last_response_at"]
