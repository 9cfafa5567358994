"""Tools from an MCP server, through the official ``mcp`` SDK (the optional extra ``pytest-toolcall[mcp]``).

``McpServer`` starts a stdio server (``command``, ``env``, ``cwd``) or connects to a streamable-HTTP
one (``url``), lists its tools once and calls them. The SDK is asynchronous and the plugin is not:
each server gets an event loop on a thread of its own, which holds the connection from start to
``close``; callers on any thread (pytest's, a dialogue's) submit a coroutine and wait for it.

Tool names are mapped to what chat APIs accept (``^[a-zA-Z0-9_-]{1,64}$``): other characters
become ``_``, a name too long is cut and given a short hash, and two names that would collide are
told apart the same way; ``mcp_name`` maps a called name back. Results are plain builtins
(``{"content": text, "is_error": bool}``), the text the model sees as the tool message.

A server is outside the process: everything it sends comes in through the door (``api.door``). Its
tool list is checked (names strings, schemas at most ``MAX_DEPTH`` deep, descriptions capped), every
string of it, of its results and errors has the run's secrets masked, a result is cut at
``MCP_RESULT_LIMIT`` characters with a note, and its stderr is quoted only masked and inert. A stdio
server is started with a minimal environment (``door.child_environment``): the search path, home and
locale, and what the case file's ``env`` names, never the run's keys.
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

from pytest_toolcall.api import door
from pytest_toolcall.api.text import name as shown_name
from pytest_toolcall.api.text import redact_url

#: The most tools a server may list: a tool list is declarations, not data.
MAX_TOOLS = 1_000
#: Seconds a server may take to start and list its tools, and a call to answer.
START_TIMEOUT = 60.0
CALL_TIMEOUT = 120.0
CONNECTION_CLOSED = -32000  # the JSON-RPC error code the SDK gives a request when the connection ends
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]")


class McpError(Exception):
    """A server that cannot be started, listed or called: one line saying which and why. The message
    quotes what the server said: masked and made inert here, whoever prints it."""

    def __init__(self, message: str) -> None:
        super().__init__(door.printable(message, 4000).replace("\n", "\\n"))  # one line


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
    """How a server is named in messages and reports: its URL without credentials, or its command
    line, the run's secrets masked in either (a key on a command line is still a key)."""
    if "url" in spec:
        return str(door.redact(redact_url(str(spec["url"])) or ""))
    return str(door.redact(" ".join(str(part) for part in spec["command"])))


