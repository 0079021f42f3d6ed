"""Issue 18 (security and data safety), one test per defect, each failing on the code before the fix: configured
patterns that backtrack, writes through links, edits lost during a write, owners and hard links, whole-run aborts,
unbounded work, configuration skipped silently, control characters, and the small ones."""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.signals import Signals
from shmlint.source import SourceText

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}

POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    command: ["torchrun", "train.py"]
"""


def shmlint(*args: str, cwd: Path, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *args],
        cwd=cwd,
        capture_output=True,
        env=ENV,
        timeout=timeout,
        check=False,
        **kwargs,
    )


def assert_clean_error(run: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit 2 with a message, never a traceback or "internal error"."""
    err = run.stderr.decode(errors="replace")
    assert run.returncode == 2, (run.returncode, err[-2000:])
    assert "internal error" not in err and "Traceback" not in err, err[-2000:]
    for needle in needles:
        assert needle in err, err[-2000:]


# -- item 3: configured patterns cannot hang a run -------------------------------------------------------------


def test_backtracking_configured_patterns_finish_in_seconds(tmp_path: Path) -> None:
    """Found: ``torch-images: ["(a|aa)+$"]`` ran for minutes on a comment line of 40 ``a`` (the prefilter searched
    configured patterns over whole files), and on such an image name."""
    line = "a" * 40 + "!"
    (tmp_path / ".shmlint.yaml").write_text(
        'torch-images: ["(a+)+$", "(a|aa)+$"]\ntorch-commands: ["(a|aa)+$"]\n', encoding="utf-8"
    )
    (tmp_path / "comment.yaml").write_text(f"# {line}\nkind: ConfigMap\n", encoding="utf-8")
    (tmp_path / "notes.sh").write_text(f"echo {line}\n", encoding="utf-8")
    (tmp_path / "pod.yaml").write_text(
        POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", line).replace('["torchrun", "train.py"]', f'["{line}"]'),
        encoding="utf-8",
    )
    started = time.perf_counter()
    run = shmlint("check", "--format", "json", ".", cwd=tmp_path, timeout=60)
    assert time.perf_counter() - started < 30
    out = run.stdout.decode()
    assert run.returncode == 1, run.stderr.decode()
    assert "configured torch-images pattern ran longer than" in out
    assert "comment.yaml" not in out and "notes.sh" not in out


def test_configured_patterns_are_matched_on_values_not_files() -> None:
    """The prefilter lets a file through when configuration adds signals and the file has a key they apply to;
    the patterns themselves only ever see image names and command lines."""
    signals = Signals(torch_images=(*Signals().torch_images, "corp/trainer"))
    engine = Engine(Settings(signals=signals, shm_images=("corp/trainer",)))  # and its software needs /dev/shm
    pod = POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "corp/trainer:1").replace(
        '["torchrun", "train.py"]', '["run"]'
    )
    found = engine.check_source(SourceText("p.yaml", pod), FileKind.YAML, Path("p.yaml")).findings
    assert [f.code for f in found] == ["SHM001"]
    # the prefilter only searches literal words taken from the patterns (never runs them over the text), and a
    # file it lets through for a comment holds no workload of that image
    comment_only = "# corp/trainer\nkind: ConfigMap\ndata: {a: b}\n"
    assert not engine.check_source(SourceText("c.yaml", comment_only), FileKind.YAML, Path("c.yaml")).findings


#: files whose only signal is a configured one, in every format the extractors read
CONFIGURED_ONLY = {
    "pod.yaml": POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "corp/trainer:1").replace('"torchrun", ', ""),
    "launch.yaml": POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "busybox").replace('"torchrun"', '"corp-launch"'),
    "accel.yaml": POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "alpine").replace('["torchrun", "train.py"]', '["x"]')
    + "    resources:\n      limits:\n        example.com/accel: 1\n",
    "compose.yaml": "services:\n  t:\n    image: corp/trainer:1\n",
    "compose-command.yaml": "services:\n  t:\n    image: busybox\n    command: corp-launch --x\n",
    "run.sh": "#!/bin/sh\ndocker run --rm corp/trainer:1 python x.py\n",
    "engine-variable.sh": "$CONTAINER_ENGINE run --rm busybox corp-launch\n",
    "README.md": "Run it:\n\n```bash\npodman run --device example.com/accel=all alpine x\n```\n",
    "ci.yaml": "jobs:\n  t:\n    steps:\n      - run: docker run corp/trainer:1\n",
}


