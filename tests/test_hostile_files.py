"""Hostile files, as a user meets them on the command line.

For every input: no traceback, no "internal error", a clear message with the file (and line where known), a defined
exit code (findings and SHM000 -> 1; usage, configuration and internal errors -> 2), and every other file still
checked. Most cases are checked next to a good GPU pod whose SHM001 must still be reported: binary and NUL bytes,
every encoding, CRLF and CR, templates, odd tags, deep nesting, unterminated quoting, file system oddities (links,
FIFOs, sockets, unreadable and vanishing files), odd and huge numbers, hostile configuration; and nothing an
input names is ever run.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import DEFECT, Engine
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.hostile import (
    BIG,
    POD,
    POD_LINE,
    POD_TEMPLATE,
    RUN,
    SUPERSCRIPT,
    assert_good_pod_still_checked,
    assert_no_crash,
    bomb,
    check_in_process,
    check_json,
    decoded,
    findings_for,
)
from tests.support import ROOT, run_shmlint, run_shmlint_bytes

Writer = Callable[[Path], str]  # creates the hostile input below tmp, returns the path to name on the command line


def file(name: str, data: bytes) -> Writer:
    def write(tmp: Path) -> str:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_bytes(data)
        return name

    return write


def utf16(data: str, encoding: str, bom: bytes) -> bytes:
    return bom + data.encode(encoding)


def deep(prefix: str, suffix: str, depth: int = 10_000, middle: str = "x") -> bytes:
    return (prefix * depth + middle + suffix * depth + "\n").encode()


def conflict(text_: str) -> bytes:
    lines = text_.splitlines(keepends=True)
    return "".join(
        [*lines[:6], "<<<<<<< HEAD\n", *lines[6:], "=======\n", "  - name: cpu\n", ">>>>>>> feature\n"]
    ).encode()


# expectation: ("finding", code, line or None) | ("invalid", words, line or None) | ("clean",) | ("notice",) |
#              ("finding-or-invalid", code, words) | ("any",)
CASES: dict[str, tuple[Writer, tuple]] = {
    "binary-file": (
        file("logo.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))),
        ("invalid", "binary", 1),
    ),
    "nul-byte-in-yaml": (file("nul.yaml", POD.encode().replace(b"spec:", b"spec:\x00")), ("invalid", "NUL", 1)),
    "nul-byte-in-shell": (file("nul.sh", RUN.encode().replace(b"--rm", b"--rm\x00")), ("invalid", "NUL", 1)),
    "invalid-utf8-in-yaml-comment": (
        file("latin1.yaml", b"# caf\xe9 \xff\xfe\n" + POD.encode()),
        ("finding-or-invalid", "SHM001", "utf"),
    ),
    "invalid-utf8-in-yaml-value": (
        file("value.yaml", POD.encode().replace(b"name: gpu", b"name: g\xffpu")),
        ("finding-or-invalid", "SHM001", "utf"),
    ),
    "invalid-utf8-in-shell": (
        file("latin1.sh", RUN.encode().replace(b"pytorch:2.3.0", b"pytorch:2.3.0-\xe9\xff")),
        ("finding", "SHM001", 1),
    ),
    "invalid-utf8-in-markdown": (
        file("latin1.md", b"# Caf\xe9\n\n```sh\n" + RUN.encode() + b"```\n"),
        ("finding", "SHM001", 4),
    ),
    "utf8-bom": (file("bom8.yaml", codecs.BOM_UTF8 + POD.encode()), ("finding", "SHM001", POD_LINE)),
    "utf16-le-bom": (
        file("bom16le.yaml", utf16(POD, "utf-16-le", codecs.BOM_UTF16_LE)),
        ("finding", "SHM001", POD_LINE),
    ),
    "utf16-be-bom": (
        file("bom16be.yaml", utf16(POD, "utf-16-be", codecs.BOM_UTF16_BE)),
        ("finding", "SHM001", POD_LINE),
    ),
    "utf16-bom-shell": (file("bom16.sh", utf16(RUN, "utf-16-le", codecs.BOM_UTF16_LE)), ("finding", "SHM001", 1)),
    "utf16-bom-broken": (
        file("half.yaml", codecs.BOM_UTF16_LE + POD.encode("utf-16-le")[:-1]),
        ("invalid", "utf-16", 1),
    ),
    "utf16-without-bom": (file("nobom.yaml", POD.encode("utf-16-le")), ("invalid", "binary", 1)),
    "crlf-yaml": (file("crlf.yaml", POD.replace("\n", "\r\n").encode()), ("finding", "SHM001", POD_LINE)),
    "crlf-shell": (file("crlf.sh", ("#!/bin/sh\r\n" + RUN.replace("\n", "\r\n")).encode()), ("finding", "SHM001", 2)),
    "cr-only-line-breaks": (file("mac.yaml", POD.replace("\n", "\r").encode()), ("any",)),
    "tabs-in-yaml-indentation": (file("tabs.yaml", POD.replace("    image", "\timage").encode()), ("invalid", "", 8)),
    "tabs-in-shell": (file("tabs.sh", RUN.replace(" ", "\t").encode()), ("finding", "SHM001", 1)),
    "tab-recipe-makefile": (file("Makefile", ("train:\n\t@" + RUN).encode()), ("finding", "SHM001", 2)),
    "empty-yaml": (file("empty.yaml", b""), ("clean",)),
    "empty-shell": (file("empty.sh", b""), ("clean",)),
    "empty-markdown": (file("empty.md", b""), ("clean",)),
    "empty-makefile": (file("sub/Makefile", b""), ("clean",)),
    "only-bom": (file("bom-only.yaml", codecs.BOM_UTF8), ("clean",)),
    "only-document-markers": (file("markers.yaml", b"---\n...\n---\n"), ("clean",)),
    "only-whitespace": (file("blank.yaml", b"  \n\t\n\n"), ("any",)),
    "duplicate-keys": (
        file("dup.yaml", (POD + "kind: Pod\nspec:\n  containers:\n  - {name: a, image: x}\n").encode()),
        ("any",),
    ),
    "duplicate-containers": (
        file("dupc.yaml", (POD + "  - name: gpu\n    image: pytorch/pytorch\n").encode()),
        ("finding", "SHM001", POD_LINE),
    ),
    "merge-conflict-yaml": (file("conflict.yaml", conflict(POD)), ("invalid", "YAML", None)),
    "merge-conflict-shell": (file("conflict.sh", b"<<<<<<< HEAD\n" + RUN.encode() + b"=======\n>>>>>>> x\n"), ("any",)),
    "helm-template": (
        file(
            "chart/templates/pod.yaml",
            POD.replace("name: trainer", "name: {{ .Values.name }}\n  {{- if .Values.x }}").encode()
            + b"  {{- end }}\n",
        ),
        ("notice",),
    ),
    "jinja-template": (
        file("pod.yaml.j2.yaml", b"{% for x in xs %}\n" + POD.encode() + b"{% endfor %}\n"),
        ("finding", "SHM001", POD_LINE + 1),  # read as the YAML it renders to, one pass of its loop
    ),
    "unknown-yaml-tags": (
        file(
            "tags.yaml",
            POD.replace("metadata:", "metadata: !Meta")
            .replace("kind: Pod", "kind: !!str Pod\nextra: !Ref Something\nblob: !!binary aGVsbG8=\nset: !!set {a, b}")
            .encode(),
        ),
        ("finding", "SHM001", None),
    ),
    "unknown-yaml-tags-on-collections": (
        file("tags2.yaml", b"!Custom {a: !Other [1, 2], b: !!omap [{x: 1}]}\n"),
        ("any",),
    ),
    "yaml-directives": (
        file("directives.yaml", b"%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\n" + POD.encode()),
        ("finding", "SHM001", None),
    ),
    "nesting-10000-flow-sequences": (file("deep1.yaml", deep("[", "]")), ("invalid", "nesting", 1)),
    "nesting-10000-flow-mappings": (file("deep2.yaml", deep("{a: ", "}")), ("invalid", "nesting", 1)),
    "nesting-10000-block-sequences": (file("deep3.yaml", ("- " * 10_000 + "x\n").encode()), ("invalid", "nesting", 1)),
    "nesting-10000-shell-substitutions": (file("deep.sh", deep("$(echo ", ")", middle=RUN.strip())), ("any",)),
    "nesting-10000-shell-subshells": (file("deep2.sh", deep("( ", " )", middle=RUN.strip())), ("any",)),
    "nesting-10000-backticks": (file("deep3.sh", ("echo " + "`echo \\" * 10_000 + "\n").encode()), ("any",)),
    "nesting-10000-markdown-quotes": (file("deep.md", ("> " * 10_000 + "```sh\n" + RUN + "```\n").encode()), ("any",)),
    "nesting-10000-markdown-lists": (
        file("deep2.md", "".join("  " * i + "- x\n" for i in range(1_000)).encode()),
        ("any",),
    ),
    "unterminated-double-quote": (
        file("q1.sh", b'docker run --gpus all "pytorch/pytorch torchrun --nproc_per_node=2 train.py\n'),
        ("any",),
    ),
    "unterminated-single-quote": (
        file("q2.sh", b"docker run --gpus all 'pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"),
        ("any",),
    ),
    "unterminated-substitution": (
        file("q3.sh", b"docker run --gpus all $(pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"),
        ("any",),
    ),
    "unterminated-backtick": (
        file("q4.sh", b"docker run --gpus all `pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"),
        ("any",),
    ),
    "unterminated-parameter": (file("q5.sh", b"docker run --gpus all ${IMAGE pytorch/pytorch\n"), ("any",)),
    "unterminated-heredoc": (file("q6.sh", b"cat <<EOF\n" + RUN.encode()), ("clean",)),
    "unterminated-fence": (file("fence.md", b"```sh\n" + RUN.encode()), ("finding", "SHM001", 2)),
    "trailing-backslash": (
        file("bs.sh", b"docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 \\"),
        ("finding", "SHM001", 1),
    ),
    "docker-run-100000-characters": (
        file(
            "long.sh",
            (
                "docker run --gpus all "
                + "-e VAR=value " * 7_700
                + "pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"
            ).encode(),
        ),
        ("finding", "SHM001", 1),
    ),
    "docker-run-100000-characters-markdown": (
        file(
            "long.md",
            (
                "```sh\ndocker run --gpus all "
                + "-v /a:/b " * 11_000
                + "pytorch/pytorch torchrun --nproc_per_node=2 x.py\n```\n"
            ).encode(),
        ),
        ("finding", "SHM001", 2),
    ),
    "line-of-100000-quotes": (file("quotes.sh", ("docker run --gpus all " + "'\"" * 50_000 + "\n").encode()), ("any",)),
    "control-characters": (file("ctl.yaml", POD.replace("trainer", "train\x07er").encode()), ("invalid", "", 4)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_file_next_to_a_good_one(tmp_path: Path, case: str) -> None:
    writer, expected = CASES[case]
    (tmp_path / "good.yaml").write_text(POD)
    target = writer(tmp_path)
    result, document = check_json(target, "good.yaml", cwd=tmp_path, limit_memory=True, timeout=60)
    assert result.returncode == 1  # the good pod always fails the run
    assert_good_pod_still_checked(document)
    mine = findings_for(document, target)
    codes = [f["code"] for f in mine]
    kind = expected[0]
    if kind == "finding":
        _, code, line = expected
        assert code in codes, mine
        if line is not None:
            assert any(f["line"] == line for f in mine if f["code"] == code), mine
        assert "SHM000" not in codes, mine
    elif kind == "invalid":
        _, words, line = expected
        invalid = [f for f in mine if f["code"] == "SHM000"]
        assert invalid, mine
        assert words.lower() in invalid[0]["message"].lower(), invalid[0]["message"]
        if line is not None:
            assert invalid[0]["line"] == line, invalid[0]
        assert invalid[0]["message"].strip()
    elif kind == "finding-or-invalid":
        _, code, words = expected
        assert code in codes or any(f["code"] == "SHM000" and words in f["message"].lower() for f in mine), mine
    elif kind == "clean":
        assert not mine, mine
    elif kind == "notice":
        assert not mine, mine
        assert any(target in n["path"] or n["path"] in target for n in document["notices"]), document["notices"]
    for finding in mine:  # one finding per output line: messages are single-line text
        assert "\n" not in finding["message"] and "\r" not in finding["message"], finding["message"]


@pytest.mark.slow
def test_every_hostile_file_at_once_then_fix(tmp_path: Path) -> None:
    """All the cases in one tree: check walks it, fix --write changes only files it can parse, never a broken one."""
    (tmp_path / "good.yaml").write_text(POD)
    targets = [writer(tmp_path) for writer, _ in CASES.values()]
    result, document = check_json(".", cwd=tmp_path, limit_memory=True)
    assert result.returncode == 1
    assert_good_pod_still_checked(document, "good.yaml")
    invalid = {f["path"] for f in document["findings"] if f["code"] == "SHM000"}
    before = {t: (tmp_path / t).read_bytes() for t in targets}
    shown = run_shmlint_bytes("fix", ".", cwd=tmp_path, limit_memory=True)
    assert_no_crash(shown)
    assert shown.returncode == 1  # something would change
    written = run_shmlint_bytes("fix", "--write", ".", cwd=tmp_path, limit_memory=True)
    assert_no_crash(written)
    # 1 when findings are left that fail the run (SHM000 for the files it cannot parse), and then it says so
    left_failing = b"at or above fail-on remain" in written.stdout
    assert written.returncode == (1 if left_failing else 0), decoded(written.stderr)
    for target in targets:
        if target in invalid:
            assert (tmp_path / target).read_bytes() == before[target], f"fix changed {target}, which it cannot parse"
    _, document = check_json(".", cwd=tmp_path, limit_memory=True)
    left = [f for f in document["findings"] if f["code"] == "SHM001" and f["fixable"]]
    assert not left, left


def test_symlink_loop_in_a_folder(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(POD)
    os.symlink("b.yaml", tmp_path / "a.yaml")
    os.symlink("a.yaml", tmp_path / "b.yaml")
    os.symlink("missing.yaml", tmp_path / "dangling.yaml")
    os.symlink(".", tmp_path / "self")  # a folder link back up: never followed
    _, document = check_json(".", cwd=tmp_path, timeout=30)
    assert_good_pod_still_checked(document)
    for name in ("a.yaml", "b.yaml", "dangling.yaml"):  # walked links to no file: said, never failing the gate
        assert not findings_for(document, name)
        (notice,) = [n for n in document["notices"] if n["path"] == name]
        assert notice["message"] == "a link to no file: not read", notice


def test_symlink_loop_named_on_the_command_line(tmp_path: Path) -> None:
    """Found: ``shmlint check loop.yaml`` (a symlink loop) -> 'internal error: RuntimeError: Symlink loop' from
    config.find_config's Path.resolve(); exit 2 and no other file checked."""
    (tmp_path / "good.yaml").write_text(POD)
    os.symlink("b.yaml", tmp_path / "a.yaml")
    os.symlink("a.yaml", tmp_path / "b.yaml")
    _, document = check_json("a.yaml", "good.yaml", cwd=tmp_path, timeout=30)
    assert_good_pod_still_checked(document)
    assert [f["code"] for f in findings_for(document, "a.yaml")] == ["SHM000"]
    fixed = run_shmlint_bytes("fix", "a.yaml", "good.yaml", cwd=tmp_path, timeout=30)
    assert_no_crash(fixed)


