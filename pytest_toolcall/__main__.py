"""``python -m pytest_toolcall``: the ``pytest-toolcall`` command."""

from __future__ import annotations

import sys

from pytest_toolcall.cli import main

sys.exit(main())
