"""Real public files of the documentation, Ray, Quadlet and systemd surfaces (tests/data/real_docs_units.toml, pinned
and labelled by hand, read from git mirrors by tests/real_files.py): the findings shmlint reports in them, line and
column, and their fixes.

``expect`` in the manifest is what shmlint says today; ``verdict`` is the hand label's. Where the two differ on
purpose the file is listed in DISAGREEMENTS with why, so that every change of verdict is seen.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from shmlint.catalog import FixAvailability, lookup
from shmlint.discover import FileKind, kind_by_name
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from shmlint.parsers.systemd_unit import read_unit
from shmlint.results import FileResult
from shmlint.source import SourceText
from tests import proofs
from tests.real_files import entry_id, load_manifest, manifest_problem, read_pinned

ENTRIES = load_manifest("real_docs_units.toml")
MISSING_SHM = frozenset({"SHM001", "SHM002", "SHM009"})
#: repo:path -> why shmlint's verdict differs from the label (the label stays as it is)
DISAGREEMENTS = {
    "helix-clyde/prometheus-docker:dcgm-exporter.service": (
        "label clean (a DCGM exporter needs no /dev/shm), shmlint flags: the unit passes `--v /:/host:ro`, an option "
        "docker does not know, so the run grammar takes `/:/host:ro` for the image and the exporter image (written "
        "`docker://nvcr.io/...`) is never matched against the tier data; docker itself would refuse to start it"
    ),
}


def _check(engine: Engine, entry: dict[str, str]) -> tuple[SourceText, FileKind, Path, FileResult]:
    path = Path(entry["path"])
    kind = kind_by_name(path)
    assert kind is not None
    source = SourceText.from_bytes(entry["path"], read_pinned(entry))
    return source, kind, path, engine.check_source(source, kind, path)


def test_the_manifest_names_every_file_once_and_each_surface_twice() -> None:
    assert len({entry_id(entry) for entry in ENTRIES}) == len(ENTRIES)
    assert set(DISAGREEMENTS) <= {entry_id(entry) for entry in ENTRIES}
    kinds = Counter(kind_by_name(Path(entry["path"])) for entry in ENTRIES)
    assert set(kinds) == {FileKind.MARKDOWN, FileKind.RST, FileKind.UNIT, FileKind.YAML}
    assert min(kinds.values()) >= 2


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"repo": "o/n", "commit": "abc123", "path": "a.md"}, "not a full 40-hex SHA"),
        ({"repo": "o/n", "commit": "a" * 40, "path": "--output=/tmp/x"}, "not start with '-'"),
        ({"repo": "o/n", "commit": "a" * 40, "path": "/etc/passwd"}, "must be relative"),
        ({"repo": "../n", "commit": "a" * 40, "path": "a.md"}, "not owner/name"),
    ],
)
def test_the_reader_refuses_entries_that_could_become_flags_or_leave_the_mirror(
    entry: dict[str, str], problem: str
) -> None:
    assert problem in (manifest_problem(entry) or "")
    with pytest.raises(ValueError, match=problem.replace("'", ".")):
        read_pinned(entry)


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_findings_and_verdict(engine: Engine, entry: dict[str, str]) -> None:
    *_, result = _check(engine, entry)
    assert [f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings] == entry["expect"]
    verdict = "flag" if MISSING_SHM & {f.code for f in result.findings} else "clean"
    assert (verdict == entry["verdict"]) != (entry_id(entry) in DISAGREEMENTS)


def _fixable(entry: dict[str, str]) -> bool:
    """A rule of ``expect`` that can write a fix (SHM007 host IPC never does)."""
    rules = [lookup(code.split()[1]) for code in entry["expect"]]
    return any(rule is not None and rule.fix.availability is not FixAvailability.NEVER for rule in rules)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if _fixable(e)], ids=entry_id)
def test_fix_holds_and_keeps_the_file_readable(engine: Engine, entry: dict[str, str]) -> None:
    source, kind, path, _ = _check(engine, entry)
    result = fix_source(engine, source, kind, path)
    assert result.changed and not result.problems
    after = engine.check_source(source.with_text(result.text), kind, path)
    assert not [f for f in after.findings if f.fix and f.fix.applicability is Applicability.SAFE]
    # each fix adds lines or rewrites the one line it lands in (a docker run line, a null volumeMounts)
    rewritten = set(source.text.splitlines()) - set(result.text.splitlines())
    assert len(rewritten) <= len(result.applied)
    if path.suffix in (".md", ".rst", ".mdx"):
        proofs.assert_blocks_still_valid(source.text, result.text, path.suffix)
    if path.suffix == ".container":
        assert [e for e in read_unit(result.text) if e.section == "Container" and e.key == "ShmSize"]