def test_fifo_and_socket_in_a_folder_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(POD)
    os.mkfifo(tmp_path / "pipe.yaml")
    os.mkfifo(tmp_path / "pipe")  # no extension: never sniffed in a folder walk
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock.yaml"))
    try:
        _, document = check_json(".", cwd=tmp_path, timeout=30)
    finally:
        server.close()
    assert_good_pod_still_checked(document)
    for name in ("pipe.yaml", "sock.yaml"):
        (finding,) = findings_for(document, name)
        assert finding["code"] == "SHM000" and "regular file" in finding["message"]
    assert not findings_for(document, "pipe")


def test_fifo_named_on_the_command_line_does_not_hang(tmp_path: Path) -> None:
    """Found: ``shmlint check mypipe`` (a FIFO without a telling name) blocks forever: discover._sniff() opens it to
    read its first bytes, which waits for a writer that never comes."""
    (tmp_path / "good.yaml").write_text(POD)
    os.mkfifo(tmp_path / "pipe.yaml")
    os.mkfifo(tmp_path / "mypipe")
    for name in ("pipe.yaml", "mypipe"):
        try:
            _, document = check_json(name, "good.yaml", cwd=tmp_path, timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail(f"`shmlint check {name}` (a FIFO) hung")
        assert_good_pod_still_checked(document)
        assert [f["code"] for f in findings_for(document, name)] == ["SHM000"]


def test_folder_named_like_a_yaml_file(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").mkdir()
    (tmp_path / "x.yaml" / "good.yaml").write_text(POD)
    (tmp_path / "deploy.yml").mkdir()
    for args in (["."], ["x.yaml"]):
        _, document = check_json(*args, cwd=tmp_path)
        assert_good_pod_still_checked(document, "x.yaml/good.yaml")
        assert not [f for f in document["findings"] if f["path"] in ("x.yaml", "deploy.yml")]


DROP_PRIVILEGES = r"""
import io, os, sys
from shmlint.cli import cli, main
# load every lazily imported module while still root, then run the real command as 'nobody'
real = sys.stdout, sys.stderr
sys.stdout = sys.stderr = io.StringIO()
for args in (["check", "warm"], ["check", "--format", "json", "warm"], ["fix", "warm"], ["check", "missing/x.yaml"],
             ["check", "--nope"]):
    try:
        cli.main(args, standalone_mode=False)
    except BaseException:
        pass
import click._textwrap, click.formatting  # noqa: F401 (used when printing a usage error)
sys.stdout, sys.stderr = real
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
sys.argv = ["shmlint", *sys.argv[1:]]
main()
"""


def run_as_nobody(*args: str, cwd: Path, pythonpath: str) -> subprocess.CompletedProcess:
    (cwd / "warm").mkdir(exist_ok=True)
    (cwd / "warm" / "pod.yaml").write_text(POD)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": pythonpath}
    return subprocess.run(
        [sys.executable, "-c", DROP_PRIVILEGES, *args], cwd=cwd, capture_output=True, timeout=60, env=env, check=False
    )


@pytest.fixture
def shared_tmp(nobody_pythonpath: str):
    """A folder the unprivileged user can enter (pytest's tmp_path is private to root); skips, saying why, where
    'nobody' cannot run shmlint (``nobody_pythonpath``)."""
    folder = Path(f"/tmp/shmlint-hostile-{uuid.uuid4().hex}")
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder)


def assert_unreadable_file_reported(shared_tmp: Path, pythonpath: str, *paths: str) -> None:
    """good.yaml readable, secret.yaml not: checking ``paths`` as 'nobody' reports secret.yaml as SHM000 and still
    checks good.yaml."""
    (shared_tmp / "good.yaml").write_text(POD)
    (shared_tmp / "good.yaml").chmod(0o644)
    (shared_tmp / "secret.yaml").write_text(POD)
    (shared_tmp / "secret.yaml").chmod(0o000)
    result = run_as_nobody("check", "--format", "json", *paths, cwd=shared_tmp, pythonpath=pythonpath)
    assert_no_crash(result)
    assert result.returncode == 1, decoded(result.stderr)
    document = json.loads(result.stdout)
    assert_good_pod_still_checked(document)
    (finding,) = findings_for(document, "secret.yaml")
    assert finding["code"] == "SHM000" and "permission denied" in finding["message"].lower()


def test_unreadable_file_as_unprivileged_user(shared_tmp: Path, nobody_pythonpath: str) -> None:
    """chmod 000 does not stop root, so the check runs as 'nobody' (privileges dropped after the imports)."""
    assert_unreadable_file_reported(shared_tmp, nobody_pythonpath, ".")


def test_unreadable_file_named_on_the_command_line(shared_tmp: Path, nobody_pythonpath: str) -> None:
    """Found: ``shmlint check good.yaml secret.yaml`` (secret.yaml unreadable) is a usage error (click's Path type
    checks readability: "Path 'secret.yaml' is not readable", exit 2) and good.yaml is not checked either."""
    assert_unreadable_file_reported(shared_tmp, nobody_pythonpath, "good.yaml", "secret.yaml")


def test_unreadable_folder_in_a_tree_as_unprivileged_user(shared_tmp: Path, nobody_pythonpath: str) -> None:
    """A folder 'nobody' cannot enter: the run goes on, and the folder is reported rather than silently skipped.

    Found (first version): 'internal error: PermissionError: ... pyvenv.cfg' from discover._is_venv() (Path.is_file()
    raises for EACCES), since fixed by a refactor. Found (now): os.walk() drops the folder without a word
    (discover._walk passes no onerror), so the files in it are never checked and nothing says so.
    """
    (shared_tmp / "good.yaml").write_text(POD)
    (shared_tmp / "good.yaml").chmod(0o644)
    (shared_tmp / "locked").mkdir()
    (shared_tmp / "locked" / "pod.yaml").write_text(POD)
    (shared_tmp / "locked").chmod(0o000)
    result = run_as_nobody("check", "--format", "json", ".", cwd=shared_tmp, pythonpath=nobody_pythonpath)
    assert_no_crash(result)
    assert result.returncode == 1, decoded(result.stderr)
    document = json.loads(result.stdout)
    assert_good_pod_still_checked(document)
    said = [f["message"] for f in document["findings"] if f["path"].startswith("locked")]
    said += [n["message"] for n in document["notices"] if n["path"].startswith("locked")]
    assert said, f"the unreadable folder was skipped without a word: {document}"


def test_files_deleted_between_discovery_and_reading(tmp_path: Path, engine) -> None:
    """Engine level: a file that disappears after discovery is SHM000 'cannot read', the rest is checked."""
    from shmlint.discover import discover

    for index in range(5):
        (tmp_path / f"pod{index}.yaml").write_text(POD)
    candidates = list(discover([tmp_path]))
    (tmp_path / "pod2.yaml").unlink()
    results = [engine.check_candidate(c) for c in candidates]
    codes = {Path(r.path).name: [f.code for f in r.findings] for r in results}
    assert codes["pod2.yaml"] == ["SHM000"] and codes["pod0.yaml"] == ["SHM001"]
    message = next(r for r in results if r.path.endswith("pod2.yaml")).findings[0].message
    assert "cannot read" in message


@pytest.mark.slow
def test_files_deleted_while_the_cli_runs(tmp_path: Path) -> None:
    """CLI level: a thread deletes files while check and fix --write walk 1,500 of them: no crash, exit 0/1/2."""
    tree = tmp_path / "tree"
    for index in range(1_500):
        folder = tree / f"d{index % 30}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"pod{index}.yaml").write_text(POD if index % 3 else POD.replace("nvidia.com/gpu: 1", "cpu: 1"))
    files = sorted(tree.rglob("*.yaml"))
    for command in (["check", "--format", "json", "tree"], ["fix", "--write", "tree"]):
        stop = threading.Event()

        def delete(victims: list[Path] = files[::7], stop: threading.Event = stop) -> None:
            for path in victims:
                if stop.is_set():
                    return
                path.unlink(missing_ok=True)
                time.sleep(0.002)

        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-m", "shmlint", *command],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deleter = threading.Thread(target=delete)
        time.sleep(0.3)
        deleter.start()
        try:
            out, err = process.communicate(timeout=120)
        finally:
            stop.set()
            deleter.join()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)  # whatever is left of this run (worker processes)
        assert "Traceback" not in decoded(err) and "internal error" not in decoded(err), decoded(err)[-2000:]
        assert process.returncode in (0, 1, 2), process.returncode
        if command[0] == "check":
            json.loads(out)
        files = sorted(tree.rglob("*.yaml"))
    assert not list(tree.rglob("*.shmlint-tmp"))


