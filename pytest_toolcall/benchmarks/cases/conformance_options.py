"""What pytest must know of the ``conformance`` benchmark in every run, without importing it: its one
option (``--toolcall-conformance-paths``); it has no fixtures and collects no users' files."""

from __future__ import annotations

from pytest_toolcall.api import Option

OPTIONS = (
    Option(
        "paths",
        "ask every conformance probe through these serving paths: APIs (chat, responses, messages), "
        "each plain and streamed, or api/mode (chat/streamed); all: every API (default: the run's "
        "--toolcall-api and --toolcall-stream)",
        metavar="all|API[/MODE],...",
    ),
)
