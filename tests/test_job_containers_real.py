"""Real public dev containers, CI job containers and GitLab runner configurations, pinned in
tests/data/real_job_containers.toml and labelled there by reading them: shmlint reports exactly the listed findings,
and its fix of each (when there is one) is read back by the format's own reader with only the option added.

The files are read at their commit from git mirrors by tests/real_files.py, never copied into this repository;
without a mirror each case is skipped with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from tests.job_container_proofs import assert_only_shm_added
from tests.real_files import entry_id, load_manifest, read_pinned

CASES = load_manifest("real_job_containers.toml")


def _materialise(case: dict, root: Path) -> Path:
    path = root / case["repo"].replace("/", "+") / case["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(read_pinned(case))
    return path


def test_the_cases_cover_every_surface_with_two_repositories() -> None:
    surfaces: dict[str, set[str]] = {}
    for case in CASES:
        name = Path(case["path"]).name
        surface = (
            "devcontainer"
            if name.endswith("devcontainer.json")
            else "runner"
            if name == "config.toml"
            else ("jenkins" if "jenkinsfile" in name.lower() else "github")
        )
        surfaces.setdefault(surface, set()).add(case["repo"])
    assert {surface: len(repos) >= 2 for surface, repos in surfaces.items()} == dict.fromkeys(
        ("devcontainer", "github", "jenkins", "runner"), True
    )


@pytest.mark.parametrize("case", CASES, ids=entry_id)
def test_real_file(engine: Engine, case: dict, tmp_path: Path) -> None:
    path = _materialise(case, tmp_path)
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    found = sorted(f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings)
    assert found == sorted(case["findings"]), case["reason"]
    if result.source is None or not any(f.fixable for f in result.findings):
        return
    fixed = fix_source(engine, result.source, candidate.kind, path, unsafe=False)
    assert fixed.changed and not fixed.problems
    assert_only_shm_added(candidate.kind, result.source.text, fixed.text)
