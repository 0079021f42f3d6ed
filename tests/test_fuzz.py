"""Fuzzing: every parser and fixer over generated documents and random mutations of the real-world corpus.

Invariants:

- no parser, extractor, check or fixer raises on any input (``SHM000`` is the only way to say "cannot parse");
- every finding points inside the file, at the line/column of its own offset;
- a fix keeps the file parsable (PyYAML ``safe_load_all`` for YAML, ``bash -n`` for shell), re-checks clean of safe
  fixes, is idempotent, keeps line breaks, never deletes an original line and rewrites at most as many original
  lines as it made edits (an applied finding makes at most ``EDITS_PER_FIX`` edits): untouched lines are identical.

Every test runs a fixed number of hypothesis examples (``derandomize=True``: the same cases on every run, so CI is
reproducible and the count is known) and prints how many cases it ran. ``SHMLINT_FUZZ_SCALE=10`` multiplies the
counts for a longer local session; ``SHMLINT_FUZZ_RANDOM=1`` draws new cases on each run.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, kind_by_name
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from shmlint.severity import Severity
from shmlint.source import InputError, SourceText
from tests import proofs
from tests.support import FIXTURES, ROOT, corpus_rows, default_engine

ENGINE = default_engine()
SCALE = float(os.environ.get("SHMLINT_FUZZ_SCALE", "1"))
DERANDOMIZE = not os.environ.get("SHMLINT_FUZZ_RANDOM")
EDITS_PER_FIX = 2  # a Kubernetes "add /dev/shm" fix is two edits (the volume and the mount); every other fix is one
COUNTS: dict[str, int] = {}


def fuzz(name: str, strategy: st.SearchStrategy, check: Callable[[object], None], examples: int) -> int:
    """Run ``check`` over ``examples`` generated values; returns (and records) how many cases actually ran."""
    ran = 0

    @settings(
        max_examples=max(1, int(examples * SCALE)),
        deadline=None,
        derandomize=DERANDOMIZE,
        database=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(strategy)
    def run(value: object) -> None:
        nonlocal ran
        ran += 1
        check(value)

    try:
        run()
    finally:  # also when it fails: the count says how far it got
        COUNTS[name] = COUNTS.get(name, 0) + ran
    return ran


@pytest.fixture(autouse=True)
def _say_count(request, capsys):
    """Print the number of cases each fuzz test ran, even under pytest's output capture."""
    before = dict(COUNTS)
    started = time.perf_counter()
    yield
    ran = {k: v - before.get(k, 0) for k, v in COUNTS.items() if v != before.get(k, 0)}
    if ran:
        with capsys.disabled():
            detail = ", ".join(f"{k}={v}" for k, v in ran.items())
            print(
                f"\n[fuzz] {request.node.name}: {sum(ran.values())} cases ({detail}) in "
                f"{time.perf_counter() - started:.1f}s",
                end="",
            )


@pytest.fixture(scope="module", autouse=True)
def _say_total(request):
    yield
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n[fuzz] total: {sum(COUNTS.values())} cases over {len(COUNTS)} targets")


# -- shared assertions ---------------------------------------------------------------------------------------------


def assert_findings_well_placed(result, source: SourceText) -> None:
    n = len(source.text)
    for finding in result.findings:
        span = finding.span
        assert span.path == source.path
        assert 0 <= span.start <= span.end <= n, (finding.code, span, n)
        if finding.code == "SHM000":  # libyaml's own line; one past the last line at the end of the file
            assert 1 <= span.line <= len(source.line_starts) + 1, (finding.code, span)  # (exact: test_hostile_files)
        else:
            assert (span.line, span.column) == source.position(span.start), (finding.code, span)
        assert span.end_line >= span.line
        assert finding.message and "\n" not in finding.code


def _wanted(result, unsafe: bool) -> list:
    """Findings ``shmlint fix`` promises to fix (``--unsafe-fixes`` adds the unsafe ones)."""
    return [f for f in result.findings if f.fix is not None and (unsafe or f.fix.applicability is Applicability.SAFE)]


def _parses(text: str, kind: FileKind, tmp: Path | None = None) -> bool:
    """Independent of shmlint: does the text parse in its own language?"""
    if kind is FileKind.YAML:
        try:
            list(yaml.load_all(text, Loader=yaml.CSafeLoader))
        except yaml.YAMLError:
            return False
        except (RecursionError, ValueError, OverflowError):  # a hostile document PyYAML itself cannot build
            return False
        return True
    if kind is FileKind.SHELL and tmp is not None:
        script = tmp / "script.sh"
        script.write_text(text, encoding="utf-8", errors="surrogateescape")
        return subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=30, check=False).returncode == 0
    return True


