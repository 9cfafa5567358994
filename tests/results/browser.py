"""A headless Chromium driven over the Chrome DevTools Protocol, with the standard library only.

The HTML report is tested in a real browser: it is a page of JavaScript, and only a browser says whether
that script runs without errors, lists every item and reacts to clicks. Chromium's remote-debugging port
speaks JSON over a WebSocket; the handful of frames the tests need (masked text frames out, text frames,
pings and close in) is small enough to write here rather than add a dependency.

Everything is bounded: each protocol call has a deadline, and the browser's whole process group is
killed when the session ends, however it ends.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


class BrowserError(RuntimeError):
    """The browser did not answer as the protocol says, or not in time."""


def chromium_or_skip() -> str:
    """The chromium executable; a skip when there is none, except in CI, where a missing browser fails."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail("chromium is not installed, and CI must run the browser tests (.ci/run installs it)")
    pytest.skip("chromium is not installed (apt-get install chromium); the browser tests need it")


class WebSocket:
    """A client WebSocket (RFC 6455) over a plain TCP socket: text messages only, as CDP uses."""

    def __init__(self, url: str, timeout: float) -> None:
        if not url.startswith("ws://"):
            raise BrowserError(f"unexpected debugger URL {url!r}")
        hostport, _, path = url[len("ws://") :].partition("/")
        host, _, port = hostport.rpartition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise BrowserError("the browser closed the WebSocket during the handshake")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n", 1)[0]:
            raise BrowserError(f"WebSocket handshake refused: {status[:200]!r}")
        self.buffer = rest

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytearray([0x81])  # FIN + text frame
        length = len(payload)
        if length < 126:
            header.append(0x80 | length)
        elif length < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack("!H", length)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", length)
        mask = os.urandom(4)
        # Clients must mask; XOR the payload with the repeated key as one big integer (fast in CPython).
        repeated = (mask * (length // 4 + 1))[:length]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(length, "big")
        self.sock.sendall(bytes(header) + mask + masked)

    def receive(self) -> str:
        """The next whole text message; answers pings, raises on close."""
        parts: list[bytes] = []
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8))
            mask = self._read(4) if second & 0x80 else b""
            payload = self._read(length)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise BrowserError("the browser closed the WebSocket")
            if opcode == 0x9:  # ping: answer with a masked pong carrying the same data
                pong_mask = os.urandom(4)
                body = bytes(b ^ pong_mask[i % 4] for i, b in enumerate(payload))
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + pong_mask + body)
                continue
            if opcode in (0x1, 0x0, 0x2):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts).decode()

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise BrowserError("the browser closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def close(self) -> None:
        self.sock.close()


class Browser:
    """One headless Chromium with one page, for ``with Browser() as browser:``.

    ``events`` keeps every protocol event seen; ``errors()`` picks the console errors, uncaught
    exceptions and dialogs (an ``alert`` would mean injected script ran) out of them.
    """

    def __init__(self, executable: str, *, timeout: float = 30.0, width: int = 1400, height: int = 1000) -> None:
        self.executable = executable
        self.timeout = timeout
        self.width, self.height = width, height
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._consumed: set[int] = set()  # positions in ``events`` that wait_event already returned
        self._profile = tempfile.mkdtemp(prefix="toolcall-chromium-")
        self._process: subprocess.Popen[bytes] | None = None
        self._ws: WebSocket | None = None

    def __enter__(self) -> Browser:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> None:
        self._process = subprocess.Popen(
            [
                self.executable,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={self._profile}",
                "--remote-debugging-port=0",  # any free port; Chromium writes it to DevToolsActivePort
                f"--window-size={self.width},{self.height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, so close() can end the renderers too
        )
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while not (port_file.exists() and port_file.read_text().strip()):
            if self._process.poll() is not None:
                raise BrowserError(f"chromium exited with status {self._process.returncode} before listening")
            if time.monotonic() > deadline:
                raise BrowserError("chromium did not open its debugging port in time")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=self.timeout) as answer:
            targets = json.load(answer)
        pages = [t for t in targets if t.get("type") == "page"]
        if not pages:
            raise BrowserError(f"no page target among {targets!r}")
        self._ws = WebSocket(pages[0]["webSocketDebuggerUrl"], self.timeout)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=self.width,
            height=self.height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def close(self) -> None:
        if self._ws is not None:
            self._ws.close()
            self._ws = None
        process = self._process
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=5)
        self._process = None
        shutil.rmtree(self._profile, ignore_errors=True)

    # --- protocol ---

    def call(self, method: str, timeout: float | None = None, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer, keeping the events that arrive meanwhile."""
        if self._ws is None:
            raise BrowserError("the browser is not running")
        self._next_id += 1
        ident = self._next_id
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            message = self._receive(deadline, method)
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method: str, timeout: float | None = None) -> dict[str, Any]:
        """The first event named ``method`` not seen before (those already received count)."""
        seen = self._consumed
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for position, event in enumerate(self.events):
                if event["method"] == method and position not in seen:
                    seen.add(position)
                    return event
            message = self._receive(deadline, method)
            if "method" in message:
                self.events.append(message)

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        assert self._ws is not None
        left = deadline - time.monotonic()
        if left <= 0:
            raise BrowserError(f"timed out waiting for {waiting_for}")
        self._ws.sock.settimeout(left)
        try:
            return json.loads(self._ws.receive())
        except TimeoutError as exc:
            raise BrowserError(f"timed out waiting for {waiting_for}") from exc

    # --- what tests use ---

    def open(self, path: Path, timeout: float | None = None, *, fragment: str = "") -> float:
        """Load a file (``#fragment`` appended when given) and wait for its load event; the seconds that took."""
        # Events of the previous page would blame this one for their errors: start afresh.
        self.events.clear()
        self._consumed.clear()
        start = time.monotonic()
        self.call("Page.navigate", url=path.resolve().as_uri() + (f"#{fragment}" if fragment else ""))
        self.wait_event("Page.loadEventFired", timeout)
        return time.monotonic() - start

    def evaluate(self, expression: str, timeout: float | None = None) -> Any:
        """The value of a JavaScript expression in the page (promises awaited); page exceptions raise."""
        result = self.call(
            "Runtime.evaluate",
            timeout,
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"exception in the page: {text}")
        return result.get("result", {}).get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) at the centre of the first element matching ``selector``."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"nothing matches {selector!r}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def press_enter(self) -> None:
        """Enter pressed and released on whatever has the focus."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13)

    def type_text(self, selector: str, text: str) -> None:
        """Focus an input and type into it as a keyboard would (input events included)."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        """Poll a JavaScript expression until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"still false after {timeout} s: {expression}")
            time.sleep(0.05)

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions, failed loads and dialogs seen so far, as readable lines."""
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {[a.get('value') for a in params.get('args', [])]}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(f"log: {params['entry'].get('text')}")
            elif method == "Page.javascriptDialogOpening":
                found.append(f"dialog: {params.get('message')}")
        return found

    def requested_urls(self) -> list[str]:
        """Every URL the page asked for (the document itself included)."""
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]
