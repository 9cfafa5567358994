"""The export to tau2-bench's own files: a run's report becomes the submission folder the official
leaderboard tools read (``tests/data/tau2/export/``: the reports of two live runs, airline and
telecom, and banking_knowledge, and what the official tau2 1.0.1 said of the folder exported from
each, learned by ``learn_export.py``)."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import lzma
from pathlib import Path
from typing import Any

import pytest

# numpy (under rank-bm25) cannot be imported twice in a process: imported here, it outlives the
# in-process pytester runs, which drop from sys.modules what they imported.
import rank_bm25  # noqa: F401

from pytest_toolcall.benchmarks.tau2 import export, knowledge
from pytest_toolcall.benchmarks.tau2.loop import trial_seed

EXPORT = Path(__file__).parents[1] / "data" / "tau2" / "export"


def report(name: str = "report.json.gz") -> dict[str, Any]:
    raw = (EXPORT / name).read_bytes()
    return json.loads(lzma.decompress(raw) if name.endswith(".xz") else gzip.decompress(raw))


def accepted(name: str = "accepted.json") -> dict[str, Any]:
    return json.loads((EXPORT / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("report_name", "accepted_name"),
    [("report.json.gz", "accepted.json"), ("report-banking.json.xz", "accepted-banking.json")],
)
def test_the_official_tools_accepted_what_the_export_writes(
    tmp_path: Path, report_name: str, accepted_name: str
) -> None:
    """The files exported from the learned report are byte for byte those the official
    ``tau2 submit validate`` checks passed, whose metrics it computed as ours, and whose every
    simulation its evaluator graded to the reward exported."""
    document = report(report_name)
    written = export.write_files(export.submission_files(document), tmp_path)
    digests = {str(p.relative_to(tmp_path)): hashlib.sha256(p.read_bytes()).hexdigest() for p in written}
    official = accepted(accepted_name)
    assert digests == official["sha256"]
    assert all(official["checks"].values())
    assert official["files"] and all(check[0] for checks in official["files"].values() for check in checks.values())
    assert official["metrics"] and all(domain["equal"] for domain in official["metrics"].values())
    assert official["rewards"]["different"] == [] and official["rewards"]["equal"] == len(document["samples"])


def test_a_banking_submission_says_its_retrieval_configuration() -> None:
    """The configuration in submission.json (the leaderboard's badge), the notes, the results
    file's info and name; the policy recorded is the configuration's."""
    files = export.submission_files(report("report-banking.json.xz"))
    submission = files["submission.json"]
    assert submission["results"]["banking_knowledge"]["retrieval_config"] == "bm25"
    assert "banking_knowledge retrieval config: bm25" in submission["methodology"]["notes"]
    name = submission["trajectory_files"]["banking_knowledge"]
    assert "_bm25_" in name
    info = files[f"trajectories/{name}"]["info"]
    assert info["retrieval_config"] == "bm25"
    assert info["environment_info"]["policy"] == knowledge.policy("bm25")
    assert info["environment_info"]["policy"] != knowledge.policy("no_knowledge")


def test_the_configuration_is_the_samples_when_they_state_it() -> None:
    """A re-graded run's samples carry their results file's configuration: the export stamps that
    one; samples of two configurations, or one whose policy is not shipped, cannot be exported."""
    document = report("report-banking.json.xz")
    for sample in document["samples"]:
        sample["retrieval"] = "grep_only"
    files = export.submission_files(document)
    assert files["submission.json"]["results"]["banking_knowledge"]["retrieval_config"] == "grep_only"
    (name,) = files["submission.json"]["trajectory_files"].values()
    assert files[f"trajectories/{name}"]["info"]["environment_info"]["policy"] == knowledge.policy("grep_only")
    document["samples"][0]["retrieval"] = "bm25"
    with pytest.raises(ValueError, match=r"several retrieval configurations \(bm25, grep_only\)"):
        export.submission_files(document)
    for sample in document["samples"]:
        sample["retrieval"] = "alltools"
    with pytest.raises(ValueError, match="retrieval alltools, whose policy is not shipped here"):
        export.submission_files(document)


def test_a_component_not_measured_is_left_out_of_the_breakdown() -> None:
    """task_102's NL assertions without a judge, its reward already 0 by its database: the official
    breakdown holds numbers only, the basis still names the component."""
    files = export.submission_files(report("report-banking.json.xz"))
    (name,) = files["submission.json"]["trajectory_files"].values()
    sims = [s for s in files[f"trajectories/{name}"]["simulations"] if s["task_id"] == "task_102"]
    assert len(sims) == 4
    for sim in sims:
        info = sim["reward_info"]
        assert info == {"reward": 0.0, "reward_basis": ["DB", "NL_ASSERTION"], "reward_breakdown": {"DB": 0.0}}


def test_the_submission_says_how_the_run_was_made() -> None:
    files = export.submission_files(report())
    submission = files["submission.json"]
    assert submission["methodology"]["tau2_bench_version"] == "1.0.1"
    assert submission["methodology"]["user_simulator"] == "user"
    notes = submission["methodology"]["notes"]
    assert "4 trial(s) per task, seed 300" in notes and "no judge model" in notes
    assert set(submission["trajectory_files"]) == {"airline", "telecom"}
    for domain, name in submission["trajectory_files"].items():
        results = files[f"trajectories/{name}"]
        assert results["info"]["num_trials"] == 4 and results["info"]["environment_info"]["domain_name"] == domain
        assert {sim["seed"] for sim in results["simulations"]} == {trial_seed(t) for t in range(4)}


def test_pass_hat_k_is_the_reports_own() -> None:
    """The percentages of submission.json against the report's metrics block (computed by the
    plugin's statistics, apart from the exporter)."""
    document = report()
    results = export.submission_files(document)["submission.json"]["results"]
    for domain, row in document["metrics"]["tau2"]["categories"].items():
        for k in range(1, 5):
            assert results[domain][f"pass_{k}"] == pytest.approx(row["pass_hat_k"][str(k)] * 100, abs=1e-9)
    assert 0 < results["airline"]["pass_1"] < 100


def test_a_reward_not_measured_cannot_be_exported() -> None:
    document = report()
    document["samples"][3]["reward"] = None
    document["samples"][3]["not_measured"] = "NL_ASSERTION not measured"
    with pytest.raises(ValueError, match=r"reward was not measured .*--toolcall-judge-model"):
        export.submission_files(document)


def test_a_report_without_trajectories_or_samples_is_refused() -> None:
    document = report()
    del document["samples"][0]["messages"]
    with pytest.raises(ValueError, match="no trajectory"):
        export.submission_files(document)
    empty = copy.deepcopy(document)
    empty["samples"] = []
    with pytest.raises(ValueError, match="no τ²-bench samples"):
        export.submission_files(empty)


def test_failed_requests_are_infrastructure_errors() -> None:
    """A sample whose requests failed is exported as the official runner records it: an
    ``infrastructure_error`` without reward, in no metric."""
    document = report()
    sample = document["samples"][0]
    sample.update(outcome="error", reward=None, messages=None)
    files = export.submission_files(document)
    name = files["submission.json"]["trajectory_files"][sample["domain"]]
    sims = files[f"trajectories/{name}"]["simulations"]
    failed = [s for s in sims if s["termination_reason"] == "infrastructure_error"]
    assert len(failed) == 1 and failed[0]["reward_info"] is None


def test_the_hook_offers_the_format() -> None:
    assert "tau2" in export.pytest_toolcall_export_formats()
    assert export.pytest_toolcall_export("html", report(), Path("unused")) is None


@pytest.mark.slow
def test_the_export_command(pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``pytest-toolcall export --format tau2`` on a run's report writes the submission folder; a
    report it cannot export is one line (exit 2)."""
    from pytest_toolcall.cli import main

    pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=tau2",
        "--toolcall-user-model=oracle",
        "--toolcall-tau2-domains=airline",
        "--toolcall-limit=2",
        "--toolcall-repeat=2",
        "--toolcall-report=report.json",
    )
    out = tmp_path / "submission"
    assert main(["export", str(pytester.path / "report.json"), "--format", "tau2", "-o", str(out)]) == 0
    submission = json.loads((out / "submission.json").read_text(encoding="utf-8"))
    assert submission["results"]["airline"]["pass_1"] == 100.0
    results = json.loads((out / "trajectories" / submission["trajectory_files"]["airline"]).read_text(encoding="utf-8"))
    assert results["info"]["num_trials"] == 2 and len(results["simulations"]) == 4
    capsys.readouterr()
    # banking_knowledge's task_102 without a judge: its NL assertions, so its reward, not measured
    pytester.runpytest(
        "--toolcall-model=oracle",
        "--toolcall-bench=tau2",
        "--toolcall-user-model=oracle",
        "--toolcall-tau2-domains=banking_knowledge",
        "-k",
        "task_102",
        "--toolcall-report=unmeasured.json",
    ).assert_outcomes(skipped=1)
    unmeasured = pytester.path / "unmeasured.json"
    assert main(["export", str(unmeasured), "--format", "tau2", "-o", str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "reward was not measured" in err and "Traceback" not in err
