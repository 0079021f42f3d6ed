"""The real pre-commit passes the new kinds to shmlint: reStructuredText, MDX, Quarto, Jupyter notebooks (tagged
``json`` too), PowerShell and cmd scripts through the ``shmlint`` hook's ``types_or``, systemd and Quadlet units through ``shmlint-units`` (identify has no tag for them, so that
hook selects them by ``files``), and leaves out what neither hook is for."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from identify import identify

from tests.support import FIXTURES, ROOT, git, pre_commit_env, pre_commit_work_tree, try_repo

HOOKS = ROOT / ".pre-commit-hooks.yaml"
FLAGGED = {
    "guide.rst": FIXTURES / "docs" / "commands" / "SHM001-console.rst",
    "job.qmd": FIXTURES / "docs" / "k8s" / "SHM001-job.qmd",
    "serve.mdx": FIXTURES / "docs" / "k8s" / "SHM001-deployment.mdx",
    "serve.ipynb": FIXTURES / "notebook" / "SHM001-notebook.ipynb",
    "train.ps1": FIXTURES / "windows" / "SHM001-train.ps1",  # PowerShell and cmd scripts (identify: powershell, batch)
    "train.bat": FIXTURES / "windows" / "SHM001-train.bat",
}
UNITS = {
    "trainer.container": FIXTURES / "units" / "quadlet" / "SHM001-trainer.container",
    "inference.service": FIXTURES / "units" / "systemd" / "SHM001-inference.service",
}


def test_the_type_tags_the_hooks_name_are_the_ones_identify_gives_these_files() -> None:
    import yaml

    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    for name in FLAGGED:
        assert identify.tags_from_filename(name) & set(hooks["shmlint"]["types_or"]), name
    for name in UNITS:  # no tag of their own: the units hooks select them by name
        assert not identify.tags_from_filename(name) & set(hooks["shmlint"]["types_or"]), name
        assert hooks["shmlint-units"]["files"] == hooks["shmlint-units-fix"]["files"]


@pytest.mark.slow
def test_pre_commit_runs_shmlint_on_documentation_and_units(tmp_path: Path) -> None:
    work = pre_commit_work_tree(tmp_path)
    (work / ".shmlint.yaml").write_text("undecided: strict\n")  # the fixtures' software is not all known
    for name, source in {**FLAGGED, **UNITS}.items():
        shutil.copyfile(source, work / name)
    shutil.copyfile(FIXTURES / "k8s" / "SHM001-crlf.yaml", work / "job.yaml.tpl")  # no type tag: by name
    (work / "notes.txt").write_text("docker run --gpus all pytorch/pytorch python train.py\n")  # no hook's kind
    git(work, "add", ".")
    env = pre_commit_env(tmp_path)

    def run_hook(hook: str) -> subprocess.CompletedProcess[str]:
        return try_repo(work, env, hook, "--all-files", "--verbose")

    docs = run_hook("shmlint")
    assert docs.returncode == 1, docs.stdout + docs.stderr
    for name in FLAGGED:
        assert f"{name}:" in docs.stdout, docs.stdout
    assert (
        "notes.txt" not in docs.stdout and "trainer.container" not in docs.stdout and "job.yaml.tpl" not in docs.stdout
    )
    units = run_hook("shmlint-units")
    assert units.returncode == 1, units.stdout + units.stderr
    assert "trainer.container:6:1: SHM001" in units.stdout and "inference.service:9:11: SHM001" in units.stdout
    assert "guide.rst" not in units.stdout
    templates = run_hook("shmlint-templates")
    assert templates.returncode == 1, templates.stdout + templates.stderr
    assert "job.yaml.tpl:" in templates.stdout and "SHM001" in templates.stdout and "guide.rst" not in templates.stdout


def test_every_template_name_check_reads_reaches_a_hook() -> None:
    """A manifest named as a template (``deploy.yaml.tpl``) is read by ``check .``; the ``shmlint`` hook takes the
    names identify tags (``.j2``: jinja), the ``shmlint-templates`` hooks the others by name (they got no hook)."""
    import re

    import yaml

    from shmlint.formats.kubernetes import TEMPLATE_ENDINGS

    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert hooks["shmlint-templates"]["files"] == hooks["shmlint-templates-fix"]["files"]
    for ending in TEMPLATE_ENDINGS:
        name = f"deploy/app{ending}"
        tagged = identify.tags_from_filename(name) & set(hooks["shmlint"]["types_or"])
        by_name = re.search(hooks["shmlint-templates"]["files"], name) is not None
        assert tagged != by_name, ending  # exactly one hook takes it: never checked twice, never missed
    assert re.search(hooks["shmlint-templates"]["files"], "values.yaml") is None


def test_every_hook_runs_once_over_all_files_and_takes_jinja_templates() -> None:
    """pre-commit splits the files among parallel runs unless a hook is serial: a script's image is known by the
    build another file writes, so a split run judged differently from ``shmlint check .``. A ``.yaml.j2`` template
    (identify tags it ``jinja``) is read as ``check .`` reads it."""
    import yaml

    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks if not hook["require_serial"]] == []
    names = {hook["id"]: hook for hook in hooks}
    for hook in ("shmlint", "shmlint-fix"):
        assert identify.tags_from_filename("deploy.yaml.j2") & set(names[hook]["types_or"])