def test_prefilter_never_hides_a_configured_signal(tmp_path: Path) -> None:
    """Same findings with and without the prefilter when configuration adds signals, and each file has one."""
    signals = Signals(
        gpu_resources=(*Signals().gpu_resources, "example.com/accel"),
        torch_images=(*Signals().torch_images, r"(^|/)corp/trainer$"),
        torch_commands=(*Signals().torch_commands, r"corp-launch"),
    )
    needs = {"shm_images": (r"(^|/)corp/trainer$",), "shm_commands": (r"corp-launch",)}  # a CPU finding needs these
    with_filter = Engine(Settings(signals=signals, undecided="show", **needs))
    without = Engine(Settings(signals=signals, prefilter=False, undecided="show", **needs))
    for name, text in CONFIGURED_ONLY.items():
        kind = FileKind.MARKDOWN if name.endswith(".md") else FileKind.SHELL if name.endswith(".sh") else FileKind.YAML
        source = SourceText(name, text)
        a = [(f.code, f.span.start) for f in with_filter.check_source(source, kind, tmp_path / name).findings]
        b = [(f.code, f.span.start) for f in without.check_source(source, kind, tmp_path / name).findings]
        assert a == b, name
        assert a, f"{name}: the configured signal should make a finding"
        plain = [
            f.code for f in Engine(Settings(undecided="show")).check_source(source, kind, tmp_path / name).findings
        ]
        assert plain != [c for c, _ in a], f"{name}: only the configured signal makes it a workload"


# -- item 4: writes never leave the tree through a link -------------------------------------------------------


def test_fix_does_not_write_through_a_link_out_of_the_tree(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "x.yaml").write_text(POD.format(name="x"), encoding="utf-8")
    (tree / "link.yaml").symlink_to("../outside/x.yaml")
    (tree / "real.yaml").write_text(POD.format(name="real"), encoding="utf-8")
    (tree / "inner-link.yaml").symlink_to("real.yaml")
    run = shmlint("fix", "--write", "tree", cwd=tmp_path)
    said = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    assert run.returncode == 1 and "Traceback" not in said and "internal error" not in said, said
    # discovery already refuses to read it (an SHM000 that fails the run), so no fix is attempted through it
    assert "link.yaml:1:1: SHM000" in said and "a link out of the repository" in said, said
    assert (outside / "x.yaml").read_text(encoding="utf-8") == POD.format(name="x")
    assert "dshm" in (tree / "real.yaml").read_text(encoding="utf-8")  # a link inside the tree is fine
    assert (tree / "inner-link.yaml").is_symlink()


@pytest.mark.parametrize("option", ["--output", "--write-baseline"])
def test_report_and_baseline_are_never_written_through_a_link(tmp_path: Path, option: str) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    (repo / "shmlint.sarif").symlink_to(victim)
    run = shmlint("check", "--format", "sarif", option, "repo/shmlint.sarif", "repo", cwd=tmp_path)
    assert_clean_error(run, "repo/shmlint.sarif: is a symbolic link")
    assert victim.read_text(encoding="utf-8") == "precious\n"


# -- item 5: an edit made during fix --write is never lost ----------------------------------------------------


def _landing_before_rename(monkeypatch, path: Path, change) -> None:
    """Another program changes the file at the worst moment: after the last check, just before the rename."""
    from shmlint.fix import write as write_module

    real_replace = os.replace
    done = []

    def change_then_replace(source, target, *args, **kwargs):
        if Path(target) == path and not done:
            done.append(change(path))
        return real_replace(source, target, *args, **kwargs)

    monkeypatch.setattr(write_module.os, "replace", change_then_replace)


def test_text_appended_just_before_the_rename_is_kept(tmp_path: Path, monkeypatch) -> None:
    """Found: the old code renamed over the appended text and it was gone."""
    from shmlint.fix.write import write_atomic

    path = tmp_path / "pod.yaml"
    path.write_bytes(b"old\n")
    _landing_before_rename(monkeypatch, path, lambda p: p.open("ab").write(b"edit\n"))
    write_atomic(path, b"fixed\n", b"old\n")
    assert path.read_bytes() == b"fixed\nedit\n"
    assert not list(tmp_path.glob("*shmlint*"))


