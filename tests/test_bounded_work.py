"""Bounded work: any file under ``max-file-size`` is checked in bounded time and memory, or reported as SHM000
"too complex to check in bounded work", and the rest of the run goes on.

Alias bombs, merge-key chains, wide documents, deep trees, flow sequences of millions of items, backtracking
patterns (configured, tier data, ``.gitignore``), long digit runs and parsers' token budgets. These tests hold the
verdicts (exit codes, findings, messages) and run each process under a time-out that only catches a hang; the wall
time and peak memory of the same inputs, with their ratios to a baseline, are ``bench/bounds.py``'s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shmlint.configured_patterns import BUSY_RETRIES, ConfiguredPattern, PatternTimeout
from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.signals import Signals
from shmlint.source import SourceText
from tests.hostile import (
    POD,
    POD_TEMPLATE,
    RUN,
    TORCHRUN_COMMAND,
    aliased_pod,
    assert_good_pod_still_checked,
    assert_no_crash,
    bomb,
    check_in_process,
    check_json,
    decoded,
    findings_for,
)
from tests.support import NESTING_REFUSED, SHMLINT_ENV, run_shmlint, run_shmlint_bytes

# -- the inputs, also timed by bench/bounds.py: each writes its file(s) into a folder and returns their names -----


def write_fifty_megabytes(folder: Path) -> list[str]:
    chunk = ("---\n" + POD) * 1000
    with (folder / "huge.yaml").open("w") as handle:
        while handle.tell() < 50 * 1024 * 1024:
            handle.write(chunk)
    return ["huge.yaml"]


def write_bomb(folder: Path, kind: str) -> list[str]:
    name = "compose.yaml" if kind == "compose" else ".github/workflows/ci.yml" if kind == "ci" else "bomb.yaml"
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(bomb(kind))
    return [name]


def write_wide_documents(folder: Path) -> list[str]:
    """3,000 containers in one pod, 3,000 services in one IPC chain."""
    containers = "".join(f"  - {{name: c{i}, image: pytorch/pytorch}}\n" for i in range(3_000))
    (folder / "wide.yaml").write_text(
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: w}}\nspec:\n  containers:\n{containers}"
    )
    services = "".join(
        f'  s{i}:\n    image: pytorch/pytorch\n    ipc: "service:s{(i + 1) % 3000}"\n' for i in range(3_000)
    )
    (folder / "compose.yaml").write_text("services:\n" + services)
    return ["wide.yaml", "compose.yaml"]


def write_many_digits(folder: Path) -> list[str]:
    """A 20,000-digit ``sizeLimit`` with a bad suffix."""
    value = "1" * 20_000 + "x"
    (folder / "pod.yaml").write_text(
        POD + "    volumeMounts: [{name: d, mountPath: /dev/shm}]\n  volumes:\n"
        f"  - {{name: d, emptyDir: {{medium: Memory, sizeLimit: {value}}}}}\n"
    )
    return ["pod.yaml"]


def write_backtracking_patterns(folder: Path) -> list[str]:
    """Configured patterns that backtrack, and a comment, a script and a pod that would make them run for minutes."""
    line = "a" * 40 + "!"
    (folder / ".shmlint.yaml").write_text(
        'torch-images: ["(a+)+$", "(a|aa)+$"]\ntorch-commands: ["(a|aa)+$"]\n', encoding="utf-8"
    )
    (folder / "comment.yaml").write_text(f"# {line}\nkind: ConfigMap\n", encoding="utf-8")
    (folder / "notes.sh").write_text(f"echo {line}\n", encoding="utf-8")
    (folder / "pod.yaml").write_text(
        POD_TEMPLATE.format(name="p")
        .replace("nvcr.io/nvidia/pytorch:24.05-py3", line)
        .replace(TORCHRUN_COMMAND, f'["{line}"]'),
        encoding="utf-8",
    )
    return ["."]


def write_eight_megabyte_flow(folder: Path) -> list[str]:
    n = 4 * 1024 * 1024
    (folder / "flow.yaml").write_text("kind: ConfigMap  # gpu\ndata: [" + "1," * (n - 1) + "1]\n", encoding="utf-8")
    return ["flow.yaml"]


# -- the tests ---------------------------------------------------------------------------------------------------


def test_fifty_megabyte_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(POD)
    write_fifty_megabytes(tmp_path)
    _, document = check_json("huge.yaml", "good.yaml", cwd=tmp_path, limit_memory=True, timeout=60)
    assert_good_pod_still_checked(document)
    (finding,) = findings_for(document, "huge.yaml")
    assert finding["code"] == "SHM000" and "max-file-size" in finding["message"] and finding["line"] == 1
    fixed = run_shmlint_bytes("fix", "--write", "huge.yaml", cwd=tmp_path, limit_memory=True)
    assert_no_crash(fixed)


def test_max_file_size_is_configurable(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(POD)
    (tmp_path / "run.sh").write_text(RUN * 40)  # 2.7 KB
    (tmp_path / ".shmlint.yaml").write_text("max-file-size: 1KB\n")
    _, document = check_json(".", cwd=tmp_path)
    (finding,) = findings_for(document, "run.sh")
    assert finding["code"] == "SHM000" and "max-file-size" in finding["message"]
    assert_good_pod_still_checked(document)
    (tmp_path / ".shmlint.yaml").write_text("max-file-size: 1MB\n")
    _, document = check_json(".", cwd=tmp_path)
    assert {f["code"] for f in findings_for(document, "run.sh")} == {"SHM001"}
    (tmp_path / ".shmlint.yaml").write_text("max-file-size: huge\n")
    broken = run_shmlint_bytes("check", ".", cwd=tmp_path)
    assert broken.returncode == 2 and "max-file-size" in decoded(broken.stderr)
    assert_no_crash(broken)


BOMBS = ["classic", "kubernetes", "compose", "merge-keys", "ci"]


@pytest.mark.parametrize("kind", BOMBS)
def test_alias_bomb_is_bounded(tmp_path: Path, kind: str) -> None:
    """Bounded memory (2 GiB address space) for check and fix; the good pod is still checked."""
    (name,) = write_bomb(tmp_path, kind)
    (tmp_path / "good.yaml").write_text(POD)
    _, document = check_json(name, "good.yaml", cwd=tmp_path, limit_memory=True, timeout=60)
    assert_good_pod_still_checked(document)
    fixed = run_shmlint_bytes("fix", name, cwd=tmp_path, limit_memory=True, timeout=60)
    assert_no_crash(fixed)
    assert fixed.returncode in (0, 1)


@pytest.mark.parametrize("kind", ["classic", "kubernetes", "compose"])
def test_alias_bomb_is_reported_as_invalid_input(tmp_path: Path, kind: str) -> None:
    """The contract: an alias bomb is SHM000. Found: it is silently accepted (composition keeps aliases shared, so
    it is cheap, but nothing tells the user that the file expands to 10**12 nodes and that other tools that load it
    -- kubectl, docker compose -- will blow up)."""
    name = "compose.yaml" if kind == "compose" else "bomb.yaml"
    (tmp_path / name).write_text(bomb(kind))
    result, document = check_json(name, cwd=tmp_path, limit_memory=True, timeout=60)
    invalid = [f for f in findings_for(document, name) if f["code"] == "SHM000"]
    assert invalid and "alias" in invalid[0]["message"].lower(), document["findings"]
    assert result.returncode == 1


def test_wide_documents_are_checked(tmp_path: Path) -> None:
    """Found: quadratic extraction. 3,000 containers in one pod (kubernetes.shm_volume() scans every container for
    every container) and 3,000 services in one IPC chain (compose._with_shared() walks the whole chain for every
    service) each took ~15 s for a file of ~150 KB; a 10 MB file would take hours. Timed by bench/bounds.py; here
    each file is checked, and 120 s is a hang."""
    for name in write_wide_documents(tmp_path):
        result, document = check_json(name, cwd=tmp_path, timeout=120)
        assert result.returncode == 1 and findings_for(document, name), (name, document["findings"][:3])


def test_size_with_many_digits_is_a_finding(tmp_path: Path) -> None:
    """Found: the Kubernetes quantity pattern backtracks quadratically (``\\d+\\.?\\d*`` splits a run of digits in n
    ways): a 20,000-digit ``sizeLimit`` with a bad suffix took ~50 s, 100,000 digits ~20 min (bench/bounds.py)."""
    write_many_digits(tmp_path)
    _, document = check_json("pod.yaml", cwd=tmp_path, timeout=60)
    assert any(f["code"] == "SHM011" for f in document["findings"])


def test_backtracking_configured_patterns_are_stopped_and_said(tmp_path: Path) -> None:
    """Found: ``torch-images: ["(a|aa)+$"]`` ran for minutes on a comment line of 40 ``a`` (the prefilter searched
    configured patterns over whole files), and on such an image name."""
    write_backtracking_patterns(tmp_path)
    run = run_shmlint_bytes("check", "--format", "json", ".", cwd=tmp_path, timeout=60)
    out = run.stdout.decode()
    assert run.returncode == 1, run.stderr.decode()
    assert "configured torch-images pattern ran longer than" in out
    assert "comment.yaml" not in out and "notes.sh" not in out


def test_configured_patterns_are_matched_on_values_not_files() -> None:
    """The prefilter lets a file through when configuration adds signals and the file has a key they apply to;
    the patterns themselves only ever see image names and command lines."""
    signals = Signals(torch_images=(*Signals().torch_images, "corp/trainer"))
    engine = Engine(Settings(signals=signals, shm_images=("corp/trainer",)))  # and its software needs /dev/shm
    pod = (
        POD_TEMPLATE.format(name="p")
        .replace("nvcr.io/nvidia/pytorch:24.05-py3", "corp/trainer:1")
        .replace(TORCHRUN_COMMAND, '["run"]')
    )
    found = engine.check_source(SourceText("p.yaml", pod), FileKind.YAML, Path("p.yaml")).findings
    assert [f.code for f in found] == ["SHM001"]
    # the prefilter only searches literal words taken from the patterns (never runs them over the text), and a
    # file it lets through for a comment holds no workload of that image
    comment_only = "# corp/trainer\nkind: ConfigMap\ndata: {a: b}\n"
    assert not engine.check_source(SourceText("c.yaml", comment_only), FileKind.YAML, Path("c.yaml")).findings


class _Stalled:
    """A compiled pattern whose first searches stop at the wall-clock timeout without using the CPU, as a search
    does when a busy machine preempts it."""

    def __init__(self, stalls: int) -> None:
        self.stalls = stalls

    def search(self, value: str, timeout: float) -> None:
        if self.stalls:
            self.stalls -= 1
            raise TimeoutError
        return None


@pytest.mark.parametrize("stalls", [1, BUSY_RETRIES])
def test_a_search_preempted_by_a_busy_machine_is_run_again(stalls: int) -> None:
    """The budgets are CPU time: a loaded CI runner must not report a file an idle laptop checks."""
    pattern = ConfiguredPattern("torch-images", ("corp/trainer",))
    pattern.pattern = _Stalled(stalls)  # type: ignore[assignment]
    assert pattern.search("corp/other") is None


def test_a_search_stalled_on_every_retry_is_reported() -> None:
    pattern = ConfiguredPattern("torch-images", ("corp/trainer",))
    pattern.pattern = _Stalled(BUSY_RETRIES + 1)  # type: ignore[assignment]
    with pytest.raises(PatternTimeout, match="corp/other"):
        pattern.search("corp/other")


def merge_chain(depth: int) -> str:
    lines = ["a0: &a0 {x: 1}"]
    lines += [f"a{i}: &a{i}\n  <<: *a{i - 1}" for i in range(1, depth)]
    return (
        "\n".join(lines)
        + "\n"
        + POD_TEMPLATE.format(name="p").replace("  name: p\n", f"  name: p\n  <<: *a{depth - 1}\n")
    )


def test_deep_merge_key_chain_is_checked(tmp_path: Path) -> None:
    """Found: RecursionError (internal error, no report) for merge keys 980-990 deep."""
    (tmp_path / "merge.yaml").write_text(merge_chain(985), encoding="utf-8")
    run = run_shmlint_bytes("check", "merge.yaml", cwd=tmp_path)
    assert run.returncode == 1 and b"SHM001" in run.stdout, run.stderr.decode()[-500:]


def test_a_tree_1100_folders_deep_is_walked(tmp_path: Path) -> None:
    """Found: RecursionError in os.walk."""
    folder = tmp_path / "deep"
    folder.mkdir()
    os.chdir(folder)  # relative mkdir keeps each path short
    try:
        for _ in range(1100):
            os.mkdir("d")
            os.chdir("d")
        Path("pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    finally:
        os.chdir(tmp_path)
    try:
        run = run_shmlint_bytes("check", "deep", cwd=tmp_path)
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


def test_an_8mb_flow_sequence_is_too_complex(tmp_path: Path) -> None:
    """Found: 58 s and 2.25 GB for an 8 MB ``[1,1,...]`` (bench/bounds.py times it)."""
    write_eight_megabyte_flow(tmp_path)
    run = run_shmlint_bytes("check", "flow.yaml", cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and b"SHM000" in run.stdout and b"too complex to check" in run.stdout


@pytest.mark.slow
def test_a_flow_sequence_under_the_budget_is_still_checked() -> None:
    from shmlint.parsers.yamlnodes import MAX_EVENTS

    text = "kind: ConfigMap  # gpu\ndata: [" + "1," * (MAX_EVENTS - 100) + "1]\n"
    result = Engine(Settings(undecided="show")).check_source(SourceText("f.yaml", text), FileKind.YAML, Path("f.yaml"))
    assert not result.findings


def test_too_many_command_lines_are_too_complex(tmp_path: Path) -> None:
    line = "docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"
    (tmp_path / "run.sh").write_text(line * 6000, encoding="utf-8")
    run = run_shmlint_bytes("check", "run.sh", cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and b"too complex to check" in run.stdout


def test_too_many_workloads_are_too_complex() -> None:
    from shmlint.extract.dispatch import MAX_WORKLOADS

    text = "---\n".join(POD_TEMPLATE.format(name=f"p{i}") for i in range(MAX_WORKLOADS + 1))
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
            env=SHMLINT_ENV,
            timeout=60,
            check=False,
            cwd=tmp_path,
        )
    assert run.returncode == 1 and b"standard input is above the limit" in run.stdout


def test_command_line_grammar_never_raises() -> None:
    """Any text of shell-ish words (quotes, escapes, engine words, options, continuations) is read without an
    exception, and every workload span lies inside the text."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from shmlint.extract.commandline import ShellText, extract_commands

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
        for workload in extract_commands(source, ShellText(text), Signals()):
            assert 0 <= workload.span.start <= workload.span.end <= len(text)

    check()


