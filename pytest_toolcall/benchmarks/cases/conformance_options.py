"""What pytest must know of the ``conformance`` benchmark in every run, without importing it: it has
no options, no fixtures, and collects no users' files."""

from __future__ import annotations

OPTIONS = ()
