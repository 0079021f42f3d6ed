"""Fixture-driven tests: every file under fixtures/<format>/ is checked and, where it has findings, fixed.

A fixture named ``SHMxxx-*.ext`` must produce that code, ``good-*`` must produce nothing. Its ``.expected`` file
holds ``line:column CODE`` for every finding; its ``.fixed`` file is what ``shmlint fix`` makes of it. After the
fix, no fixable finding is left and a second fix changes nothing. Regenerate snapshots after a reviewed change
with ``SHMLINT_UPDATE_SNAPSHOTS=1 pytest tests/test_fixtures.py`` and read the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shmlint.catalog import lookup
from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.file_formats import formats
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from tests import cloud_proofs, proofs
from tests.support import FIXTURES

#: every format's fixture folders, as its descriptor names them (shmlint/formats/<name>/)
FORMATS = tuple(folder for found in formats() for folder in found.fixtures)
UPDATE = os.environ.get("SHMLINT_UPDATE_SNAPSHOTS") == "1"


def fixture_files() -> list[Path]:
    files = []
    for folder in FORMATS:
        base = FIXTURES / folder
        if base.is_dir():
            files.extend(
                p
                for p in sorted(base.rglob("*"))
                if p.is_file() and p.suffix not in (".expected", ".fixed") and (p.name.startswith(("SHM", "good")))
            )
    return files


def relative(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


def snapshot(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_bytes(actual.encode("utf-8", "surrogateescape"))
    assert path.exists(), f"missing snapshot {path.name}: run with SHMLINT_UPDATE_SNAPSHOTS=1 and review it"
    assert actual == path.read_bytes().decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("path", fixture_files(), ids=relative)
def test_fixture_findings(engine: Engine, path: Path) -> None:
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    codes = {f.code for f in result.findings}
    if path.name.startswith("good"):
        assert not result.findings, [f"{f.code} {f.message}" for f in result.findings]
    else:
        assert path.name[:6] in codes, f"{path.name} should produce {path.name[:6]}, got {sorted(codes)}"
    lines = "".join(f"{f.span.line}:{f.span.column} {f.code} {f.severity.label}\n" for f in result.findings)
    snapshot(path.with_name(path.name + ".expected"), lines)


@pytest.mark.parametrize("path", [p for p in fixture_files() if not p.name.startswith("good")], ids=relative)
def test_fixture_fix(engine: Engine, path: Path, tmp_path: Path) -> None:
    (candidate,) = discover([path])
    checked = engine.check_candidate(candidate)
    if checked.source is None or not any(f.fixable for f in checked.findings):
        assert not path.with_name(path.name + ".fixed").exists()
        return
    # the catalog says when a rule's fix can be unsafe (SHM003, SHM004, SHM013): prove it too
    rule = lookup(path.name[:6])
    unsafe = rule is not None and rule.fix.applicability is Applicability.UNSAFE
    result = fix_source(engine, checked.source, candidate.kind, path, unsafe=unsafe)
    assert not result.problems
    snapshot(path.with_name(path.name + ".fixed"), result.text)
    after = engine.check_source(checked.source.with_text(result.text), candidate.kind, path)
    left = [f for f in after.findings if f.fix and (unsafe or f.fix.applicability is Applicability.SAFE)]
    assert not left, f"a fixable finding survived the fix: {[f.message for f in left]}"
    assert not [f for f in after.findings if f.code == "SHM000"]
    again = fix_source(engine, after.source, candidate.kind, path, unsafe=unsafe)
    assert not again.changed, "a second fix changed the file again"
    if {"aws", "azureml"} & set(path.parts):
        cloud_proofs.assert_only_sizes_change(path, checked.source.text, result.text)
    elif "docs" in path.parts:  # YAML code blocks of documentation: each as its own file
        assert (
            proofs.assert_blocks_still_valid(checked.source.text, result.text, path.suffix) or "commands" in path.parts
        )
    elif "akash" in path.parts:
        proofs.assert_akash_still_valid(checked.source.text, result.text)
    elif path.suffix in (".yaml", ".yml") and "compose" not in path.parts:
        proofs.assert_kubernetes_still_valid(checked.source.text, result.text)
    elif "compose" in path.parts:
        proofs.assert_compose_still_valid(checked.source.text, result.text)
    elif path.suffix == ".sh":
        proofs.assert_bash_still_ok(tmp_path, checked.source.text, result.text)
    # a fix makes at most two edits (a volume and a mount); each may rewrite the one line it lands in (flow style)
    rewritten = set(checked.source.text.splitlines()) - set(result.text.splitlines())
    assert len(rewritten) <= 2 * len(result.applied), f"original lines rewritten beyond the edits: {sorted(rewritten)}"