def test_backtracking_tier_model_patterns_are_stopped(tmp_path: Path) -> None:
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
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, env=SHMLINT_ENV, timeout=60, check=False)
    assert run.stdout.count(b"ran longer than") == 2, run.stdout + run.stderr


def test_the_data_command_patterns_match_hostile_commands_in_bounded_time() -> None:
    """Every command pattern of the data against commands made to make a repeated group split its blanks every way
    (the review: ``python -c "import`` + blanks + ``;`` + blanks, 172 bytes, took 20 s, 180 bytes 85 s with an
    earlier import-probe pattern). Run in a child process whose timeout is the guard: it either ends or fails."""
    code = (
        "from shmlint.need import builtin\n"
        "hostile = ['python -c import' + ' ' * n + ';' + ' ' * n + 'print(1)x' for n in (40, 400)]\n"
        "hostile += ['python -c ' + 'import torch ; ' * 300 + 'x', 'python -c import torch' + ' , torch' * 500 + ';x']\n"
        "hostile += ['torchrun ' + '--nproc_per_node ' * 400 + 'x', 'vllm serve m' + ' --tensor-parallel-size' * 400]\n"
        "for entry in builtin().entries:\n"
        "    for text in hostile if entry.commands is not None else ():\n"
        "        entry.commands.search(text)\n"
        "print('ended')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, env=SHMLINT_ENV, timeout=120, check=False)
    assert run.stdout.strip() == b"ended", run.stdout + run.stderr


# -- the worst shapes of a file under max-file-size ----------------------------------------------------------------
# found by an audit: libyaml's scanner does tokens x flow-depth work, so a 990-deep ``[[[...]]]`` around 5 million
# items took 150 s and a 100,000-deep nest 141 s, with or without a signal; bench/bounds.py gives their time and
# memory (2-10 s and 30-60 MiB where they were measured)

LIMIT = 10 * 1024 * 1024  # the default max-file-size
ITEMS = (LIMIT - 8192) // 2
SIGNAL = "# nvidia.com/gpu torch\n"
POD_DOCUMENT = """---
apiVersion: v1
kind: Pod
metadata:
  name: p{i}
spec:
  containers:
  - name: train
    image: pytorch/pytorch:2.3.0
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


DOCKER = (
    "docker run --rm --gpus all -v /data:/data pytorch/pytorch:2.3.0 torchrun --nproc_per_node=2 train.py --seed {i}\n"
)


def _fill(piece: str) -> str:
    count = (LIMIT - 8192) // len(piece.format(i=99999))
    return "".join(piece.format(i=i) for i in range(count))


SHAPES = {
    "deep-flow-nest": ("deep.yaml", SIGNAL + "a: " + "[" * (ITEMS // 2) + "]" * (ITEMS // 2) + "\n", "nesting"),
    "flow-around-items": ("around.yaml", SIGNAL + "a: " + "[" * 990 + "1," * (ITEMS - 1000) + "1" + "]" * 990, "too complex"),
    "no-signal-flow-around-items": ("plain.yaml", "a: " + "[" * 900 + "1," * (ITEMS - 1000) + "1" + "]" * 900, "too complex"),
    "flow-sequence": ("flow.yaml", SIGNAL + "data: [" + "1," * (ITEMS - 10) + "1]\n", "too complex"),
    "many-pods": ("pods.yaml", _fill(POD_DOCUMENT), "SHM000"),
    "many-docker-lines": ("run.sh", _fill(DOCKER), "SHM000"),
    "many-shell-words": ("words.sh", DOCKER.format(i=0) + _fill("echo a b c d e f g h i\n"), "shell words"),
    "one-docker-line-of-flags": ("flags.sh", "docker run --gpus all " + "-e A=1 " * (ITEMS // 4) + "img\n", "shell words"),
    # no signal, a few flow collections in each of many documents: parsed in C, never refused
    "many-cpu-pods": ("cpu.yaml", _fill(POD_DOCUMENT.replace("pytorch/pytorch:2.3.0", "nginx").replace("nvidia.com/gpu", "cpu")), ""),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_worst_shapes_under_the_size_limit_are_refused_or_checked(tmp_path: Path, shape: str) -> None:
    """Each shape in its own ``python -m shmlint`` process: refused as SHM000 (too complex, nesting) or checked; 90 s
    is a hang, not a figure."""
    name, text, expected = SHAPES[shape]
    data = text.encode()
    assert len(data) < LIMIT
    (tmp_path / name).write_bytes(data)
    run = run_shmlint_bytes("check", name, cwd=tmp_path, timeout=90)
    output = run.stdout + run.stderr
    assert b"Traceback" not in output and b"internal error" not in output, output[-2000:]
    if expected:
        assert run.returncode == 1 and expected.encode() in output, output[-2000:]
    else:
        assert run.returncode == 0 and b"no findings" in output, output[-2000:]


def test_flow_work_is_bounded_before_composing() -> None:
    """In-process: the event pass stops on the flow work, long before the 5 million items are read."""
    from shmlint.parsers.yamlnodes import MAX_FLOW_WORK, TooComplex, YamlError, compose
    from shmlint.source import SourceText

    around = "a: " + "[" * 500 + "1," * 300_000 + "1" + "]" * 500 + "\n"
    assert MAX_FLOW_WORK < 500 * 300_000
    with pytest.raises(TooComplex, match="flow collections nested"):
        compose(SourceText("a.yaml", around))
    with pytest.raises(YamlError, match=NESTING_REFUSED):  # shmlint's words, or PyYAML 6.0.4's
        compose(SourceText("d.yaml", "a: " + "[" * 300_000 + "]" * 300_000 + "\n"))
    shallow = "a: [[" + "1," * 1000 + "1]]\n"  # ordinary flow content is composed as before
    assert len(compose(SourceText("s.yaml", shallow))) == 1


def _count_tokenised(monkeypatch: pytest.MonkeyPatch, *modules: object) -> list[int]:
    """The length of every text the shell tokenizer is given through these modules' ``commands``."""
    from shmlint.parsers.shell import commands

    seen: list[int] = []

    def counting(text: str, *, in_blocks: bool = False):  # type: ignore[no-untyped-def]
        seen.append(len(text))
        return commands(text, in_blocks=in_blocks)

    for module in modules:
        monkeypatch.setattr(module, "commands", counting)
    return seen


def test_quadlet_option_words_tokenise_each_piece_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 ``PodmanArgs=`` keys: the shell tokenizer sees each key's value once (it saw the whole prefix of the
    file for every key before: 100 KB took 60 s), and the words keep the file's offsets."""
    import shmlint.parsers.run_options as run_options

    seen = _count_tokenised(monkeypatch, run_options)
    lines = [
        "[Container]",
        "Image=docker.io/pytorch/pytorch",
        "Exec=torchrun --nproc_per_node=2 train.py",
        "AddDevice=nvidia.com/gpu=all",
    ]
    lines += [f"PodmanArgs=--env A{index}=b" for index in range(2000)]
    text = "\n".join(lines) + "\n"
    findings = check_in_process("train.container", text, FileKind.UNIT)
    assert any(finding.startswith("SHM001") for finding in findings), findings
    assert len(seen) >= 2000 and sum(seen) <= len(text)
    words = run_options.option_words(text, [(text.index("--env A7="), text.index("--env A7=") + 11)])
    assert [(text[word.start : word.end], word.text) for word in words] == [("--env", "--env"), ("A7=b", "A7=b")]


