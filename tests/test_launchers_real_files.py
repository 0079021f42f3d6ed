"""Terraform and Python launcher files from public repositories, read from local git mirrors at pinned commits.

The files are never copied into this repository: tests/real_files.py reads them (SHMLINT_REAL_MIRROR,
default /work/.mirror); without a mirror the test skips and says so.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from pathlib import Path

import pytest

from shmlint.discover import kind_by_name
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.fix.syntax import parse_error
from shmlint.source import SourceText
from tests.real_files import entry_id, load_manifest, read_pinned

MANIFEST = load_manifest("real_launchers.toml")


@pytest.mark.parametrize("entry", MANIFEST, ids=entry_id)
def test_real_file_findings_and_fix(engine: Engine, entry: dict[str, str]) -> None:
    path = Path(entry["path"])
    kind = kind_by_name(path)
    assert kind is not None
    source = SourceText.from_bytes(entry["path"], read_pinned(entry))
    result = engine.check_source(source, kind, path)
    assert [f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings] == entry["expect"]
    fixed = fix_source(engine, source, kind, path, checked=result)
    assert not fixed.problems
    if any(f.fixable for f in result.findings):
        assert fixed.changed
        after = source.with_text(fixed.text)
        assert parse_error(after, kind, strict=True) is None
        assert not any(f.fixable for f in engine.check_source(after, kind, path).findings)
        # byte-minimal: the fix inserts text, and at most rewrites a size value
        changes = SequenceMatcher(None, source.text, fixed.text, autojunk=False).get_opcodes()
        assert sum(i2 - i1 for tag, i1, i2, _, _ in changes if tag != "equal") <= 16