def test_absurd_sizes(tmp_path: Path) -> None:
    """Found: sizes.parse_docker() -> OverflowError on a number beyond a float64 (``--shm-size=1<400 zeros>g``,
    compose ``shm_size``), sizes.parse_kubernetes() -> ValueError on more than 4,300 digits (Python's int limit):
    both an internal error (exit 2) that ends the run."""
    huge = "1" + "0" * 400
    (tmp_path / "run.sh").write_text(f"docker run --gpus all --shm-size={huge}g pytorch/pytorch python t.py\n")
    (tmp_path / "compose.yaml").write_text(
        f"services:\n  t:\n    image: pytorch/pytorch\n    gpus: all\n    shm_size: {huge}g\n"
    )
    (tmp_path / "pod.yaml").write_text(
        POD + "    volumeMounts: [{name: d, mountPath: /dev/shm}]\n  volumes:\n"
        f"  - {{name: d, emptyDir: {{medium: Memory, sizeLimit: 1{'0' * 5000}Gi}}}}\n"
    )
    (tmp_path / "good.yaml").write_text(POD)
    for name in ("run.sh", "compose.yaml", "pod.yaml"):
        _, document = check_json(name, "good.yaml", cwd=tmp_path)
        assert_good_pod_still_checked(document)
        assert findings_for(document, name), f"{name}: an absurd size must be a finding (SHM011)"


