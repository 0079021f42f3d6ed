"""The real-world corpus in ../shared/corpus: no crash, and the file-level missing-shm verdict vs. the hand labels.

The verdict of a file is "flag" when shmlint reports SHM001, SHM002 or SHM009 in it. Labels can be wrong; where
shmlint disagrees on purpose, the file is listed in DISAGREEMENTS with the reason, and the test fails on any
disagreement not listed there (and on a listed one that went away), so every change in verdict is seen.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from shmlint.discover import Candidate, FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
MISSING_SHM = frozenset({"SHM001", "SHM002", "SHM009"})
KIND_OF = {
    "k8s": FileKind.YAML,
    "compose": FileKind.YAML,
    "helm-template": FileKind.YAML,
    "shell": FileKind.SHELL,
    "markdown": FileKind.MARKDOWN,
    "dockerfile": FileKind.DOCKERFILE,
}
GROUPS = {"kubernetes": ("k8s",), "compose-shell-markdown": ("compose", "shell", "markdown")}

#: local_name -> why shmlint's verdict differs from the label on purpose
DISAGREEMENTS: dict[str, str] = {}


def rows() -> list[dict[str, str]]:
    if not CORPUS.is_dir():
        pytest.fail(f"the shared corpus is missing at {CORPUS}; CI lays it beside the checkout")
    with (CORPUS / "INDEX.tsv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.fixture(scope="module")
def verdicts() -> dict[str, tuple[str, str, list[str]]]:
    """local_name -> (expect, verdict, finding codes) for every corpus file."""
    engine = Engine(Settings())
    result = {}
    for row in rows():
        path = CORPUS / row["local_name"]
        checked = engine.check_candidate(Candidate(path, KIND_OF[row["kind"]], explicit=True))
        codes = sorted(f.code for f in checked.findings)
        verdict = "flag" if MISSING_SHM & set(codes) else "clean"
        result[row["local_name"]] = (row["expect"], verdict, codes)
    return result


def test_every_file_is_checked_without_crash_or_invalid_input(verdicts) -> None:
    assert len(verdicts) >= 90
    invalid = [name for name, (expect, _, codes) in verdicts.items() if "SHM000" in codes and expect != "skip"]
    assert not invalid, f"plain files reported as unparsable: {invalid}"


def test_templates_are_skipped(verdicts) -> None:
    wrong = [name for name, (expect, verdict, _) in verdicts.items() if expect == "skip" and verdict == "flag"]
    assert not wrong


def test_disagreements_are_exactly_the_explained_ones(verdicts) -> None:
    found = {
        name for name, (expect, verdict, _) in verdicts.items() if expect in ("flag", "clean") and expect != verdict
    }
    assert found == set(DISAGREEMENTS), {
        "unexplained": sorted(found - set(DISAGREEMENTS)),
        "no longer disagreeing": sorted(set(DISAGREEMENTS) - found),
    }


@pytest.mark.parametrize("group", GROUPS)
def test_precision_and_recall(verdicts, group: str) -> None:
    kinds = GROUPS[group]
    pairs = [
        (expect, verdict)
        for name, (expect, verdict, _) in verdicts.items()
        if name.split("/", 1)[0] in kinds and expect in ("flag", "clean")
    ]
    true_positive = sum(1 for e, v in pairs if e == v == "flag")
    flagged = sum(1 for _, v in pairs if v == "flag")
    expected = sum(1 for e, _ in pairs if e == "flag")
    precision = true_positive / flagged if flagged else 1.0
    recall = true_positive / expected if expected else 1.0
    print(f"{group}: {len(pairs)} files, precision {precision:.3f}, recall {recall:.3f}")
    assert precision >= 0.95 and recall >= 0.95
