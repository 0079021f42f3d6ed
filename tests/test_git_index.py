"""Files git tracks are checked whatever ``.gitignore`` says (a pattern leaves out only untracked files), with the
tracked paths read from the index file as data: every index version git writes, SHA-1 and SHA-256 work trees,
linked work trees, and hostile index files that must never raise or run anything."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import discover
from shmlint.git_index import TrackedPaths, tracked_paths
from tests.support import ROOT

#: the tests that make their index with git itself; the others write index bytes by hand
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: no index to write")

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


@needs_git
def test_a_tracked_file_under_an_ignored_folder_is_checked_and_its_untracked_neighbours_are_not(tmp_path) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("test/*\nrvc/\n")
    write(root, "test/job.yaml", "test/scratch.yaml", "test/deep/x.yaml", "modules/rvc/compose.yaml")
    write(root, "modules/rvc/scratch.yaml", "modules/rvc/deeper/run.yaml", "modules/rvc/deeper/scratch.yaml", "a.yaml")
    assert walked(root) == ["a.yaml"]  # nothing tracked yet: .gitignore decides
    git(root, "add", "-f", "test/job.yaml", "modules/rvc/compose.yaml", "modules/rvc/deeper/run.yaml")
    assert walked(root) == ["a.yaml", "modules/rvc/compose.yaml", "modules/rvc/deeper/run.yaml", "test/job.yaml"]
    assert walked(root / "modules") == ["rvc/compose.yaml", "rvc/deeper/run.yaml"]  # asked from a folder below the top


def test_what_a_gitignore_leaves_out_with_no_repository_is_said(tmp_path) -> None:
    """An archive or a copy has no index to tell the committed files a ``.gitignore`` names (a repository that
    ignores ``**/*.yaml`` and commits three manifests all the same): they are left out, and a notice on that
    ``.gitignore`` says how many, where it was silent."""
    (tmp_path / ".gitignore").write_text("**/*.yaml\nbuild/\n")
    write(tmp_path, "k8s/a.yaml", "k8s/b.yaml", "build/c.yaml", "compose.yml")
    found = list(discover([tmp_path]))
    assert [os.path.relpath(c.path, tmp_path) for c in found if c.error is None] == ["compose.yml"]
    (notice,) = [c for c in found if c.error is not None]
    assert notice.notice and notice.path == str(tmp_path / ".gitignore")
    assert notice.error.startswith("3 path(s) left out by .gitignore patterns with no git repository")


@needs_git
def test_inside_a_repository_an_ignored_untracked_file_is_left_out_without_a_notice(tmp_path) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("**/*.yaml\n")
    write(root, "k8s/a.yaml", "k8s/b.yaml")
    git(root, "add", "-f", "k8s/a.yaml")
    found = list(discover([root]))
    assert [os.path.relpath(c.path, root) for c in found] == ["k8s/a.yaml"]  # git says b.yaml is ignored


@needs_git
def test_a_negated_pattern_does_not_bring_back_an_untracked_file_in_a_folder_walked_for_its_tracked_files(
    tmp_path,
) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("rvc/\n")
    write(root, "rvc/tracked.yaml", "rvc/untracked.yaml")
    (root / "rvc" / ".gitignore").write_text("!untracked.yaml\n")  # git never reads it: its folder is ignored
    git(root, "add", "-f", "rvc/tracked.yaml")
    assert walked(root) == ["rvc/tracked.yaml"]


@needs_git
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
    assert isinstance(tracked, TrackedPaths)
    assert tracked.files == listed(root)
    for folder in ("deploy", "deploy/k8s", "deploy/x y", LONG, LONG.rpartition("/")[0], "z" * 200):
        assert tracked.holds(folder, is_dir=True), folder
    assert not tracked.holds("deploy/k", is_dir=True) and not tracked.holds("deploy", is_dir=False)


@needs_git
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
    assert isinstance(tracked, TrackedPaths) and tracked.files == {"a.yaml", "only-here.yaml"}


@needs_git
def test_a_dot_git_that_is_a_link_is_not_followed(tmp_path) -> None:
    real = repository(tmp_path / "real")
    write(real, "ignored/a.yaml")
    git(real, "add", "ignored/a.yaml")
    tree = tmp_path / "tree"
    write(tree, "ignored/a.yaml")
    (tree / ".gitignore").write_text("ignored/\n")
    (tree / ".git").symlink_to(real / ".git")
    assert tracked_paths(str(tree)) == ".git is a link, not followed"
    assert walked(tree) == []


def test_an_index_that_is_not_a_regular_file_is_never_opened(tmp_path) -> None:
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / ".git" / "index")  # opening it for reading would block the walk forever
    assert tracked_paths(str(tmp_path)) == "not a regular file of at most 64 MiB"


@pytest.mark.parametrize("text", [b"\xff\xfe not a gitdir line", b"gitdir: x\0y\n", b"gitdir:\n", b""])
def test_a_dot_git_file_that_names_no_git_folder_is_said_and_never_raises(tmp_path, text: bytes) -> None:
    (tmp_path / ".git").write_bytes(text)
    assert tracked_paths(str(tmp_path)) == ".git names no git folder"
    (tmp_path / ".gitignore").write_text("gen/\n")
    write(tmp_path, "gen/pod.yaml")
    notices = [c for c in discover([tmp_path]) if c.error is not None]
    assert [(c.path, c.notice) for c in notices] == [(str(tmp_path / ".git"), True)]
    assert "git's index not read (.git names no git folder)" in notices[0].error


def _index(root: Path, version: int, entries: list[bytes]) -> None:
    (root / ".git").mkdir(parents=True)
    header = b"DIRC" + version.to_bytes(4, "big") + len(entries).to_bytes(4, "big")
    (root / ".git" / "index").write_bytes(header + b"".join(entries))


