"""A tmpfs size written inside a mount's option string (``"rw,size=64m"``): read as the kernel reads it (docker
hands the options to the mount unread), found at its own characters, and fixed there alone, so the other options
and the quotes stay. Found: Terraform's ``tmpfs = {"/dev/shm" = "rw,size=64m"}`` was fixed to ``= 8192`` and the
docker SDK's ``tmpfs={"/dev/shm": "rw,size=64m"}`` to ``"8g"`` (not a mount option: the mount came out unsized)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint import sizes
from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.settings import Settings
from shmlint.source import SourceText

TERRAFORM = """resource "docker_container" "train" {
  name    = "train"
  image   = "pytorch/pytorch:latest"
  gpus    = "all"
  command = ["python", "train.py", "--num-workers", "8"]
  tmpfs = {
    "/dev/shm" = "rw,size=64m"
  }
}
"""
DOCKER_SDK = """import docker
client = docker.from_env()
client.containers.run("pytorch/pytorch", "python train.py --num-workers 8",
    device_requests=[docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])],
    tmpfs={"/dev/shm": "rw,size=64m"})
"""


@pytest.mark.parametrize(
    ("name", "kind", "text", "line"),
    [("main.tf", FileKind.TERRAFORM, TERRAFORM, 7), ("launch.py", FileKind.PYTHON, DOCKER_SDK, 5)],
)
def test_a_tmpfs_option_size_is_found_and_fixed_on_its_own_characters(
    name: str, kind: FileKind, text: str, line: int
) -> None:
    engine = Engine(Settings())
    source = SourceText(name, text)
    found = [f for f in engine.check_source(source, kind, Path(name)).findings if f.code == "SHM005"]
    column = text.splitlines()[line - 1].index("64m") + 1
    assert [(f.span.line, f.span.column) for f in found] == [(line, column)]
    fixed = fix_source(engine, source, kind, Path(name)).text
    assert fixed == text.replace("rw,size=64m", "rw,size=8g")


def test_a_tmpfs_size_written_otherwise_than_read_is_reported_not_rewritten() -> None:
    """A JSON-style escape moves the characters: the size cannot be replaced where it reads, so no fix."""
    text = DOCKER_SDK.replace('"rw,size=64m"', '"rw,\\x73ize=64m"')
    engine = Engine(Settings())
    source = SourceText("launch.py", text)
    assert [f.code for f in engine.check_source(source, FileKind.PYTHON, Path("launch.py")).findings] == ["SHM005"]
    assert fix_source(engine, source, FileKind.PYTHON, Path("launch.py")).text == text


@pytest.mark.parametrize(
    ("written", "size"),
    [
        ("8g", 8 * sizes.GIB),
        ("8G", 8 * sizes.GIB),
        ("512m", 512 * sizes.MIB),
        ("1048576", sizes.MIB),
        ("2k", 2048),
        ("0x4000000", 64 * sizes.MIB),  # memparse reads base 0: hexadecimal
        ("010m", 8 * sizes.MIB),  # and octal
    ],
)
def test_the_kernels_tmpfs_sizes_are_read(written: str, size: int) -> None:
    assert sizes.parse(written, sizes.TMPFS).bytes == size


@pytest.mark.parametrize(
    ("written", "suggestion"),
    [("8gb", "8g"), ("1.5g", "1536m"), ("8Gi", None), ("8 g", "8g"), ("99999999999999999999e", None)],
)
def test_what_the_kernel_refuses_is_an_invalid_size_with_the_spelling_it_takes(
    written: str, suggestion: str | None
) -> None:
    parsed = sizes.parse(written, sizes.TMPFS)
    assert parsed.bytes is None and parsed.error is not None and parsed.suggestion == suggestion


def test_a_tmpfs_option_is_the_kernels_grammar_and_a_mount_tmpfs_size_dockers(tmp_path: Path) -> None:
    """``--tmpfs /dev/shm:size=8gb`` fails to mount (SHM011); ``--mount ...,tmpfs-size=8gb`` is docker's to read."""
    image = "vllm/vllm-openai:latest"
    script = tmp_path / "run.sh"
    script.write_text(
        f"docker run --gpus all --tmpfs /dev/shm:size=8gb {image}\n"
        f"docker run --gpus all --mount type=tmpfs,dst=/dev/shm,tmpfs-size=8gb {image}\n"
    )
    found = Engine(Settings()).check_source(SourceText(str(script), script.read_text()), FileKind.SHELL, script)
    assert [(f.code, f.span.line) for f in found.findings] == [("SHM011", 1)]


def test_a_share_of_ram_is_a_size_known_where_it_runs_and_the_last_size_counts() -> None:
    assert sizes.parse("50%", sizes.TMPFS) == sizes.ParsedSize(None)  # no bytes, and no error
    engine = Engine(Settings())
    for text, codes in (
        (DOCKER_SDK.replace("rw,size=64m", "rw,size=50%"), []),
        (DOCKER_SDK.replace("rw,size=64m", "rw,size=16g,size=64m"), ["SHM005"]),  # the kernel keeps the last
    ):
        found = engine.check_source(SourceText("launch.py", text), FileKind.PYTHON, Path("launch.py")).findings
        assert [f.code for f in found] == codes


@pytest.mark.parametrize(
    ("written", "fixed"),
    [
        ('    tmpfs: ["/dev/shm:size=1.5g"]\n', '    tmpfs: ["/dev/shm:size=1536m"]\n'),
        ("    tmpfs: /dev/shm:size=8gb\n", "    tmpfs: /dev/shm:size=8g\n"),
    ],
)
def test_a_compose_tmpfs_size_the_kernel_refuses_is_respelled_in_place(written: str, fixed: str) -> None:
    """SHM011 rewrites the size's own characters; it replaced the whole entry (``- 1536m``: the mount was gone)."""
    text = "services:\n  t:\n    image: vllm/vllm-openai:latest\n    gpus: all\n" + written
    engine = Engine(Settings())
    source = SourceText("compose.yaml", text)
    found = engine.check_source(source, FileKind.YAML, Path("compose.yaml")).findings
    assert [f.code for f in found][:1] == ["SHM011"]
    assert fix_source(engine, source, FileKind.YAML, Path("compose.yaml")).text.startswith(text.replace(written, fixed))
