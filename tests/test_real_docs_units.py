"""Real public files of the documentation, Ray, Quadlet and systemd surfaces (fixtures/real/, pinned and labelled
by hand in INDEX.tsv): the findings shmlint reports in them, line and column, and their fixes.

``findings`` in the index is what shmlint says today; ``expect`` is the hand label's verdict. Where the two differ
on purpose the file is listed in DISAGREEMENTS with why, so that every change of verdict is seen.
"""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from shmlint.parsers.systemd_unit import read_unit
from tests import proofs
from tests.support import FIXTURES

REAL = FIXTURES / "real"
ROWS = list(csv.DictReader((REAL / "INDEX.tsv").open(encoding="utf-8"), delimiter="\t"))
MISSING_SHM = frozenset({"SHM001", "SHM002", "SHM009"})
#: local_name -> why shmlint's verdict differs from the label (the label stays as it is)
DISAGREEMENTS = {
    "systemd/helix-clyde__prometheus-docker__dcgm-exporter.service": (
        "label clean (a DCGM exporter needs no /dev/shm), shmlint flags: the unit passes `--v /:/host:ro`, an option "
        "docker does not know, so the run grammar takes `/:/host:ro` for the image and the exporter image (written "
        "`docker://nvcr.io/...`) is never matched against the tier data; docker itself would refuse to start it"
    ),
}


def _check(engine: Engine, path: Path):  # type: ignore[no-untyped-def]
    (candidate,) = discover([path])
    return candidate, engine.check_candidate(candidate)


def test_the_index_names_every_file_once_with_a_pinned_commit() -> None:
    files = sorted(p.relative_to(REAL).as_posix() for p in REAL.rglob("*") if p.is_file() and p.name != "INDEX.tsv")
    assert sorted(row["local_name"] for row in ROWS) == files
    assert all(len(row["commit"]) == 40 and row["repo"].count("/") == 1 for row in ROWS)
    surfaces = {row["local_name"].split("/")[0] for row in ROWS}
    assert all(sum(row["local_name"].startswith(s + "/") for row in ROWS) >= 2 for s in surfaces)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["local_name"])
def test_findings_and_verdict(engine: Engine, row: dict[str, str]) -> None:
    _, result = _check(engine, REAL / row["local_name"])
    found = ";".join(f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings)
    assert found == row["findings"]
    verdict = "flag" if MISSING_SHM & {f.code for f in result.findings} else "clean"
    assert (verdict == row["expect"]) != (row["local_name"] in DISAGREEMENTS)


@pytest.mark.parametrize("row", [r for r in ROWS if r["findings"]], ids=lambda row: row["local_name"])
def test_fix_holds_and_keeps_the_file_readable(engine: Engine, row: dict[str, str]) -> None:
    path = REAL / row["local_name"]
    candidate, checked = _check(engine, path)
    assert checked.source is not None
    result = fix_source(engine, checked.source, candidate.kind, path)
    assert result.changed and not result.problems
    after = engine.check_source(replace(checked.source, text=result.text), candidate.kind, path)
    assert not [f for f in after.findings if f.fix and f.fix.applicability is Applicability.SAFE]
    # each fix adds lines or rewrites the one line it lands in (a docker run line, a null volumeMounts)
    rewritten = set(checked.source.text.splitlines()) - set(result.text.splitlines())
    assert len(rewritten) <= len(result.applied)
    if path.suffix in (".md", ".rst", ".mdx"):
        proofs.assert_blocks_still_valid(checked.source.text, result.text, path.suffix)
    if path.suffix == ".container":
        assert [e for e in read_unit(result.text) if e.section == "Container" and e.key == "ShmSize"]
