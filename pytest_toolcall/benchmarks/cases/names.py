"""The names of the cases' files and the cases' metrics, declared: imported at every pytest start
(the benchmark's entry point), so it imports neither YAML nor jsonschema."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pytest_toolcall.api import Metrics, Rows

#: The endings of a case file.
SUFFIXES = (".toolcall.yaml", ".toolcall.yml", ".toolcall.jsonl")


def case_file_stem(path: str | Path) -> str:
    """A case file's name without its folder and its case-file suffix (``weather``)."""
    name = Path(path).name
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(path).stem


def file_labels(paths: Iterable[str]) -> dict[str, str]:
    """The name of each case file in gate metrics: its stem (``weather``), or, for files whose stems
    collide (``a/smoke.toolcall.yaml``, ``b/smoke.toolcall.yaml``), the path without the case-file
    suffix (``a/smoke``, ``b/smoke``), so that each file has a metric of its own."""
    paths = list(paths)
    stems = [case_file_stem(path) for path in paths]
    return {
        path: stem if stems.count(stem) == 1 else _without_suffix(str(path), stem)
        for path, stem in zip(paths, stems, strict=True)
    }


def _without_suffix(path: str, stem: str) -> str:
    suffix = path.replace("\\", "/").rsplit("/", 1)[-1][len(stem) :]
    return path[: len(path) - len(suffix)]


#: The cases' metrics, declared: accuracy per file (``cases.file.<file>``: its stem, or its path
#: without the suffix where stems collide; a stem that several files share reads them pooled), per
#: tag (``cases.tag.<tag>``) and OVERALL, every case alike. Items whose request errored or that were
#: skipped had no answer to score: they are counted apart (``errors``, ``skipped``), in no accuracy,
#: so that a flaky endpoint lowers no number silently (the gate fails on errors instead).
METRICS = Metrics(
    rows=(
        Rows(key="files", field="file", gate="file", labels=file_labels, short=case_file_stem),
        Rows(key="tags", field="tags", gate="tag"),
    ),
    apart=True,
)
