"""Never silent: input that cannot be read is reported whatever the selection, a path that does not exist (or is
empty, or is not a file to fix) stops ``check`` and ``fix`` alike, a folder the walk cannot enter or reach is
named, stdin is read by its content, and a baseline run says what it recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shmlint.file_formats import kind_by_content
from shmlint.format_descriptor import FileKind
from tests.hostile import POD_TEMPLATE, assert_clean_error
from tests.support import ROOT, run_shmlint, run_shmlint_bytes

GPU_SCRIPT = (ROOT / "fixtures" / "shell" / "SHM001-missing-shm.sh").read_text()
GPU_POD = (ROOT / "fixtures" / "k8s" / "SHM001-crlf.yaml").read_bytes().decode().replace("\r\n", "\n")
GPU_COMPOSE = "services:\n  train:\n    image: pytorch/pytorch\n    command: torchrun --nproc_per_node=2 train.py\n    gpus: all\n"
BROKEN_YAML = "apiVersion: v1\nkind: Pod\nspec: [\n"
EXIT_USAGE = 2


def run(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_shmlint(*args, cwd=cwd, input=stdin)


@pytest.mark.parametrize(
    "selection",
    [("--select", "SHM001"), ("--select", "shm-too-small,SHM003")],
    ids=["one-code", "slug-and-code"],
)
def test_broken_yaml_is_reported_whatever_is_selected(tmp_path: Path, selection: tuple[str, str]) -> None:
    (tmp_path / "pod.yaml").write_text(BROKEN_YAML)
    result = run("check", *selection, str(tmp_path / "pod.yaml"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "SHM000 [error] invalid YAML" in result.stdout


@pytest.mark.parametrize(
    ("name", "text", "code"),
    [
        # a KEP's metadata with a typo (found on a GPU scheduler's repository): no manifest, no signal
        ("kep.yaml", "title: Scoring\nkep-number: 217\nauthors:\n- someone\n owning-sig: sig-scheduling\n", None),
        ("settings.yml", "server:\n  port: 80\n  name: [\n", None),
        ("pod.yaml", BROKEN_YAML, "SHM000"),  # looks like a manifest: what it meant to run is unknown
        ("compose.yaml", "services:\n  web: [\n", "SHM000"),
        ("job.yaml", "spec:\n  containers: [\n", "SHM000"),
        ("list.yaml", "- apiVersion: v1\n  kind: Pod\n  spec: [\n", "SHM000"),
        # an API schema whose property is named ``kind`` (audit66a: an OpenAPI file failed the gate)
        (
            "api.yaml",
            "openapi: 3.0.0\ncomponents:\n  schemas:\n    A:\n      kind: {type: string, enum: [a, b}\n",
            None,
        ),
        ("gpu.yaml", "resources: {limits: {nvidia.com/gpu: 1}\n", "SHM000"),  # a signal: it may hold a finding
        # a signal and nothing about containers (audit55b: NeMo launcher configs whose keys name GPUs)
        ("search.yaml", "train_settings:\n  gpus_per_node: 8\n  results_dir: {$results_dir}/llama\n", None),
        ("ci.yaml", "jobs:\n  test:\n    gpus: 1\n    run: docker run --gpus all x [\n  x: [\n", "SHM000"),
        # a conda environment whose packages name torch (audit51a): installed, never run
        ("environment.yml", "name: x\ndependencies:\n  - torch=1.3.1\n  - requests\n    pip:\n      - tf\n", None),
        # conda's keys, refused for its shape (an alias bomb): SHM000 whatever the file is for
        (
            "env.yml",
            "name: x\ndependencies:\n  - &a [torch, torch]\n  - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "  - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n  - &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "  - &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n  - &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
            "  - [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n",
            "SHM000",
        ),
        # the same keys and a compose key: it may run containers
        ("conda.yml", "name: x\ndependencies: [torch]\nservices:\n  a: [\n", "SHM000"),
        # a MIME message (audit90c: a GPU node's cloud-init user data named .yaml for Terraform's templatefile)
        (
            "userdata.yaml",
            'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\nContent-Type: '
            "application/node.eks.aws\n\nimage: nvidia/cuda\ncontainers: [\n",
            None,
        ),
        # an image key at any depth: a GitHub Actions container job's is at the sixth column (the review), as a VM
        # blueprint's is (audit73c: SHM000 there, left)
        ("train.yml", "jobs:\n  t:\n    container:\n      image: pytorch/pytorch\n    steps: [\n", "SHM000"),
    ],
)
def test_broken_yaml_that_cannot_hold_a_workload_is_a_note(
    tmp_path: Path, name: str, text: str, code: str | None
) -> None:
    """A YAML file with no GPU, torch or /dev/shm word that does not look like a manifest or a compose file cannot
    hold a /dev/shm finding: its syntax error is said in a note with its line, and the gate passes (it failed the
    gate as an SHM000 error, which a /dev/shm linter has no business doing for a KEP's metadata)."""
    (tmp_path / name).write_text(text)
    result = run("check", str(tmp_path / name))
    if code is None:
        assert result.returncode == 0 and "SHM000" not in result.stdout, result.stdout
        assert f"{name}: note: not valid YAML at line " in result.stdout
    else:
        assert result.returncode == 1 and f"{code} [error]" in result.stdout, result.stdout


def test_select_in_configuration_does_not_hide_broken_yaml(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("select: [SHM001]\n")
    (tmp_path / "pod.yaml").write_text(BROKEN_YAML)
    result = run("check", str(tmp_path))
    assert result.returncode == 1 and "SHM000" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("how", [("--ignore", "SHM000"), ("--ignore", "invalid-input")], ids=["code", "slug"])
def test_only_an_explicit_ignore_silences_shm000(tmp_path: Path, how: tuple[str, str]) -> None:
    (tmp_path / "pod.yaml").write_text(BROKEN_YAML)
    result = run("check", "--select", "SHM001", *how, str(tmp_path / "pod.yaml"))
    assert result.returncode == 0 and "SHM000" not in result.stdout, result.stdout + result.stderr


def test_ignore_shm000_in_configuration_silences_it(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("select: [SHM001]\nignore: [SHM000]\n")
    (tmp_path / "pod.yaml").write_text(BROKEN_YAML)
    assert run("check", str(tmp_path)).returncode == 0


@pytest.mark.parametrize(
    "command",
    [("check",), ("check", "--format", "json"), ("check", "--select", "SHM001"), ("fix",), ("fix", "--write")],
)
def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A named path that does not exist (or goes through a file) is a usage error naming every such path, before
    any work: nothing printed on stdout, nothing written."""
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    paths = [str(tmp_path / name) for name in ("pod.yaml/inner.yaml", "missing-path", "pod.yaml")]
    result = run(*command, *paths)
    assert result.returncode == EXIT_USAGE, result.stdout + result.stderr
    said = result.stderr.replace(str(tmp_path) + "/", "")
    assert "no such file or folder: 'pod.yaml/inner.yaml', 'missing-path'" in said
    assert result.stdout == "" and "Traceback" not in said and "internal error" not in said
    assert "Would fix 0" not in result.stderr + result.stdout
    assert (tmp_path / "pod.yaml").read_text() == GPU_POD  # nothing was written before the error


def test_a_broken_link_exists_and_is_reported_as_unreadable(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").symlink_to(tmp_path / "gone.yaml")
    result = run("check", "--select", "SHM001", str(tmp_path / "pod.yaml"))
    assert result.returncode == 1 and "SHM000 [error] cannot read" in result.stdout, result.stdout + result.stderr


def test_fix_reads_stdin_only_on_its_own() -> None:
    """``fix -`` prints standard input fixed (``test_fix_cli``); with other paths it is a usage error."""
    assert run("fix", "-", "README.md", stdin=GPU_POD).returncode == EXIT_USAGE


def test_the_exit_code_of_a_missing_path_is_documented() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "path that does not exist" in readme


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (GPU_SCRIPT, "docker run (line 8)"),
        (GPU_POD, "SHM001"),
        (GPU_COMPOSE, "SHM001"),
        # a shell snippet whose first command writes a manifest (audit72c: SHM000, read as YAML)
        (f"cat <<'EOF' | kubectl apply -f -\n{GPU_POD}EOF\n", "SHM001"),
    ],
    ids=["shebang-script", "kubernetes", "compose", "here-document-snippet"],
)
def test_stdin_without_a_name_is_classified_by_content(text: str, words: str) -> None:
    result = run("check", "-", stdin=text)
    assert "SHM000" not in result.stdout, result.stdout
    assert result.returncode == 1 and words in result.stdout, result.stdout + result.stderr


def test_stdin_and_a_file_without_a_telling_name_get_the_same_answer(tmp_path: Path) -> None:
    (tmp_path / "train").write_text(GPU_SCRIPT)
    from_file = run("check", "--format", "json", str(tmp_path / "train"))
    from_stdin = run("check", "--format", "json", "-", stdin=GPU_SCRIPT)

    def codes(result: subprocess.CompletedProcess[str]) -> list[tuple[str, int]]:
        return [(f["code"], f["line"]) for f in json.loads(result.stdout)["findings"]]

    assert codes(from_file) == codes(from_stdin) != []


def test_write_baseline_says_what_it_recorded_and_where(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    (tmp_path / "run.sh").write_text(GPU_SCRIPT)
    baseline = tmp_path / "baseline.json"
    result = run("check", str(tmp_path), "--write-baseline", str(baseline))
    recorded = len(json.loads(baseline.read_text())["entries"])
    assert result.returncode == 0 and recorded == 2  # the script's one-process torchrun is undecided
    assert f"Recorded {recorded} finding(s) in the baseline {baseline}" in result.stderr
    assert "All checked" not in result.stdout and "no findings" not in result.stdout
    assert f"No new findings in 2 file(s) ({recorded} accepted by the baseline)." in result.stdout
    again = run("check", str(tmp_path), "--baseline", str(baseline), "--format", "json")
    assert json.loads(again.stdout)["summary"] == {"files": 2, "findings": 0, "baselined": recorded, "undecided": 1}


def test_a_run_that_checked_no_file_does_not_say_all_checked(tmp_path: Path) -> None:
    """pre-commit names a vendored file that the configuration excludes: with --force-exclude nothing is checked,
    and the summary says so instead of "All checked"."""
    (tmp_path / ".shmlint.yaml").write_text('extend-exclude: ["vendor/"]\n')
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "pod.yaml").write_text(GPU_POD)
    excluded = run("check", "--force-exclude", "vendor/pod.yaml", cwd=tmp_path)
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr
    assert "No files checked" in excluded.stdout and "All checked" not in excluded.stdout
    checked = run("check", "vendor/pod.yaml", cwd=tmp_path)  # named without --force-exclude: checked
    assert checked.returncode == 1 and "SHM001" in checked.stdout


@pytest.mark.parametrize("target", ["fifo", "/dev/null"])  # '-' reads standard input (test_fix_cli)
def test_fix_on_something_that_is_not_a_file_is_an_error(tmp_path: Path, target: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    run = run_shmlint_bytes("fix", "--write", target, cwd=tmp_path, stdin=b"")
    assert_clean_error(run)
    assert b"Fixed 0" not in run.stdout


def test_an_empty_path_is_an_error_not_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    run = run_shmlint_bytes("check", "", cwd=tmp_path)
    assert_clean_error(run, "an empty path")


def _refusing_scandir(monkeypatch: pytest.MonkeyPatch, refused: str) -> None:
    """As root (this machine's CI), permissions do not stop a walk: the folder's listing fails as it would."""
    real = os.scandir

    def scandir(path: str = ".") -> object:
        if os.path.basename(os.fspath(path)) == refused:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("named", [".", "zz"])
def test_the_last_folder_walked_or_the_named_one_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    from shmlint.discover import discover

    (tmp_path / "aa").mkdir()
    (tmp_path / "aa" / "pod.yaml").write_text("kind: Pod\n", encoding="utf-8")
    (tmp_path / "zz").mkdir()  # walked last (names are sorted)
    monkeypatch.chdir(tmp_path)
    _refusing_scandir(monkeypatch, "zz")
    errors = [(c.path, c.error) for c in discover([named]) if c.error is not None]
    assert errors == [("zz", "cannot read folder: Permission denied")]


def _deeper_than_path_max(top: Path) -> None:
    """Twenty folders of 250-character names (5,000 characters: beyond PATH_MAX), made relative to each other."""
    fd = os.open(top, os.O_RDONLY)
    try:
        for index in range(20):
            name = chr(ord("a") + index) * 250
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "junit", "gitlab"])
def test_a_tree_deeper_than_path_max_is_not_a_silent_pass(tmp_path: Path, fmt: str) -> None:
    _deeper_than_path_max(tmp_path)
    run = run_shmlint("check", ".", "--format", fmt, cwd=tmp_path)
    assert run.returncode == 1, (run.returncode, run.stdout[-500:], run.stderr[-500:])
    assert "cannot read folder: File name too long" in run.stdout
    assert "All checked" not in run.stdout + run.stderr


def test_fix_says_which_folder_it_could_not_enter(tmp_path: Path) -> None:
    _deeper_than_path_max(tmp_path)
    run = run_shmlint("fix", ".", cwd=tmp_path)
    assert run.returncode == 0 and "not fixed: cannot read folder: File name too long" in run.stderr, run.stderr


@pytest.mark.parametrize(
    "code",
    [
        'print(f"{"a"}")',
        "type Alias = list[int]",
        "def first[T](items: list[T]) -> T:\n    return items[0]",
        "type Pair[T: (int, str)] = tuple[T, T]\nclass Box[T = int]:\n    pass\nx = f'{'b'}'",  # nested, several
        'meta = {"at": f"{now.strftime("%Y-%m-%d")}", "by": user}',  # inside a larger expression
        "".join(f'env{i} = f"{{cfg["k{i}"]}}"\n' for i in range(9)),  # many of them
        'msg = f"{\n    user\n}"',  # an f-string expression over lines
        "def first[\n    T\n](items: list[T]) -> T:\n    return items[0]",
    ],
)
def test_python_a_newer_interpreter_reads_is_a_note_not_an_error(tmp_path: Path, code: str) -> None:
    """Valid for Python 3.12 (PEP 701 f-strings, PEP 695 types): on an older Python, shmlint says it did not check
    the file, and fails nothing; a file broken in a way no Python reads stays SHM000."""
    (tmp_path / "tasks.py").write_text(f"import docker\n\nclient = docker.from_env()\n{code}\n")
    done = run_shmlint("check", "tasks.py", cwd=tmp_path)
    assert done.returncode == 0 and "SHM000" not in done.stdout, done.stdout
    older = sys.version_info < (3, 12)
    assert ("not checked: Python 3." in done.stdout) is older, done.stdout


def test_python_with_old_mac_line_ends_is_read_by_its_own_lines(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_bytes(b"import docker\rclient = docker.from_env()\rtype Labels = dict[str, str]\r")
    done = run_shmlint("check", "tasks.py", cwd=tmp_path)
    assert done.returncode == 0 and "SHM000" not in done.stdout, done.stdout


@pytest.mark.parametrize("code", ["def f(:\n    pass", "x = (", 'print("a"', "client2 = docker.from_env("])
def test_python_broken_for_every_python_stays_shm000_where_it_breaks(tmp_path: Path, code: str) -> None:
    (tmp_path / "tasks.py").write_text(f"import docker\n\nclient = docker.from_env()\n{code}\n")
    done = run_shmlint("check", "tasks.py", cwd=tmp_path)
    errors = [line for line in done.stdout.splitlines() if "SHM000" in line]
    assert done.returncode == 1 and len(errors) == 1 and errors[0].startswith("tasks.py:4:"), done.stdout


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (b"cat <<'EOF' | kubectl apply -f -\napiVersion: v1\n", FileKind.SHELL),
        (b"# set up the job\n\nkubectl apply -f - <<EOF\nkind: Pod\n", FileKind.SHELL),
        (b"#!/usr/bin/perl\nprint <<EOF;\nhello\n", None),  # another interpreter's here-document (the review)
        (b"x: <<: *base\n", None),
    ],
)
def test_a_file_whose_first_command_opens_a_here_document_is_shell(head: bytes, kind: FileKind | None) -> None:
    assert kind_by_content(head) is kind