def changed_original_lines(before: str, after: str) -> tuple[int, int]:
    """(original lines replaced, original lines deleted) between two texts, line breaks included."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    replaced = deleted = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace":
            replaced += i2 - i1
            # a replace block that only grows (n old lines -> >= n new lines) is an in-place rewrite
            if j2 - j1 < i2 - i1:
                deleted += (i2 - i1) - (j2 - j1)
        elif tag == "delete":
            deleted += i2 - i1
    return replaced, deleted


def assert_fix_invariants(
    source: SourceText, kind: FileKind, path: Path, tmp: Path | None = None, unsafe: bool = False, strict: bool = True
) -> bool:
    """The fix contract for one file; returns whether the fix changed anything.

    ``strict``: also "re-checks clean" in the strong sense, no finding offered as fixable is left (unless the fixer
    said why it dropped it). Off for mutated corpus files, where a finding on a workload without a writable pod spec
    (a TrainJob) is offered as fixable but cannot be; that is asserted on its own in
    ``test_corpus_fixable_findings_are_fixed`` so it does not hide everything else.
    """
    before = ENGINE.check_source(source, kind, path)
    if any(f.code == "SHM000" for f in before.findings):
        return False
    result = fix_source(ENGINE, source, kind, path, unsafe=unsafe)
    after_text = result.text
    encoded = source.encode(after_text)  # must be writable in the file's own encoding
    assert SourceText.from_bytes(source.path, encoded).text == after_text
    if not result.changed:
        assert not result.applied
        assert not strict or result.problems or not _wanted(before, unsafe), (
            "findings offered as fixable, but the fix changed nothing",
            [(f.code, f.message) for f in _wanted(before, unsafe)],
            source.text,
        )
        return False
    fixed = SourceText(source.path, after_text, source.encoding, source.bom)
    after = ENGINE.check_source(fixed, kind, path)
    assert not [f for f in after.findings if f.code == "SHM000"], ("fix made the file unparsable", after_text)
    if _parses(source.text, kind, tmp):
        assert _parses(after_text, kind, tmp), ("fix broke the syntax", source.text, after_text)
    if kind is FileKind.YAML:
        proofs.assert_strict_readers_still_load(source.text, after_text)
    # re-checks clean: nothing the fixer offered is left (unless it said why it dropped a fix), and a second run
    # changes nothing
    if strict and not result.problems:
        left = _wanted(after, unsafe)
        assert not left, ("still offered as fixable after the fix", [(f.code, f.message) for f in left], after_text)

    # ... and a fix never brings a new warning or error (say, a /dev/shm above a memory limit)
    def keys(result) -> set:
        return {
            (f.code, f.workload.name if f.workload else None) for f in result.findings if f.severity >= Severity.WARNING
        }

    new = keys(after) - keys(before)
    assert not new, ("the fix introduced findings", sorted(new, key=str), after_text)
    assert not fix_source(ENGINE, fixed, kind, path, unsafe=unsafe).changed, ("fix is not idempotent", after_text)
    # untouched lines identical: no original line deleted, at most EDITS_PER_FIX rewritten per applied fix
    replaced, deleted = changed_original_lines(source.text, after_text)
    assert deleted == 0, ("fix deleted original lines", source.text, after_text)
    assert replaced <= EDITS_PER_FIX * len(result.applied), (replaced, len(result.applied), source.text, after_text)
    # line breaks: a CRLF file stays CRLF, an LF file gets no CR
    if "\r" not in source.text:
        assert "\r" not in after_text
    elif source.text.count("\r\n") == source.text.count("\n"):
        assert after_text.count("\r\n") == after_text.count("\n")
    return True


# -- low-level parsers -----------------------------------------------------------------------------------------

BOMS = st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"])


def _check_decoding(value: tuple[bytes, bytes]) -> None:
    bom, body = value
    data = bom + body
    try:
        source = SourceText.from_bytes("f", data)
    except InputError as exc:
        assert str(exc)
        return
    assert source.encode() == data  # every byte comes back: a fix never changes bytes it did not mean to
    for offset in {0, len(source.text) // 2, len(source.text)}:
        line, column = source.position(offset)
        assert line >= 1 and column >= 1
        assert source.line_starts[line - 1] + column - 1 == offset
    for line in range(1, len(source.line_starts) + 1):
        assert "\n" not in source.line_text(line)


@pytest.mark.slow
def test_decoding_keeps_every_byte() -> None:
    fuzz("source.from_bytes", st.tuples(BOMS, st.binary(max_size=300)), _check_decoding, 1500)


YAML_ALPHABET = st.sampled_from(
    [
        *":-[]{}&*!|>'\"#?,%@`<= \t\n\r\\",
        "a",
        "b",
        "0",
        "1",
        "é",
        "\u2028",
        "\x85",
        "\ufeff",
        "\U0001f600",
        "~",
        "null",
        "<<",
    ]
)
YAML_TOKENS = st.sampled_from(
    [
        "apiVersion: v1\n",
        "kind: Pod\n",
        "spec:\n",
        "  containers:\n",
        "  - name: c\n",
        "    image: pytorch/pytorch\n",
        "nvidia.com/gpu: 1\n",
        "&a ",
        "*a",
        "<<: *a\n",
        "!!binary ",
        "!tag ",
        "!!python/object/apply:os.system ",
        "? ",
        "--- ",
        "...\n",
        "%YAML 1.2\n",
        "|\n",
        ">-\n",
        "'",
        '"',
        "\t",
        "{{ .Values.x }}",
        "{% if %}",
        "# c\n",
    ]
)


def _syntax_error(check: Callable[[SourceText], object], source: SourceText) -> tuple[int, int, str] | None:
    from shmlint.parsers.yamlnodes import YamlError

    try:
        check(source)
    except YamlError as exc:
        return exc.line, exc.column, exc.message
    return None


def _check_compose(text: str) -> None:
    from shmlint.parsers.yamlnodes import YamlError, check_syntax, compose, key_problem, walk_mappings

    source = SourceText("f.yaml", text)
    # the syntax check of files without a signal refuses exactly what composing refuses, at the same place
    assert _syntax_error(check_syntax, source) == _syntax_error(lambda s: compose(s, tags=False), source), text
    try:
        documents = compose(source)
    except YamlError as exc:
        assert exc.line >= 1 and exc.column >= 1, (exc.line, exc.column, text)
        assert 0 <= exc.offset <= len(text), ("error offset outside the text", exc.offset, len(text), text)
        return
    for document in documents:
        for mapping in walk_mappings(document):
            assert 0 <= mapping.start_mark.index <= mapping.end_mark.index <= len(text)
    problem = key_problem(documents)
    if problem is not None and problem.message.startswith("duplicate key"):  # never refuses what loads strictly
        assert proofs.strict_load_error(text) is not None, (problem.message, text)


@pytest.mark.slow
def test_yaml_composer_raises_only_yaml_errors() -> None:
    texts = st.one_of(
        st.lists(YAML_ALPHABET, max_size=80).map("".join),
        st.lists(YAML_TOKENS, max_size=25).map("".join),
        st.text(max_size=120),
    )
    for explicit in (
        "\U00010000\x1f",
        "# \u00e9\u00e9\n# \u2713\na: b\x07\n",
    ):  # found: byte offsets (see hostile tests)
        _check_compose(explicit)
    fuzz("yamlnodes.compose", texts, _check_compose, 1500)


SHELL_TOKENS = st.sampled_from(
    [
        "docker",
        "podman",
        "nerdctl",
        "run",
        "create",
        "exec",
        "sudo",
        "env",
        "X=1",
        "time",
        "nohup",
        "--gpus",
        "all",
        "--gpus=all",
        "--shm-size",
        "--shm-size=8g",
        "8g",
        "8Gi",
        "--ipc=host",
        "--ipc",
        "host",
        "-v",
        "/dev/shm:/dev/shm",
        "--tmpfs",
        "/dev/shm:size=1g",
        "--mount",
        "type=tmpfs,target=/dev/shm",
        "--runtime=nvidia",
        "--device",
        "nvidia.com/gpu=all",
        "-e",
        "NCCL_SHM_DISABLE=1",
        "pytorch/pytorch",
        "nvcr.io/nvidia/pytorch:24.05",
        "python",
        "train.py",
        "torchrun",
        " ",
        " ",
        " ",
        "\n",
        "\\\n",
        "\\\r\n",
        ";",
        "&&",
        "||",
        "|",
        "&",
        "(",
        ")",
        "$(",
        "`",
        "'",
        '"',
        "${",
        "}",
        "$",
        "#",
        "<<",
        "EOF",
        "<<-",
        "<",
        ">",
        "2>&1",
        "<(",
        "$((",
        "))",
        "{",
        "if",
        "then",
        "fi",
        "case",
        "esac",
        "in",
        "do",
        "done",
        "$'\\n'",
        "*",
        "?",
        "[",
        "]",
        "\t",
        "é",
        "\x00",
        "\udcff",
    ]
)


def _check_tokenizer(text: str) -> None:
    from shmlint.parsers.shell import commands

    found = list(commands(text))
    previous = -1
    for command in found:
        assert command.words
        assert command.words[0].start >= previous
        previous = command.words[0].start
        for word in command.words:
            assert 0 <= word.start <= word.end <= len(text), (word, text)


@pytest.mark.slow
def test_shell_tokenizer_never_raises() -> None:
    texts = st.one_of(
        st.lists(SHELL_TOKENS, max_size=40).map(" ".join),
        st.lists(SHELL_TOKENS, max_size=40).map("".join),
        st.text(max_size=150),
    )
    fuzz("shell.commands", texts, _check_tokenizer, 2000)


MARKUP_TOKENS = st.sampled_from(
    [
        "```",
        "```bash",
        "```console",
        "~~~",
        "~~~sh",
        "````",
        "    ",
        "\t",
        "- ",
        "1. ",
        "> ",
        "$ ",
        "# ",
        "\n",
        "\n\n",
        "docker run --gpus all pytorch/pytorch python t.py",
        "<path to data>",
        "<x>",
        "{{< ref >}}",
        "\\",
        "target:",
        "all: ; docker run --gpus all img",
        "define X",
        "endef",
        "ifeq (a,b)",
        "endif",
        "@",
        "-",
        "+",
        "$(VAR)",
        "$$(cmd)",
        "\tdocker run --gpus all pytorch/pytorch",
        "é",
        "\r\n",
        ":=",
        "::",
        "<",
        ">",
        "'",
        '"',
    ]
)


def _check_mask(value: tuple[str, str]) -> None:
    from shmlint.parsers.embedded.makefile import mask_makefile
    from shmlint.parsers.embedded.markdown import mask_markdown

    which, text = value
    masked = mask_markdown(text) if which == "markdown" else mask_makefile(text)
    assert len(masked) == len(text)
    for original, kept in zip(text, masked, strict=True):
        # the original, a blank, a placeholder's quote, or the mark after a documentation block (BLOCK_END)
        assert kept == original or kept in " \"'\v" or (original == "\n" and kept == "\n"), (text, masked)
        assert (original == "\n") == (kept == "\n")
    _check_tokenizer(masked)


@pytest.mark.slow
def test_markdown_and_makefile_masks_keep_offsets() -> None:
    texts = st.one_of(st.lists(MARKUP_TOKENS, max_size=40).map("".join), st.text(max_size=120))
    fuzz("embedded.masks", st.tuples(st.sampled_from(["markdown", "makefile"]), texts), _check_mask, 1500)


SIZE_TEXT = st.one_of(
    st.builds(
        lambda sign, whole, fraction, exponent, space, unit: f"{sign}{whole}{fraction}{exponent}{space}{unit}",
        st.sampled_from(["", "", "+", "-"]),
        st.from_regex(r"\A\d{0,30}\Z"),
        st.sampled_from(["", "", ".", ".5", ".25", ".000001"]),
        st.sampled_from(["", "", "e3", "E-2", "e99", "e+400"]),
        st.sampled_from(["", "", " "]),
        st.sampled_from(
            [
                "",
                "Ki",
                "Mi",
                "Gi",
                "Ti",
                "Pi",
                "Ei",
                "k",
                "M",
                "G",
                "m",
                "b",
                "B",
                "g",
                "gb",
                "GB",
                "gib",
                "mb",
                "kb",
                "t",
                "p",
                "x",
            ]
        ),
    ),
    # absurdly long numbers (beyond a float64): a parser must say "out of range", not crash; the 5,000-digit and
    # quadratic-time cases are in test_bounded_work (their time is bench/bounds.py's)
    st.builds(lambda digits, unit: "1" + "0" * digits + unit, st.integers(309, 400), st.sampled_from(["", "Gi"])),
    st.text(max_size=12),
)


def _check_size(text: str) -> None:
    from shmlint import sizes

    for parse in (sizes.parse_kubernetes, sizes.parse_docker):
        parsed = parse(text)
        assert (parsed.bytes is None) != (parsed.error is None), (parse.__name__, text, parsed)
        assert parsed.bytes is None or parsed.bytes >= 0


def _check_size_round_trip(value: int) -> None:
    from shmlint import sizes

    assert sizes.parse_kubernetes(sizes.format_kubernetes(value)).bytes == value
    assert sizes.parse_docker(sizes.format_docker(value)).bytes == value
    assert sizes.parse_docker(sizes.format_compose(value)).bytes == value


@pytest.mark.slow
def test_size_parsers_never_raise_and_round_trip() -> None:
    # docker reads sizes through a float64, as go-units does: exact up to 2**53
    fuzz("sizes.round_trip", st.integers(0, 2**50).map(lambda n: n * _unit(n)), _check_size_round_trip, 500)
    fuzz("sizes.parse", SIZE_TEXT, _check_size, 1500)


def _unit(n: int) -> int:
    """Whole KiB, MiB or GiB for small numbers, so that every unit spelling is written and read back."""
    return (1, 1024, 1024**2, 1024**3)[n % 4] if n < 2**20 else 1


DOCKERFILE_TOKENS = st.sampled_from(
    [
        "FROM ",
        "pytorch/pytorch:2.3.0",
        "python:3.12",
        "scratch",
        " AS ",
        "build",
        "base",
        "ARG ",
        "BASE=pytorch/pytorch",
        "${BASE}",
        "$BASE",
        "RUN ",
        "pip install torch",
        "pip3 install --no-cache-dir torch==2.3",
        "conda install pytorch",
        "COPY --from=build / /",
        "COPY --from=0 / /",
        "²\n",  # str.isdigit() but not int(): once crashed the stage lookup
        "\\\n",
        "\n",
        "# syntax=docker/dockerfile:1\n",
        "#",
        "ENV A=1",
        "<<EOF\n",
        "EOF\n",
        "'",
        '"',
        "--platform=$X ",
        "\t",
        "é",
    ]
)


def _check_dockerfile(text: str) -> None:
    """The reader raises nothing (it has no catch-all to hide behind) and cites evidence that holds on its own:
    a torch image after FROM, a command that installs torch after RUN."""
    from shmlint.parsers.dockerfile import torch_evidence_text, torch_install
    from shmlint.signals import Signals

    signals = Signals()
    for evidence in (
        torch_evidence_text(text, signals, build_args={"BASE": "pytorch/pytorch"}, target="build"),
        torch_evidence_text(text, signals),
    ):
        if evidence is None:
            continue
        kind, _, cited = evidence.partition(" ")[2].partition(" ")
        assert evidence.startswith("Dockerfile ") and kind in ("FROM", "RUN"), evidence
        if kind == "FROM":
            assert signals.is_torch_image(cited), evidence
        else:
            assert torch_install(cited) == cited, evidence


def test_dockerfile_reader_never_raises_and_cites_real_evidence() -> None:
    texts = st.one_of(st.lists(DOCKERFILE_TOKENS, max_size=30).map("".join), st.text(max_size=100))
    fuzz("dockerfile", texts, _check_dockerfile, 400)


# -- generated documents ---------------------------------------------------------------------------------------

IMAGES = st.sampled_from(
    [
        "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
        "nvcr.io/nvidia/pytorch:24.05-py3",
        "vllm/vllm-openai:v0.6.0",
        "nginx:1.27",
        "python:3.12-slim",
        "ghcr.io/acme/api:1.0",
        "rocm/pytorch:latest",
    ]
)
K8S_SIZES = st.sampled_from(["8Gi", "1Gi", "64Mi", "512M", "8GB", "8g", "1e9", "0.5Gi", "", "100Ti", 1073741824])
DOCKER_SIZES = st.sampled_from(["8g", "8gb", "8Gi", "64m", "1073741824", "2GB", "1.5g", "0", "lots", 1073741824])


@st.composite
def k8s_container(draw, index: int) -> dict:
    container: dict = {"name": f"c{index}", "image": draw(IMAGES)}
    limits = {}
    if draw(st.booleans()):
        limits[draw(st.sampled_from(["nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915", "cpu"]))] = 1
    if draw(st.booleans()):
        limits["memory"] = draw(st.sampled_from(["16Gi", "4Gi", "512Mi", "32G"]))
    if limits:
        container["resources"] = {"limits": limits}
    if draw(st.booleans()):
        container["command"] = draw(
            st.sampled_from(
                [
                    ["torchrun", "train.py"],
                    ["python", "-m", "vllm.entrypoints"],
                    ["serve"],
                    "python train.py --num_workers 8",
                ]
            )
        )
    if draw(st.booleans()):
        container["env"] = [
            {
                "name": draw(st.sampled_from(["NCCL_SHM_DISABLE", "LOG", "NVIDIA_VISIBLE_DEVICES"])),
                "value": draw(st.sampled_from(["1", "0", "all"])),
            }
        ]
    mounts = draw(st.lists(st.sampled_from(["dshm", "data", "host-shm"]), max_size=2, unique=True))
    if mounts:
        container["volumeMounts"] = [{"name": m, "mountPath": "/dev/shm" if m != "data" else "/data"} for m in mounts]
    elif draw(st.booleans()):
        container["volumeMounts"] = draw(st.sampled_from([[], None]))
    return container


@st.composite
def k8s_document(draw) -> dict:
    containers = [draw(k8s_container(i)) for i in range(draw(st.integers(1, 3)))]
    pod: dict = {"containers": containers}
    volumes = []
    for name in draw(st.lists(st.sampled_from(["dshm", "data", "host-shm"]), max_size=3, unique=True)):
        if name == "dshm":
            empty_dir: dict = {}
            if draw(st.booleans()):
                empty_dir["medium"] = draw(st.sampled_from(["Memory", "", "memory"]))
            if draw(st.booleans()):
                empty_dir["sizeLimit"] = draw(K8S_SIZES)
            volumes.append({"name": name, "emptyDir": empty_dir})
        elif name == "host-shm":
            volumes.append({"name": name, "hostPath": {"path": "/dev/shm"}})
        else:
            volumes.append({"name": name, "persistentVolumeClaim": {"claimName": "data"}})
    if volumes or draw(st.booleans()):
        pod["volumes"] = volumes or draw(st.sampled_from([[], None]))
    if draw(st.integers(0, 5)) == 0:
        pod["hostIPC"] = True
    kind = draw(st.sampled_from(["Pod", "Deployment", "Job", "PyTorchJob", "CronJob"]))
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": pod}
    template = {"metadata": {"labels": {"app": "x"}}, "spec": pod}
    if kind == "Deployment":
        return {
            "apiVersion": "apps/v1",
            "kind": kind,
            "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": template},
        }
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": {"name": "j"}, "spec": {"template": template}}
    if kind == "CronJob":
        return {
            "apiVersion": "batch/v1",
            "kind": kind,
            "metadata": {"name": "cj"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": template}}},
        }
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": kind,
        "metadata": {"name": "pj"},
        "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2, "template": template}}},
    }


@st.composite
def compose_document(draw) -> dict:
    services = {}
    for index in range(draw(st.integers(1, 3))):
        service: dict = {"image": draw(IMAGES)}
        if draw(st.booleans()):
            service[draw(st.sampled_from(["gpus", "runtime"]))] = draw(st.sampled_from(["all", "nvidia"]))
        if draw(st.booleans()):
            service["deploy"] = {"resources": {"reservations": {"devices": [{"capabilities": ["gpu"]}]}}}
        if draw(st.booleans()):
            service["shm_size"] = draw(DOCKER_SIZES)
        if draw(st.integers(0, 4)) == 0:
            service["ipc"] = draw(st.sampled_from(["host", "shareable", "service:s0", "service:s1", "private"]))
        if draw(st.integers(0, 3)) == 0:
            service["tmpfs"] = draw(st.sampled_from([["/dev/shm"], "/dev/shm", ["/dev/shm:size=1g"], ["/tmp"]]))
        if draw(st.integers(0, 3)) == 0:
            service["volumes"] = draw(
                st.sampled_from(
                    [
                        ["/dev/shm:/dev/shm"],
                        [{"type": "tmpfs", "target": "/dev/shm"}],
                        [{"type": "tmpfs", "target": "/dev/shm", "tmpfs": {"size": 1000}}],
                        ["data:/data"],
                    ]
                )
            )
        if draw(st.integers(0, 3)) == 0:
            service["build"] = draw(st.sampled_from([{"context": ".", "shm_size": "2gb"}, "."]))
        if draw(st.booleans()):
            service["command"] = draw(st.sampled_from(["python train.py", ["torchrun", "t.py"], "serve"]))
        if draw(st.booleans()):
            service["environment"] = draw(st.sampled_from([["NCCL_SHM_DISABLE=1"], {"A": "1"}, []]))
        services[f"s{index}"] = service
    document: dict = {"services": services}
    if draw(st.booleans()):
        document["volumes"] = {"data": {}}
    return document


SHELL_LINE = st.builds(
    lambda prefix, engine, verb, options, image, command, tail: (
        f"{prefix}{engine} {verb} {options}{image} {command}{tail}"
    ),
    st.sampled_from(["", "", "sudo ", "env A=1 ", "  ", "exec ", "time ", "X=1 "]),
    st.sampled_from(["docker", "podman", "docker", "nerdctl"]),
    st.sampled_from(["run", "run", "create", "container run"]),
    st.lists(
        st.sampled_from(
            [
                "--gpus all ",
                "--gpus=all ",
                "--rm ",
                "-it ",
                "--shm-size=8g ",
                "--shm-size 1g ",
                "--shm-size=8Gi ",
                "--ipc=host ",
                "--ipc host ",
                "-v /dev/shm:/dev/shm ",
                "--tmpfs /dev/shm ",
                "--tmpfs /dev/shm:size=1g ",
                "--mount type=tmpfs,destination=/dev/shm ",
                "--runtime=nvidia ",
                "--device nvidia.com/gpu=all ",
                "-e NCCL_SHM_DISABLE=1 ",
                "-e A=1 ",
                "-p 80:80 ",
                "--name x ",
                "\\\n  ",
                '"$@" ',
                "$FLAGS ",
                "${ARGS[@]} ",
            ]
        ),
        max_size=6,
    ).map("".join),
    IMAGES,
    st.sampled_from(["python train.py", "torchrun --nproc_per_node 8 t.py", "serve", "", "bash -c 'python t.py'"]),
    st.sampled_from(["", " &", " | tee log", " && echo ok", "  # comment", " \\\n  --epochs 3"]),
)
SHELL_NOISE = st.sampled_from(
    [
        "set -euo pipefail",
        "echo hi",
        "if true; then",
        "fi",
        "for i in 1 2; do",
        "done",
        "cat <<EOF",
        "EOF",
        "x=$(pwd)",
        "# docker run --gpus all pytorch/pytorch",
        'echo "docker run --gpus all pytorch/pytorch"',
        "f() {",
        "}",
        "",
    ]
)
SHELL_SCRIPT = st.lists(st.one_of(SHELL_LINE, SHELL_NOISE), min_size=1, max_size=8)


def _render_yaml(document: object, flow: bool | None, indent: int, crlf: bool, comment: bool) -> str:
    text = yaml.safe_dump(document, default_flow_style=flow, indent=indent, sort_keys=False, width=10**6)
    if comment:
        text = "# generated\n" + text.replace("\n", "  # note\n", 1) if text.count("\n") > 1 else text
    return text.replace("\n", "\r\n") if crlf else text


YAML_STYLE = st.tuples(
    st.sampled_from([None, False, False, True]), st.sampled_from([2, 4]), st.booleans(), st.booleans()
)


@st.composite
def generated_file(draw) -> tuple[str, str]:
    """(file name, text) of any kind shmlint reads."""
    kind = draw(st.sampled_from(["k8s", "k8s", "compose", "shell", "markdown", "makefile", "github", "gitlab"]))
    flow, indent, crlf, comment = draw(YAML_STYLE)
    if kind == "k8s":
        documents = draw(st.lists(k8s_document(), min_size=1, max_size=2))
        text = "---\n".join(_render_yaml(d, flow, indent, False, comment) for d in documents)
        return "gen.yaml", text.replace("\n", "\r\n") if crlf else text
    if kind == "compose":
        return "compose.yaml", _render_yaml(draw(compose_document()), flow, indent, crlf, comment)
    lines = draw(SHELL_SCRIPT)
    if kind == "shell":
        newline = "\r\n" if crlf else "\n"
        return "gen.sh", "#!/usr/bin/env bash" + newline + newline.join(lines) + newline
    if kind == "markdown":
        fence = draw(st.sampled_from(["```bash", "```", "```console", "~~~sh", "    "]))
        if fence == "    ":
            body = "\n".join("    " + line for line in lines)
        else:
            prompt = "$ " if fence == "```console" else ""
            body = fence + "\n" + "\n".join(prompt + line for line in lines) + "\n" + fence[:3]
        return "README.md", f"# Title\n\nSome text.\n\n{body}\n\nMore text.\n"
    if kind == "makefile":
        return "Makefile", "IMAGE ?= x\n\ntrain:\n" + "".join(f"\t{line}\n" for line in lines) + "\n.PHONY: train\n"
    if kind == "github":
        workflow = {
            "name": "ci",
            "on": {"push": {}},
            "jobs": {
                "train": {
                    "runs-on": "ubuntu-latest",
                    "steps": [{"uses": "actions/checkout@v4"}, {"run": "\n".join(lines) + "\n"}, {"run": lines[0]}],
                }
            },
        }
        return ".github/workflows/ci.yml", _render_yaml(workflow, flow, indent, crlf, comment)
    pipeline = {"stages": ["train"], "train": {"stage": "train", "script": lines}}
    return ".gitlab-ci.yml", _render_yaml(pipeline, flow, indent, crlf, comment)


def _check_generated(value: tuple[tuple[str, str], bool]) -> None:
    (name, text), unsafe = value
    path = Path(name)
    kind = kind_by_name(path) or FileKind.YAML
    source = SourceText(name, text)
    result = ENGINE.check_source(source, kind, path)
    assert_findings_well_placed(result, source)
    if kind is FileKind.YAML:
        assert not [f for f in result.findings if f.code == "SHM000"], (text, result.findings)
    with tempfile.TemporaryDirectory() as tmp:
        assert_fix_invariants(source, kind, path, Path(tmp) if kind is FileKind.SHELL else None, unsafe)


@pytest.mark.slow
def test_generated_documents_check_and_fix_cleanly() -> None:
    fuzz("generated", st.tuples(generated_file(), st.booleans()), _check_generated, 600)


# Shrunk cases the fuzzers found, kept as explicit examples so that each one shows on its own (and stays fixed).
#: two containers of one pod, one with a 512Mi memory limit: the /dev/shm volume they share is fixed once for both
SHARED_VOLUME_POD = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: c0, image: 'pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime'}
  - name: c1
    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
    resources:
      limits: {memory: 512Mi}
"""