class McpServer:
    """A running MCP server: ``tools`` (OpenAI function tools), ``call(name, arguments)``, ``close()``.

    ``spec`` is the case-file form: ``{"command": [argv...], "env": {...}, "cwd": DIR}`` or
    ``{"url": URL}``, with ``tools: [names]`` to keep only those tools (MCP names)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        problem = sdk_problem()
        if problem:
            raise McpError(problem)
        if "url" in spec:  # a server that echoes its URL's token gets it masked
            door.add_url(str(spec["url"]))
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
        self._stop = asyncio.Event()
        self._task = asyncio.current_task()
        try:
            from mcp import Client

            async with Client(self._target()) as client:
                self._client = client
                result = await client.list_tools()
                self._ready.set_result(admitted_tools(result.tools, self.label))
                await self._stop.wait()
        except BaseException as exc:  # the SDK raises exception groups from its task groups
            if isinstance(exc, McpError) and not self._ready.done():  # a tool list the door refused
                self._ready.set_exception(exc)
            elif not self._ready.done():
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
        # The server sees the search path, home and locale, and the case's variables: not the run's
        # keys (the SDK adds its own short list: LOGNAME, SHELL, TERM, USER).
        env = door.child_environment(self.spec.get("env") or {})
        parameters = StdioServerParameters(command=command, args=args, env=env, cwd=self.spec.get("cwd"))
        return stdio_client(parameters, errlog=self._errlog)

    def _stderr_tail(self, limit: int = door.STDERR_LIMIT) -> str:
        """The end of what the server wrote to stderr, masked (before it is cut: a cut through a key
        would leave a piece of it) and inert (McpError): read from its end, however much it wrote."""
        try:
            self._errlog.seek(0, os.SEEK_END)
            self._errlog.seek(max(0, self._errlog.tell() - 64 * limit))
            text = door.redact(self._errlog.read()).strip()
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
            error = door.cap(door.redact(_reason(exc)), door.MCP_TEXT_LIMIT, "an MCP error message")
            return {"content": f"error: {error}", "is_error": True}
        return {"content": result_text(result), "is_error": result.is_error is True}

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
            more = f" and {len(names) - 50} more" if len(names) > 50 else ""
            has = ", ".join(shown_name(n) for n in names[:50]) + more
            wanted = ", ".join(shown_name(ascii(n)) for n in missing)  # quoted, every non-ASCII escaped
            raise McpError(f"MCP server {label} has no tool {wanted} (it has: {has or 'none'})")
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
    when there is no text, other parts named by their type; through the door (secrets masked, at
    most ``MCP_RESULT_LIMIT`` characters, the rest cut with a note)."""
    parts = []
    blocks = result.content if isinstance(result.content, list) else []
    for block in blocks:
        text = getattr(block, "text", None)
        kind = door.cap(door.redact(str(getattr(block, "type", "content"))), 40, "a content type")
        parts.append(text if isinstance(text, str) else f"[{kind}]")
    text = "\n".join(parts)
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        if door.too_deep(structured):
            text = f"[structured content nested deeper than {door.MAX_DEPTH} levels: not shown]"
        else:
            text = json.dumps(structured, ensure_ascii=False, default=str)
    return door.cap(door.redact(text), door.MCP_RESULT_LIMIT, "an MCP tool result")


def admitted_tools(tools: Any, label: str) -> list[dict[str, Any]]:
    """A server's tool list through the door: names strings, descriptions strings cut at
    ``MCP_TEXT_LIMIT``, input schemas objects at most ``MAX_DEPTH`` deep, secrets masked;
    ``McpError`` naming the server and the tool for anything else."""
    if len(tools) > MAX_TOOLS:
        raise McpError(f"MCP server {label} lists {len(tools):,} tools, more than {MAX_TOOLS:,}: refused")
    listed = []
    for number, tool in enumerate(tools):
        where = f"MCP server {label}: tools[{number}]"
        try:
            name = door.string(tool.name, f"{where}.name", 1_000)
            description = door.string(tool.description or "", f"{where}.description", door.MCP_TEXT_LIMIT)
            schema = tool.input_schema or {}
            if not isinstance(schema, dict):
                raise door.Refused(f"{where}.inputSchema: expected an object")
            schema = door.redact(door.check_depth(dict(schema), f"{where}.inputSchema"))
        except door.Refused as exc:
            raise McpError(str(exc)) from None
        listed.append({"name": name, "description": description, "inputSchema": schema})
    return listed


def sdk_problem() -> str:
    """Why the mcp SDK cannot be used ("" when it can): not installed, or installed and broken (another
    package's install replaced 2.x by 1.x), with the real cause and the installed version."""
    try:
        from mcp import Client, StdioServerParameters  # noqa: F401
        from mcp.client.stdio import stdio_client  # noqa: F401
    except ImportError as exc:
        from importlib import metadata

        try:
            version = metadata.version("mcp")
        except metadata.PackageNotFoundError:
            return "MCP servers need the mcp SDK: pip install 'pytest-toolcall[mcp]'"
        cause = str(exc).replace("\n", " ")
        return (
            f"MCP servers need the mcp SDK 2.x, and the installed mcp {version} cannot be used ({cause}): "
            "pip install 'pytest-toolcall[mcp]'"
        )
    except Exception as exc:  # a broken install raises anything at import
        return f"MCP servers need the mcp SDK, and importing it failed ({type(exc).__name__}: {exc})"
    return ""


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
