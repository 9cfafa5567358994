"""A run's identity: the settings that decide its numbers, and a short hash of them (``run.identity``).

Two runs with the same identity measured the same thing the same way; what differs between two
identities is what a comparison has to name (a baseline made at another temperature, with another
prompt file, API, stream mode, user simulator or judge is still compared, and the difference is
shown). The model and its endpoint are not part of it: comparing models is what a comparison is for;
they label the run (``label``).

The identity is read off the report's ``run`` section (the options as resolved, the sampling sent,
each benchmark's data entry, the plugin version) and the users' files the samples came from, so it is
the same in a run, in its shards and offline.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: Options that change neither how a unit is asked nor how it is scored: where the answers come from
#: and go to, what is selected, how the gate judges, and the keys (names of variables, never values).
NOT_IDENTITY = frozenset(
    {
        "model", "base-url", "api-key-env", "user-api-key-env", "judge-api-key-env", "bench", "limit",
        "concurrency", "timeout", "max-retries", "cache", "cache-mode", "cache-max-age", "report", "html",
        "fail-under", "max-errors", "baseline", "fail-on-regression", "gate-on", "gate-value", "price", "budget",
        "shard",
        # the sampling options: what was sent is the identity (``sampling``), not how it was asked for
        "temperature", "max-tokens", "extra-body",
    }
)  # fmt: skip
#: Differences named per comparison: enough to see what changed, a line that stays readable.
SHOWN = 20


def run_identity(run: Mapping[str, Any], files: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``{"hash": <12 hex>, ...fields}`` of a run section; ``files``: the users' files the units came
    from (path -> content hash)."""
    options = run.get("options") or {}
    fields: dict[str, Any] = {
        "plugin_version": run.get("plugin_version"),
        "sampling": sent_sampling(run.get("settings")),
        "datasets": run.get("datasets"),
        "files": dict(sorted((files or {}).items())),
        "options": {k: v for k, v in sorted(options.items()) if k not in NOT_IDENTITY},
    }
    return {"hash": digest(fields), **fields}


def sent_sampling(settings: Any) -> Any:
    """What the run's requests were sent with, as the identity holds it: the sampling of each
    benchmark (``acebench.temperature``), or one set of fields when every benchmark of the run sent the
    same (``temperature``: one benchmark, or a run-wide --toolcall-temperature), and the extra body."""
    if not isinstance(settings, Mapping) or not isinstance(settings.get("sampling"), Mapping):
        return settings  # a report of a version that recorded one sampling for the whole run
    per = dict(settings["sampling"])
    values = list(per.values())
    same = bool(values) and all(value == values[0] for value in values)
    return {**(values[0] if same else per), "extra_body": settings.get("extra_body")}


def digest(fields: Mapping[str, Any]) -> str:
    text = json.dumps({k: v for k, v in fields.items() if k != "hash"}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def file_hashes(samples: Iterable[Mapping[str, Any]], root: Path) -> dict[str, str]:
    """The content hash of each user's file named by a sample (``file``: its path from the rootdir,
    as pytest names it): a case file edited between two runs makes their identities differ."""
    hashes: dict[str, str] = {}
    for name in sorted({s["file"] for s in samples if isinstance(s.get("file"), str)}):
        try:
            hashes[name] = hashlib.sha256((root / name).read_bytes()).hexdigest()[:12]
        except OSError:
            hashes[name] = "unreadable"
    return hashes


def differing(before: Mapping[str, Any] | None, now: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Each field (``sampling.temperature``, ``options.stream``) whose value differs between two
    identities, with both values; nothing when either is unknown (a report written before identities)."""
    if not isinstance(before, Mapping) or not isinstance(now, Mapping):
        return []
    found: list[dict[str, Any]] = []
    top = [{k: v for k, v in side.items() if k != "hash"} for side in (before, now)]
    _walk("", top[0], top[1], found)
    return found


def _walk(path: str, a: Any, b: Any, found: list[dict[str, Any]]) -> None:
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            _walk(f"{path}.{key}" if path else str(key), a.get(key), b.get(key), found)
        return
    found.append({"field": path, "baseline": a, "now": b})


def differences_line(fields: list[dict[str, Any]]) -> str:
    """``sampling.temperature 0.7 -> 0.0; options.stream 'off' -> 'on'`` (the first ``SHOWN``)."""
    shown = [f"{d['field']} {_short(d['baseline'])} -> {_short(d['now'])}" for d in fields[:SHOWN]]
    more = f"; and {len(fields) - SHOWN} more" if len(fields) > SHOWN else ""
    return "; ".join(shown) + more


def label(run: Mapping[str, Any]) -> str:
    """``model@endpoint [identity]``: what names a run where several are shown side by side (two
    endpoints behind one model name are two runs)."""
    identity = run.get("identity")
    short = identity.get("hash") if isinstance(identity, Mapping) else None
    endpoint = run.get("base_url") or "default endpoint"
    return f"{run.get('model')}@{endpoint}" + (f" [{short}]" if short else "")


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else f"{text[:limit]}..."