FOUND_BY_FUZZING = {
    # the container mounts an undefined volume at /dev/shm: the fix adds another /dev/shm mount every round (5
    # volumes and 5 mounts, all at /dev/shm, which Kubernetes rejects as duplicate mountPaths) and never converges
    "k8s-mount-of-undefined-volume": (
        "gen.yaml",
        False,
        """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c0
    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
    volumeMounts:
    - {name: host-shm, mountPath: /dev/shm}
""",
    ),
    # the service joins another service's IPC namespace: the fix wrote shm_size (which has no effect there) five
    # times, as duplicate keys that docker compose refuses to load (fixed meanwhile: no fix is offered)
    "compose-ipc-service": (
        "compose.yaml",
        False,
        """services:
  train:
    image: pytorch/pytorch:2.3.0
    ipc: "service:helper"
  helper:
    image: busybox
""",
    ),
    # two containers share the fixed volume; the safe fix sizes it for the container without a memory limit (8Gi),
    # which leaves the other one with SHM004 (8Gi above its 512Mi limit): a safe fix that creates a warning
    "k8s-shared-volume-memory-limit": ("gen.yaml", False, SHARED_VOLUME_POD),
    # with --unsafe-fixes the same pod flips between 8Gi (SHM005 fix for c0) and 256Mi (SHM004 fix for c1) every
    # round, reports "fixed 5 finding(s)" and is never stable
    "k8s-shared-volume-unsafe-oscillation": ("gen.yaml", True, SHARED_VOLUME_POD),
    # in one round the SHM005 fix (9M -> 8Gi, one character longer) is spliced first and the SHM001 fix's second
    # edit (computed on the old text) lands one character early, inside the last flow mapping: the file written
    # holds a mapping as a key ("found unhashable key"), which shmlint's own node-level parse guard accepts
    "k8s-stale-offset-after-resize": (
        "gen.yaml",
        False,
        """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c0
    image: pytorch/pytorch:2.3.0
    volumeMounts: [{name: dshm, mountPath: /dev/shm}]
  - name: c1
    image: pytorch/pytorch:2.3.0
    volumeMounts: [{name: host-shm, mountPath: /dev/shm}]
  volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 9M}}]
""",
    ),
    # a long-form tmpfs volume with a size below the minimum: SHM005 was offered as fixable, the fixer made no edit
    # (fixed meanwhile: not offered)
    "compose-tmpfs-volume-size": (
        "compose.yaml",
        False,
        """services:
  s0:
    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
    volumes:
    - type: tmpfs
      target: /dev/shm
      tmpfs: {size: 1000}
""",
    ),
}


