"""Issue 27 (red team, round 3), items 1-7: what a pull request could make a run disclose or forge (runner files
through planted links, workflow commands and terminal controls through names and values, writes through a linked
folder, remote fetches through kustomize). Each test rebuilds the red team's input and asserts the defence."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from shmlint.baseline import BaselineError, load_baseline
from shmlint.config import ConfigError, find_config, load_effective
from shmlint.infile import CONFIG_MAX_BYTES
from tests.support import SHMLINT_ENV, run_shmlint

ROOT = Path(__file__).resolve().parent.parent
ENV = SHMLINT_ENV
#: what a runner file looks like: none of it may reach a message
SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
SHADOW = "".join(
    f"user{n}:$6$Zq8sAltSalt$hAsHeDpAsSwOrDvAlUe{n}xxxxxxxxxxxxxxxxxxxxxxxx:19000:0:99999:7:::\n" for n in range(9)
)
POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    command: ["torchrun", "train.py"]
"""


shmlint = functools.partial(run_shmlint, timeout=60)


def runner_file(tmp_path: Path, text: str = SECRET) -> Path:
    """A file of the machine outside the checked repository (``~/.ssh/id_ed25519``)."""
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_ed25519").write_text(text, encoding="utf-8")
    return outside / "id_ed25519"


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pod.yaml").write_text(POD, encoding="utf-8")
    return repo


def config_error(start: Path) -> str:
    with pytest.raises(ConfigError) as error:
        load_effective(start)
    return str(error.value)


# -- item 1: configuration and baseline files ------------------------------------------------------------------


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
    run = shmlint("check", ".", cwd=repo)
    assert run.returncode == 2 and ".shmlint.yaml" in run.stderr and "Traceback" not in run.stderr
    assert "OPENSSH" not in run.stdout + run.stderr and "b3Blbn" not in run.stdout + run.stderr


@pytest.mark.parametrize(
    ("text", "leak"),
    [
        (SECRET, "OPENSSH"),  # the whole file one scalar: said by its kind only
        ("select: ['" + "s" * 300 + "']\n", "s" * 50),
        ("severity: {'" + "r" * 300 + "': error}\n", "r" * 50),
        ("min-shm-size: '" + "z" * 300 + "'\n", "z" * 50),
        ("torch-images: ['(" + "q" * 300 + "']\n", "q" * 50),
        ("exclude: ['" + "*a" * 300 + "']\n", "*a" * 25),
        ("fail-on: '" + "f" * 300 + "'\n", "f" * 50),
        ("render: 12\nmax-file-size: " + "[" + "1, " * 400 + "1]\n", "1, " * 20),
        ("'" + "u" * 300 + "': 1\n", "u" * 50),
    ],
    ids=["whole-file", "select", "severity-key", "size", "regex", "pattern", "enum", "list", "unknown-key"],
)
def test_problem_messages_quote_only_a_short_excerpt(tmp_path: Path, text: str, leak: str) -> None:
    (tmp_path / ".shmlint.yaml").write_text(text, encoding="utf-8")
    message = config_error(tmp_path)
    assert leak not in message
    assert all(len(line) < 700 for line in message.splitlines())


