"""A small MCP server written with the official SDK, for the tests: a notebook whose state lives in
the server process (what one call writes, the next reads), a tool whose MCP name chat APIs refuse
(``notes.count``), and a tool that fails (its error is a result the model sees). With ``NOTES_LOG``
set, each start appends a line to that file.

    python tests/cases/mcp_notes_server.py            # stdio
    python tests/cases/mcp_notes_server.py --http PORT  # streamable HTTP on 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("notes")
NOTES: list[str] = []


@server.tool()
def add_note(text: str) -> str:
    """Add a note to the notebook; returns its number."""
    NOTES.append(text)
    return f"note {len(NOTES)} saved"


@server.tool()
def list_notes() -> str:
    """Every note, one per line."""
    return "\n".join(f"{n}. {text}" for n, text in enumerate(NOTES, start=1)) or "(no notes)"


@server.tool(name="notes.count")
def count() -> int:
    """How many notes there are."""
    return len(NOTES)


@server.tool()
def delete_note(number: int) -> str:
    """Delete a note by its number."""
    if not 1 <= number <= len(NOTES):
        raise ToolError(f"there is no note {number}")
    NOTES.pop(number - 1)
    return f"note {number} deleted"


@server.tool()
def crash() -> str:
    """Ends the server process at once (a server that dies in the middle of a run)."""
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("NOTES_LOG"):  # how often the server was started: one line per start
        with open(os.environ["NOTES_LOG"], "a", encoding="utf-8") as log:
            log.write("started\n")
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
