"""Start-up cost a pre-commit hook pays on every commit: checking a clean file loads only what a clean file needs.

Observed in the real entry point with ``python -X importtime``, which lists every module the run imported.
"""

from __future__ import annotations

from pathlib import Path

from tests.support import FIXTURES

#: what a clean file must not load: the rules, the catalog, the fixers and their edits, the Helm/kustomize renderer
#: (the model is loaded: it holds the report types every run returns)
NOT_FOR_A_CLEAN_FILE = ("shmlint.rules", "shmlint.catalog", "shmlint.fix", "shmlint.edits", "shmlint.render")


def imported(stderr: str) -> set[str]:
    """Module names from ``-X importtime`` lines: ``import time: self | cumulative | name``."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def loaded_by(shmlint_process, path: Path) -> tuple[int, set[str]]:
    done = shmlint_process("check", str(path), env={"PYTHONPROFILEIMPORTTIME": "1"})
    return done.returncode, imported(done.stderr)


def test_a_clean_file_loads_neither_rules_nor_fixers(shmlint_process, tmp_path: Path) -> None:
    clean = tmp_path / "configmap.yaml"
    clean.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: debug\n")
    code, modules = loaded_by(shmlint_process, clean)
    assert code == 0
    assert "shmlint.cli" in modules  # the listing works
    loaded = sorted(
        m for m in modules if m in NOT_FOR_A_CLEAN_FILE or m.startswith(tuple(f"{n}." for n in NOT_FOR_A_CLEAN_FILE))
    )
    assert not loaded, loaded


def test_a_flagged_file_does_load_them(shmlint_process) -> None:
    """The control: the same observation sees the rules and the catalog when there is something to report."""
    code, modules = loaded_by(shmlint_process, FIXTURES / "examples" / "trainer-deployment.yaml")
    assert code == 1
    assert {"shmlint.rules", "shmlint.catalog"} <= modules
