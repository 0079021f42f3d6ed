"""``exclude``/``extend-exclude`` hold everywhere: ``--force-exclude`` for paths named on the command line (as
pre-commit names every changed file), the pre-commit hooks, and the Language Server's open buffers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from shmlint.discover import force_excluded
from shmlint.server.analysis import Analyzer
from shmlint.settings import Settings
from tests.support import FIXTURES, ROOT, git, pre_commit_env, pre_commit_work_tree, try_repo

FLAGGED = (FIXTURES / "examples" / "trainer-deployment.yaml").read_text()
SCRIPT = "docker run --gpus all pytorch/pytorch torchrun train.py\n"


def project(tmp_path: Path, config: str = 'extend-exclude: ["vendor/", "*.gen.yaml"]\n') -> Path:
    """A project with a configuration excluding ``vendor/`` and generated files, and a flagged file in each place."""
    root = tmp_path / "project"
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / ".shmlint.yaml").write_text(config)
    for name in ("vendor/lib/train.yaml", "app.gen.yaml", "app.yaml"):
        (root / name).write_text(FLAGGED)
    return root


@pytest.mark.parametrize(
    ("relative", "excluded"),
    [
        ("vendor", True),
        ("vendor/lib/train.yaml", True),  # a folder above it is named
        ("app.gen.yaml", True),
        ("app.yaml", False),
        ("src/vendor.yaml", False),  # `vendor/` names folders only
    ],
)
def test_force_excluded_asks_as_a_folder_walk_would(tmp_path: Path, relative: str, excluded: bool) -> None:
    root = project(tmp_path)
    settings = Settings(exclude=(*Settings().exclude, "vendor/", "*.gen.yaml"), pattern_root=str(root))
    assert force_excluded(str(root / relative), settings) is excluded


def test_named_files_are_checked_unless_force_exclude(invoke, tmp_path: Path) -> None:
    root = project(tmp_path)
    named = ("vendor/lib/train.yaml", "app.gen.yaml", "app.yaml")
    plain = invoke("check", *named, cwd=root)
    assert plain.exit_code == 1 and {
        line.split(":")[0] for line in plain.stdout.splitlines() if ": SHM" in line
    } == set(named)
    forced = invoke("check", "--force-exclude", *named, cwd=root)
    assert forced.exit_code == 1
    assert [line.split(":")[0] for line in forced.stdout.splitlines() if ": SHM" in line] == ["app.yaml"]
    assert invoke("check", "--force-exclude", "vendor", cwd=root).exit_code == 0  # a named folder as well


def test_force_exclude_from_the_configuration_and_off_again(invoke, tmp_path: Path) -> None:
    root = project(tmp_path, 'extend-exclude: ["vendor/"]\nforce-exclude: true\n')
    assert invoke("check", "vendor/lib/train.yaml", cwd=root).exit_code == 0
    assert invoke("check", "--no-force-exclude", "vendor/lib/train.yaml", cwd=root).exit_code == 1
    shown = invoke("config", cwd=root).stdout
    assert "force-exclude: true  # from " in shown and ".shmlint.yaml" in shown


def test_fix_write_leaves_a_force_excluded_file_alone(invoke, tmp_path: Path) -> None:
    root = project(tmp_path)
    done = invoke("fix", "--write", "--force-exclude", "vendor/lib/train.yaml", "app.yaml", cwd=root)
    assert done.exit_code == 0, done.output
    assert (root / "vendor" / "lib" / "train.yaml").read_text() == FLAGGED
    assert (root / "app.yaml").read_text() != FLAGGED


def test_the_pre_commit_hooks_force_exclude() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hooks and all("--force-exclude" in hook["entry"].split() for hook in hooks)


def test_the_language_server_honours_exclude_for_open_files(tmp_path: Path) -> None:
    root = project(tmp_path, 'extend-exclude: ["vendor/"]\n')
    analyzer = Analyzer()
    vendored = analyzer.check(root / "vendor" / "lib" / "train.sh", SCRIPT)
    assert vendored.result.findings == () and vendored.kind is None  # no diagnostics, no quick fixes
    assert analyzer.fix_all(vendored) is None
    own = analyzer.check(root / "train.sh", SCRIPT)
    assert [f.code for f in own.result.findings] == ["SHM001"]


@pytest.mark.slow
def test_pre_commit_fix_hook_leaves_an_excluded_vendored_file_untouched(tmp_path: Path) -> None:
    """The real pre-commit passes every changed file by name; the configuration's ``extend-exclude`` still holds."""
    work = pre_commit_work_tree(tmp_path)
    (work / "vendor").mkdir()
    (work / "vendor" / "upstream.yaml").write_text(FLAGGED)
    (work / "train.yaml").write_text(FLAGGED)
    (work / ".shmlint.yaml").write_text('extend-exclude: ["vendor/"]\n')
    git(work, "add", ".")
    env = pre_commit_env(tmp_path)

    done = try_repo(work, env, "shmlint-fix", "--all-files")
    assert done.returncode == 1, done.stdout + done.stderr  # pre-commit fails a hook that changed files
    assert (work / "vendor" / "upstream.yaml").read_text() == FLAGGED
    assert (work / "train.yaml").read_text() != FLAGGED and "/dev/shm" in (work / "train.yaml").read_text()
    git(work, "add", ".")
    checked = try_repo(work, env, "shmlint", "--all-files")
    assert checked.returncode == 0, checked.stdout + checked.stderr  # the vendored file is not checked either
