"""Terraform and Python launcher files from public repositories, read from local git mirrors at pinned commits.

The files are never copied into this repository: set SHMLINT_REAL_MIRROR to a folder of mirrors laid out as
``owner+name/repo`` (the default is /work/.mirror); without one the test skips and says so.
"""

from __future__ import annotations

import os
import subprocess
import tomllib
from dataclasses import replace
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from shmlint.discover import kind_by_name
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.parsers.syntax import parse_error
from shmlint.source import SourceText
from tests.support import ROOT

MANIFEST = tomllib.loads((ROOT / "tests" / "data" / "real_launchers.toml").read_text(encoding="utf-8"))["file"]
MIRROR = Path(os.environ.get("SHMLINT_REAL_MIRROR", "/work/.mirror"))


def _read(entry: dict[str, str]) -> bytes:
    git_dir = MIRROR / entry["repo"].replace("/", "+") / "repo"
    if not git_dir.is_dir():
        pytest.skip(f"no mirror of {entry['repo']} at {git_dir}: set SHMLINT_REAL_MIRROR to a folder of git mirrors")
    shown = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{entry['commit']}:{entry['path']}"],
        capture_output=True,
        check=False,
    )
    if shown.returncode != 0:
        pytest.skip(f"{entry['repo']} mirror lacks {entry['commit']}: {shown.stderr.decode(errors='replace')}")
    return shown.stdout


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: f"{e['repo']}:{e['path']}")
def test_real_file_findings_and_fix(engine: Engine, entry: dict[str, str]) -> None:
    path = Path(entry["path"])
    kind = kind_by_name(path)
    assert kind is not None
    source = SourceText.from_bytes(entry["path"], _read(entry))
    result = engine.check_source(source, kind, path)
    assert [f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings] == entry["expect"]
    fixed = fix_source(engine, source, kind, path, checked=result)
    assert not fixed.problems
    if any(f.fixable for f in result.findings):
        assert fixed.changed
        after = replace(source, text=fixed.text)
        assert parse_error(after, kind, strict=True) is None
        assert not any(f.fixable for f in engine.check_source(after, kind, path).findings)
        # byte-minimal: the fix inserts text, and at most rewrites a size value
        changes = SequenceMatcher(None, source.text, fixed.text, autojunk=False).get_opcodes()
        assert sum(i2 - i1 for tag, i1, i2, _, _ in changes if tag != "equal") <= 16
