"""``exclude``, ``extend-exclude`` and ``per-file-ignores`` are gitignore-style patterns (``*`` stays in one folder,
``**`` crosses folders, ``!`` negates, anchored at the configuration's folder), and folder walks leave out what
``.gitignore`` files name, nested ones included, unless ``respect-gitignore`` is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hypothesis
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from shmlint.cli import cli
from shmlint.config import load_effective
from shmlint.discover import discover
from shmlint.patterns import PathPatterns
from tests.support import ROOT, run_shmlint, run_shmlint_bytes

GPU_POD = (ROOT / "fixtures" / "k8s" / "SHM001-crlf.yaml").read_bytes().replace(b"\r\n", b"\n")


def tree(root: Path, *names: str) -> Path:
    """A GPU pod (one SHM001 each) at every name; other files by content: ``name=text``."""
    for entry in names:
        name, _, text = entry.partition("=")
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() if text else GPU_POD)
    return root


def walked(root: Path, config: str | None = None) -> list[str]:
    """The files a walk of ``root`` finds, relative to it, with the configuration file written first (not the
    notice a ``.gitignore`` outside a repository gets: ``test_git_index``)."""
    if config is not None:
        (root / ".shmlint.yaml").write_text(config)
    settings = load_effective(root).settings
    found = (Path(c.path).relative_to(root).as_posix() for c in discover([root], settings) if not c.notice)
    return sorted(path for path in found if path != ".shmlint.yaml")


def flagged(*args: str) -> list[str]:
    """The paths ``shmlint check --format json`` reports a finding for."""
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--exit-zero", *args])
    assert result.exit_code == 0, result.output
    return sorted({f["path"] for f in json.loads(result.output)["findings"]})


def test_a_single_star_stays_inside_one_folder(tmp_path: Path) -> None:
    """Found: with ``fnmatch``, ``docs/*.md`` also excluded ``docs/a/b.md``: ``*`` crossed ``/``."""
    tree(tmp_path, "docs/a.yaml", "docs/a/b.yaml", "a.yaml")
    assert walked(tmp_path, "extend-exclude: ['docs/*.yaml']\n") == ["a.yaml", "docs/a/b.yaml"]


def test_a_double_star_crosses_folders(tmp_path: Path) -> None:
    tree(tmp_path, "docs/a.yaml", "docs/a/b.yaml", "docs/a/b/c.yaml", "a.yaml", "x/docs/a/d.yaml")
    assert walked(tmp_path, "extend-exclude: ['docs/**/*.yaml']\n") == ["a.yaml", "x/docs/a/d.yaml"]
    assert walked(tmp_path, "extend-exclude: ['**/a/*.yaml']\n") == ["a.yaml", "docs/a.yaml", "docs/a/b/c.yaml"]


def test_a_negated_pattern_takes_a_path_back(tmp_path: Path) -> None:
    tree(tmp_path, "k8s/train.yaml", "k8s/serve.yaml", "k8s/keep.yaml")
    assert walked(tmp_path, "extend-exclude: ['k8s/*.yaml', '!keep.yaml']\n") == ["k8s/keep.yaml"]


def test_a_name_without_a_slash_matches_at_any_depth_and_a_trailing_slash_only_folders(tmp_path: Path) -> None:
    tree(tmp_path, "generated/a.yaml", "x/generated/b.yaml", "y/generated", "c.yaml")  # y/generated: a pod file
    assert walked(tmp_path, "extend-exclude: [generated]\n") == ["c.yaml"]
    assert walked(tmp_path, "extend-exclude: [generated/]\n") == ["c.yaml", "y/generated"]


def test_anchored_patterns_are_relative_to_the_configuration_wherever_the_run_starts(
    tmp_path: Path, monkeypatch
) -> None:
    project = tree(tmp_path / "project", "docs/a.yaml", "sub/docs/b.yaml")
    (project / ".shmlint.yaml").write_text("extend-exclude: [/docs/]\n")
    for cwd in (tmp_path, project / "sub", project):
        monkeypatch.chdir(cwd)
        found = flagged(str(project))
        assert [Path(p).relative_to(project).as_posix() for p in found] == ["sub/docs/b.yaml"], cwd


def test_default_exclusions_still_apply(tmp_path: Path) -> None:
    tree(tmp_path, "node_modules/x/a.yaml", "x/.venv/b.yaml", "c.yaml")
    assert walked(tmp_path) == ["c.yaml"]
    assert walked(tmp_path, "exclude: []\n") == ["c.yaml", "node_modules/x/a.yaml", "x/.venv/b.yaml"]