def test_a_rewrite_landing_just_before_the_rename_wins_over_the_fix(tmp_path: Path, monkeypatch) -> None:
    from shmlint.fix.write import WriteError, write_atomic

    path = tmp_path / "pod.yaml"
    path.write_bytes(b"old\n")

    def rewrite(p: Path) -> None:
        with p.open("r+b") as handle:
            handle.write(b"new\n")

    _landing_before_rename(monkeypatch, path, rewrite)
    with pytest.raises(WriteError, match="changed by another program"):
        write_atomic(path, b"fixed\n", b"old\n")
    assert path.read_bytes() == b"new\n"
    assert not list(tmp_path.glob("*shmlint*"))


APPENDER = r"""
import os, sys, time
paths = sys.argv[2:]
deadline = time.time() + float(sys.argv[1])
count = 0
with open(os.devnull, "w"):
    while time.time() < deadline:
        for path in paths:
            with open(path, "ab") as handle:
                handle.write(f"# edit {count}\n".encode())
            count += 1
print(count)
"""


@pytest.mark.slow
def test_appending_during_fix_never_loses_an_edit(tmp_path: Path, capsys) -> None:
    """Found: a process appending to files while ``fix --write`` ran lost one edit in 2 of 5 trials. Here: many
    trials of 150 files each, appended to while the fix runs; every appended line must survive."""
    trials, files, lost, refused, fixed = 8, 150, 0, 0, 0
    for trial in range(trials):
        tree = tmp_path / f"t{trial}"
        tree.mkdir()
        paths = []
        for i in range(files):
            path = tree / f"pod-{i:03d}.yaml"
            path.write_text(POD.format(name=f"p{i}"), encoding="utf-8")
            paths.append(str(path))
        appender = subprocess.Popen(
            [sys.executable, "-c", APPENDER, "4", *paths], stdout=subprocess.PIPE, env=ENV, cwd=tree
        )
        run = shmlint("fix", "--write", ".", cwd=tree, timeout=120)
        appended = int(appender.communicate(timeout=60)[0])
        assert b"Traceback" not in run.stderr and b"internal error" not in run.stderr
        total = 0
        for path in paths:
            text = Path(path).read_text(encoding="utf-8")
            edits = [line for line in text.splitlines() if line.startswith("# edit ")]
            total += len(edits)
            fixed += "dshm" in text
        refused += run.stderr.count(b"changed ")
        lost += appended - total
    with capsys.disabled():
        print(
            f"\n[concurrent edits] {trials} trials x {files} files: {lost} lost, {refused} writes refused, "
            f"{fixed} files fixed",
            end="",
        )
    assert lost == 0
    assert fixed > 0, "the fix ran while the appender did"


