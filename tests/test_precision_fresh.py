"""The fresh precision benchmark (bench/precision/fresh): its data files' shape, its scoring, and (when the
repositories are on disk) a full run with no unlabelled finding and no fix that lowers /dev/shm."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import ROOT, run_precision_benchmark, script_module
from tests.test_precision_data import HELD_OUT

BENCH = ROOT / "bench" / "precision"
FRESH = BENCH / "fresh"


@pytest.fixture(scope="module")
def score() -> ModuleType:
    return script_module(BENCH / "score.py", "precision_score")


def test_fresh_repositories_are_pinned_new_and_not_held_out() -> None:
    fresh = tomllib.loads((FRESH / "repos.toml").read_text(encoding="utf-8"))["repo"]
    tuned = {repo["name"].lower() for repo in tomllib.loads((BENCH / "repos.toml").read_text(encoding="utf-8"))["repo"]}
    names = [repo["name"].lower() for repo in fresh]
    assert len(names) >= 10 and len(set(names)) == len(names)
    assert not set(names) & HELD_OUT, set(names) & HELD_OUT
    assert not set(names) & tuned, set(names) & tuned
    for repo in fresh:
        assert len(repo["commit"]) == 40 and int(repo["commit"], 16) >= 0, repo["name"]
        assert repo["why"].strip(), repo["name"]


def test_fresh_labels_are_unique_complete_and_name_the_set(score: ModuleType) -> None:
    labels, verdicts = score.read_set(FRESH)
    names = {repo["name"] for repo in tomllib.loads((FRESH / "repos.toml").read_text(encoding="utf-8"))["repo"]}
    keys = [(label.repo, label.path, label.line) for label in labels]
    assert len(keys) == len(set(keys))
    assert {label.repo for label in labels} == names  # every repository has its labels
    assert {label.label for label in labels} == {"crash", "no-risk", "unknown"}
    assert {verdict.repo for verdict in verdicts} <= names
    assert all(verdict.code != "SHM001" for verdict in verdicts)  # SHM001 is scored by workload labels


def test_bad_label_is_refused_with_its_place(score: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "labels.toml").write_text(
        '[[label]]\nrepo = "o/n"\npath = "a.yaml"\nline = 3\nlabel = "maybe"\nclass = "x"\nreason = "r"\n',
        encoding="utf-8",
    )
    with pytest.raises(SystemExit, match=r"label 1 \(a\.yaml\)"):
        score.read_set(tmp_path)


def _finding(score: ModuleType, line: int, end: int, severity: str = "error", path: str = "a.yaml") -> object:
    return score.Finding("o/n", path, line, end, "SHM001", severity, "w")


def test_a_finding_takes_the_label_inside_its_span_else_the_nearest_above(score: ModuleType) -> None:
    first = score.Label("o/n", "a.yaml", 7, "crash", "vllm", "r")
    second = score.Label("o/n", "a.yaml", 20, "no-risk", "client", "r")
    assert score.label_for(_finding(score, 5, 12), [first, second]) == first  # container name inside the span
    assert score.label_for(_finding(score, 24, 30), [first, second]) == second  # nearest above
    assert score.label_for(_finding(score, 45, 50), [first, second]) is None  # too far above: another workload's
    assert score.label_for(_finding(score, 2, 4), [first, second]) is None  # nothing at or above: unlabelled
    assert score.label_for(_finding(score, 7, 7, path="b.yaml"), [first, second]) is None


def test_scores_per_severity_recall_and_failing_set(score: ModuleType) -> None:
    crash = score.Label("o/n", "a.yaml", 1, "crash", "vllm", "r")
    quiet_crash = score.Label("o/n", "a.yaml", 10, "crash", "torchrun", "r")
    placeholder = score.Label("o/n", "a.yaml", 20, "no-risk", "gpu-placeholder", "r")
    silent = score.Label("o/n", "a.yaml", 30, "no-risk", "exporter", "r")
    matched = {
        _finding(score, 1, 5): crash,
        _finding(score, 10, 12, "warning"): quiet_crash,
        _finding(score, 20, 25, "warning"): placeholder,
    }
    result = score.score_shm001(matched, [crash, quiet_crash, placeholder, silent], "error")
    assert result["by_severity"]["error"]["precision"] == 1.0
    assert result["by_severity"]["warning"]["precision"] == 0.5
    assert result["failing"]["findings"] == 1  # fail-on error: warnings do not fail
    assert result["recall"]["as_error"] == 0.5 and result["recall"]["as_error_or_warning"] == 1.0
    assert result["recall"]["not_failing"] == ["o/n: a.yaml:10 torchrun (warning)"]
    assert result["no_risk_silenced"] == 0.5
    assert score.score_shm001(matched, [crash, quiet_crash, placeholder, silent], "warning")["failing"]["findings"] == 3


def test_other_rules_are_scored_per_code_and_severity(score: ModuleType) -> None:
    right = score.Finding("o/n", "a.yaml", 3, 3, "SHM007", "warning", "w")
    wrong = score.Finding("o/n", "b.yaml", 3, 3, "SHM007", "warning", "w")
    judged = {
        right: score.Verdict("o/n", "a.yaml", 3, "SHM007", "correct", "r"),
        wrong: score.Verdict("o/n", "b.yaml", 3, "SHM007", "incorrect", "r"),
    }
    assert score.score_other(judged) == {"SHM007": {"warning": {"findings": 2, "correct": 1, "precision": 0.5}}}
    assert score.verdict_for(right, list(judged.values())) == judged[right]


BASE = "services:\n  ocr:\n    image: nim\n    shm_size: 16gb\n  db:\n    image: milvus\n"


def _trees(tmp_path: Path, base: str, override: str, fixed_base: str, fixed_override: str) -> tuple[Path, Path]:
    before, after = tmp_path / "before", tmp_path / "after"
    for tree, base_text, override_text in ((before, base, override), (after, fixed_base, fixed_override)):
        tree.mkdir(parents=True)
        (tree / "docker-compose.yaml").write_text(base_text, encoding="utf-8")
        (tree / "docker-compose.a10g.yaml").write_text(override_text, encoding="utf-8")
    return before, after


def test_a_fix_that_writes_a_smaller_size_over_a_base_is_caught(score: ModuleType, tmp_path: Path) -> None:
    override = "services:\n  ocr:\n    environment:\n      - A=1\n"
    before, after = _trees(tmp_path, BASE, override, BASE, override + "    shm_size: 8gb\n")
    problems = score.lowered(before, after, ["docker-compose.a10g.yaml"])
    assert problems == [f"docker-compose.a10g.yaml: ocr: merged shm_size {16 << 30} -> {8 << 30} bytes"]


def test_a_replaced_larger_size_is_caught_and_a_raise_is_not(score: ModuleType, tmp_path: Path) -> None:
    lower = BASE.replace("16gb", "1gb")
    before, after = _trees(tmp_path, BASE, "services: {}\n", lower, "services: {}\n")
    assert score.lowered(before, after, ["docker-compose.yaml"]) == [
        f"docker-compose.yaml: replaced {16 << 30} bytes with {1 << 30}",
        f"docker-compose.a10g.yaml: ocr: merged shm_size {16 << 30} -> {1 << 30} bytes",  # the override merges it
    ]
    raised = BASE + "    shm_size: 8gb\n"  # the fix sizes the unsized service: nothing lowered
    before2, after2 = _trees(tmp_path / "2", BASE, "services: {}\n", raised, "services: {}\n")
    assert score.lowered(before2, after2, ["docker-compose.yaml"]) == []


def test_compose_reset_tags_do_not_stop_the_merge_check(score: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text("services:\n  kong:\n    shm_size: 2g\n", encoding="utf-8")
    (tmp_path / "compose.public.yml").write_text("services:\n  kong:\n    ports: !reset null\n", encoding="utf-8")
    assert score.merged_shm(tmp_path) == {"compose.public.yml: kong": 2 << 30}


def test_fresh_benchmark_runs_clean_on_the_pinned_repositories(tmp_path: Path) -> None:
    result = run_precision_benchmark("score.py", tmp_path, timeout=900)
    assert result["fixes"]["lowered"] == []  # no fix lowers the /dev/shm a merged workload gets