def _refused_within_seconds(root: Path) -> object:
    """What the reader says of a hostile index, failing the test if it takes longer than a few seconds (the
    unbounded reading took minutes and gigabytes)."""

    def stop(*_: object) -> None:
        raise TimeoutError("the index reader ran past its bound")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(10)
    try:
        return tracked_paths(str(root))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


UNKNOWN_FORM = "a split index or another form this reader does not know"


def test_a_continuation_run_in_a_version_4_prefix_is_refused(tmp_path) -> None:
    """A prefix length that never ends would build an ever larger number."""
    _index(tmp_path, 4, [bytes(60) + (1).to_bytes(2, "big") + b"\xff" * 5_000_000])
    assert _refused_within_seconds(tmp_path) == UNKNOWN_FORM


def test_names_that_outgrow_the_file_are_refused(tmp_path) -> None:
    """Version 4 keeps the previous name and adds to it: 60,000 entries of 4 bytes each made names of gigabytes."""
    entries = [bytes(60) + min(i + 1, 0xFFF).to_bytes(2, "big") + b"\x00a\0" for i in range(60_000)]
    _index(tmp_path, 4, entries)
    assert _refused_within_seconds(tmp_path) == UNKNOWN_FORM


def test_a_name_longer_than_any_path_is_refused_and_a_deep_one_costs_no_folder_list(tmp_path) -> None:
    deep, deeper = tmp_path / "deep", tmp_path / "deeper"
    for root, name in ((deep, b"a/" * 2000 + b"f"), (deeper, b"a/" * 30_000 + b"f")):
        entry = bytes(60) + min(len(name), 0xFFF).to_bytes(2, "big") + name
        _index(root, 2, [entry + b"\0" * (8 - len(entry) % 8)])
    tracked = _refused_within_seconds(deep)
    assert isinstance(tracked, TrackedPaths) and tracked.holds("a/" * 1999 + "a", is_dir=True)
    assert _refused_within_seconds(deeper) == UNKNOWN_FORM


@needs_git
def test_a_split_index_is_said_not_read(tmp_path) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("gen/\n")
    write(root, "gen/pod.yaml")
    git(root, "add", "-f", "gen/pod.yaml")
    git(root, "update-index", "--split-index")
    assert tracked_paths(str(root)) == UNKNOWN_FORM
    notices = [c.error for c in discover([root]) if c.notice]
    assert notices == [
        f"git's index not read ({UNKNOWN_FORM}); files a .gitignore names are left out even where git tracks them"
    ]


@needs_git
def test_a_nested_repository_answers_for_its_own_files(tmp_path) -> None:
    """Walked from a folder above it (a monorepo's checkout, a superproject and its submodule), a repository's
    tracked files are looked up in its own index."""
    inner = repository(tmp_path / "outer" / "proj")
    (inner / ".gitignore").write_text("gen/\n")
    write(inner, "gen/pod.yaml", "gen/scratch.yaml")
    git(inner, "add", "-f", "gen/pod.yaml")
    assert walked(tmp_path / "outer") == ["proj/gen/pod.yaml"]
    assert walked(tmp_path) == ["outer/proj/gen/pod.yaml"]


@hypothesis.settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([2, 3, 4]), st.integers(0, 2**32 - 1))
def test_any_index_bytes_give_paths_or_none_and_never_raise(tmp_path_factory, tail: bytes, version, count) -> None:
    root = tmp_path_factory.mktemp("index")
    (root / ".git").mkdir()
    header = b"DIRC" + version.to_bytes(4, "big") + count.to_bytes(4, "big")
    (root / ".git" / "index").write_bytes(header + tail)
    tracked = tracked_paths(str(root))
    assert isinstance(tracked, str) or all(isinstance(name, str) and name for name in tracked.files)


@needs_git
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
    assert isinstance(tracked, TrackedPaths) and tracked.files == listed(root)


def test_a_walk_deeper_than_the_recursion_limit_asks_about_tracked_files_without_raising(tmp_path) -> None:
    (tmp_path / ".git").mkdir()  # a work tree with no index yet: nothing tracked
    deep = tmp_path
    for _ in range(1200):  # one by one: pathlib's and os.makedirs' own recursion would stop first
        deep = deep / "a"
        deep.mkdir()
    (deep / ".gitignore").write_text("ignored.yaml\n")
    (deep / "ignored.yaml").write_bytes(GPU_POD)
    try:
        assert walked(tmp_path) == []
    finally:  # bottom up: pytest's own clean-up (shutil.rmtree) recurses once a folder
        (deep / ".gitignore").unlink()
        (deep / "ignored.yaml").unlink()
        while deep != tmp_path:
            deep.rmdir()
            deep = deep.parent


@needs_git
def test_a_root_named_through_a_link_finds_its_repository(tmp_path) -> None:
    root = repository(tmp_path / "r1")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("job.yaml\n")
    write(root, "sub/job.yaml")
    git(root, "add", "-f", "sub/job.yaml")
    (tmp_path / "link").symlink_to(root / "sub")
    assert walked(tmp_path / "link") == ["job.yaml"]


@needs_git
def test_one_unread_index_is_said_once_for_two_roots(tmp_path) -> None:
    root = repository(tmp_path)
    (root / ".gitignore").write_text("gen/\n")
    write(root, "a/gen/x.yaml", "b/gen/y.yaml", "a/k.yaml")
    git(root, "add", "-f", "a/gen/x.yaml")
    git(root, "update-index", "--split-index")
    notices = [c.path for c in discover([root / "a", root / "b"]) if c.notice]
    assert notices == [str(root / ".git")]