def test_problem_messages_escape_control_characters(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text('select: ["\\e]0;pwned\\a\\n::error::x"]\n', encoding="utf-8")
    message = config_error(tmp_path)
    assert "\x1b" not in message and "\x07" not in message and "\n::error" not in message
    assert "\\x1b]0;pwned" in message


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
    """A FIFO hung the run, ``/dev/zero`` grew it to gigabytes (issue 27 item 18's first two shapes)."""
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


@hypothesis.given(st.text(max_size=400))
def test_quoted_is_short_escaped_and_keeps_both_ends(value: str) -> None:
    from shmlint.visible import _UNSAFE, QUOTED_HEAD, QUOTED_TAIL, quoted, visible

    shown = quoted(value)
    assert shown.startswith("'") and shown.endswith("'") and _UNSAFE.search(shown) is None
    if len(value) <= QUOTED_HEAD + QUOTED_TAIL + 3:
        assert shown == f"'{visible(value)}'"
    else:
        assert shown.startswith(f"'{visible(value[:QUOTED_HEAD])}...")
        assert shown.endswith(f"{visible(value[-QUOTED_TAIL:])}'")


def test_a_gitignore_linked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    """Its patterns would be quoted when refused as too costly; the files it would exclude are checked."""
    repo = repository(tmp_path)
    (repo / ".gitignore").symlink_to(runner_file(tmp_path, "pod.yaml\n" + "*a" * 40 + "\n"))
    run = shmlint("check", "--format", "text", ".", cwd=repo)
    assert "pod.yaml" in run.stdout and "*a*a" not in run.stdout + run.stderr


# -- item 2: the remote-resource guard of kustomize rendering (pure Python: no kustomize needed) ---------------


def kustomize_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "overlay"
    for name, text in {"deploy.yaml": POD, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


PATCHER = "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: {path}\ntarget:\n  kind: Pod\n"
GENERATOR = "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata:\n  name: c\n{field}:\n- {value}\n"
REMOTE_BASE = "resources:\n- https://github.com/example/repo//base?ref=v1\n"


@pytest.mark.parametrize(
    "files",
    [
        {
            "kustomization.yaml": "transformers:\n- patcher.yaml\n",
            "patcher.yaml": PATCHER.format(path="http://x.test/p"),
        },
        {
            "kustomization.yaml": "transformers:\n- patcher.yaml\n",
            "patcher.yaml": PATCHER.format(path="git@github.com:example/repo.git"),
        },
        {
            "kustomization.yaml": "generators:\n- gen.yaml\n",
            "gen.yaml": GENERATOR.format(field="files", value="https://x.test/f"),
        },
        {
            "kustomization.yaml": "generators:\n- gen.yaml\n",
            "gen.yaml": GENERATOR.format(field="files", value="key=HTTPS://x.test/f"),
        },
        {
            "kustomization.yaml": "generators:\n- gen.yaml\n",
            "gen.yaml": GENERATOR.format(field="envs", value="s3::x/e"),
        },
        {"kustomization.yaml": "resources:\n- my base\n", "my base/kustomization.yaml": REMOTE_BASE},
        {"kustomization.yaml": "resources:\n- ' my base '\n", "my base/kustomization.yaml": REMOTE_BASE},
        {
            "kustomization.yaml": "generators:\n- gens\n",
            "gens/kustomization.yaml": "resources:\n- gen.yaml\n",
            "gens/gen.yaml": GENERATOR.format(field="files", value="http://x.test/f"),
        },
        {
            "kustomization.yaml": "components:\n- comp\n",
            "comp/kustomization.yaml": "kind: Component\ntransformers:\n- p.yaml\n",
            "comp/p.yaml": PATCHER.format(path="https://x.test/p"),
        },
        {"kustomization.yaml": "patches:\n- path: https://x.test/patch.yaml\n"},
    ],
    ids=[
        "transformer-http",
        "transformer-scp",
        "generator-file",
        "generator-key-file",
        "generator-env",
        "spaced-base",
        "spaced-base-padded",
        "generator-folder",
        "component-transformer",
        "patch-url",
    ],
)
def test_the_guard_refuses_every_remote_shape_before_kustomize_runs(tmp_path: Path, files: dict[str, str]) -> None:
    from shmlint.render.graph import walk

    graph = walk(kustomize_tree(tmp_path, files), 1 << 20)
    assert graph.blocker is not None and "remote" in graph.blocker


def test_local_plugins_and_urls_inside_plain_resources_do_not_block(tmp_path: Path) -> None:
    """A resource's own values (an env URL) are objects kustomize loads nothing from; local plugin paths are fine."""
    from shmlint.render.graph import walk

    pod = POD + "    env:\n    - name: U\n      value: https://x.test/api\n"
    files = {
        "kustomization.yaml": "resources:\n- deploy.yaml\n- my base\ntransformers:\n- patcher.yaml\n",
        "deploy.yaml": pod,
        "patcher.yaml": PATCHER.format(path="patch.yaml"),
        "patch.yaml": "kind: Pod\nmetadata:\n  name: p\n",
        "my base/kustomization.yaml": "resources:\n- pod.yaml\n",
        "my base/pod.yaml": pod,
    }
    graph = walk(kustomize_tree(tmp_path, files), 1 << 20)
    assert graph.blocker is None and len(graph.folders) == 2


# -- item 3: JUnit output in a GitHub log ----------------------------------------------------------------------

FORGED = ("x\n::add-mask::secret\n::error::forged\n::stop-commands::stop\ny", "::error file=a::forged", "::warning::w")


def forged_tree(tmp_path: Path) -> Path:
    """Folders whose names forge workflow commands, each with a flagged pod (and an unreadable-looking note)."""
    repo = tmp_path / "repo"
    for name in FORGED:
        (repo / name).mkdir(parents=True)
        (repo / name / "pod.yaml").write_text(POD, encoding="utf-8")
        (repo / name / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nspec: [\n", encoding="utf-8")
    return repo


def workflow_commands(text: str) -> list[str]:
    """The lines the runner would take as workflow commands (it trims leading blanks)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::")]


def test_junit_forges_no_workflow_command(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    run = shmlint("check", "--format", "junit", ".", cwd=forged_tree(tmp_path))
    assert run.returncode == 1 and workflow_commands(run.stdout) == [], run.stdout
    cases = ET.fromstring(run.stdout).findall("testsuite/testcase")
    assert any("::add-mask::secret\\x0a::error::forged" in (case.get("classname") or "") for case in cases)


def test_the_action_prints_every_other_format_with_commands_stopped(tmp_path: Path) -> None:
    from tests.test_github_action import run_step

    forged_tree(tmp_path)
    for report in ("junit", "text", "json", "gitlab"):
        done, outputs, _ = run_step(tmp_path, format=report)
        commands = workflow_commands(done.stdout)
        assert outputs["exit-code"] == "1" and commands[0].startswith("::stop-commands::shmlint-"), report
        assert commands[-1] == "::" + commands[0].removeprefix("::stop-commands::") + "::", report
        assert done.stdout.index(commands[0]) < done.stdout.index("pod.yaml") < done.stdout.rindex(commands[-1])


# -- item 4: control characters in fix output, unrendered notes and the validate table -------------------------

#: a file name that retitles the terminal, clears it, and forges a diff header on a line of its own
HOSTILE = "p\x1b]0;T\x07\x1b[2J\n+++ evil\u202e"


def assert_no_controls(text: str) -> None:
    assert not any(c in text for c in "\x1b\x07\u202e"), text
    assert "\n+++ evil" not in text and "\\x1b]0;T\\x07" in text


def test_fix_diff_headers_and_fixed_lines_are_escaped(tmp_path: Path) -> None:
    name = HOSTILE + ".yaml"
    (tmp_path / name).write_text(POD, encoding="utf-8")
    shown = shmlint("fix", "--", name, cwd=tmp_path)
    assert shown.returncode == 1 and shown.stdout.count("\n+++ ") == 1
    assert_no_controls(shown.stdout)
    written = shmlint("fix", "--write", "--", name, cwd=tmp_path)
    assert written.returncode == 0 and "fixed 1 finding(s)" in written.stdout
    assert_no_controls(written.stdout)


def test_fix_not_fixed_lines_are_escaped(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("max-file-size: 16\n", encoding="utf-8")
    (tmp_path / (HOSTILE + ".yaml")).write_text(POD, encoding="utf-8")
    run = shmlint("fix", ".", cwd=tmp_path)
    assert "not fixed" in run.stderr
    assert_no_controls(run.stderr)


@pytest.mark.parametrize("quiet", [False, True])
def test_unrendered_notes_are_escaped(tmp_path: Path, quiet: bool) -> None:
    chart = tmp_path / HOSTILE
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "templates" / "pod.yaml").write_text(POD.replace("name: p", "name: {{ .Release.Name }}"))
    environment = {**ENV, "PATH": str(Path(sys.executable).parent)}  # no helm
    run = subprocess.run(
        [sys.executable, "-m", "shmlint", "check", *(["--quiet"] if quiet else []), "--", str(chart)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    shown = run.stderr if quiet else run.stdout
    assert "Helm chart not rendered" in shown
    assert_no_controls(shown)


def test_the_validate_table_escapes_names_and_keeps_one_row_each() -> None:
    from shmlint.model import DataLoaderHint
    from shmlint.validate.harness import Case, Row, render

    case = Case(HOSTILE + "|x.yaml", "Pod/p|q", None, False, ("SHM001",), DataLoaderHint(2, 8, 1024), True, "?")
    table = render([Row(case, "namespace", None, 0.0)])
    assert len(table.splitlines()) == 3 and "\\|x.yaml" in table and "Pod/p\\|q" in table
    assert_no_controls(table)


# -- item 5: --output through a linked folder ------------------------------------------------------------------


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
    run = shmlint("check", "--format", "sarif", "--output", target, "pod.yaml", cwd=repo)
    assert run.returncode == 2 and "is a symbolic link" in run.stderr and "Traceback" not in run.stderr
    assert list(outside.rglob("*.sarif")) == []


def test_output_and_baseline_are_written_through_real_folders(tmp_path: Path) -> None:
    from shmlint.outfile import write_text_file

    (tmp_path / "a" / "b").mkdir(parents=True)
    write_text_file(tmp_path / "a" / "b" / "r.txt", "ok\n", "report")
    assert (tmp_path / "a" / "b" / "r.txt").read_text() == "ok\n"
    repo = repository(tmp_path)
    (repo / "out").mkdir()
    run = shmlint("check", "--write-baseline", "out/./b.json", "--output", "./out/r.txt", "pod.yaml", cwd=repo)
    assert (repo / "out" / "b.json").is_file() and (repo / "out" / "r.txt").is_file(), run.stderr


def test_a_linked_folder_is_refused_for_the_baseline_too(tmp_path: Path) -> None:
    from shmlint.outfile import OutputError, write_text_file

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OutputError, match="link: is a symbolic link"):
        write_text_file(tmp_path / "link" / "b.json", "{}", "baseline")
    assert not (tmp_path / "real" / "b.json").exists()


# -- item 6: the editor's hover renders Markdown -----------------------------------------------------------------

MARKUP = "[a](https://evil.test) <img> **b**"  # a name is quoted in part: the start is checked


def test_hover_shows_yaml_values_as_text_not_markdown() -> None:
    import re

    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.server.analysis import explain
    from shmlint.settings import Settings
    from shmlint.source import SourceText

    pod = POD.replace("name: train", f"name: '{MARKUP}'")
    result = Engine(Settings()).check_source(SourceText("pod.yaml", pod), FileKind.YAML, "pod.yaml")
    finding = next(f for f in result.findings if "evil.test" in f.message)
    hover = explain(finding)
    body = hover.split("\n\n")[1]  # the finding's own message: the rest is the catalog's Markdown
    assert "\\[a\\](https://evil.test)" in body and "&lt;img&gt;" in body
    assert re.search(r"(?<!\\)[\[\]*`<>]", body) is None, body


def test_markdown_escapes_what_makes_syntax_inline_and_at_the_start() -> None:
    from shmlint.visible import markdown

    text = markdown("~ | _a_ \\ <b> & `c` *e* [l](u)\n\x1b")
    assert "\n" not in text and "\x1b" not in text and "&lt;b&gt; &amp;" in text
    assert all(f"\\{char}" in text for char in "~|_`*[]")
    starts = {"# h": "\\# h", "- x": "\\- x", "+ x": "\\+ x", "12. y": "12\\. y", "3) z": "3\\) z", "===": "\\==="}
    assert {start: markdown(start) for start in starts} == starts
    assert markdown("a.b-c #d 1. e") == "a.b-c #d 1. e"  # plain text stays as it reads


# -- item 7: what helm template may read (the guard runs before helm: tested without it) ------------------------


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
    environment = {**ENV, "PATH": f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-m", "shmlint", "check", "--render", "auto", "chart"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
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
    for args in (["check", "--show-source", "."], ["check", "--show-source", "deploy.yaml"], ["fix", "--write", "."]):
        done = subprocess.run(
            [sys.executable, "-m", "shmlint", *args], check=False, cwd=repo, capture_output=True, text=True, timeout=120
        )
        said = done.stdout + done.stderr
        assert "PRIVATE KEY" not in said and "bad: [" not in said.split("inside.yaml")[0], said
        assert "deploy.yaml:1:1: SHM000" in said and "a link out of the repository" in said, said
    assert secret.read_text().startswith("-----BEGIN OPENSSH PRIVATE KEY-----\n  bad: [\n")
    inside = subprocess.run(
        [sys.executable, "-m", "shmlint", "check", "inside.yaml"],
        check=False,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "invalid YAML" in inside.stdout, inside.stdout


def test_a_link_inside_a_walked_tree_without_git_is_checked(tmp_path: Path) -> None:
    """Without ``.git`` the tree is the folder walked: ``docs/readme.md -> ../src/README.md`` stays inside it and is
    checked (a documentation page linked to the package's README), while a link out of the walked folder is not."""
    (tmp_path / "tree" / "docs").mkdir(parents=True)
    (tmp_path / "tree" / "src").mkdir()
    (tmp_path / "tree" / "src" / "README.md").write_text(
        "```sh\ndocker run --gpus all vllm/vllm-openai:latest --model m\n```\n"
    )
    (tmp_path / "tree" / "docs" / "readme.md").symlink_to("../src/README.md")
    (tmp_path / "outside.md").write_text("```sh\ndocker run --gpus all vllm/vllm-openai:latest\n```\n")
    (tmp_path / "tree" / "docs" / "out.md").symlink_to("../../outside.md")
    said = shmlint("check", "tree", cwd=tmp_path).stdout
    assert "tree/docs/readme.md:2:1: SHM001" in said and "tree/src/README.md:2:1: SHM001" in said, said
    assert "tree/docs/out.md:1:1: SHM000" in said and "a link out of the repository" in said, said