@pytest.mark.parametrize("case", sorted(FOUND_BY_FUZZING))
def test_cases_found_by_fuzzing(case: str) -> None:
    name, unsafe, text = FOUND_BY_FUZZING[case]
    path = Path(name)
    assert_fix_invariants(SourceText(name, text), kind_by_name(path) or FileKind.YAML, path, unsafe=unsafe)


# -- the real-world corpus, mutated ------------------------------------------------------------------------------


#: (name, bytes, path) of a corpus file
CorpusFile = tuple[str, bytes, Path]


@pytest.fixture(scope="module")
def corpus_files(corpus: Path) -> list[CorpusFile]:
    names = [row["local_name"] for row in corpus_rows()]
    return [(name, (corpus / name).read_bytes(), corpus / name) for name in names]


SPLICE_TOKENS = [
    b"\x00",
    b"\xff\xfe",
    b"\r\n",
    b"\t",
    b"\n",
    b"'",
    b'"',
    b"`",
    b"$(",
    b"\\\n",
    b"{{ .Values.x }}",
    b"{%",
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"!!python/object/apply:os.system ",
    b"- ",
    b": ",
    b"[",
    b"]",
    b"{",
    b"}",
    b"#",
    b"---\n",
    b"<<<<<<< HEAD\n",
    b"=======\n",
    b">>>>>>> x\n",
    b"\xef\xbb\xbf",
    b"docker run --gpus all pytorch/pytorch ",
    b"--shm-size=",
    b"8Gi",
    b"medium: Memory",
    b"/dev/shm",
    b"hostIPC: true\n",
    b"shm_size: 8gb\n",
    b"\xc3\xa9",
    b"    ",
    b"nvidia.com/gpu: 1",
    b"volumes: []\n",
    b"volumes:\n",
    b"```",
    b"\xf0\x9f\x98\x80",
]
MUTATION = st.tuples(
    st.sampled_from(["delete", "duplicate", "insert", "byte", "swap-lines", "truncate", "dedent", "indent"]),
    st.floats(0, 1),
    st.integers(0, 200),
    st.sampled_from(SPLICE_TOKENS),
    st.integers(0, 255),
)


