"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

Real HTTP, real sockets: the ``openai`` client under test talks to it exactly as
it would to a hosted endpoint, so retries, timeouts and connection pooling are
exercised for real.  Standard library only, so it also runs as a subprocess:

    python -m pytest_toolcall.testing.server --port 0 --latency 0.2 --script rules.json

prints ``READY http://127.0.0.1:PORT/v1`` once listening, serves until SIGTERM or
SIGINT, then prints one JSON line of counters.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import random
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

FAULT_KINDS = ("429", "500", "503", "reset", "hang", "truncated")
_PATHS = ("/v1/chat/completions", "/chat/completions")
_RESPONSES_PATHS = ("/v1/responses", "/responses")
_MESSAGES_PATHS = ("/v1/messages", "/messages")
#: The stream rules a Chat Completions reply can be told to break (``Reply.stream_break``), by the
#: names the plugin reports them under.
CHAT_STREAM_BREAKS = (
    "first_delta_without_id_or_name",
    "index_skipped",
    "index_reused",
    "arguments_after_finish",
    "no_finish_reason",
    "no_done",
    "no_usage_chunk",
    "tool_markup_in_content",
)
#: The rules a Messages stream can break: those of Chat Completions but ``[DONE]`` (it has none),
#: and its own.
MESSAGES_STREAM_BREAKS = (
    *(rule for rule in CHAT_STREAM_BREAKS if rule != "no_done"),
    "delta_for_unstarted_block",
    "input_json_not_json",
    "tool_use_without_tool_use_block",
    "no_message_stop",
)
STREAM_BREAKS = (*CHAT_STREAM_BREAKS, *MESSAGES_STREAM_BREAKS[len(CHAT_STREAM_BREAKS) - 1 :])


@dataclass
class Reply:
    """What the server answers to one request."""

    content: str | None = None
    # Each item is {"name": str, "arguments": str} (and "id" to choose the call's id); a dict
    # ``arguments`` is JSON-encoded. An empty list is sent as ``"tool_calls": []`` (a text turn of
    # vLLM or SGLang), None as no field.
    tool_calls: list[dict[str, Any]] | None = None
    finish_reason: str | None = None  # None: "tool_calls" if tool_calls else "stop"
    reasoning_content: str | None = None
    status: int = 200
    body: str | None = None  # sent verbatim instead of a completion (odd/error bodies)
    delay: float = 0.0  # extra latency on top of the server-wide one
    usage: dict[str, Any] | None = None  # sent verbatim as the completion's usage instead of the estimate
    omit_usage: bool = False  # no usage at all (plain answers and streams alike)
    stream_break: str | None = None  # when streamed: break this rule (one of STREAM_BREAKS)
    # When streamed: seconds (from the response's headers) before the first event, and before the last.
    first_event_after: float = 0.0
    last_event_after: float = 0.0
    # When streamed: how many pieces each text and each call's arguments are sent in (servers stream
    # token by token: tens of pieces; at least 2).
    stream_pieces: int = 2

    def __post_init__(self) -> None:
        if self.stream_break is not None and self.stream_break not in STREAM_BREAKS:
            raise ValueError(f"stream_break must be one of {STREAM_BREAKS}, got {self.stream_break!r}")


Responder = Callable[[dict[str, Any]], Reply]
Match = str | Callable[[dict[str, Any]], bool]


def message_text(body: dict[str, Any]) -> str:
    """All message contents of a request joined by newlines (text parts of lists too); of a Responses
    API request, the same texts from its input items (a tool output as a tool message's content); of a
    Messages API request, its ``system`` first, then its text and ``tool_result`` blocks."""
    texts: list[str] = []
    messages = body.get("messages") or body.get("input") or []
    if isinstance(messages, str):
        return messages
    if isinstance(body.get("system"), str):
        texts.append(body["system"])
    for message in messages:
        if isinstance(message, dict) and message.get("type") == "function_call_output":
            message = {"content": message.get("output")}
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    part = {"text": part.get("content")}
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
    return "\n".join(texts)


