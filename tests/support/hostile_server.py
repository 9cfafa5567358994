"""A small hostile HTTP server for the reliability tests: raw sockets on loopback, so it can do what a
well-behaved server library will not (trickle a body a byte at a time, announce 200 MB, answer HTML).

    with HostileServer(trickle(b"{...}", every=1.0)) as server:
        server.base_url
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from typing import Self

#: What one connection's request gets: the status line and headers, then the body in chunks; a chunk
#: that is a float is a pause of that many seconds.
Answer = Callable[[], tuple[str, dict[str, str], Iterator[bytes | float]]]


class HostileServer:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests = 0
        self.bytes_sent = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="hostile-server")

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._listener.close()
        self._thread.join(timeout=5)

    def _serve(self) -> None:
        self._listener.settimeout(0.1)
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        with connection:
            try:
                _read_request(connection)
                self.requests += 1
                status, headers, body = self.answer()
                head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
                connection.sendall(head.encode("ascii"))
                for chunk in body:
                    if self._stopping.is_set():
                        return
                    if isinstance(chunk, float):
                        self._stopping.wait(chunk)
                        continue
                    connection.sendall(chunk)
                    self.bytes_sent += len(chunk)
            except OSError:
                return  # the client gave up: that is the point


def _read_request(connection: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0
    )
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return
        body += chunk


def trickle(body: bytes, every: float = 1.0) -> Answer:
    """Headers at once, then one byte per ``every`` seconds (each read is quick: no read timeout fires)."""

    def answer() -> tuple[str, dict[str, str], Iterator[bytes | float]]:
        def chunks() -> Iterator[bytes | float]:
            for byte in body:
                yield bytes([byte])
                yield every

        return "200 OK", {"Content-Type": "application/json", "Content-Length": str(len(body))}, chunks()

    return answer


def huge(size: int) -> Answer:
    """A 200 answer announcing ``size`` bytes of JSON, sent as fast as the client reads."""

    def answer() -> tuple[str, dict[str, str], Iterator[bytes | float]]:
        def chunks() -> Iterator[bytes | float]:
            yield b'{"choices": [{"message": {"content": "'
            block = b"a" * 2**20
            for _ in range(size // len(block)):
                yield block

        return "200 OK", {"Content-Type": "application/json", "Content-Length": str(size)}, chunks()

    return answer


def fixed(status: str, content_type: str, body: bytes) -> Answer:
    def answer() -> tuple[str, dict[str, str], Iterator[bytes | float]]:
        headers = {"Content-Type": content_type, "Content-Length": str(len(body))}
        return status, headers, iter([body])

    return answer
