"""Files git tracks are checked whatever ``.gitignore`` says (a pattern leaves out only untracked files), with the
tracked paths read from the index file as data: every index version git writes, SHA-1 and SHA-256 work trees,
linked work trees, and hostile index files that must never raise or run anything."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import discover
from shmlint.git_index import tracked_paths
from tests.support import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: no index to read")

GPU_POD = (ROOT / "fixtures" / "k8s" / "SHM001-crlf.yaml").read_bytes().replace(b"\r\n", b"\n")
#: git with no configuration of the machine or the user, so the tests write what git writes by default
#: a path longer than most (entries are padded to 8 bytes after it in versions 2 and 3)
LONG = "/".join(["z" * 200] * 3)
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": os.devnull, "PATH": os.environ["PATH"]}


def git(where: Path, *arguments: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), *arguments], env=GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout


def listed(root: Path) -> frozenset[str]:
    """What ``git ls-files`` lists, read as bytes (text mode would turn a ``\r`` in a name into ``\n``)."""
    done = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], env=GIT_ENV, capture_output=True, check=True)
    return frozenset(name.decode("utf-8", "surrogateescape") for name in done.stdout.split(b"\0")[:-1])


def repository(root: Path, *extra: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", *extra)
    return root


def write(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(GPU_POD)


def walked(root: Path) -> list[str]:
    return sorted(os.path.relpath(c.path, root).replace(os.sep, "/") for c in discover([root]) if c.error is None)


def test_a_tracked_file_under_an_ignored_folder_is_checked_and_its_untracked_neighbours_are_not(tmp_path) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("test/*\nrvc/\n")
    write(root, "test/job.yaml", "test/scratch.yaml", "test/deep/x.yaml", "modules/rvc/compose.yaml")
    write(root, "modules/rvc/scratch.yaml", "modules/rvc/deeper/run.yaml", "modules/rvc/deeper/scratch.yaml", "a.yaml")
    assert walked(root) == ["a.yaml"]  # nothing tracked yet: .gitignore decides
    git(root, "add", "-f", "test/job.yaml", "modules/rvc/compose.yaml", "modules/rvc/deeper/run.yaml")
    assert walked(root) == ["a.yaml", "modules/rvc/compose.yaml", "modules/rvc/deeper/run.yaml", "test/job.yaml"]
    assert walked(root / "modules") == ["rvc/compose.yaml", "rvc/deeper/run.yaml"]  # asked from a folder below the top


def test_a_negated_pattern_does_not_bring_back_an_untracked_file_in_a_folder_walked_for_its_tracked_files(
    tmp_path,
) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("rvc/\n")
    write(root, "rvc/tracked.yaml", "rvc/untracked.yaml")
    (root / "rvc" / ".gitignore").write_text("!untracked.yaml\n")  # git never reads it: its folder is ignored
    git(root, "add", "-f", "rvc/tracked.yaml")
    assert walked(root) == ["rvc/tracked.yaml"]


@pytest.mark.parametrize("version", ["2", "3", "4"])
@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_every_index_version_and_hash_is_read_as_git_lists_it(tmp_path, version: str, object_format: str) -> None:
    root = repository(tmp_path, f"--object-format={object_format}")
    names = ["a.yaml", "deploy/k8s/job.yaml", "deploy/k8s/job2.yaml", "deploy/x y/ü.yaml", LONG + "/b.yaml"]
    write(root, *names)
    git(root, "add", *names)
    write(root, "intent.yaml")
    git(root, "add", "-N", "intent.yaml")  # an intent-to-add entry carries the extended flags (version 3 and up)
    git(root, "update-index", "--index-version", version)
    tracked = tracked_paths(str(root))
    assert tracked is not None
    assert tracked.files == listed(root)
    assert {"deploy", "deploy/k8s", "deploy/x y", LONG, LONG.rpartition("/")[0], "z" * 200} == tracked.folders


def test_a_linked_work_tree_reads_its_own_index(tmp_path) -> None:
    main = repository(tmp_path / "main")
    write(main, "a.yaml")
    git(main, "add", "a.yaml")
    git(main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = tmp_path / "linked"
    write(linked, "only-here.yaml")
    git(linked, "add", "only-here.yaml")
    assert (linked / ".git").is_file()
    tracked = tracked_paths(str(linked))
    assert tracked is not None and tracked.files == {"a.yaml", "only-here.yaml"}


def test_a_dot_git_that_is_a_link_is_not_followed(tmp_path) -> None:
    real = repository(tmp_path / "real")
    write(real, "ignored/a.yaml")
    git(real, "add", "ignored/a.yaml")
    tree = tmp_path / "tree"
    write(tree, "ignored/a.yaml")
    (tree / ".gitignore").write_text("ignored/\n")
    (tree / ".git").symlink_to(real / ".git")
    assert tracked_paths(str(tree)) is None
    assert walked(tree) == []


def test_an_index_that_is_not_a_regular_file_is_never_opened(tmp_path) -> None:
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / ".git" / "index")  # opening it for reading would block the walk forever
    assert tracked_paths(str(tmp_path)) is None


def test_a_dot_git_file_without_a_gitdir_line_is_no_repository(tmp_path) -> None:
    (tmp_path / ".git").write_bytes(b"\xff\xfe not a gitdir line")
    assert tracked_paths(str(tmp_path)) is None


def test_a_continuation_run_in_a_version_4_prefix_is_refused_quickly(tmp_path) -> None:
    """A hostile index whose prefix length never ends would build an ever larger number."""
    (tmp_path / ".git").mkdir()
    entry = bytes(40) + bytes(20) + (1).to_bytes(2, "big") + b"\xff" * 5_000_000
    (tmp_path / ".git" / "index").write_bytes(b"DIRC" + (4).to_bytes(4, "big") + (1).to_bytes(4, "big") + entry)
    assert tracked_paths(str(tmp_path)) is None


@hypothesis.settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([2, 3, 4]), st.integers(0, 2**32 - 1))
def test_any_index_bytes_give_paths_or_none_and_never_raise(tmp_path_factory, tail: bytes, version, count) -> None:
    root = tmp_path_factory.mktemp("index")
    (root / ".git").mkdir()
    header = b"DIRC" + version.to_bytes(4, "big") + count.to_bytes(4, "big")
    (root / ".git" / "index").write_bytes(header + tail)
    tracked = tracked_paths(str(root))
    assert tracked is None or all(isinstance(name, str) and name for name in tracked.files)


@hypothesis.settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.lists(
            st.text(st.characters(codec="utf-8", exclude_characters="/\0\n"), min_size=1, max_size=12), max_size=4
        ).map(lambda parts: "/".join(parts)),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["2", "3", "4"]),
)
def test_the_paths_git_writes_are_the_paths_read_back(tmp_path_factory, names: list[str], version: str) -> None:
    """git itself as the oracle: any UTF-8 names (no file needed: ``--cacheinfo``), each index version."""
    names = [name for name in names if name and all(part not in (".", "..", ".git") for part in name.split("/"))]
    hypothesis.assume(names)
    root = repository(tmp_path_factory.mktemp("repo"))
    empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # the empty blob (need not exist for the index)
    for name in names:
        subprocess.run(
            ["git", "-C", str(root), "update-index", "--add", "--cacheinfo", f"100644,{empty},{name}"],
            env=GIT_ENV,
            capture_output=True,
            check=False,  # git refuses a name a file already holds as a folder: it is then not in the index
        )
    git(root, "update-index", "--index-version", version)
    tracked = tracked_paths(str(root))
    assert tracked is not None and tracked.files == listed(root)