@dataclass
class ScriptResponder:
    """First rule whose match fits the request wins; ``default`` otherwise.

    A string match is a substring of :func:`message_text`; a callable gets the body. ``answers``
    (checked first, in constant time: benchmarks script thousands of requests) maps the
    :func:`text_key` of a request's whole message text to its reply.
    """

    rules: list[tuple[Match, Reply]] = field(default_factory=list)
    default: Reply = field(default_factory=Reply)
    answers: dict[str, Reply] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = message_text(body)
        answer = self.answers.get(text_key(text)) if self.answers else None
        if answer is not None:
            return answer
        for match, reply in self.rules:
            if match(body) if callable(match) else match in text:
                return reply
        return self.default

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptResponder:
        """Load ``{"rules": [{"match": str, "reply": {...}}], "default": {...}, "answers": {key: {...}}}``."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        rules: list[tuple[Match, Reply]] = [(r["match"], Reply(**r["reply"])) for r in data.get("rules", [])]
        answers = {key: Reply(**reply) for key, reply in data.get("answers", {}).items()}
        return cls(rules, Reply(**data.get("default", {})), answers)


def text_key(text: str) -> str:
    """The key of a request in ``ScriptResponder.answers``: sha256 of its message text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class FaultPlan:
    """Each request faults with probability ``rate``; the kind is drawn from ``kinds``."""

    rate: float
    kinds: tuple[str, ...]
    seed: int = 0
    retry_after: float = 0.05  # seconds, sent as Retry-After with 429s
    hang: float = 30.0  # seconds a "hang" stalls before answering (cut short by stop())

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(FAULT_KINDS)
        if unknown or not self.kinds:
            raise ValueError(f"fault kinds must be a non-empty subset of {FAULT_KINDS}, got {self.kinds}")

    def pick(self, canonical_body: str, seen_before: int) -> str | None:
        # Seeding from the body (not arrival order) makes a request fault the same way
        # however concurrent requests interleave; the seen-count makes each retry of the
        # same body an independent draw.  str seeds are hashed with SHA-512, so this is
        # stable across processes regardless of PYTHONHASHSEED.
        rng = random.Random(f"{self.seed}\x00{seen_before}\x00{canonical_body}")
        return rng.choice(self.kinds) if rng.random() < self.rate else None