def test_invalid_input_points_at_the_right_line(tmp_path: Path) -> None:
    """Found: for a control character, yamlnodes.compose() turns libyaml's *byte* offset into a line as if it were a
    character offset, so after any non-ASCII text the SHM000 points at the wrong line (here 5 instead of 4); and a
    syntax error at the end of a file without a final newline is reported on a line that does not exist."""
    (tmp_path / "ctl.yaml").write_text("# café ünïcödé ✓✓✓ 日本語\n# ✓✓✓✓✓✓✓✓✓✓✓✓\nkind: Pod\nname: a\x07b\n")
    (tmp_path / "eof.yaml").write_text("services:\n  a:\n    image: x\n  ${VAR}:/media/")
    _, document = check_json("ctl.yaml", "eof.yaml", cwd=tmp_path)
    (ctl,) = findings_for(document, "ctl.yaml")
    assert ctl["code"] == "SHM000" and ctl["line"] == 4, ctl
    (eof,) = findings_for(document, "eof.yaml")
    assert eof["code"] == "SHM000" and eof["line"] <= 4, eof


def test_stdin_hostile_bytes(tmp_path: Path) -> None:
    binary = run_shmlint_bytes("check", "-", "--stdin-filename", "pod.yaml", cwd=tmp_path, stdin=b"\x00\x01\x02" * 100)
    assert_no_crash(binary)
    assert binary.returncode == 1 and b"SHM000" in binary.stdout
    latin1 = run_shmlint_bytes(
        "check",
        "-",
        "--stdin-filename",
        "pod.yaml",
        cwd=tmp_path,
        stdin=POD.encode().replace(b"trainer", b"tr\xe9iner"),
    )
    assert_no_crash(latin1)
    assert latin1.returncode == 1
    bombed = run_shmlint_bytes(
        "check",
        "-",
        "--stdin-filename",
        "pod.yaml",
        cwd=tmp_path,
        stdin=bomb("classic").encode(),
        limit_memory=True,
        timeout=60,
    )
    assert_no_crash(bombed)
    assert bombed.returncode in (0, 1)