def mutate(data: bytes, mutations: list[tuple]) -> bytes:
    for op, where, length, token, byte in mutations:
        at = int(where * len(data))
        if op == "delete":
            data = data[:at] + data[at + length :]
        elif op == "duplicate":
            data = data[: at + length] + data[at : at + length] + data[at + length :]
        elif op == "insert":
            data = data[:at] + token + data[at:]
        elif op == "byte" and data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([byte]) + data[at + 1 :]
        elif op == "swap-lines":
            lines = data.split(b"\n")
            if len(lines) > 2:
                i = min(int(where * len(lines)), len(lines) - 2)
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
                data = b"\n".join(lines)
        elif op == "truncate":
            data = data[:at]
        elif op in ("dedent", "indent"):
            lines = data.split(b"\n")
            i = int(where * (len(lines) - 1))
            lines[i] = lines[i][2:] if op == "dedent" else b"  " + lines[i]
            data = b"\n".join(lines)
    return data


def _kind_of(name: str) -> FileKind:
    return kind_by_name(Path(name)) or FileKind.YAML


def _check_mutated(files: list[CorpusFile], value: tuple[int, list[tuple]], fix: bool) -> None:
    index, mutations = value
    name, data, path = files[index]
    mutated = mutate(data, mutations)
    kind = _kind_of(name)
    try:
        source = SourceText.from_bytes(name, mutated)
    except InputError:
        return
    result = ENGINE.check_source(source, kind, path)
    assert_findings_well_placed(result, source)
    if fix and kind is not FileKind.DOCKERFILE:
        assert_fix_invariants(source, kind, path, strict=False)


