"""Path safety: a run reads and writes only inside the checked tree.

A configuration, baseline, ``.gitignore``, chart file or checked file linked out of the repository is refused
unread (and said so); a fix, a report or a baseline is never written through a link or a linked folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from shmlint.baseline import BaselineError, load_baseline
from shmlint.config import find_config, load_effective
from shmlint.infile import CONFIG_MAX_BYTES
from tests.hostile import POD_TEMPLATE, SECRET, TORCHRUN_POD, assert_clean_error, config_error
from tests.support import run_shmlint, run_shmlint_bytes


def test_fix_does_not_write_through_a_link_out_of_the_tree(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "x.yaml").write_text(POD_TEMPLATE.format(name="x"), encoding="utf-8")
    (tree / "link.yaml").symlink_to("../outside/x.yaml")
    (tree / "real.yaml").write_text(POD_TEMPLATE.format(name="real"), encoding="utf-8")
    (tree / "inner-link.yaml").symlink_to("real.yaml")
    run = run_shmlint_bytes("fix", "--write", "tree", cwd=tmp_path)
    said = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    assert run.returncode == 0 and "Traceback" not in said and "internal error" not in said, said
    # discovery already refuses to read it (a note `check` prints), so no fix is attempted through it
    assert "link.yaml" not in said.replace("inner-link.yaml", ""), said
    checked = run_shmlint("check", "tree", cwd=tmp_path).stdout
    assert "tree/link.yaml: note: a link out of the repository" in checked, checked
    assert (outside / "x.yaml").read_text(encoding="utf-8") == POD_TEMPLATE.format(name="x")
    assert "dshm" in (tree / "real.yaml").read_text(encoding="utf-8")  # a link inside the tree is fine
    assert (tree / "inner-link.yaml").is_symlink()


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
def test_report_and_baseline_are_never_written_through_a_link(tmp_path: Path, option: str) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    (repo / "shmlint.sarif").symlink_to(victim)
    run = run_shmlint_bytes("check", "--format", "sarif", option, "repo/shmlint.sarif", "repo", cwd=tmp_path)
    assert_clean_error(run, "repo/shmlint.sarif: is a symbolic link")
    assert victim.read_text(encoding="utf-8") == "precious\n"


SHADOW = "".join(
    f"user{n}:$6$Zq8sAltSalt$hAsHeDpAsSwOrDvAlUe{n}xxxxxxxxxxxxxxxxxxxxxxxx:19000:0:99999:7:::\n" for n in range(9)
)


def runner_file(tmp_path: Path, text: str = SECRET) -> Path:
    """A file of the machine outside the checked repository (``~/.ssh/id_ed25519``)."""
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_ed25519").write_text(text, encoding="utf-8")
    return outside / "id_ed25519"


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pod.yaml").write_text(TORCHRUN_POD, encoding="utf-8")
    return repo


@pytest.mark.parametrize("name", [".shmlint.yaml", ".shmlint.yml", "pyproject.toml"])
@pytest.mark.parametrize(
    "text", [SECRET, SHADOW, "[tool.shmlint]\nselect = ['" + "k" * 60 + "']\n"], ids=["key", "shadow", "toml"]
)
def test_a_config_linked_out_of_the_repository_is_refused_unread(tmp_path: Path, name: str, text: str) -> None:
    repo = repository(tmp_path)
    (repo / name).symlink_to(runner_file(tmp_path, text))
    message = config_error(repo)
    assert name in message and "a link out of the repository" in message
    assert "user0" not in message and "BEGIN" not in message and "kkk" not in message


def test_a_config_linked_into_git_is_refused(tmp_path: Path) -> None:
    """``.git/config`` holds the checkout's token (``http.extraheader``)."""
    repo = repository(tmp_path)
    (repo / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n", encoding="utf-8")
    (repo / ".shmlint.yaml").symlink_to(".git/config")
    message = config_error(repo)
    assert "inside .git" in message and "c2VjcmV0" not in message


def test_a_config_linked_within_the_repository_is_read(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "ci").mkdir()
    (repo / "ci" / "shmlint.yaml").write_text("fail-on: error\n", encoding="utf-8")
    (repo / "sub").mkdir()
    (repo / "sub" / ".shmlint.yaml").symlink_to("../ci/shmlint.yaml")
    assert load_effective(repo / "sub").settings.fail_on.label == "error"


def test_outside_a_git_repository_the_link_must_stay_in_its_folder(tmp_path: Path) -> None:
    (tmp_path / "checked").mkdir()
    (tmp_path / "checked" / ".shmlint.yaml").symlink_to(runner_file(tmp_path))
    assert "a link out of the repository" in config_error(tmp_path / "checked")


def test_a_config_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / ".shmlint.yaml").write_text("# x\n" * (CONFIG_MAX_BYTES // 4 + 1), encoding="utf-8")
    assert "larger than" in config_error(repo)


def test_check_refuses_the_linked_config_and_names_it(tmp_path: Path) -> None:
    """End to end, as a fork's pull request would run it in CI."""
    repo = repository(tmp_path)
    (repo / ".shmlint.yaml").symlink_to(runner_file(tmp_path))
    run = run_shmlint("check", ".", cwd=repo)
    assert run.returncode == 2 and ".shmlint.yaml" in run.stderr and "Traceback" not in run.stderr
    assert "OPENSSH" not in run.stdout + run.stderr and "b3Blbn" not in run.stdout + run.stderr


def test_find_config_returns_the_planted_link_to_be_refused_when_read(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / ".shmlint.yaml").symlink_to(runner_file(tmp_path))
    assert find_config(repo) == repo / ".shmlint.yaml"


def test_a_baseline_linked_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "baseline.json").symlink_to(runner_file(tmp_path, '{"schema_version": 2, "entries": "' + "x" * 99 + '"}'))
    with pytest.raises(BaselineError, match="a link out of the repository") as error:
        load_baseline(repo / "baseline.json")
    assert "xxx" not in str(error.value)


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "huge"])
def test_a_baseline_that_is_not_a_small_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """A FIFO hung the run, ``/dev/zero`` grew it to gigabytes."""
    from shmlint.baseline import MAX_BASELINE_BYTES

    path = tmp_path / "b.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as handle:
            handle.truncate(MAX_BASELINE_BYTES + 1)
    with pytest.raises(BaselineError, match=r"not a regular file|is a folder|above the limit"):
        load_baseline(path)