def test_go_test_data_folders_are_left_out_and_counted_in_a_notice(tmp_path: Path) -> None:
    """Found (audit51b): a converter's golden pod specs in ``testdata/`` (vLLM with tensor parallel 16 on one device)
    failed the gate four times; they are a unit test's expected output, never deployed. Left out by default, and
    said: the walk's notice counts the folders, named by the first; ``exclude`` without it checks them."""
    tree(tmp_path, "pkg/convert/testdata/expected/pod.yaml", "testdata/in.yaml", "deploy/pod.yaml", "mytestdata/p.yaml")
    assert walked(tmp_path) == ["deploy/pod.yaml", "mytestdata/p.yaml"]
    settings = load_effective(tmp_path).settings
    notices = [
        (Path(c.path).relative_to(tmp_path).as_posix(), c.error) for c in discover([tmp_path], settings) if c.notice
    ]
    assert len(notices) == 1 and notices[0][0] == "testdata", notices  # the first the walk meets
    assert (notices[0][1] or "").startswith("2 testdata folder(s) left out: test inputs and expected outputs")
    assert walked(tmp_path, "exclude: [.git]\n") == [
        "deploy/pod.yaml",
        "mytestdata/p.yaml",
        "pkg/convert/testdata/expected/pod.yaml",
        "testdata/in.yaml",
    ]
    (tmp_path / ".shmlint.yaml").write_text("exclude: [.git]\n")
    assert not any(c.notice for c in discover([tmp_path], load_effective(tmp_path).settings))