def _corpus_strategy(files: list[CorpusFile], max_mutations: int):
    return st.tuples(st.integers(0, len(files) - 1), st.lists(MUTATION, max_size=max_mutations))


@pytest.mark.slow
def test_corpus_files_check_and_fix_as_they_are(corpus_files: list[CorpusFile]) -> None:
    """Every corpus file, unmutated: no crash, findings in place, fix invariants (a deterministic sweep)."""
    checked = 0
    for index in range(len(corpus_files)):
        _check_mutated(corpus_files, (index, []), fix=True)
        checked += 1
    COUNTS["corpus.as-is"] = COUNTS.get("corpus.as-is", 0) + checked
    assert checked >= 90


@pytest.mark.slow
def test_corpus_fixable_findings_are_fixed(corpus_files: list[CorpusFile]) -> None:
    """A finding offered as fixable (``N fixable with `shmlint fix```, JSON ``"fixable": true``) is fixed by ``fix``."""
    unfixed = []
    for name, data, path in corpus_files:
        kind = _kind_of(name)
        if kind is FileKind.DOCKERFILE:
            continue
        try:
            assert_fix_invariants(SourceText.from_bytes(name, data), kind, path, strict=True)
        except AssertionError as exc:
            unfixed.append(f"{name}: {str(exc)[:300]}")
    assert not unfixed, "\n".join(unfixed)