def test_a_gitignore_linked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    """Its patterns would be quoted when refused as too costly; the files it would exclude are checked."""
    repo = repository(tmp_path)
    (repo / ".gitignore").symlink_to(runner_file(tmp_path, "pod.yaml\n" + "*a" * 40 + "\n"))
    run = run_shmlint("check", "--format", "text", ".", cwd=repo)
    assert "pod.yaml" in run.stdout and "*a*a" not in run.stdout + run.stderr


@pytest.mark.parametrize("target", ["reports/x.sarif", "reports/deep/x.sarif", "a/reports/x.sarif", "x.sarif"])
def test_output_is_never_written_through_a_linked_folder_or_file(tmp_path: Path, target: str) -> None:
    """``reports -> ~/.config`` planted in the pull request: the report would land outside the tree."""
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    repo = repository(tmp_path)
    (repo / "a").mkdir()
    (repo / "reports").symlink_to(outside)
    (repo / "a" / "reports").symlink_to(outside)
    (repo / "x.sarif").symlink_to(outside / "x.sarif")
    run = run_shmlint("check", "--format", "sarif", "--output", target, "pod.yaml", cwd=repo)
    assert run.returncode == 2 and "is a symbolic link" in run.stderr and "Traceback" not in run.stderr
    assert list(outside.rglob("*.sarif")) == []


def test_output_and_baseline_are_written_through_real_folders(tmp_path: Path) -> None:
    from shmlint.outfile import write_text_file

    (tmp_path / "a" / "b").mkdir(parents=True)
    write_text_file(tmp_path / "a" / "b" / "r.txt", "ok\n", "report")
    assert (tmp_path / "a" / "b" / "r.txt").read_text() == "ok\n"
    repo = repository(tmp_path)
    (repo / "out").mkdir()
    run = run_shmlint("check", "--write-baseline", "out/./b.json", "--output", "./out/r.txt", "pod.yaml", cwd=repo)
    assert (repo / "out" / "b.json").is_file() and (repo / "out" / "r.txt").is_file(), run.stderr


