"""A run's identity (``results.identity``): which settings it holds, which it leaves out, the fields
named when two differ, and how runs are labelled side by side."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pytest_toolcall.results.identity import differing, file_hashes, label, run_identity


def run(**options: str | None) -> dict:
    return {
        "model": "m",
        "base_url": "http://host/v1",
        "plugin_version": "0.1.0",
        "settings": {"temperature": 0.7, "max_tokens": 1200, "extra_body": {}},
        "datasets": {"acebench": {"commit": "56dd66c"}},
        "options": {"stream": "off", "api": "chat", "report": "a.json", "concurrency": "8", **options},
    }


def test_the_hash_is_of_the_settings_that_decide_the_numbers() -> None:
    identity = run_identity(run())
    fields = {k: v for k, v in identity.items() if k != "hash"}
    by_hand = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
    assert identity["hash"] == by_hand
    assert identity["options"] == {"api": "chat", "stream": "off"}  # where outputs go, concurrency: not identity
    # Neither the model, its endpoint, the outputs nor the load change it.
    other = {**run(report="b.json", concurrency="64"), "model": "n", "base_url": "http://other/v1"}
    assert run_identity(other)["hash"] == identity["hash"]
    # A stream mode, a judge, a benchmark option do.
    for change in ({"stream": "on"}, {"judge-model": "j"}, {"lang": "zh"}):
        assert run_identity(run(**change))["hash"] != identity["hash"], change


def test_differing_names_each_field_with_both_values() -> None:
    before = run_identity(run())
    after_run = run(stream="both")
    after_run["settings"] = {**after_run["settings"], "temperature": 0.0}
    after = run_identity(after_run, {"cases/a.toolcall.yaml": "abc"})
    assert differing(before, after) == [
        {"field": "files.cases/a.toolcall.yaml", "baseline": None, "now": "abc"},
        {"field": "options.stream", "baseline": "off", "now": "both"},
        {"field": "sampling.temperature", "baseline": 0.7, "now": 0.0},
    ]
    assert differing(before, before) == [] and differing(None, after) == []


def test_the_sampling_is_each_benchmarks_or_one_set_when_all_sent_the_same() -> None:
    def sent(**per: dict) -> dict:
        return {**run(), "settings": {"sampling": per, "extra_body": {}}}

    ace, cases = {"temperature": 0.7, "max_tokens": 1200}, {}
    apart = run_identity(sent(acebench=ace, cases=cases))
    assert apart["sampling"] == {"acebench": ace, "cases": cases, "extra_body": {}}
    given = run_identity(sent(acebench={"temperature": 0.0, "max_tokens": 1200}, cases={"temperature": 0.0}))
    fields = [d["field"] for d in differing(apart, given)]
    assert fields == ["sampling.acebench.temperature", "sampling.cases.temperature"]
    one = run_identity(sent(general_fc={"temperature": 0.0}, cases={"temperature": 0.0}))
    assert one["sampling"] == {"temperature": 0.0, "extra_body": {}}
    none = run_identity(sent(general_fc={}, cases={}))
    assert differing(none, one) == [{"field": "sampling.temperature", "baseline": None, "now": 0.0}]


def test_file_hashes_follow_the_contents(tmp_path: Path) -> None:
    (tmp_path / "a.toolcall.yaml").write_text("cases: []\n", encoding="utf-8")
    samples = [{"file": "a.toolcall.yaml"}, {"file": "a.toolcall.yaml"}, {"nodeid": "toolcall::x[1]"}]
    first = file_hashes(samples, tmp_path)
    assert first == {"a.toolcall.yaml": hashlib.sha256(b"cases: []\n").hexdigest()[:12]}
    (tmp_path / "a.toolcall.yaml").write_text("cases: [x]\n", encoding="utf-8")
    assert file_hashes(samples, tmp_path) != first
    assert file_hashes([{"file": "gone.yaml"}], tmp_path) == {"gone.yaml": "unreadable"}


def test_runs_are_labelled_by_model_endpoint_and_identity() -> None:
    section = run()
    section["identity"] = run_identity(section)
    assert label(section) == f"m@http://host/v1 [{section['identity']['hash']}]"
    assert label({"model": "m"}) == "m@default endpoint"