@pytest.mark.slow
def test_mutated_corpus_never_crashes_the_checker(corpus_files: list[CorpusFile]) -> None:
    check = functools.partial(_check_mutated, corpus_files, fix=False)
    fuzz("corpus.mutated.check", _corpus_strategy(corpus_files, 6), check, 1200)


@pytest.mark.slow
def test_mutated_corpus_keeps_fix_invariants(corpus_files: list[CorpusFile]) -> None:
    check = functools.partial(_check_mutated, corpus_files, fix=True)
    fuzz("corpus.mutated.fix", _corpus_strategy(corpus_files, 3), check, 400)


# -- atheris (optional: runs only where atheris is installed) ------------------------------------------------------

ATHERIS_HARNESS = r"""
import sys
from pathlib import Path
import atheris

with atheris.instrument_imports():
    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.fix.apply import fix_source
    from shmlint.settings import Settings
    from shmlint.source import InputError, SourceText

ENGINE = Engine(Settings(undecided="show"))
KINDS = [(FileKind.YAML, "f.yaml"), (FileKind.SHELL, "f.sh"), (FileKind.MARKDOWN, "f.md"), (FileKind.MAKEFILE, "Makefile")]

def one_input(data: bytes) -> None:
    if not data:
        return
    kind, name = KINDS[data[0] % len(KINDS)]
    try:
        source = SourceText.from_bytes(name, data[1:])
    except InputError:
        return
    result = ENGINE.check_source(source, kind, Path(name))
    if any(f.fixable for f in result.findings):
        fix_source(ENGINE, source, kind, Path(name))

atheris.Setup(sys.argv, one_input)
atheris.Fuzz()
"""