@pytest.mark.parametrize(
    "config",
    [
        b"\xff\xfe\x00garbage",
        b"\x00\x01\x02",
        b"!!python/object/apply:os.system ['touch PWNED']\n",
        bomb("classic").encode(),
        b"exclude: [[[[\n",
        b"max-file-size: -1\n",
        b"torch-images: ['((']\n",
        b"select: 12\n",
        b"- a\n- b\n",
    ],
    ids=[
        "utf16ish",
        "binary",
        "python-tag",
        "alias-bomb",
        "broken-yaml",
        "negative-size",
        "bad-regex",
        "wrong-type",
        "list",
    ],
)
def test_hostile_configuration_is_a_clear_error(tmp_path: Path, config: bytes) -> None:
    (tmp_path / "good.yaml").write_text(POD)
    (tmp_path / ".shmlint.yaml").write_bytes(config)
    result = run_shmlint_bytes("check", ".", cwd=tmp_path, limit_memory=True, timeout=60)
    assert_no_crash(result)
    assert result.returncode == 2, (result.returncode, decoded(result.stdout), decoded(result.stderr))
    assert ".shmlint.yaml" in decoded(result.stderr)
    assert not (tmp_path / "PWNED").exists()


def test_python_tags_never_construct_objects(tmp_path: Path) -> None:
    marker = Path(f"/tmp/shmlint-pwned-{uuid.uuid4().hex}")
    payloads = [
        f"!!python/object/apply:os.system ['touch {marker}']\n",
        POD.replace("kind: Pod", f"kind: Pod\nx: !!python/object/apply:os.system ['touch {marker}']"),
        POD + f"  initContainers: !!python/object/apply:subprocess.call [['touch', '{marker}']]\n",
        f"services:\n  a: !!python/object/new:os.system ['touch {marker}']\n",
        "!!python/name:os.system\n---\n!!python/module:os\n---\n!!python/object:os.system {a: 1}\n",
    ]
    for index, payload in enumerate(payloads):
        (tmp_path / f"p{index}.yaml").write_text(payload)
    (tmp_path / ".shmlint.yaml").write_text(f"extends: !!python/object/apply:os.system ['touch {marker}']\n")
    for command in (
        ["check", "--config", "/dev/null", "."],
        ["check", "."],
        ["fix", "--write", "--config", "/dev/null", "."],
    ):
        result = run_shmlint_bytes(*command, cwd=tmp_path)
        assert_no_crash(result)
        assert result.returncode in (0, 1, 2)
    assert not marker.exists(), "a YAML tag ran code"


