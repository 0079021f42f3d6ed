"""The whole-tree fresh precision benchmarks (bench/precision/fresh2, its recall supplement, fresh3 to fresh13: whole
repositories, checked as a user's ``shmlint check .`` in a clone): their data files' shape, the whole-tree
materialisation, and (when the repositories are on disk) a full run with no unlabelled finding, no unjudged finding, no
stale label and no fix that lowers /dev/shm. The scoring itself is tested in
test_precision_fresh.py (same score.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import ROOT, run_precision_benchmark, script_module
from tests.test_precision_data import HELD_OUT

BENCH = ROOT / "bench" / "precision"
FRESH2 = BENCH / "fresh2"
RECALL = FRESH2 / "recall"  # the recall supplement: training apps, since the ten hold no crash
FRESH3 = BENCH / "fresh3"  # chosen for real multi-process GPU software, sized and not, to measure recall
FRESH4 = BENCH / "fresh4"  # the same kind, labelled before any run and kept untuned: the generalisation figure
FRESH5 = BENCH / "fresh5"  # the maintainers' kinds (operators, GPU sharing, GenAI/TTS, RL), labelled before a run
#: the maintainers' kinds (GPU Kubernetes samples, GenAI/RAG/TTS suites, cluster managers, RLHF frameworks), labelled
#: by reading and held back: scored once, at the end, by the lead (its README)
FRESH6 = BENCH / "fresh6"
FRESH7 = BENCH / "fresh7"  # crash-rich by choice and held back: labelled by reading, scored only by the lead at the end
#: the maintainers' kinds chosen as a new user would, with no preference for crashes; labelled by reading and held back
FRESH8 = BENCH / "fresh8"
FRESH9 = BENCH / "fresh9"  # crash-rich by choice, other repositories and software: held back, scored by the lead
FRESH10 = BENCH / "fresh10"  # crash-rich by choice, found through reported shm failures: held back, scored by the lead
FRESH11 = BENCH / "fresh11"  # the maintainers' kinds as a new user picks them, no crash preference: held back
FRESH12 = BENCH / "fresh12"  # crash-rich by choice (reported shm failures, code search): held back, scored by the lead
FRESH13 = BENCH / "fresh13"  # the maintainers' kinds as a new user picks them, no crash preference: held back
FRESH14 = BENCH / "fresh14"  # crash-rich by choice (forks of software with reported failures): held back, lead scores
FRESH15 = BENCH / "fresh15"  # the maintainers' kinds as a new user picks them, no crash preference: held back
FRESH16 = BENCH / "fresh16"  # crash-rich by choice (reported failures, code search, research code): held back
FRESH17 = BENCH / "fresh17"  # the maintainers' kinds as a new user picks them, no crash preference: held back
FRESH18 = BENCH / "fresh18"  # meant crash-rich; no crash found: false alarms and undecided reporting. Held back
FRESH19 = BENCH / "fresh19"  # crash-rich by choice (trainer images found by name: DataLoader workers): held back
FRESH20 = BENCH / "fresh20"  # the maintainers' kinds as a new user picks them, no crash preference: held back
#: the maintainers' kinds as a new user picks them, favouring trees that train or serve on several accelerators: held back
FRESH21 = BENCH / "fresh21"
FRESH22 = BENCH / "fresh22"  # crash-rich by choice (repository names, reported failures): held back, lead scores
#: the maintainers' kinds as a new user picks them, favouring trees that train or serve on several accelerators: held back
FRESH23 = BENCH / "fresh23"
FRESH24 = BENCH / "fresh24"  # crash-rich by choice (exact file paths, code search): held back, lead scores
#: the maintainers' kinds as a new user picks them, favouring trees that train or serve on several accelerators: held back
FRESH25 = BENCH / "fresh25"
FRESH26 = BENCH / "fresh26"  # crash-rich by choice (exact file paths read before fetching): held back, lead scores
FRESH27 = BENCH / "fresh27"  # the maintainers' kinds as a new user picks them, no crash preference: held back
FRESH28 = BENCH / "fresh28"  # crash-rich by choice (exact file paths, repository names): held back, lead scores
FRESH29 = BENCH / "fresh29"  # crash-proven by issue/fix history (parent of the fix commit): held back, lead scores
FRESH30 = BENCH / "fresh30"  # crash-proven by history (trees pinned before a commit that sized /dev/shm): held back
FRESH31 = BENCH / "fresh31"  # crash-proven by issues/commits (first parent of a shm-sizing fix): held back, lead scores
FRESH32 = BENCH / "fresh32"  # crash-proven by commits (first parent of a shm-sizing fix): held back, lead scores
FRESH33 = BENCH / "fresh33"  # the kinds as a new user picks them (NVIDIA blueprints, GPU sharing): held back
FRESH34 = BENCH / "fresh34"  # crash-rich by choice (exact file paths read before fetching, small trees): held back
FRESH35 = BENCH / "fresh35"  # the kinds as a new user picks them (serving kits, RAG/doc services): held back
FRESH36 = BENCH / "fresh36"  # tutorials that start GPU containers (notebooks, courses, vendor examples): held back
FRESH37 = BENCH / "fresh37"  # the kinds as a new user picks them (GPU tools, speech/TTS servers): held back
FRESH38 = BENCH / "fresh38"  # the kinds as a new user picks them (RL, vendor harnesses, Helm): held back
FRESH39 = BENCH / "fresh39"  # crash-seeking by evidence of real shm failures (issues, sizing commits): held back
FRESH40 = BENCH / "fresh40"  # the kinds as a new user picks them (GPU samples, RAG/TTS/ASR): held back
FRESH41 = BENCH / "fresh41"  # crash-seeking by reading small training repositories' docker runs: held back
FRESH42 = BENCH / "fresh42"  # the kinds as a new user picks them (GPU k8s samples, KubeRay, RAG/ASR): held back
FRESH43 = BENCH / "fresh43"  # crash-seeking by reading multi-process GPU containers (no crash found): held back
_LATER = (
    FRESH8,
    FRESH9,
    FRESH10,
    FRESH11,
    FRESH12,
    FRESH13,
    FRESH14,
    FRESH15,
    FRESH16,
    FRESH17,
    FRESH18,
    FRESH19,
    FRESH20,
    FRESH21,
    FRESH22,
    FRESH23,
    FRESH24,
    FRESH25,
    FRESH26,
    FRESH27,
    FRESH28,
    FRESH29,
    FRESH30,
    FRESH31,
    FRESH32,
    FRESH33,
    FRESH34,
    FRESH35,
    FRESH36,
    FRESH37,
    FRESH38,
    FRESH39,
    FRESH40,
    FRESH41,
    FRESH42,
    FRESH43,
)
SETS = (FRESH2, RECALL, FRESH3, FRESH4, FRESH5, FRESH6, FRESH7, *_LATER)
#: sets of at least ten repositories (a benchmark needs that many to say anything); the recall supplement adds two
LARGE = (FRESH2, FRESH3, FRESH4, FRESH5, FRESH6, FRESH7, *_LATER)
#: sets whose figures are measured as they are (false alarms included: their READMEs), not held to zero false alarms
MEASURED = (FRESH3, FRESH4, FRESH5, FRESH6, FRESH7, *_LATER)
#: the repositories the precision work was tuned on besides HELD_OUT: neither may be benchmarked here
TUNED_ON = {
    "googlecloudplatform/kubernetes-engine-samples", "project-hami/hami", "awslabs/ai-on-eks",
    "opea-project/genaiexamples", "infiniflow/ragflow", "fishaudio/fish-speech", "gpustack/gpustack",
    "openrlhf/openrlhf",
}  # fmt: skip


@pytest.fixture(scope="module")
def score() -> ModuleType:
    return script_module(BENCH / "score.py", "precision_score")


def _names(path: Path) -> set[str]:
    return {repo["name"].lower() for repo in tomllib.loads(path.read_text(encoding="utf-8"))["repo"]}


@pytest.mark.parametrize("folder", SETS, ids=lambda p: p.name)
def test_whole_tree_sets_are_pinned_new_and_not_held_out(folder: Path) -> None:
    repos = tomllib.loads((folder / "repos.toml").read_text(encoding="utf-8"))["repo"]
    names = [repo["name"].lower() for repo in repos]
    assert len(set(names)) == len(names) and len(names) >= (10 if folder in LARGE else 2)
    others = [_names(other / "repos.toml") for other in SETS if other != folder]
    for used in (
        HELD_OUT,
        TUNED_ON,
        _names(BENCH / "repos.toml"),
        _names(BENCH / "fresh" / "repos.toml"),
        *others,
    ):
        assert not set(names) & used, set(names) & used
    for repo in repos:
        assert len(repo["commit"]) == 40 and int(repo["commit"], 16) >= 0, repo["name"]
        assert repo["why"].strip(), repo["name"]
        assert repo["paths"] == ["."], repo["name"]  # the whole tree, as a user checks a clone


@pytest.mark.parametrize("folder", SETS, ids=lambda p: p.name)
def test_whole_tree_labels_are_unique_complete_and_name_the_set(score: ModuleType, folder: Path) -> None:
    labels, verdicts = score.read_set(folder)
    names = {repo["name"] for repo in tomllib.loads((folder / "repos.toml").read_text(encoding="utf-8"))["repo"]}
    keys = [(label.repo, label.path, label.line) for label in labels]
    assert len(keys) == len(set(keys))
    assert {label.repo for label in labels} == names  # every repository has its labels
    assert {label.label for label in labels} <= {"crash", "no-risk", "unknown"}
    assert all(label.reason.strip() and label.kind.strip() for label in labels)
    assert {verdict.repo for verdict in verdicts} <= names
    assert all(verdict.code != "SHM001" for verdict in verdicts)  # SHM001 is scored by workload labels


def test_a_whole_tree_keeps_every_file_and_a_listed_one_only_deployment_files() -> None:
    run = script_module(BENCH / "run.py", "precision_run")
    whole = run.Repo("o/n", "0" * 40, (".",), ())
    listed = run.Repo("o/n", "0" * 40, ("deploy",), ())
    for path in ("train.py", "configs/a.json", "deploy/k8s.yaml", "Dockerfile"):
        assert whole.wants(path), path
    assert listed.wants("deploy/k8s.yaml") and not listed.wants("deploy/train.py") and not listed.wants("a.yaml")
    assert run.Repo("o/n", "0" * 40, (".",), ("vendor",)).wants("vendor/x.py") is False  # exclude still applies


@pytest.mark.parametrize("folder", SETS, ids=lambda p: p.name)
def test_whole_tree_benchmark_runs_clean_on_the_pinned_repositories(tmp_path: Path, folder: Path) -> None:
    result = run_precision_benchmark("score.py", tmp_path, 900, "--set", str(folder))
    assert result["fixes"]["lowered"] == []  # no fix lowers the /dev/shm a merged workload gets
    if folder not in MEASURED:  # fresh3-6 measure SHM001 as it is (false alarms included); fresh2 was tuned on
        assert result["shm001"]["failing"]["labels"].get("no-risk", 0) == 0  # no false alarm on a no-risk workload
    if folder == RECALL:  # fluxgym's crash, read through the command line its app.py writes (lora-scripts' two
        # were errors only through their NGC base image, which alone is undecided since main 3a74f7f)
        assert not any("fluxgym" in missed for missed in result["shm001"]["recall"]["not_failing"])
        assert result["shm001"]["recall"]["as_error"] >= 0.33


def test_a_verdict_on_a_link_the_clone_holds_is_not_stale(tmp_path: Path, score: ModuleType) -> None:
    """A repository can hold a dangling link (R2R's README.md -> './py/README.md\\n'): SHM000 says it cannot be read,
    and a verdict on it points at a file the clone has; a missing file or a line past the end stays stale."""
    (tmp_path / "README.md").symlink_to("./py/README.md\n")
    (tmp_path / "a.yaml").write_text("x: 1\n")
    verdicts = [
        score.Verdict("o/r", "README.md", 1, "SHM000", "correct", "a dangling link"),
        score.Verdict("o/r", "gone.yaml", 1, "SHM000", "correct", "no such file"),
        score.Verdict("o/r", "a.yaml", 9, "SHM000", "correct", "past the end"),
    ]
    assert score.stale([], verdicts, {"o/r": tmp_path}) == [
        "o/r: gone.yaml: not in the benchmark's trees",
        "o/r: a.yaml:9: past the end of the file",
    ]