def _error_body(status: int, message: str) -> bytes:
    kind = {
        400: "invalid_request_error",
        404: "invalid_request_error",
        429: "requests",
    }.get(status, "server_error")
    code = "rate_limit_exceeded" if status == 429 else None
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}}).encode()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # server_close() must not wait for hanging handlers
    request_queue_size = 128  # listen backlog: 64+ clients may connect at once
    chat: ChatServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients dropping connections (timeouts, resets) is routine here, not a bug.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the openai client pools connections
    # Headers and body are two writes; without TCP_NODELAY Nagle + delayed ACK can
    # stall every keep-alive response by ~40 ms.
    disable_nagle_algorithm = True
    server: _HTTPServer
    _reset = False

    def setup(self) -> None:
        super().setup()
        self.server.chat._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.chat._untrack(self.connection)
            if self._reset:
                # Linger 0 makes close() send RST instead of FIN.  Closing here, before
                # socketserver's shutdown(SHUT_WR), keeps a graceful FIN from going first.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.chat.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        # Counters for benchmark scripts that run the server as a subprocess.
        if self.path.split("?")[0].rstrip("/") in ("/stats", "/v1/stats"):
            return self._send(200, json.dumps(self.server.chat.stats()).encode())
        return self._send(404, _error_body(404, f"unknown path {self.path}"))

    def do_POST(self) -> None:
        chat = self.server.chat
        with chat._lock:
            chat.in_flight += 1
            chat.max_in_flight = max(chat.max_in_flight, chat.in_flight)
            chat.first_request_at = chat.first_request_at or time.time()
        opened = time.monotonic()
        try:
            self._post()
        finally:
            with chat._lock:
                chat.in_flight -= 1
                chat.open_seconds += time.monotonic() - opened
                chat.last_response_at = time.time()

    def _post(self) -> None:
        chat = self.server.chat
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True  # body boundary unknown, connection unusable
            return self._send(400, _error_body(400, "invalid Content-Length"))
        # Always drain the body, even for a 404, so the keep-alive stream stays in sync.
        raw = self.rfile.read(length)
        with chat._lock:
            chat.paths.append(self.path)
        path = self.path.split("?")[0].rstrip("/")
        responses = path in _RESPONSES_PATHS
        messages = path in _MESSAGES_PATHS
        if path not in _PATHS and not responses and not messages:
            return self._send(404, _error_body(404, f"unknown path {self.path}"))

        body, fault = chat._record(raw, self.headers.get("Authorization"), self.headers.get("X-Api-Key"))
        if body is None:
            return self._send(400, _error_body(400, "request body is not a JSON object"))
        if responses or messages:
            # Responders (and ``requests``) see which API was asked.
            body["_api"] = "responses" if responses else "messages"
        if not chat._sleep(chat.latency):
            return self._abort()

        if fault == "reset":
            self._reset = True
            return self._abort()
        if fault == "hang" and not chat._sleep(chat.faults.hang if chat.faults else 0.0):
            return self._abort()
        if fault in ("429", "500", "503"):
            status = int(fault)
            headers = {"Retry-After": f"{chat.faults.retry_after:g}"} if status == 429 and chat.faults else {}
            return self._send(status, _error_body(status, f"injected fault {fault}"), headers)

        reply = chat._reply(body)
        if not chat._sleep(reply.delay):
            return self._abort()
        if reply.status != 200 or reply.body is not None:
            payload = reply.body.encode() if reply.body is not None else _error_body(reply.status, reply.content or "")
            return self._send(reply.status, payload)
        if body.get("stream"):
            if messages:
                events = chat._message_events(body, reply)
            else:
                events = chat._response_events(body, reply) if responses else chat._chunks(body, reply)
            return self._send_events(events, reply.first_event_after, reply.last_event_after)
        if messages:
            payload = json.dumps(chat._message_object(body, reply)).encode()
        else:
            payload = chat._response(body, reply) if responses else chat._completion(body, reply)
        if fault == "truncated":
            # Content-Length matches the cut body, so the connection itself stays sound.
            payload = payload[: len(payload) // 2]
        self._send(200, payload)

    def _send_events(self, events: list[str], first_after: float = 0.0, last_after: float = 0.0) -> None:
        """A server-sent event stream, each event written (and flushed) on its own; the first after
        ``first_after`` seconds, the last after ``last_after`` (from the headers)."""
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            opened = time.monotonic()
            for number, event in enumerate(events):
                wait = first_after if number == 0 else last_after if number == len(events) - 1 else 0.0
                if not self.server.chat._sleep(wait - (time.monotonic() - opened)):
                    self.close_connection = True
                    return
                data = event.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True

    def _abort(self) -> None:
        self.close_connection = True  # no response was written: drop the connection

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client gave up (e.g. timed out during a hang)
            self.close_connection = True


class ChatServer:
    """Threaded chat-completions server: ``with ChatServer(r) as srv: srv.base_url``."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        faults: FaultPlan | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        verbose: bool = False,
    ) -> None:
        self.responder: Responder = responder or ScriptResponder()
        self.latency = latency
        self.faults = faults
        self.verbose = verbose
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str | None] = []
        self.api_key_headers: list[str | None] = []  # X-Api-Key, which Anthropic's SDKs before 2.0 send
        self.paths: list[str] = []  # the path (and query) of every POST
        # Every chat-completions POST, including faulted and unparseable ones.
        self.count = 0
        self.in_flight = 0
        self.max_in_flight = 0  # how busy clients keep the server: the most requests open at once
        self.first_request_at = 0.0  # wall-clock times, for benchmarks in another process
        self.last_response_at = 0.0
        # Summed over requests, from reading the request line to writing the answer: divided by the
        # busy time it is the mean number in flight; less the latencies, the server's own cost.
        self.open_seconds = 0.0
        self._faults_injected: dict[str, int] = {}
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._conns: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)  # next() on it is atomic under the GIL
        self._thread: threading.Thread | None = None
        # Bound now (not in start()) so base_url is known right away.
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.chat = self

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        host = self._httpd.server_address[0]
        return f"http://{host.decode() if isinstance(host, bytes) else host}:{self.port}/v1"

    @property
    def faults_injected(self) -> dict[str, int]:
        with self._lock:
            return dict(self._faults_injected)

    def stats(self) -> dict[str, Any]:
        return {
            "requests": self.count,
            "faults": self.faults_injected,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "first_request_at": self.first_request_at,
            "last_response_at": self.last_response_at,
            "open_seconds": self.open_seconds,
        }

    def start(self) -> Self:
        if self._thread is None:
            # A short poll interval keeps shutdown() fast.
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                daemon=True,
                name="chat-server",
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping for latency/delay/hang
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:  # unblock handlers waiting on idle keep-alive connections
            _shutdown(conn)
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler threads --------------------------------------------

    def _track(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.add(conn)
        if self._stopping.is_set():  # accepted just before stop() took its snapshot
            _shutdown(conn)

    def _untrack(self, conn: socket.socket) -> None:
        with self._lock:
            self._conns.discard(conn)

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless stopped meanwhile; False means stop() interrupted us."""
        return seconds <= 0 or not self._stopping.wait(seconds)

    def _record(
        self, raw: bytes, auth: str | None, api_key: str | None = None
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Count and store a request; return its parsed body and the fault to inject."""
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            self.count += 1
            if not isinstance(body, dict):
                return None, None
            self.requests.append(body)
            self.auth_headers.append(auth)
            self.api_key_headers.append(api_key)
            if self.faults is None:
                return body, None
            key = json.dumps(body, sort_keys=True, separators=(",", ":"))
            seen = self._seen.get(key, 0)
            self._seen[key] = seen + 1
            fault = self.faults.pick(key, seen)
            if fault:
                self._faults_injected[fault] = self._faults_injected.get(fault, 0) + 1
            return body, fault

    def _reply(self, body: dict[str, Any]) -> Reply:
        try:
            reply = self.responder(body)
        # A broken responder should fail its request, not kill the handler thread.
        except Exception as exc:
            traceback.print_exc()
            return Reply(status=500, content=f"responder raised {exc!r}")
        return Reply(content=reply) if isinstance(reply, str) else reply

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any] | None:
        if reply.omit_usage:
            return None
        if reply.usage:
            return reply.usage
        out_text = (reply.content or "") + "".join(
            c["name"] + (c.get("arguments") if isinstance(c.get("arguments"), str) else json.dumps(c.get("arguments")))
            for c in reply.tool_calls or []
        )
        # Rough 4-chars-per-token estimate; callers only need plausible numbers.
        prompt_tokens = max(1, len(message_text(body)) // 4)
        completion_tokens = max(1, len(out_text) // 4)
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }

    def _calls(self, reply: Reply) -> list[tuple[str, str, str]]:
        """(id, name, arguments text) of each call of the reply."""
        out = []
        for call in reply.tool_calls or []:
            args = call.get("arguments", "")
            call_id = call.get("id") or f"call_{next(self._ids)}"
            out.append((call_id, call["name"], args if isinstance(args, str) else json.dumps(args)))
        return out

    def _chunks(self, body: dict[str, Any], reply: Reply) -> list[str]:
        """The reply as a Chat Completions stream, breaking ``reply.stream_break`` if told to."""
        rule = reply.stream_break
        base = {"id": f"chatcmpl-{next(self._ids)}", "object": "chat.completion.chunk", "created": int(time.time())}
        base["model"] = body.get("model", "test-model")

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return "data: " + json.dumps({**base, "choices": [choice], **extra}) + "\n\n"

        calls = self._calls(reply)
        content = reply.content
        if rule == "tool_markup_in_content" and calls:
            # A parser that turns the call into a call when not streamed and into text when streamed.
            content = "".join(f'<tool_call>{{"name": "{n}", "arguments": {a}}}</tool_call>' for _, n, a in calls)
            calls = []
        events = [chunk({"role": "assistant", "content": ""})]
        if reply.reasoning_content:
            events.append(chunk({"reasoning_content": reply.reasoning_content}))
        if content:
            events += [chunk({"content": piece}) for piece in _split(content, reply.stream_pieces)]
        late: list[str] = []
        for number, (call_id, name, args) in enumerate(calls):
            index = {"index_skipped": 2 * number, "index_reused": 0}.get(rule or "", number)
            first: dict[str, Any] = {"index": index, "id": call_id, "type": "function"}
            first["function"] = {"name": name, "arguments": ""}
            if rule == "first_delta_without_id_or_name" and number == 0:
                del first["id"]
            *pieces, last = _split(args, reply.stream_pieces)
            events.append(chunk({"tool_calls": [first]}))
            events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]}) for p in pieces]
            rest = chunk({"tool_calls": [{"index": index, "function": {"arguments": last}}]})
            (late if rule == "arguments_after_finish" and number == len(calls) - 1 else events).append(rest)
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        events.append(chunk({}, None if rule == "no_finish_reason" else finish))
        events += late
        usage = self._usage(body, reply)
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        if wants_usage and usage is not None and rule != "no_usage_chunk":
            events.append("data: " + json.dumps({**base, "choices": [], "usage": usage}) + "\n\n")
        if rule != "no_done":
            events.append("data: [DONE]\n\n")
        return events

    def _response_object(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """The reply as a Responses API ``response`` object."""
        output: list[dict[str, Any]] = []
        if reply.reasoning_content:
            output.append(
                {
                    "type": "reasoning",
                    "id": f"rs_{next(self._ids)}",
                    "summary": [{"type": "summary_text", "text": reply.reasoning_content}],
                }
            )
        if reply.content is not None:
            message: dict[str, Any] = {"type": "message", "id": f"msg_{next(self._ids)}", "role": "assistant"}
            message["status"] = "completed"
            message["content"] = [{"type": "output_text", "text": reply.content, "annotations": []}]
            output.append(message)
        for call_id, name, args in self._calls(reply):
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{next(self._ids)}",
                    "call_id": call_id,
                    "name": name,
                    "arguments": args,
                    "status": "completed",
                }
            )
        usage = self._usage(body, reply)
        response: dict[str, Any] = {
            "id": f"resp_{next(self._ids)}",
            "object": "response",
            "created_at": int(time.time()),
            "model": body.get("model", "test-model"),
            "status": "completed",
            "output": output,
            "usage": None
            if usage is None
            else {
                "input_tokens": usage["prompt_tokens"],
                "output_tokens": usage["completion_tokens"],
                "total_tokens": usage["prompt_tokens"] + usage["completion_tokens"],
            },
        }
        if reply.finish_reason == "length":
            response["status"] = "incomplete"
            response["incomplete_details"] = {"reason": "max_output_tokens"}
        return response

    def _response(self, body: dict[str, Any], reply: Reply) -> bytes:
        return json.dumps(self._response_object(body, reply)).encode()

    def _response_events(self, body: dict[str, Any], reply: Reply) -> list[str]:
        """The reply as a Responses API event stream, breaking ``reply.stream_break`` if told to (the
        rules a Responses stream can break: the first-delta, index, arguments-after, finish and usage ones)."""
        rule = reply.stream_break
        response = self._response_object(body, reply)
        number = itertools.count(1)

        def event(kind: str, **fields: Any) -> str:
            return (
                f"event: {kind}\ndata: "
                + json.dumps({"type": kind, "sequence_number": next(number), **fields})
                + "\n\n"
            )

        events = [event("response.created", response={**response, "status": "in_progress", "output": []})]
        late: list[str] = []
        for index, item in enumerate(response["output"]):
            at = 0 if rule == "index_reused" and item["type"] == "function_call" else index
            if rule == "index_skipped":
                at = 2 * index
            if item["type"] == "function_call":
                added = {**item, "arguments": "", "status": "in_progress"}
                if rule == "first_delta_without_id_or_name":
                    del added["call_id"]
                events.append(event("response.output_item.added", output_index=at, item=added))
                args = item["arguments"]
                half = len(args) // 2
                events.append(event("response.function_call_arguments.delta", output_index=at, delta=args[:half]))
                rest = event("response.function_call_arguments.delta", output_index=at, delta=args[half:])
                done = event("response.output_item.done", output_index=at, item=item)
                if rule == "arguments_after_finish":
                    events += [done, rest]
                else:
                    events += [rest, done]
            elif item["type"] == "message":
                text = item["content"][0]["text"]
                part = {"type": "output_text", "text": "", "annotations": []}
                events.append(event("response.output_item.added", output_index=at, item={**item, "content": []}))
                events.append(event("response.content_part.added", output_index=at, content_index=0, part=part))
                events.append(event("response.output_text.delta", output_index=at, content_index=0, delta=text))
                done_part = {**part, "text": text}
                events.append(event("response.content_part.done", output_index=at, content_index=0, part=done_part))
                events.append(event("response.output_item.done", output_index=at, item=item))
            else:
                events.append(event("response.output_item.added", output_index=at, item={**item, "summary": []}))
                text = item["summary"][0]["text"]
                events.append(
                    event("response.reasoning_summary_text.delta", output_index=at, summary_index=0, delta=text)
                )
                events.append(event("response.output_item.done", output_index=at, item=item))
        events += late
        if rule == "no_usage_chunk":
            response = {**response, "usage": None}
        if rule != "no_finish_reason":
            events.append(event("response.completed", response=response))
        return events

    def _message_object(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        """The reply as a Messages API ``message``."""
        content: list[dict[str, Any]] = []
        if reply.reasoning_content:
            content.append({"type": "thinking", "thinking": reply.reasoning_content, "signature": "sig"})
        if reply.content is not None:
            content.append({"type": "text", "text": reply.content})
        for call_id, name, args in self._calls(reply):
            try:
                arguments: Any = json.loads(args)
            except ValueError:
                arguments = args  # no Messages server sends this; a test of broken answers may
            content.append(
                {"type": "tool_use", "id": call_id.replace("call_", "toolu_"), "name": name, "input": arguments}
            )
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        stop = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}.get(finish, finish)
        usage = self._usage(body, reply)
        return {
            "id": f"msg_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "test-model"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": None
            if usage is None
            else {"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]},
        }

    def _message_events(self, body: dict[str, Any], reply: Reply) -> list[str]:
        """The reply as a Messages API event stream, breaking ``reply.stream_break`` if told to (one of
        ``MESSAGES_STREAM_BREAKS``)."""
        rule = reply.stream_break
        message = self._message_object(body, reply)
        blocks, usage, stop = message["content"], message["usage"], message["stop_reason"]
        if rule == "tool_markup_in_content":
            calls = [b for b in blocks if b["type"] == "tool_use"]
            text = "".join(
                f'<tool_call>{{"name": "{c["name"]}", "arguments": {json.dumps(c["input"])}}}</tool_call>'
                for c in calls
            )
            blocks = [b for b in blocks if b["type"] != "tool_use"] + (
                [{"type": "text", "text": text}] if calls else []
            )
            stop = "end_turn" if calls else stop  # a parser that made text of the calls ends the turn
        if rule == "tool_use_without_tool_use_block":
            blocks, stop = [b for b in blocks if b["type"] != "tool_use"], "tool_use"

        def event(kind: str, **fields: Any) -> str:
            return f"event: {kind}\ndata: " + json.dumps({"type": kind, **fields}) + "\n\n"

        started = {**message, "content": [], "stop_reason": None}
        started["usage"] = None if usage is None or rule == "no_usage_chunk" else {**usage, "output_tokens": 1}
        if started["usage"] is None:
            del started["usage"]
        events = [event("message_start", message=started), event("ping")]
        late: list[str] = []
        for number, block in enumerate(blocks):
            index = {"index_skipped": 2 * number, "index_reused": 0}.get(rule or "", number)
            kind = block["type"]
            if kind == "tool_use":
                empty = {**block, "input": {}}
                if rule == "first_delta_without_id_or_name":
                    del empty["id"]
                text = block["input"] if isinstance(block["input"], str) else json.dumps(block["input"])
                if rule == "input_json_not_json":
                    text = text[:-1]  # the closing brace never comes
                delta, field_name = "input_json_delta", "partial_json"
            elif kind == "text":
                empty, text, delta, field_name = {**block, "text": ""}, block["text"], "text_delta", "text"
            else:
                empty = {**block, "thinking": ""}
                text, delta, field_name = block["thinking"], "thinking_delta", "thinking"
            half = len(text) // 2
            pieces = [text[:half], text[half:]] if text else []
            events.append(event("content_block_start", index=index, content_block=empty))
            deltas = [event("content_block_delta", index=index, delta={"type": delta, field_name: p}) for p in pieces]
            stop_event = event("content_block_stop", index=index)
            if rule == "arguments_after_finish" and kind == "tool_use" and deltas:
                events += [*deltas[:-1], stop_event]
                late.append(deltas[-1])
            else:
                events += [*deltas, stop_event]
        events += late
        if rule == "delta_for_unstarted_block":  # a piece for a block after the last, never started
            events.append(event("content_block_delta", index=len(blocks), delta={"type": "text_delta", "text": "?"}))
        final_usage = None if usage is None or rule == "no_usage_chunk" else {"output_tokens": usage["output_tokens"]}
        ending = {"stop_reason": None if rule == "no_finish_reason" else stop, "stop_sequence": None}
        events.append(event("message_delta", delta=ending, **({"usage": final_usage} if final_usage else {})))
        if rule != "no_message_stop":
            events.append(event("message_stop"))
        return events

    def _completion(self, body: dict[str, Any], reply: Reply) -> bytes:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning_content is not None:
            message["reasoning_content"] = reply.reasoning_content
        if reply.tool_calls:
            calls = []
            for call in reply.tool_calls:
                args = call.get("arguments", "")
                args = args if isinstance(args, str) else json.dumps(args)
                calls.append(
                    {
                        "id": call.get("id") or f"call_{next(self._ids)}",
                        "type": "function",
                        "function": {"name": call["name"], "arguments": args},
                    }
                )
            message["tool_calls"] = calls
        elif reply.tool_calls == []:
            message["tool_calls"] = []  # a text turn as vLLM and SGLang send it
        completion = {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
                    "logprobs": None,
                }
            ],
            "usage": self._usage(body, reply),
        }
        if completion["usage"] is None:
            del completion["usage"]
        return json.dumps(completion).encode()


def _split(text: str, count: int) -> list[str]:
    """``text`` in ``count`` pieces (at least 2; the first may be empty), as a server streams it."""
    count = max(2, count)
    size = -(-len(text) // count) or 1
    if count == 2:
        return [text[: len(text) // 2], text[len(text) // 2 :]]
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return pieces if len(pieces) >= 2 else ["", *pieces] if pieces else ["", ""]


def _shutdown(conn: socket.socket) -> None:
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument(
        "--script",
        help="JSON rules file for ScriptResponder (default: always answer '[]')",
    )
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument(
        "--fault-kinds",
        default="429,500,503,reset",
        help=f"comma-separated subset of {FAULT_KINDS}",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--retry-after", type=float, default=0.05)
    parser.add_argument("--hang", type=float, default=30.0)
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)

    responder = ScriptResponder.from_file(args.script) if args.script else ScriptResponder(default=Reply(content="[]"))
    faults = None
    if args.fault_rate > 0:
        kinds = tuple(k.strip() for k in args.fault_kinds.split(",") if k.strip())
        faults = FaultPlan(
            args.fault_rate,
            kinds,
            args.seed,
            retry_after=args.retry_after,
            hang=args.hang,
        )

    # SIGTERM behaves like Ctrl-C.  SIGINT is set explicitly because shells start
    # background jobs with it ignored.  Raising from the handler (rather than setting
    # an Event) cannot deadlock on a lock the interrupted main thread might hold.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _interrupt)
    srv = ChatServer(
        responder,
        latency=args.latency,
        faults=faults,
        port=args.port,
        verbose=args.verbose,
    )
    try:
        srv.start()
        print(f"READY {srv.base_url}", flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
        print(json.dumps(srv.stats()), flush=True)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    raise SystemExit(main())