def test_option_variables_are_tokenised_once_per_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """16 values of 1 KiB for ``X`` and 1,500 ``docker run --gpus all $X`` lines: the shell tokenizer sees each value
    once (all 16 at every line before: 3,000 lines took 80 s), and the lines are still checked."""
    import shmlint.parsers.container_command as container_command
    import shmlint.parsers.option_variables as option_variables

    seen = _count_tokenised(monkeypatch, container_command, option_variables)  # the script's text, the values
    values = [" ".join(["-it"] * 250) + f" -e{index}=1" for index in range(16)]
    text = "".join(f'X="{value}"\n' for value in values)
    text += "docker run --gpus all $X pytorch/pytorch torchrun --nproc_per_node=2 t.py\n" * 1500
    findings = check_in_process("run.sh", text, FileKind.SHELL)
    # no value holds a size: each line is missing one (the values' options are unknown, not a possible size)
    assert len(findings) == 1500 and all("has 64 MiB" in finding for finding in findings), findings[:2]
    assert sum(seen) <= len(text) + sum(map(len, values)), (sum(seen), len(text))


def test_values_built_up_from_their_own_name_stop_at_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """``E="$E -e A=1"`` makes a value for each value ``E`` held (16): on 2,000 lines, each followed by a run that
    reads them all, the values made count against the text's budget (``MAX_EXPANDED``), past which the name is
    unknown, so the tokenizer sees a bounded amount (a 376 KB script of 4,900 such lines took 60 s and 1.7 GB)."""
    import shmlint.parsers.container_command as container_command
    import shmlint.parsers.option_variables as option_variables
    from shmlint.parsers.option_variables import MAX_EXPANDED

    seen = _count_tokenised(monkeypatch, container_command, option_variables)
    text = 'E="-it"\n' + "".join(
        f'if [ -n "$X{index}" ]; then E="$E -e A{index % 7}=1"; fi; docker run $E --gpus all img python t.py\n'
        for index in range(2000)
    )
    findings = check_in_process("run.sh", text, FileKind.SHELL)
    assert len(findings) == 2000
    assert sum(seen) <= 2 * len(text) + 2 * MAX_EXPANDED, (sum(seen), len(text))


