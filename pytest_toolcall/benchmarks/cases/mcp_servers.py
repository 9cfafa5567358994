"""Tools from an MCP server, through the official ``mcp`` SDK (the optional extra ``pytest-toolcall[mcp]``).

``McpServer`` starts a stdio server (``command``, ``env``, ``cwd``) or connects to a streamable-HTTP
one (``url``), lists its tools once and calls them. The SDK is asynchronous and the plugin is not:
each server gets an event loop on a thread of its own, which holds the connection from start to
``close``; callers on any thread (pytest's, a dialogue's) submit a coroutine and wait for it.

Tool names are mapped to what chat APIs accept (``^[a-zA-Z0-9_-]{1,64}$``): other characters
become ``_``, a name too long is cut and given a short hash, and two names that would collide are
told apart the same way; ``mcp_name`` maps a called name back. Results are plain builtins
(``{"content": text, "is_error": bool}``), the text the model sees as the tool message.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Coroutine
from typing import Any

#: Seconds a server may take to start and list its tools, and a call to answer.
START_TIMEOUT = 60.0
CALL_TIMEOUT = 120.0
CONNECTION_CLOSED = -32000  # the JSON-RPC error code the SDK gives a request when the connection ends
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]")


class McpError(Exception):
    """A server that cannot be started, listed or called: one line saying which and why."""


def openai_names(mcp_names: list[str]) -> dict[str, str]:
    """MCP tool name -> a chat-API function name, unique, matching ``^[a-zA-Z0-9_-]{1,64}$``."""
    mapped: dict[str, str] = {}
    for name in mcp_names:
        cleaned = _NOT_NAME.sub("_", name) or "tool"
        candidate = cleaned[:64]
        if candidate in mapped.values() or len(cleaned) > 64:
            candidate = f"{cleaned[:55]}_{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
        mapped[name] = candidate
    return mapped


def server_label(spec: dict[str, Any]) -> str:
    """How a server is named in messages: its URL, or its command line."""
    if "url" in spec:
        return str(spec["url"])
    return " ".join(str(part) for part in spec["command"])


class McpServer:
    """A running MCP server: ``tools`` (OpenAI function tools), ``call(name, arguments)``, ``close()``.

    ``spec`` is the case-file form: ``{"command": [argv...], "env": {...}, "cwd": DIR}`` or
    ``{"url": URL}``, with ``tools: [names]`` to keep only those tools (MCP names)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise McpError("MCP servers need the mcp SDK: pip install 'pytest-toolcall[mcp]'") from None
        self.spec = spec
        self.label = server_label(spec)
        self._loop = asyncio.new_event_loop()
        self._ready: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        self._failed: str | None = None  # why the connection ended, once it has
        # What a stdio server writes to stderr: kept apart (not mixed into pytest's output), and its
        # end is told when the server does not start.
        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(target=self._serve, name="toolcall-mcp", daemon=True)
        self._thread.start()
        try:
            listed = self._ready.result(timeout=START_TIMEOUT)
        except concurrent.futures.TimeoutError:
            self.close()
            raise McpError(f"MCP server {self.label}: no tool list within {START_TIMEOUT:g} s") from None
        except McpError:
            self.close()
            raise
        #: The server's tools as listed (MCP names, descriptions, input schemas): what the store keeps.
        self.listed: list[dict[str, Any]] = listed
        try:
            self.tools, self.names = tools_of(listed, spec.get("tools"), self.label)
        except McpError:  # a tool to keep that the server does not have
            self.close()
            raise

    # --- the connection's thread ---------------------------------------------------------------

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._session())
        finally:
            self._loop.close()

    async def _session(self) -> None:
        from mcp import Client

        self._stop = asyncio.Event()
        self._task = asyncio.current_task()
        try:
            async with Client(self._target()) as client:
                self._client = client
                result = await client.list_tools()
                listed = [
                    {"name": t.name, "description": t.description or "", "inputSchema": dict(t.input_schema or {})}
                    for t in result.tools
                ]
                self._ready.set_result(listed)
                await self._stop.wait()
        except BaseException as exc:  # the SDK raises exception groups from its task groups
            if not self._ready.done():
                message = f"MCP server {self.label} did not start: {_reason(exc)}{self._stderr_tail()}"
                self._ready.set_exception(McpError(message))
            elif not isinstance(exc, (asyncio.CancelledError, GeneratorExit)):
                self._failed = _reason(exc)

    def _target(self) -> Any:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        if "url" in self.spec:
            return self.spec["url"]
        command, *args = [str(part) for part in self.spec["command"]]
        env = {str(k): str(v) for k, v in (self.spec.get("env") or {}).items()}
        # The server sees this process's environment with the case's variables over it.
        parameters = StdioServerParameters(
            command=command, args=args, env={**os.environ, **env}, cwd=self.spec.get("cwd")
        )
        return stdio_client(parameters, errlog=self._errlog)

    def _stderr_tail(self, limit: int = 600) -> str:
        try:
            self._errlog.seek(0)
            text = self._errlog.read().strip()
        except (OSError, ValueError):
            return ""
        return f"; its stderr ends: {text[-limit:]}" if text else ""

    def _run(self, coroutine: Coroutine[Any, Any, Any], timeout: float) -> Any:
        if not self.running:
            coroutine.close()
            raise McpError(f"MCP server {self.label} has stopped: {self._failed or 'closed'}")
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpError(f"MCP server {self.label}: no answer within {timeout:g} s") from None

    # --- what callers use ----------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and self._failed is None

    def mcp_name(self, name: str) -> str:
        """The MCP name of a tool called by its chat-API name."""
        return next((mcp for mcp, openai in self.names.items() if openai == name), name)

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        """The result of calling a tool by its chat-API name: ``{"content": text, "is_error": bool}``.
        A call the server refuses or fails is a result too (``is_error``): the model sees it."""
        if not isinstance(arguments, dict):
            return {"content": f"arguments must be a JSON object, got {json.dumps(arguments)}", "is_error": True}
        try:
            result = self._run(self._client.call_tool(self.mcp_name(name), arguments), CALL_TIMEOUT)
        except McpError:
            raise
        except Exception as exc:
            if getattr(exc, "code", None) == CONNECTION_CLOSED:  # the server is gone: no result to give
                self._failed = "the connection closed"
                raise McpError(f"MCP server {self.label} has stopped: {_reason(exc)}{self._stderr_tail()}") from None
            # A protocol error of that call (unknown tool, invalid params): a result the model sees.
            return {"content": f"error: {_reason(exc)}", "is_error": True}
        return {"content": result_text(result), "is_error": bool(result.is_error)}

    def close(self) -> None:
        """Stop the server (the SDK ends its process) and the thread; safe to call twice."""
        started = self._ready.done() and self._ready.exception() is None
        try:
            if started and self._stop is not None:
                self._loop.call_soon_threadsafe(self._stop.set)  # leaves the session: the SDK stops the server
            elif self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)  # still starting (a time-out)
        except RuntimeError:  # the loop has already ended
            pass
        self._thread.join(timeout=START_TIMEOUT)
        self._errlog.close()

    def __enter__(self) -> McpServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tools_of(
    listed: list[dict[str, Any]], keep: list[str] | None, label: str
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """(OpenAI function tools, MCP name -> chat-API name) of a listed tool set, narrowed to ``keep``."""
    names = [t["name"] for t in listed]
    if keep is not None:
        missing = [name for name in keep if name not in names]
        if missing:
            raise McpError(
                f"MCP server {label} has no tool {', '.join(map(repr, missing))} (it has: {', '.join(names) or 'none'})"
            )
        listed = [t for t in listed if t["name"] in keep]
    mapping = openai_names([t["name"] for t in listed])
    tools = []
    for tool in listed:
        parameters = dict(tool.get("inputSchema") or {})
        parameters.setdefault("type", "object")
        if parameters.get("type") == "object":
            parameters.setdefault("properties", {})
        function: dict[str, Any] = {"name": mapping[tool["name"]], "parameters": parameters}
        if tool.get("description"):
            function["description"] = tool["description"]
        tools.append({"type": "function", "function": function})
    return tools, mapping


def result_text(result: Any) -> str:
    """A ``CallToolResult`` as the text of a tool message: its text parts, the structured content
    when there is no text, other parts named by their type."""
    parts = []
    for block in result.content or []:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')}]")
    if not parts and getattr(result, "structured_content", None) is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(parts)


def _reason(exc: BaseException) -> str:
    """The innermost messages of an exception (group), on one line."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_reason(inner) for inner in exc.exceptions)
    text = str(exc).strip() or type(exc).__name__
    return text.replace("\n", " ")


class ServerPool:
    """The MCP servers of a run's case files: one per file and server (``scope: file``, the default),
    started when the file is collected and kept until ``close``; with ``scope: case`` each case's run
    starts its own (``start``) and the file's listing comes from a server started for it alone.
    ``offline`` (replay): nothing is started, the tools come from the store."""

    def __init__(self, offline: bool = False) -> None:
        self.offline = offline
        self._servers: dict[tuple[str, str], McpServer] = {}
        self._listings: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(file: str, spec: dict[str, Any]) -> tuple[str, str]:
        return file, json.dumps(spec, sort_keys=True)

    def listed(self, file: str, spec: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The server's tools as it lists them (started once per file), or None offline."""
        if self.offline:
            return None
        key = self._key(file, spec)
        with self._lock:
            if key not in self._listings:
                if spec.get("scope") == "case":
                    with McpServer(spec) as server:
                        self._listings[key] = server.listed
                else:
                    self._servers[key] = McpServer(spec)
                    self._listings[key] = self._servers[key].listed
            return self._listings[key]

    @staticmethod
    def tools_of(listed: list[dict[str, Any]], spec: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
        return tools_of(listed, spec.get("tools"), server_label(spec))

    def server(self, file: str, spec: dict[str, Any]) -> McpServer:
        """The file's running server (started again if it is not running)."""
        key = self._key(file, spec)
        with self._lock:
            server = self._servers.get(key)
            if server is None or not server.running:
                server = self._servers[key] = McpServer(spec)
            return server

    def close(self) -> None:
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.close()