def test_a_folder_named_on_the_command_line_is_walked_even_when_excluded(tmp_path: Path, monkeypatch) -> None:
    tree(tmp_path, "generated/a.yaml", "generated/skip/b.yaml", ".gitignore=generated/\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".shmlint.yaml").write_text("extend-exclude: [generated, skip]\n")
    monkeypatch.chdir(tmp_path)
    assert flagged(".") == []
    assert flagged("generated") == ["generated/a.yaml"]


# -- per-file-ignores ------------------------------------------------------------------------------------------


def test_per_file_ignores_are_gitignore_patterns(tmp_path: Path, monkeypatch) -> None:
    tree(tmp_path, "docs/a.yaml", "docs/a/b.yaml", "deep/docs/c.yaml", "k8s/d.yaml", "e.yaml")
    monkeypatch.chdir(tmp_path)
    every = ["deep/docs/c.yaml", "docs/a.yaml", "docs/a/b.yaml", "e.yaml", "k8s/d.yaml"]
    assert flagged(".") == every
    cases = {
        "'docs/*.yaml'": ["deep/docs/c.yaml", "docs/a/b.yaml", "e.yaml", "k8s/d.yaml"],
        "'docs/**'": ["deep/docs/c.yaml", "e.yaml", "k8s/d.yaml"],
        "'**/docs/**'": ["e.yaml", "k8s/d.yaml"],
        "'*.yaml'": [],
        "'!k8s/**'": ["k8s/d.yaml"],  # negated: every file outside k8s/
    }
    for pattern, left in cases.items():
        (tmp_path / ".shmlint.yaml").write_text(f"per-file-ignores: {{{pattern}: [SHM001]}}\n")
        assert flagged(".") == left, pattern


# -- .gitignore ------------------------------------------------------------------------------------------------


def test_nested_gitignore_files_are_respected(tmp_path: Path) -> None:
    tree(
        tmp_path,
        ".gitignore=# build output\nout/\n*.tmp.yaml\n",
        "a.yaml",
        "a.tmp.yaml",
        "out/b.yaml",
        "svc/.gitignore=*.yaml\n!keep.yaml\n",
        "svc/drop.yaml",
        "svc/keep.yaml",
        "svc/deeper/drop.yaml",
        "svc/deeper/.gitignore=!again.yaml\n",
        "svc/deeper/again.yaml",
        "other/drop.yaml",
    )
    assert walked(tmp_path) == ["a.yaml", "other/drop.yaml", "svc/deeper/again.yaml", "svc/keep.yaml"]


def test_ignore_everything_but_folders_and_some_files_keeps_those_files_at_any_depth(tmp_path: Path) -> None:
    """``*``, ``!*/``, ``!*.yml``: git keeps every folder and the ``.yml`` files in them (audit67a: a competition
    repository's .gitignore; the walk left out every folder and checked 1 file of 51)."""
    tree(tmp_path, ".gitignore=*\n!*/\n!*.yml\n", "top.yml", "a/b.yml", "a/c/d.yml", "a/skip.yaml", "skip.yaml")
    assert walked(tmp_path) == ["a/b.yml", "a/c/d.yml", "top.yml"]
    tree(tmp_path / "second", ".gitignore=build/\n!build/keep.yml\n", "build/keep.yml", "ok.yml")
    assert walked(tmp_path / "second") == ["ok.yml"]  # git cannot take a file back out of an excluded folder


def test_gitignore_files_above_the_walked_folder_count_up_to_the_repository_top(tmp_path: Path) -> None:
    repository = tree(tmp_path / "repo", ".gitignore=cache/\n", "sub/cache/a.yaml", "sub/b.yaml")
    (repository / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("sub/\n*.yaml\n")  # above the repository: not ours
    assert walked(repository / "sub") == ["b.yaml"]
    (repository / ".git").rmdir()  # outside any repository only the walked tree's own files count
    assert walked(repository / "sub") == ["b.yaml", "cache/a.yaml"]


def test_the_gitignore_switch(tmp_path: Path, monkeypatch) -> None:
    tree(tmp_path, ".gitignore=ignored.yaml\n", "ignored.yaml", "kept.yaml")
    monkeypatch.chdir(tmp_path)
    assert flagged(".") == ["kept.yaml"]
    assert flagged(".", "--no-respect-gitignore") == ["ignored.yaml", "kept.yaml"]
    (tmp_path / ".shmlint.yaml").write_text("respect-gitignore: false\n")
    assert flagged(".") == ["ignored.yaml", "kept.yaml"]
    assert flagged(".", "--respect-gitignore") == ["kept.yaml"]  # the command line wins
    fixed = CliRunner().invoke(cli, ["fix", "--respect-gitignore", "."])
    assert fixed.exit_code == 1 and "kept.yaml" in fixed.output and "ignored.yaml" not in fixed.output


def test_an_invalid_switch_value_is_a_configuration_error(tmp_path: Path, monkeypatch) -> None:
    tree(tmp_path, "a.yaml", ".shmlint.yaml=respect-gitignore: sometimes\n")
    monkeypatch.chdir(tmp_path)
    done = run_shmlint("check", ".", cwd=tmp_path)
    assert done.returncode == 2 and "respect-gitignore" in done.stderr and "Traceback" not in done.stderr


# -- cost ------------------------------------------------------------------------------------------------------


def imports_pathspec(*args: str, cwd: Path) -> bool:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "shmlint", "check", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    return any(line.rstrip().endswith("| pathspec") for line in done.stderr.splitlines())


def test_pathspec_is_loaded_only_when_a_pattern_needs_it(tmp_path: Path) -> None:
    tree(tmp_path, "a.yaml", "b/c.yaml")
    assert not imports_pathspec("a.yaml", cwd=tmp_path), "a one-file check paid for pathspec"
    assert not imports_pathspec(".", cwd=tmp_path), "the default exclusions are plain names"
    (tmp_path / ".gitignore").write_text("*.tmp\n")
    assert imports_pathspec(".", cwd=tmp_path)
    assert not imports_pathspec("a.yaml", cwd=tmp_path)


def test_plain_names_and_pathspec_agree() -> None:
    names = ["venv", "node_modules", "build"]
    plain, spec = PathPatterns(names), PathPatterns([*names, "nothing-*"])
    assert plain._spec is None and spec._spec is not None
    for path in ("venv", "a/venv", "a/venv/b.yaml", "build/x", "a/build", "builds/x", "a/node_modules_x/y", "x"):
        for is_dir in (False, True):
            assert plain.decide(path, is_dir) == spec.decide(path, is_dir), (path, is_dir)


def test_a_gitignore_that_is_a_fifo_is_never_opened(tmp_path: Path) -> None:
    """Hostile tree: opening a FIFO named .gitignore would block the walk forever."""
    tree(tmp_path, "a.yaml", "sub/b.yaml")
    os.mkfifo(tmp_path / ".gitignore")
    os.mkfifo(tmp_path / "sub" / ".gitignore")
    done = run_shmlint_bytes("check", "--format", "json", ".", cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stderr
    assert sorted({f["path"] for f in json.loads(done.stdout)["findings"]}) == ["a.yaml", "sub/b.yaml"]


def test_a_path_on_another_windows_drive_is_matched_as_written(tmp_path: Path, monkeypatch) -> None:
    """On Windows ``os.path.relpath`` raises for a path on another drive than the configuration's folder."""
    from shmlint import patterns
    from shmlint.settings import Settings

    tree(tmp_path, "docs/a.yaml", "docs/b/c.yaml", "d.yaml")

    def other_drive(path: str, start: str | None = None) -> str:
        raise ValueError("path is on mount 'D:', start on mount 'C:'")

    monkeypatch.setattr(patterns.os.path, "relpath", other_drive)
    assert patterns.relative_posix(str(tmp_path), "C:\\project") is None
    settings = Settings(undecided="show")._replace(
        exclude=("docs/*.yaml",), per_file_ignores=(("*.yaml", frozenset({"SHM001"})),)
    )
    monkeypatch.chdir(tmp_path)
    assert {Path(c.path).as_posix() for c in discover([Path(".")], settings)} == {"docs/b/c.yaml", "d.yaml"}
    assert settings.ignored_for(Path("d.yaml")) == {"SHM001"}


def test_patterns_that_would_backtrack_for_minutes_are_refused(tmp_path: Path) -> None:
    """Found: ``*a*a*a*b`` in a hostile repository's .gitignore made matching one file name of 250 ``a`` take 14 s
    (the regular expression backtracks; one more ``*a`` and it is hours); such a line is left out (and said), and
    in a configuration it is an error."""
    long_name = "a" * 200  # no extension: a Kubernetes manifest found by its content
    tree(tmp_path, ".gitignore=*a*a*a*a*b\na*a*/a*a*/x\nignored.yaml\n", long_name, "ignored.yaml")

    def check() -> subprocess.CompletedProcess:
        return run_shmlint("check", "--format", "json", ".", cwd=tmp_path, timeout=60)

    done = check()
    assert done.returncode == 1, done.stderr
    # the lines left out are said (a notice on the .gitignore), so the extra files checked are explained
    report = json.loads(done.stdout)
    assert {f["path"] for f in report["findings"]} == {long_name}
    assert any(n["path"] == ".gitignore" and "*a*a*a*a*b" in n["message"] for n in report["notices"])
    (tmp_path / ".shmlint.yaml").write_text("extend-exclude: ['*a*a*a*b']\n")
    refused = check()
    assert refused.returncode == 2 and "extend-exclude" in refused.stderr and "*a*a*a*b" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_the_wildcard_limits_keep_ordinary_patterns() -> None:
    from shmlint.patterns import too_costly

    ordinary = ["*.py[cod]", "*.tar.*", "docs/*/*.md", "gen/**/*.yaml", "**/gen/**", "a**b", "*-*.yaml", "/build/"]
    assert [p for p in [*ordinary, "!keep*", "**/node_modules/", "/**/x"] if too_costly(p)] == []
    assert all(too_costly(p) for p in ("*a*a*", "a*a*a*b", "*a*/*a*/x", "a*/b*/c*/d*"))
    # '**' is counted; two '**' that more path follows are quadratic in the depth (three: cubic)
    assert all(too_costly(p) for p in ("**/gen/**/*.yaml", "**/x/**/x/**/x", "**/*a*/**/*b", "a/**/b/**/c"))


def test_lines_git_cannot_read_are_left_out(tmp_path: Path) -> None:
    """A hostile or broken .gitignore (a trailing backslash, a lone ``!``, a reversed range) never stops the walk."""
    tree(tmp_path, ".gitignore=x\\\n!\n[z-a]\n\\\nignored.yaml\n", "ignored.yaml", "kept.yaml")
    assert walked(tmp_path) == ["kept.yaml"]


PATTERN_CHARS = st.sampled_from([*"ab*?[]!/\\- #.", "**", "**/"])


@hypothesis.settings(max_examples=300, deadline=2000)
@given(
    lines=st.lists(st.lists(PATTERN_CHARS, max_size=8).map("".join), max_size=5),
    path=st.lists(
        st.sampled_from(["a", "b", "ab", "a.b", "-", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]), min_size=1, max_size=4
    ),
)
def test_any_pattern_lines_compile_and_answer(lines: list[str], path: list[str]) -> None:
    """Whatever a .gitignore or a configuration holds: no exception, an answer for every path, in bounded time."""
    patterns = PathPatterns(lines)
    for is_dir in (False, True):
        assert patterns.decide("/".join(path), is_dir) in (True, False, None)


def test_a_run_of_asterisks_is_one_regular_asterisk_in_bounded_time() -> None:
    """git reads ``a***b`` as ``a*b`` (consecutive asterisks that are not a whole ``**`` segment are regular); the
    matcher's expression for the run used to backtrack exponentially: ``*********/`` took 6 s on one 32-letter name,
    each added star doubling it. The control: ``**`` segments keep crossing folders."""
    long_name = "a" * 32
    hostile = PathPatterns(["*" * 40 + "/"])
    assert hostile.decide(long_name, is_dir=True) is True and hostile.decide(long_name) is None
    assert PathPatterns(["a***b"]).decide("azzb") is True and PathPatterns(["a***b"]).decide("a/b") is None
    assert PathPatterns(["**/x"]).decide("a/b/x") is True
    assert PathPatterns(["!**/x"]).decide("a/b/x") is False


def test_a_pattern_that_python_warns_about_warns_nobody() -> None:
    """``[[`` in a .gitignore line makes Python's ``re`` warn of a possible nested set (a FutureWarning): that is the
    repository's text, so shmlint reads it without the warning reaching the user's terminal."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PathPatterns(["a[[b]", "x"]).decide("x") is True