def test_option_variables_read_into_commands_stop_at_the_budget() -> None:
    """A 1 KiB value read into every ``docker run $X`` line would make 3,000 lines 3 MB of options: past
    ``MAX_EXPANDED`` characters in one text the variable is unknown, said as unresolved."""
    from shmlint.parsers.container_command import container_commands
    from shmlint.parsers.option_variables import MAX_EXPANDED

    value = "--gpus all " + " ".join(f"-e A{index}=1" for index in range(100))
    text = f'X="{value}"\n' + "docker run $X pytorch/pytorch torchrun t.py\n" * 3000
    commands = list(container_commands(text))
    read = [command for command in commands if not command.unknown]
    assert commands[0].has_flag("--gpus") and [word.text for word in commands[-1].unknown] == ["$X"]
    assert 0 < len(read) * len(value) <= MAX_EXPANDED < (len(read) + 1) * len(value)


HOSTILE_GITIGNORE = "/".join(["**/x"] * 10)  # 50 bytes; against a 40-deep tree of x folders it took 5 min 22 s


def test_globstars_count_in_the_cost_model() -> None:
    from shmlint.patterns import PathPatterns, too_costly

    assert too_costly(HOSTILE_GITIGNORE) is not None
    assert too_costly("**/x/**/y") is not None  # two '**' with path after them: quadratic in the depth
    assert too_costly("**/x/**") is None and too_costly("x/**/y") is None  # linear
    patterns = PathPatterns(["*.pyc", HOSTILE_GITIGNORE])
    assert patterns.refused and patterns.matches("a/b.pyc") and not patterns.matches("/".join(["x"] * 40))