@pytest.mark.slow
def test_command_lines_are_never_executed(tmp_path: Path) -> None:
    marker = Path(f"/tmp/shmlint-pwned-{uuid.uuid4().hex}")
    evil = [
        f"$(touch {marker}-1)",
        f"`touch {marker}-2`",
        f"; touch {marker}-3;",
        f"$(touch${{IFS}}{marker}-4)",
        f"--shm-size=$(touch {marker}-5)",
        f"<(touch {marker}-6)",
        f"&& touch {marker}-7 #",
    ]
    runs = [f"docker run --gpus all {e} pytorch/pytorch torchrun --nproc_per_node=2 train.py {e}" for e in evil]
    (tmp_path / "run.sh").write_text("#!/bin/sh\n" + "\n".join(runs) + "\n")
    (tmp_path / "README.md").write_text("```sh\n" + "\n".join(runs) + "\n```\n")
    (tmp_path / "Makefile").write_text("train:\n" + "".join(f"\t{r}\n" for r in runs))
    (tmp_path / ".gitlab-ci.yml").write_text("train:\n  script:\n" + "".join(f"    - {json.dumps(r)}\n" for r in runs))
    (tmp_path / "compose.yaml").write_text(
        "services:\n  t:\n    image: pytorch/pytorch\n    gpus: all\n"
        f"    command: {json.dumps(runs[0])}\n    shm_size: {json.dumps(evil[0])}\n"
    )
    (tmp_path / "Dockerfile").write_text(f"FROM pytorch/pytorch\nRUN touch {marker}-8\n")
    for command in (["check", "."], ["fix", "."], ["fix", "--write", "."], ["fix", "--write", "--unsafe-fixes", "."]):
        result = run_shmlint_bytes(*command, cwd=tmp_path)
        assert_no_crash(result)
        stdin = run_shmlint_bytes(
            "check", "-", "--stdin-filename", "run.sh", cwd=tmp_path, stdin=(tmp_path / "run.sh").read_bytes()
        )
        assert_no_crash(stdin)
    leaked = sorted(str(p) for p in Path("/tmp").glob(f"{marker.name}*"))
    assert not leaked, f"input was executed: {leaked}"
    assert "--shm-size=8g" in (tmp_path / "run.sh").read_text()  # the fixer did rewrite these lines