def test_a_linked_folder_is_refused_for_the_baseline_too(tmp_path: Path) -> None:
    from shmlint.outfile import OutputError, write_text_file

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OutputError, match="link: is a symbolic link"):
        write_text_file(tmp_path / "link" / "b.json", "{}", "baseline")
    assert not (tmp_path / "real" / "b.json").exists()


def helm_chart(root: Path) -> Path:
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n", encoding="utf-8")
    (root / "templates" / "cm.yaml").write_text('data:\n  k: {{ .Files.Get "files/key" | quote }}\n')
    (root / "files").mkdir()
    return root


@pytest.mark.parametrize("where", ["files/key", "files/sub", "templates/_x.tpl", "charts/dep"])
def test_a_chart_with_a_link_out_of_the_repository_is_not_rendered(tmp_path: Path, where: str) -> None:
    from shmlint.render.links import chart_blocker

    repo = repository(tmp_path)
    root = helm_chart(repo / "chart")
    (root / "charts").mkdir()
    secret = runner_file(tmp_path)
    (root / where).symlink_to(secret if "." in where or where == "files/key" else secret.parent)
    blocker = chart_blocker(root)
    assert blocker is not None and where in blocker and "out of the repository" in blocker


def test_a_link_inside_the_repository_is_followed_and_checked_behind(tmp_path: Path) -> None:
    """Helm follows a link to a folder: what is behind it is held to the same rule."""
    from shmlint.render.links import chart_blocker

    repo = repository(tmp_path)
    root = helm_chart(repo / "chart")
    (repo / "shared").mkdir()
    (repo / "shared" / "key").write_text("k\n")
    (root / "files" / "key").symlink_to(repo / "shared" / "key")
    (root / "files" / "shared").symlink_to(repo / "shared")
    (root / "files" / "loop").symlink_to(root)  # a loop is walked once
    assert chart_blocker(root) is None
    (repo / "shared" / "git").symlink_to(repo / ".git")
    assert "into .git" in (chart_blocker(root) or "")
    (repo / "shared" / "git").unlink()
    (repo / "shared" / "away").symlink_to(runner_file(tmp_path))
    assert "shared/away" in (chart_blocker(root) or "")


def test_check_reports_the_chart_as_not_rendered_and_never_runs_helm(tmp_path: Path) -> None:
    """A helm that records its calls stands in: the chart with the planted link never reaches it."""
    repo = repository(tmp_path)
    root = helm_chart(repo / "chart")
    (root / "files" / "key").symlink_to(runner_file(tmp_path))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "helm.log"
    helm = bin_dir / "helm"
    helm.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\necho 'v3.15.0'\n")
    helm.chmod(0o755)
    path = f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin"
    run = run_shmlint("check", "--render", "auto", "chart", cwd=repo, env={"PATH": path}, timeout=60)
    assert "Helm chart not rendered" in run.stdout and "files/key" in run.stdout, run.stdout + run.stderr
    assert "template" not in (log.read_text() if log.exists() else "")
    assert "OPENSSH" not in run.stdout + run.stderr


def test_a_checked_file_linked_out_of_the_repository_is_neither_read_nor_shown(tmp_path: Path) -> None:
    """``deploy.yaml -> ~/.ssh/id_ed25519`` in a pull request: the walk and a named path say it is a link out of the
    repository (SHM000) and never read it, so no message, ``--show-source`` line or fix shows the runner's file.
    The control: a link that stays inside the repository is checked as the file it names."""
    secret = tmp_path / "runner" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n  bad: [\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "deploy.yaml").symlink_to(secret)
    (repo / "real.yaml").write_text("kind: Pod\n  bad: [\n")
    (repo / "inside.yaml").symlink_to(repo / "real.yaml")
    reported = {  # walked: a note (the link is the repository's pointer); named: an error (the file asked for)
        ("check", "--show-source", "."): "deploy.yaml: note: a link out of the repository",
        ("check", "--show-source", "deploy.yaml"): "deploy.yaml:1:1: SHM000 [error] a link out of the repository",
        ("fix", "--write", "."): "",
    }
    for args, expected in reported.items():
        done = run_shmlint(*args, cwd=repo)
        said = done.stdout + done.stderr
        assert "PRIVATE KEY" not in said and "bad: [" not in said.split("inside.yaml")[0], said
        assert expected in said, said
    assert secret.read_text().startswith("-----BEGIN OPENSSH PRIVATE KEY-----\n  bad: [\n")
    inside = run_shmlint("check", "inside.yaml", cwd=repo)
    assert "invalid YAML" in inside.stdout, inside.stdout