def test_a_refused_gitignore_pattern_is_reported_and_left_out(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    deep = tmp_path.joinpath(*["x"] * 40)
    deep.mkdir(parents=True)
    (deep / "pod.yaml").write_text("kind: Pod\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text(HOSTILE_GITIGNORE + "\n", encoding="utf-8")
    run = run_shmlint("check", ".", "--format", "json", cwd=tmp_path)
    report = json.loads(run.stdout)
    assert run.returncode == 0 and not report["findings"], report  # git reads it: a notice, not SHM000
    ((notice),) = [n for n in report["notices"] if n["path"] == ".gitignore"]
    assert "patterns left out" in notice["message"] and "'**'" in notice["message"]


def test_a_common_gitignore_line_over_the_bound_does_not_fail_the_gate(tmp_path: Path) -> None:
    """projen writes this line into every project's .gitignore: shmlint declines it, git does not."""
    (tmp_path / ".gitignore").write_text("report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json\n", encoding="utf-8")
    (tmp_path / "pod.yaml").write_text("kind: Pod\n", encoding="utf-8")
    run = run_shmlint("check", ".", cwd=tmp_path)
    assert run.returncode == 0 and "patterns left out" in run.stdout + run.stderr, run.stdout


@pytest.mark.parametrize("key", ["exclude", "extend-exclude", "per-file-ignores"])
def test_a_costly_configured_pattern_is_a_config_error(tmp_path: Path, key: str) -> None:
    value = f"{{'{HOSTILE_GITIGNORE}': [SHM001]}}" if key == "per-file-ignores" else f"['{HOSTILE_GITIGNORE}']"
    (tmp_path / ".shmlint.yaml").write_text(f"{key}: {value}\n", encoding="utf-8")
    run = run_shmlint("check", ".", cwd=tmp_path)
    assert run.returncode == 2 and "to match in bounded time" in run.stderr, run.stderr


def test_configured_patterns_share_one_budget_per_file(tmp_path: Path) -> None:
    """200 images that each backtrack for about 25 ms under ``(a|aa)+!$``: each stays under the per-value budget,
    so the file took 200 x 25 ms, silently (a 174 KB pod: 3 minutes). Now the file's total is bounded and said."""
    from shmlint.configured_patterns import FILE_BUDGET_SECONDS, PATTERN_BUDGET_SECONDS

    assert FILE_BUDGET_SECONDS < 200 * 0.025 and PATTERN_BUDGET_SECONDS > 0.025
    lines = ["apiVersion: v1", "kind: Pod", "metadata: {name: p}", "spec:", "  containers:"]
    for index in range(200):
        lines += [
            f"  - name: c{index}",
            f"    image: {'a' * 20}!{index}",
            "    resources: {limits: {nvidia.com/gpu: 1}}",
        ]
    (tmp_path / "pod.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "other.yaml").write_text(lines[0] + "\n" + "\n".join(lines[1:8]) + "\n", encoding="utf-8")
    (tmp_path / ".shmlint.yaml").write_text('torch-images: ["(a|aa)+!$"]\n', encoding="utf-8")
    run = run_shmlint("check", ".", "--format", "json", "--undecided=show", cwd=tmp_path)
    findings = {(f["path"], f["code"]): f["message"] for f in json.loads(run.stdout)["findings"]}
    assert "on this file's values" in findings["pod.yaml", "SHM000"], findings
    assert ("other.yaml", "SHM001") in findings  # the next file has a budget of its own


def test_terraform_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark reads one token at a time and stops at ``MAX_TOKENS`` (9.5 MB took 5 min and 4.3 GB, 200 KB of
    ``1+1+...`` 10 s); the budget is lowered here so that the test is quick."""
    import shmlint.parsers.hcl as hcl

    monkeypatch.setattr(hcl, "MAX_TOKENS", 400)
    head = 'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      image = "pytorch/pytorch"\n'
    tail = '      resources {\n        limits = { "nvidia.com/gpu" = 1 }\n      }\n    }\n  }\n}\n'
    small = check_in_process("small.tf", head + "      x = " + "+".join(["1"] * 150) + "\n" + tail, FileKind.TERRAFORM)
    assert [finding[:6] for finding in small] == ["SHM001"], small
    big = check_in_process("big.tf", head + "      x = " + "+".join(["1"] * 250) + "\n" + tail, FileKind.TERRAFORM)
    assert big == ["SHM000 too complex to check in bounded work (more than 400 tokens)"]


def test_work_counts_tokens_and_stops_at_the_budget() -> None:
    from shmlint.parsers.work import beyond

    assert beyond("a = [1, 2]", 7) is None  # a = [ 1 , 2 ]
    assert beyond("a = [1, 2]", 6) == len("a = [1, 2")  # the seventh token
    assert beyond("x" * 1000, 1) is None  # one word is one token, however long


def test_python_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ast.parse`` of 10 MB took 7.4 s and 2.0 GB (1 MB of ``1,``: 527 MB): the tokens are counted first."""
    import shmlint.formats.python.extract as launchers

    monkeypatch.setattr(launchers, "MAX_TOKENS", 1000)
    flow = "from metaflow import FlowSpec, step, kubernetes\nclass F(FlowSpec):\n    @kubernetes(gpu=1)\n    @step\n"
    flow += "    def start(self):\n        import torch\n"
    assert not any(finding.startswith("SHM000") for finding in check_in_process("flow.py", flow, FileKind.PYTHON))
    (finding,) = check_in_process("flow.py", flow + "x = [" + "1, " * 600 + "]\n", FileKind.PYTHON)
    assert finding == "SHM000 too complex to check in bounded work (more than 1,000 tokens; split the file)"


def test_jsonc_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev container reader took 22-34 s and 1.1 GB on 9.5 MB."""
    import shmlint.parsers.jsonc as jsonc

    monkeypatch.setattr(jsonc, "MAX_TOKENS", 1000)
    head = '{"image": "pytorch/pytorch", "runArgs": ["--gpus", "all"], "x": ['
    name = ".devcontainer/devcontainer.json"
    assert [f[:6] for f in check_in_process(name, head + ",".join(["1"] * 400) + "]}", FileKind.DEVCONTAINER)] == [
        "SHM001"
    ]
    (finding,) = check_in_process(name, head + ",".join(["1"] * 600) + "]}", FileKind.DEVCONTAINER)
    assert finding.startswith("SHM000") and "too complex to check in bounded work (more than 1,000 tokens)" in finding


def test_aliases_expanding_past_the_character_budget_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """MAX_EXPANDED counted nodes only: 1.1 MB of YAML aliasing long values from thousands of containers ran past
    5 minutes. 200 containers x 2 KB is 400 KB expanded from 8 KB of text: over a budget lowered to 100 KB."""
    import shmlint.parsers.yamlnodes as yamlnodes

    monkeypatch.setattr(yamlnodes, "MAX_EXPANDED_CHARS", 100_000)
    text = aliased_pod(200, 2000)
    assert len(text) < 100_000
    (finding,) = check_in_process("pod.yaml", text, FileKind.YAML)
    assert finding == "SHM000 invalid YAML: aliases expand to more than 100,000 characters (a YAML alias bomb); refused"
    assert all(f.startswith("SHM001") for f in check_in_process("pod.yaml", aliased_pod(20, 2000), FileKind.YAML))


def test_a_unit_beyond_the_token_budget_is_too_complex(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear now, but every key is tokenised as shell: 10 MB of keys would still take a minute."""
    import shmlint.extract.dispatch as dispatch

    monkeypatch.setattr(dispatch, "MAX_PARSE_TOKENS", 500)
    head = "[Container]\nImage=docker.io/pytorch/pytorch\nExec=torchrun --nproc_per_node=2 train.py\nAddDevice=nvidia.com/gpu=all\n"
    keys = "".join(f"PodmanArgs=--env A{index}=b\n" for index in range(100))  # 9 tokens a line
    (finding,) = check_in_process("train.container", head + keys, FileKind.UNIT)
    assert finding == "SHM000 too complex to check in bounded work (more than 500 tokens)"
    assert check_in_process("train.container", head + keys[:1000], FileKind.UNIT)[0].startswith("SHM001")


@pytest.mark.parametrize(
    ("name", "kind", "head", "line"),
    [
        (
            "config.toml",
            FileKind.GITLAB_RUNNER,
            '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    image = "pytorch/pytorch"\n    gpus = "all"\n',
            '[[runners]]\n  name = "r{i}"\n',
        ),
        (
            "Jenkinsfile",
            FileKind.JENKINSFILE,
            "pipeline { agent { docker { image 'pytorch/pytorch' } } }\n",
            "// {i}\n",
        ),
    ],
)
def test_runner_and_pipeline_files_beyond_the_token_budget_are_too_complex(
    monkeypatch: pytest.MonkeyPatch, name: str, kind: FileKind, head: str, line: str
) -> None:
    """Found by bench/redteam.py: 10 MB took tomllib 16 s / 336 MB, the Groovy reader 26 s / 628 MB."""
    import shmlint.extract.dispatch as dispatch

    monkeypatch.setattr(dispatch, "MAX_PARSE_TOKENS", 300)
    assert not any(f.startswith("SHM000") for f in check_in_process(name, head, kind))
    (finding,) = check_in_process(name, head + "".join(line.format(i=i) for i in range(100)), kind)
    assert finding == "SHM000 too complex to check in bounded work (more than 300 tokens)"


class _CountingList(list):  # type: ignore[type-arg]
    """A list that counts the items read from it."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        _CountingList.reads += 1
        return super().__getitem__(index)


def test_jenkins_steps_find_their_agent_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """A docker agent, 2,000 nested blocks and a ``sh`` step in each: each step finds the agent whose steps it is
    by one look-up (each step walked up its enclosing blocks one at a time: 240 KB took 24 s), and the agent's
    steps are read as a bounded session."""
    import shmlint.formats.ci.jenkins as jenkins
    from shmlint.parsers.typed import MAX_TYPED_COMMANDS

    real = jenkins._enclosing
    monkeypatch.setattr(jenkins, "_enclosing", lambda found: _CountingList(real(found)))
    depth = 2000
    text = (
        "pipeline {\n agent { docker { image 'pytorch/pytorch' args '--gpus all' } }\n stages {\n"
        + "{ sh 'echo'\n" * depth
        + "}" * depth
        + "\n}\n}\n"
    )
    _CountingList.reads = 0
    (agent,) = jenkins.extract_jenkinsfile(SourceText("Jenkinsfile", text), Signals())
    assert agent.command_from.startswith("the job's steps")
    assert agent.command.count("echo") == MAX_TYPED_COMMANDS
    assert _CountingList.reads <= 4 * len(text)  # linear in the file: 4 * depth * depth before


def test_a_job_containers_steps_read_only_the_jobs_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """800 jobs of 20 steps: each job's steps session takes its own commands by bisection (each went through every
    command of the file: quadratic)."""
    import shmlint.parsers.typed as typed

    seen: list[int] = []
    real = typed.StepShell.within

    def counting(self: typed.StepShell, start: int, end: int) -> list[object]:
        found = real(self, start, end)
        seen.append(len(found))
        return found  # type: ignore[return-value]

    monkeypatch.setattr(typed.StepShell, "within", counting)
    steps = "".join(f"      - run: echo {index}\n" for index in range(20))
    job = "    runs-on: ubuntu-latest\n    container:\n      image: pytorch/pytorch\n      options: --gpus all\n"
    text = "on: push\njobs:\n" + "".join(f"  j{index}:\n{job}    steps:\n{steps}" for index in range(800))
    findings = check_in_process(".github/workflows/ci.yml", text, FileKind.YAML)
    assert len(findings) == 800, findings[:3]
    assert len(seen) == 800 * 20 and sum(seen) == 800 * 20  # each step's one command, once