# -- item 6: owner, group, mode and hard links ----------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_fix_keeps_owner_group_and_mode_and_drops_setuid(tmp_path: Path) -> None:
    nobody = pwd.getpwnam("nobody")
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(name="p"), encoding="utf-8")
    os.chown(path, nobody.pw_uid, nobody.pw_gid)
    os.chmod(path, 0o4750)
    run = shmlint("fix", "--write", str(path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr.decode()
    info = os.stat(path)
    assert "dshm" in path.read_text(encoding="utf-8")
    assert (info.st_uid, info.st_gid) == (nobody.pw_uid, nobody.pw_gid)
    assert stat.S_IMODE(info.st_mode) == 0o750


def test_fix_refuses_a_file_with_other_hard_links(tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(name="p"), encoding="utf-8")
    os.link(path, tmp_path / "other-name.txt")
    run = shmlint("fix", "--write", str(path), cwd=tmp_path)
    assert_clean_error(run, "2 hard links")
    assert path.read_bytes() == (tmp_path / "other-name.txt").read_bytes() == POD.format(name="p").encode()


# -- item 7: no whole-run abort -------------------------------------------------------------------------------


def merge_chain(depth: int) -> str:
    lines = ["a0: &a0 {x: 1}"]
    lines += [f"a{i}: &a{i}\n  <<: *a{i - 1}" for i in range(1, depth)]
    return "\n".join(lines) + "\n" + POD.format(name="p").replace("  name: p\n", f"  name: p\n  <<: *a{depth - 1}\n")


def test_deep_merge_key_chain_is_checked(tmp_path: Path) -> None:
    """Found: RecursionError (internal error, no report) for merge keys 980-990 deep."""
    (tmp_path / "merge.yaml").write_text(merge_chain(985), encoding="utf-8")
    run = shmlint("check", "merge.yaml", cwd=tmp_path)
    assert run.returncode == 1 and b"SHM001" in run.stdout, run.stderr.decode()[-500:]


@pytest.mark.parametrize(
    "hint",
    ["workers=" + "9" * 5000 + " batch=1 sample=3", "workers=" + "9" * 4000 + " batch=" + "9" * 4000 + " sample=3"],
    ids=["5000-digits", "4000-digit-values"],
)
def test_huge_loader_hint_numbers_are_a_finding(tmp_path: Path, hint: str) -> None:
    """Found: ValueError (int max str digits) and OverflowError aborted the run."""
    text = POD.format(name="p").replace("  - name: train", f"  # shmlint: dataloader {hint}\n  - name: train")
    (tmp_path / "pod.yaml").write_text(text, encoding="utf-8")
    run = shmlint("check", "pod.yaml", cwd=tmp_path)
    assert run.returncode == 1, run.stderr.decode()[-500:]
    assert b"unreadable dataloader hint: workers=99999" in run.stdout and b"at most 1,024" in run.stdout


def test_a_tree_1100_folders_deep_is_walked(tmp_path: Path) -> None:
    """Found: RecursionError in os.walk."""
    folder = tmp_path / "deep"
    folder.mkdir()
    os.chdir(folder)  # relative mkdir keeps each path short
    try:
        for _ in range(1100):
            os.mkdir("d")
            os.chdir("d")
        Path("pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    finally:
        os.chdir(tmp_path)
    try:
        run = shmlint("check", "deep", cwd=tmp_path)
        assert run.returncode == 1 and b"SHM001" in run.stdout, run.stderr.decode()[-500:]
    finally:
        remove_deep(folder)


def remove_deep(folder: Path) -> None:
    """Bottom-up with relative names: ``shutil.rmtree`` (pytest's clean-up too) recurses and fails at this depth."""
    os.chdir(folder)
    depth = 0
    while os.path.isdir("d"):
        os.chdir("d")
        depth += 1
    for entry in os.listdir("."):
        os.unlink(entry)
    for _ in range(depth):
        os.chdir("..")
        os.rmdir("d")
    os.chdir(folder.parent)


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("/dev/full", "No space left on device"),
        ("missing/report.json", "No such file or directory"),
        ("pod.yaml/report.json", "Not a directory"),
    ],
)
def test_output_errors_are_clean(tmp_path: Path, output: str, reason: str) -> None:
    (tmp_path / "pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    run = shmlint("check", "--output", output, "pod.yaml", cwd=tmp_path)
    assert_clean_error(run, f"{output}: cannot write the report: {reason}")


def test_closed_or_full_standard_output_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    closed = subprocess.run(
        f"{sys.executable} -m shmlint check pod.yaml >&-",
        shell=True,
        cwd=tmp_path,
        env=ENV,
        capture_output=False,
        stderr=subprocess.PIPE,
        timeout=60,
        check=False,
    )
    assert_clean_error(closed, "standard output is closed")
    with open("/dev/full", "wb") as full:
        run = subprocess.run(
            [sys.executable, "-m", "shmlint", "check", "pod.yaml"],
            cwd=tmp_path,
            env=ENV,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    assert_clean_error(run, "standard output: cannot print the report: No space left on device")


# -- item 8: bounded work -------------------------------------------------------------------------------------


def test_an_8mb_flow_sequence_is_too_complex_not_minutes(tmp_path: Path) -> None:
    """Found: 58 s and 2.25 GB for an 8 MB ``[1,1,...]``."""
    n = 4 * 1024 * 1024
    (tmp_path / "flow.yaml").write_text("kind: ConfigMap  # gpu\ndata: [" + "1," * (n - 1) + "1]\n", encoding="utf-8")
    started = time.perf_counter()
    run = shmlint("check", "flow.yaml", cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and b"SHM000" in run.stdout and b"too complex to check" in run.stdout
    assert time.perf_counter() - started < 60


def test_a_flow_sequence_under_the_budget_is_still_checked() -> None:
    from shmlint.parsers.yamlnodes import MAX_EVENTS

    text = "kind: ConfigMap  # gpu\ndata: [" + "1," * (MAX_EVENTS - 100) + "1]\n"
    result = Engine(Settings(undecided="show")).check_source(SourceText("f.yaml", text), FileKind.YAML, Path("f.yaml"))
    assert not result.findings


def test_too_many_command_lines_are_too_complex(tmp_path: Path) -> None:
    line = "docker run --gpus all pytorch/pytorch torchrun train.py\n"
    (tmp_path / "run.sh").write_text(line * 6000, encoding="utf-8")
    run = shmlint("check", "run.sh", cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and b"too complex to check" in run.stdout


def test_too_many_workloads_are_too_complex() -> None:
    from shmlint.extract.dispatch import MAX_WORKLOADS

    text = "---\n".join(POD.format(name=f"p{i}") for i in range(MAX_WORKLOADS + 1))
    result = Engine(Settings(undecided="show")).check_source(SourceText("p.yaml", text), FileKind.YAML, Path("p.yaml"))
    assert [f.code for f in result.findings] == ["SHM000"]
    assert "workloads, above the limit" in result.findings[0].message


def test_standard_input_has_the_file_size_limit(tmp_path: Path) -> None:
    """Found: ``check - < /dev/zero`` never ended."""
    with open("/dev/zero", "rb") as zero:
        run = subprocess.run(
            [sys.executable, "-m", "shmlint", "check", "-"],
            stdin=zero,
            capture_output=True,
            env=ENV,
            timeout=60,
            check=False,
            cwd=tmp_path,
        )
    assert run.returncode == 1 and b"standard input is above the limit" in run.stdout


# -- item 11: small ones --------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["fifo", "/dev/null"])  # '-' reads standard input (test_fix_cli)
def test_fix_on_something_that_is_not_a_file_is_an_error(tmp_path: Path, target: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    run = shmlint("fix", "--write", target, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert_clean_error(run)
    assert b"Fixed 0" not in run.stdout


def test_an_empty_path_is_an_error_not_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    run = shmlint("check", "", cwd=tmp_path)
    assert_clean_error(run, "an empty path")


def test_fix_size_below_min_shm_size_is_refused(tmp_path: Path) -> None:
    """Found: accepted silently, and the fix then wrote a size its own check flagged."""
    (tmp_path / "pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    (tmp_path / ".shmlint.yaml").write_text("fix-size: 512Mi\n", encoding="utf-8")
    assert_clean_error(shmlint("fix", "pod.yaml", cwd=tmp_path), "fix size 512Mi is below min-shm-size 1Gi")
    (tmp_path / ".shmlint.yaml").unlink()
    explicit = shmlint("fix", "--shm-size", "256Mi", "pod.yaml", cwd=tmp_path)  # one run's request: a warning
    assert explicit.returncode == 1 and b"warning: --shm-size: the fix size 256Mi is below" in explicit.stderr


def test_a_lone_cr_file_keeps_its_line_breaks_and_indentation(tmp_path: Path) -> None:
    """Found: mixed line endings and odd indentation after a fix of a file with old Mac line breaks."""
    path = tmp_path / "pod.yaml"
    path.write_bytes(POD.format(name="p").replace("\n", "\r").encode())
    run = shmlint("fix", "--write", "pod.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr.decode()
    data = path.read_bytes()
    assert b"\n" not in data and b"\r    volumeMounts:\r    - name: dshm\r" in data
    assert shmlint("check", "pod.yaml", cwd=tmp_path).returncode == 0


def test_stale_disk_folders_of_killed_validate_runs_are_removed(tmp_path: Path, monkeypatch) -> None:
    """Found: ``kill -9`` of validate left a mode-1777 ``/var/tmp/shmlint-disk-shm-*`` folder forever."""
    from shmlint.validate import backends

    monkeypatch.setattr(backends, "DISK_PARENT", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    stale = tmp_path / f"{backends.DISK_PREFIX}{int(dead.stdout)}-abc"
    live = tmp_path / f"{backends.DISK_PREFIX}{os.getpid()}-def"
    other = tmp_path / "unrelated"
    for folder in (stale, live, other):
        folder.mkdir()
    with backends._disk_folder(backends.ShmSpec(backends.Provision.DISK)) as made:
        assert made is not None and Path(made).parent == tmp_path
    assert not stale.exists() and live.exists() and other.exists()


# -- item 9: configuration that cannot be read is an error ----------------------------------------------------


@pytest.mark.parametrize("kind", ["bad-toml", "not-utf8", "folder", "fifo"])
def test_unusable_configuration_is_an_error(tmp_path: Path, kind: str) -> None:
    """Found: passed over silently (the lookup moved on to parent folders)."""
    if kind == "bad-toml":
        (tmp_path / "pyproject.toml").write_text("[tool.shmlint\nselect = 1\n", encoding="utf-8")
    elif kind == "not-utf8":
        (tmp_path / "pyproject.toml").write_bytes(b"[tool.shmlint]\n# \xff\xfe\n")
    elif kind == "folder":
        (tmp_path / ".shmlint.yaml").mkdir()
    else:
        os.mkfifo(tmp_path / ".shmlint.yaml")
    (tmp_path / "pod.yaml").write_text(POD.format(name="p"), encoding="utf-8")
    run = shmlint("check", "pod.yaml", cwd=tmp_path, timeout=30)
    assert_clean_error(run, str(tmp_path))


# -- item 10: control characters ------------------------------------------------------------------------------

HOSTILE_NAME = "c\x1b]0;TITLE\x07\x1b[2J\x9b31m\u202e"


@pytest.mark.parametrize("output_format", ["text", "github"])
def test_control_characters_never_reach_the_terminal(tmp_path: Path, output_format: str) -> None:
    pod = POD.format(name="p").replace("- name: train", f'- name: "{HOSTILE_NAME.encode("unicode_escape").decode()}"')
    (tmp_path / "pod\x1b[31m.yaml").write_text(pod, encoding="utf-8")
    run = shmlint("check", "--format", output_format, ".", cwd=tmp_path)
    out = run.stdout.decode("utf-8", "replace")
    assert run.returncode == 1 and "SHM001" in out
    assert not any(ch in out for ch in "\x1b\x07\x9b\u202e"), out
    assert "\\x1b]0;TITLE\\x07" in out and "pod\\x1b[31m.yaml" in out


# -- the command-line grammar, fuzzed ------------------------------------------------------------------------


def test_command_line_grammar_never_raises_and_stays_linear() -> None:
    """Any text of shell-ish words (quotes, escapes, engine words, options, continuations) is read without an
    exception, and every workload span lies inside the text."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from shmlint.extract.commandline import extract_commands

    words = st.sampled_from(
        [
            "docker",
            "podman",
            "nvidia-docker",
            "run",
            "create",
            "container",
            "--gpus",
            "all",
            "--shm-size",
            "=",
            "1g",
            "--ipc",
            "host",
            "-v",
            "/dev/shm:/dev/shm",
            "--mount",
            "type=tmpfs,destination=/dev/shm",
            "--tmpfs",
            "/dev/shm:size=1g",
            "-e",
            "NCCL_SHM_DISABLE=1",
            "pytorch/pytorch",
            "torchrun",
            "'",
            '"',
            "\\",
            "\\\n",
            "$(",
            ")",
            "${X}",
            "$DOCKER",
            "&&",
            "|",
            ";",
            "#",
            "\n",
            "\r\n",
            "\t",
            " ",
            "sudo",
            "env",
            "A=1",
            "--",
            "-it",
            "--rm",
            "`",
            "<<EOF",
            "EOF",
        ]
    )

    @settings(max_examples=400, deadline=None, database=None)
    @given(st.lists(words, max_size=60).map(" ".join))
    def check(text: str) -> None:
        source = SourceText("f.sh", text)
        for workload in extract_commands(source, text, Signals()):
            assert 0 <= workload.span.start <= workload.span.end <= len(text)

    check()


def test_backtracking_tier_model_patterns_finish_in_seconds(tmp_path: Path) -> None:
    """The tier model's configured patterns (``shm-images`` and friends) run under the same budget (in a child
    process: on the unbounded engine it would run for minutes)."""
    code = (
        "from shmlint.need import builtin, configured\n"
        "from shmlint.configured_patterns import PatternTimeout\n"
        "knowledge = configured(builtin(), needs_images=['(a|aa)+$'], free_commands=['(a|aa)+$'])\n"
        "for entry in knowledge.entries[:2]:\n"
        "    try:\n"
        "        (entry.images or entry.commands).search('a' * 40 + '!')\n"
        "    except PatternTimeout as exc:\n"
        "        print(exc)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, env=ENV, timeout=60, check=False)
    assert run.stdout.count(b"ran longer than") == 2, run.stdout + run.stderr