def test_a_named_folder_linked_out_of_the_repository_is_neither_read_nor_fixed(tmp_path: Path) -> None:
    """``sub -> ../outside`` in a pull request (pre-commit hands the link over as a changed file): naming it does
    not walk the folder outside, so ``fix --write`` changes nothing there. The control: a link to a folder inside
    the repository is walked."""
    outside = tmp_path / "outside"
    outside.mkdir()
    script = outside / "run.sh"
    script.write_text("docker run --gpus all pytorch/pytorch python train.py --num-workers 8\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").symlink_to("../outside")
    (repo / "own").mkdir()
    (repo / "own" / "run.sh").write_text(script.read_text())
    (repo / "inside").symlink_to("own")
    for args in (["fix", "--write", "sub"], ["check", "sub/"]):
        said = run_shmlint(*args, cwd=repo).stdout
        assert "sub:1:1: SHM000" in said and "a link out of the repository" in said, said
    assert script.read_text() == "docker run --gpus all pytorch/pytorch python train.py --num-workers 8\n"
    assert "inside/run.sh:1:1: SHM001" in run_shmlint("check", "inside", cwd=repo).stdout


def test_a_link_inside_a_walked_tree_without_git_is_checked(tmp_path: Path) -> None:
    """Without ``.git`` the tree is the folder walked: ``docs/readme.md -> ../src/README.md`` stays inside it and is
    checked (a documentation page linked to the package's README), while a link out of the walked folder is not."""
    (tmp_path / "tree" / "docs").mkdir(parents=True)
    (tmp_path / "tree" / "src").mkdir()
    (tmp_path / "tree" / "src" / "README.md").write_text(
        "```sh\ndocker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n```\n"
    )
    (tmp_path / "tree" / "docs" / "readme.md").symlink_to("../src/README.md")
    (tmp_path / "outside.md").write_text(
        "```sh\ndocker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n```\n"
    )
    (tmp_path / "tree" / "docs" / "out.md").symlink_to("../../outside.md")
    said = run_shmlint("check", "tree", cwd=tmp_path).stdout
    assert "tree/docs/readme.md:2:1: SHM001" in said and "tree/src/README.md:2:1: SHM001" in said, said
    assert "tree/docs/out.md: note: a link out of the repository" in said, said


def test_a_link_out_whose_name_names_no_checked_format_is_not_a_finding(tmp_path: Path) -> None:
    """``outputs/artifacts -> /workspace/data`` or ``bin/tool -> /usr/bin/env``: a link out of the repository whose
    name says no format shmlint reads (only its content could, and it is not read) is no file to check and not
    said; a ``.yaml`` link out is said in a note (the control), never failing the gate (audit49: an engine's
    ``config.json -> /opt/...`` inside its image failed the run)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "outputs").mkdir()
    (repo / "outputs" / "artifacts").symlink_to("/workspace/data/artifacts")
    (repo / "tool").symlink_to(tmp_path)
    clean = run_shmlint("check", ".", cwd=repo)
    assert clean.returncode == 0 and "SHM000" not in clean.stdout, clean.stdout
    (repo / "deploy.yaml").symlink_to("/workspace/deploy.yaml")
    flagged = run_shmlint("check", ".", cwd=repo)
    assert flagged.returncode == 0 and "SHM000" not in flagged.stdout, flagged.stdout
    assert "deploy.yaml: note: a link out of the repository" in flagged.stdout, flagged.stdout
    assert "artifacts" not in flagged.stdout, flagged.stdout