@pytest.mark.slow
def test_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(POD)
    (tmp_path / "clean.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    (tmp_path / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nspec: [\n")
    (tmp_path / "settings.yaml").write_text("a: [\n")
    assert run_shmlint_bytes("check", "clean.yaml", cwd=tmp_path).returncode == 0
    assert run_shmlint_bytes("check", "good.yaml", cwd=tmp_path).returncode == 1
    assert run_shmlint_bytes("check", "broken.yaml", cwd=tmp_path).returncode == 1  # SHM000 is an error finding
    noted = run_shmlint_bytes("check", "settings.yaml", cwd=tmp_path)  # no manifest, no signal: a note
    assert noted.returncode == 0 and b"note: not valid YAML at line 1" in noted.stdout
    for usage in (
        ["check", "--nope"],
        ["check", "--format", "xml"],
        ["check", "--select", "SHM999"],
        ["nope"],
        ["fix", "--shm-size", "lots"],
    ):
        result = run_shmlint_bytes(*usage, cwd=tmp_path)
        assert result.returncode == 2, usage
        assert_no_crash(result)


@pytest.mark.parametrize(
    "hint",
    ["workers=" + "9" * 5000 + " batch=1 sample=3", "workers=" + "9" * 4000 + " batch=" + "9" * 4000 + " sample=3"],
    ids=["5000-digits", "4000-digit-values"],
)
def test_huge_loader_hint_numbers_are_a_finding(tmp_path: Path, hint: str) -> None:
    """Found: ValueError (int max str digits) and OverflowError aborted the run."""
    text = POD_TEMPLATE.format(name="p").replace("  - name: train", f"  # shmlint: dataloader {hint}\n  - name: train")
    (tmp_path / "pod.yaml").write_text(text, encoding="utf-8")
    run = run_shmlint_bytes("check", "pod.yaml", cwd=tmp_path)
    assert run.returncode == 1, run.stderr.decode()[-500:]
    assert b"unreadable dataloader hint: workers=99999" in run.stdout and b"at most 1,024" in run.stdout