@pytest.mark.slow
def test_atheris_harness_briefly(tmp_path: Path) -> None:
    """Coverage-guided fuzzing of check + fix for a few thousand runs, seeded with the fixtures; skipped without
    atheris."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("ATHERIS_PATH", "")]))}
    probe = subprocess.run([sys.executable, "-c", "import atheris"], env=env, capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("atheris is not installed (optional: pip install atheris, or ATHERIS_PATH=<folder with it>)")
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    seed_files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and kind_by_name(p) is not None)
    for index, path in enumerate(seed_files):
        kind = [FileKind.YAML, FileKind.SHELL, FileKind.MARKDOWN, FileKind.MAKEFILE].index(
            _kind_of(path.name) if _kind_of(path.name) is not FileKind.DOCKERFILE else FileKind.YAML
        )
        (seeds / f"seed{index}").write_bytes(bytes([kind]) + path.read_bytes())
    harness = tmp_path / "harness.py"
    harness.write_text(ATHERIS_HARNESS)
    runs = int(3000 * SCALE)
    done = subprocess.run(
        [sys.executable, str(harness), f"-runs={runs}", "-max_len=4096", "-seed=1", "-rss_limit_mb=2048", str(seeds)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    COUNTS["atheris"] = COUNTS.get("atheris", 0) + runs
    assert re.search(r"Done \d+ runs", done.stderr), done.stderr[-2000:]
