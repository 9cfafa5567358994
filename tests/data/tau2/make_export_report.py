"""How ``export/report.json.gz`` was made (the input of ``learn_export.py``): a live run of the plugin
through the local chat server, airline and telecom whole, 4 trials, the user simulator ending every
dialogue at once (so that some tasks pass and most fail). Run from the repository's root in the
plugin's own environment, outside the test suite:

    python tests/data/tau2/make_export_report.py OUT/report.json
    pytest-toolcall export --format tau2 OUT/report.json -o OUT/submission
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[3]))
from tests.support.chat_server import ChatServer, Reply

out = Path(sys.argv[1]).resolve()
os.environ["OPENAI_API_KEY"] = "sk-test"
with ChatServer(lambda body: Reply(content="###STOP###")) as server:
    subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "pytest_toolcall", "-q", "-p", "no:cacheprovider",
            "--toolcall-model=agent", "--toolcall-user-model=user", f"--toolcall-base-url={server.base_url}",
            "--toolcall-bench=tau2", "--toolcall-tau2-domains=airline,telecom", "--toolcall-repeat=4",
            "--toolcall-cache=off", f"--toolcall-report={out}",
        ],
        cwd=out.parent,
        check=False,
    )  # fmt: skip
