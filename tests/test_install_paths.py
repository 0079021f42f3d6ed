"""Install paths that work before and after a release: the README's commands name the repository at the release
tag of this version (no package index entry needed), and ``python -m build`` makes an sdist and a wheel that
``twine check`` accepts and that install and run in a clean virtual environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
from pathlib import Path

import pytest
import yaml

import shmlint
from tests.support import FIXTURES, ROOT

TAG = f"v{shmlint.__version__}"


def homepage() -> str:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        url: str = tomllib.load(handle)["project"]["urls"]["Homepage"]
    return url


def code_blocks(text: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL)


def test_readme_install_commands_name_the_repository_at_this_versions_tag() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    references = re.findall(r"git\+(https://\S+?)@([\w.-]+)", readme)
    assert len(references) >= 4, references  # pipx, uv, pip with the lsp extra, the CI snippets
    assert {url for url, _ in references} == {homepage()}
    assert {tag for _, tag in references} == {TAG}
    install = code_blocks(readme[readme.index("## Install") :])[0]
    assert [line.split("git+")[0].strip() for line in install.splitlines()] == [
        "pipx install",
        "uv tool install",
        'python3 -m pip install "shmlint[lsp] @',
    ]


def test_no_code_block_installs_from_a_package_index_entry_that_does_not_exist() -> None:
    """Until the first release PyPI has no shmlint: a command block never says ``pip install shmlint``."""
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in code_blocks(document.read_text(encoding="utf-8")):
            for line in block.splitlines():
                command = line.split("#", 1)[0]
                assert not re.search(r"\b(pipx?|uv tool|uv pip) install\s+['\"]?shmlint\b(?!\[lsp\] @)", command), (
                    f"{document.name}: {line}"
                )


def test_pre_commit_and_action_snippets_pin_this_versions_tag() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    config = yaml.safe_load(code_blocks(readme[readme.index("**pre-commit**") :])[0])
    (repository,) = config["repos"]
    assert repository == {**repository, "repo": homepage(), "rev": TAG}
    assert re.findall(r"uses: shmlint/shmlint@(\S+)", readme) == [TAG]
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert f"#     rev: {TAG} " in hooks and "rev: main" not in hooks


def test_the_release_checklist_is_in_contributing() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    checklist = text[text.index("## Release checklist") :]
    for step in ("**Version**", "**CHANGELOG**", "**Tag**", "**Build**", "**Publish**"):
        assert step in checklist, step
    assert "python3 -m build" in checklist and "twine check" in checklist and "twine upload" in checklist


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.slow
def test_build_twine_check_and_a_clean_venv_install(tmp_path: Path) -> None:
    """``python -m build`` (without isolation: no test reaches the network; hatchling is a [test] dependency)
    builds the sdist and, from it, the wheel; ``twine check --strict`` accepts both; the wheel installs into a fresh
    virtual environment and its ``shmlint`` checks the bundled examples from a folder outside the checkout.

    The venv has no pip and no network: the wheel is installed with this environment's pip, and shmlint's
    dependencies are reached through a ``.pth`` line naming this environment's site-packages; shmlint itself, its
    data and its rule catalog come only from the wheel."""
    dist = tmp_path / "dist"
    built = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, ROOT, cwd=tmp_path)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob("shmlint-*.tar.gz")
    (wheel,) = dist.glob("shmlint-*.whl")
    assert sdist.name == f"shmlint-{shmlint.__version__}.tar.gz"
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"pyproject.toml", "README.md", "LICENSE", "shmlint/cli.py", "rules/schema.json"} <= names

    checked = _run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel, cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr

    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    site = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=tmp_path).stdout.strip()
    )
    installed = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    outside = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "_shmlint_test_dependencies.pth").write_text("\n".join(sorted(outside)) + "\n")

    work = tmp_path / "project"
    shutil.copytree(FIXTURES / "examples", work)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"} | {"NO_COLOR": "1"}
    where = _run(python, "-c", "import shmlint; print(shmlint.__file__)", cwd=work, env=env)
    assert where.stdout.startswith(str(environment)), where.stdout + where.stderr
    version = _run(environment / "bin" / "shmlint", "--version", cwd=work, env=env)
    assert version.stdout.strip() == f"shmlint, version {shmlint.__version__}", version.stderr
    done = _run(environment / "bin" / "shmlint", "check", ".", cwd=work, env=env)
    assert done.returncode == 1 and ": SHM001 [error]" in done.stdout, done.stdout + done.stderr
    rules = _run(environment / "bin" / "shmlint", "rules", cwd=work, env=env)
    assert rules.returncode == 0 and len(rules.stdout.splitlines()) == len(list((ROOT / "rules").glob("shm*.yaml")))