NUMBER_SITES = [
    ("run.sh", f"docker run --gpus {SUPERSCRIPT} pytorch/pytorch python train.py\n", FileKind.SHELL),
    ("run2.sh", f"docker run --gpus {BIG} pytorch/pytorch python train.py\n", FileKind.SHELL),
    ("run3.sh", f"docker run --gpus count={BIG} pytorch/pytorch python train.py\n", FileKind.SHELL),
    (
        "pod.yaml",
        "kind: Pod\nspec:\n  containers:\n  - name: t\n    image: pytorch/pytorch\n"
        f"    resources:\n      limits:\n        nvidia.com/gpu: {SUPERSCRIPT}\n",
        FileKind.YAML,
    ),
    (
        ".devcontainer/devcontainer.json",
        f'{{"image": "pytorch/pytorch", "runArgs": ["--gpus", "all"], "hostRequirements": {{"cpus": {BIG}}}}}',
        FileKind.DEVCONTAINER,
    ),
    (
        "task.json",
        '{"family": "x", "containerDefinitions": [{"name": "t", "image": "pytorch/pytorch", '
        f'"memory": {BIG}, "resourceRequirements": [{{"type": "GPU", "value": "{SUPERSCRIPT}"}}]}}]}}',
        FileKind.JSON,
    ),
    (
        "flow.py",
        "from metaflow import FlowSpec, step, kubernetes\nclass F(FlowSpec):\n"
        f"    @kubernetes(gpu=0x{BIG}, shared_memory=0x{BIG})\n    @step\n    def start(self):\n        import torch\n",
        FileKind.PYTHON,
    ),
    (
        "flow2.py",
        "from metaflow import FlowSpec, step, kubernetes\nclass F(FlowSpec):\n"
        f'    @kubernetes(gpu="{SUPERSCRIPT}", shared_memory="{SUPERSCRIPT}")\n    @step\n    def start(self):\n'
        "        import torch\n",
        FileKind.PYTHON,
    ),
    (
        "main.tf",
        'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      image = "pytorch/pytorch"\n'
        f'      resources {{\n        limits = {{ "nvidia.com/gpu" = {BIG} }}\n      }}\n    }}\n  }}\n}}\n',
        FileKind.TERRAFORM,
    ),
    (
        "config.toml",
        '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    image = "pytorch/pytorch"\n    gpus = "all"\n'
        f"    shm_size = {BIG}\n",
        FileKind.GITLAB_RUNNER,
    ),
    ("Dockerfile.md", f"```dockerfile\nFROM a\nFROM b\nCOPY --from={BIG} /x /y\n```\n", FileKind.MARKDOWN),
]


@pytest.mark.parametrize(("name", "text", "kind"), NUMBER_SITES, ids=[site[0] for site in NUMBER_SITES])
def test_an_odd_or_huge_number_is_never_an_internal_error(name: str, text: str, kind: FileKind) -> None:
    """Every site that reads a number: a result (a finding, or the value read as unknown), never an exception
    (which the engine would now turn into a DEFECT finding: asserted absent)."""
    findings = check_in_process(name, text, kind)
    assert not any(DEFECT in finding for finding in findings), findings


@pytest.mark.parametrize(
    ("name", "text", "kind", "where"),
    [
        ("main.tf", NUMBER_SITES[8][1], FileKind.TERRAFORM, "number longer than 64 characters"),
        ("config.toml", NUMBER_SITES[9][1], FileKind.GITLAB_RUNNER, "Number too long"),
        (".devcontainer/devcontainer.json", NUMBER_SITES[4][1], FileKind.DEVCONTAINER, "number longer than 64"),
    ],
)
def test_a_number_too_long_to_read_is_an_shm000_with_its_place(
    name: str, text: str, kind: FileKind, where: str
) -> None:
    result = Engine(Settings(undecided="show")).check_source(SourceText(name, text), kind, name)
    (finding,) = [finding for finding in result.findings if finding.code == "SHM000"]
    assert where in finding.message
    assert finding.span.line > 1 or finding.span.column > 1  # placed at the number, not at the top of the file


def test_a_defect_in_one_file_is_that_files_finding_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence for a tree: an exception of shmlint's own while checking one file read from disk is
    that file's SHM000, every other file is reported and --output written, and the command says so on stderr and
    exits 2 (a tool error, never a pass). ``check_source`` itself still raises, so fuzzing sees every defect."""
    from click.testing import CliRunner

    import shmlint.engine as engine_module
    from shmlint.cli import cli
    from shmlint.discover import Candidate

    real = engine_module.extract_file

    def broken(source: SourceText, *args: object) -> object:
        if source.path.endswith("bad.sh"):
            raise ValueError("a defect")
        return real(source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_module, "extract_file", broken)
    (tmp_path / "bad.sh").write_text("docker run --gpus all img\n", encoding="utf-8")
    (tmp_path / "good.sh").write_text(
        "docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n", encoding="utf-8"
    )
    engine = Engine(Settings(undecided="show"))
    with pytest.raises(ValueError, match="a defect"):
        engine.check_source(SourceText("bad.sh", "x\n"), FileKind.SHELL, "bad.sh")
    (finding,) = engine.check_candidate(Candidate(str(tmp_path / "bad.sh"), FileKind.SHELL, explicit=True)).findings
    assert finding.code == "SHM000" and DEFECT in finding.message and "ValueError: a defect" in finding.message
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke(cli, ["check", ".", "--format", "json", "--output", "out.json"])
    assert run.exit_code == 2 and "internal error on 1 file(s), first bad.sh" in run.output, run.output
    reported = {(f["path"], f["code"]) for f in json.loads((tmp_path / "out.json").read_text())["findings"]}
    assert reported == {("bad.sh", "SHM000"), ("good.sh", "SHM001")}


def test_a_tree_with_every_odd_number_still_reports_everything_and_writes_output(tmp_path: Path) -> None:
    for name, text, _ in NUMBER_SITES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    good = "docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"
    (tmp_path / "good.sh").write_text(good, encoding="utf-8")
    run = run_shmlint("check", ".", "--format", "sarif", "--output", "out.sarif", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    results = json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"]
    reported = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in results}
    assert {"good.sh", "main.tf", "config.toml"} <= reported
    assert not any(DEFECT in result["message"]["text"] for result in results)
