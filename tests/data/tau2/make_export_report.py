"""How ``export/report.json.gz`` and ``export/report-banking.json.gz`` were made (the inputs of
``learn_export.py``): live runs of the plugin through the local chat server, 4 trials. The first:
airline and telecom whole, the user simulator ending every dialogue at once (so that some tasks pass
and most fail). The second: banking_knowledge whole (its default retrieval ``bm25``), the agent the
oracle (the reference's agent actions) and the user simulator saying one line, then stopping (so
that the tasks whose reference has no user action pass, the others fail). Run from the repository's
root in the plugin's own environment, outside the test suite:

    python tests/data/tau2/make_export_report.py OUT/report.json
    python tests/data/tau2/make_export_report.py OUT/report-banking.json banking_knowledge
    pytest-toolcall export --format tau2 OUT/report.json -o OUT/submission
"""

import os
import subprocess
import sys
from pathlib import Path

from pytest_toolcall.testing.server import ChatServer, Reply

out = Path(sys.argv[1]).resolve()
banking = sys.argv[2:] == ["banking_knowledge"]
domains = "banking_knowledge" if banking else "airline,telecom"
os.environ["OPENAI_API_KEY"] = "sk-test"


def user(body):
    """The user simulator: at once ``###STOP###``; for banking_knowledge one line first (the user's
    first request holds its system prompt and the agent's greeting)."""
    if banking and len(body["messages"]) <= 2:
        return Reply(content="I need help with my account.")
    return Reply(content="###STOP###")


with ChatServer(user) as server:
    agent = ["--toolcall-model=agent", f"--toolcall-base-url={server.base_url}"]
    if banking:
        agent = ["--toolcall-model=oracle"]
    subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "pytest_toolcall", "-q", "-p", "no:cacheprovider",
            *agent, "--toolcall-user-model=user", f"--toolcall-user-base-url={server.base_url}",
            "--toolcall-bench=tau2", f"--toolcall-tau2-domains={domains}",
            "--toolcall-repeat=4", "--toolcall-cache=off", f"--toolcall-report={out}",
        ],
        cwd=out.parent,
        check=False,
    )  # fmt: skip
