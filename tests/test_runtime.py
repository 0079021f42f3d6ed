"""What docker, compose, Kubernetes and NCCL make of a setting, asked in one place (``shmlint.runtime``) by every
format: NCCL's reading of ``NCCL_SHM_DISABLE`` (bug: Kubernetes accepted 1/true/yes, compose 1/true, ``docker
run`` only 1), interpolation (bug: a Dockerfile read ``${X:+alt}`` as a default), IPC modes, mount specs, sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint import sizes
from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.model import ShmKind, ShmMechanism, Workload
from shmlint.parsers.dockerfile import torch_evidence_text
from shmlint.runtime import nccl
from shmlint.runtime.interpolation import interpolate
from shmlint.runtime.ipc import ipc_mode
from shmlint.runtime.mounts import classify_mount, find_option, parse_mount, parse_tmpfs, parse_volume, split_options
from shmlint.runtime.shm import is_shm_path
from shmlint.settings import Settings
from shmlint.signals import Signals
from shmlint.source import SourceText

# -- NCCL_SHM_DISABLE --------------------------------------------------------------------------------------------

#: value -> does NCCL turn its SHM transport off (strtoll(value, NULL, 0) == 1, see shmlint/runtime/nccl.py)
NCCL_TRUTH = {
    "1": True,
    "01": True,  # octal
    "0x1": True,
    "0X01": True,
    "+1": True,
    " 1": True,  # strtoll skips leading blanks
    "1abc": True,  # and stops at the first character that is not a digit
    "0": False,
    "2": False,  # the transport is off only for exactly 1
    "-1": False,
    "true": False,  # no digits: 0
    "TRUE": False,
    "yes": False,
    "on": False,
    "": False,  # empty: NCCL keeps the default
    "0x": False,
    "09": False,  # octal stops at 9: 0
    "99999999999999999999999999": False,  # out of range: NCCL keeps the default
}


@pytest.mark.parametrize(("value", "disabled"), NCCL_TRUTH.items(), ids=[repr(v) for v in NCCL_TRUTH])
def test_nccl_reads_its_integer_like_strtoll(value: str, disabled: bool) -> None:
    assert nccl.disables_shm(value) is disabled


@given(st.integers(min_value=-(2**63) + 1, max_value=2**63 - 1))
def test_nccl_integers_in_every_base(number: int) -> None:
    sign = "-" if number < 0 else ""
    for written in (str(number), f"{sign}{abs(number):#x}", f"{sign}0{abs(number):o}"):
        assert nccl.integer(written) == number, written


def _workloads(text: str, kind: FileKind, name: str) -> tuple[Workload, ...]:
    source = SourceText(f"/nonexistent/{name}", text)
    return Engine(Settings(undecided="show")).check_source(source, kind, Path(source.path)).workloads


def _kubernetes(value: str) -> Workload:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: main\n"
        "      image: pytorch/pytorch\n      env:\n        - name: NCCL_SHM_DISABLE\n"
        f"          value: {value!r}\n"
    )
    (workload,) = _workloads(text, FileKind.YAML, "pod.yaml")
    return workload


def _compose(value: str) -> Workload:
    text = f"services:\n  train:\n    image: pytorch/pytorch\n    environment:\n      NCCL_SHM_DISABLE: {value!r}\n"
    (workload,) = _workloads(text, FileKind.YAML, "compose.yaml")
    return workload


def _compose_list(value: str) -> Workload:
    text = f"services:\n  train:\n    image: pytorch/pytorch\n    environment: ['NCCL_SHM_DISABLE={value}']\n"
    (workload,) = _workloads(text, FileKind.YAML, "compose.yaml")
    return workload


def _command(value: str) -> Workload:
    (workload,) = _workloads(f"docker run -e NCCL_SHM_DISABLE={value} pytorch/pytorch\n", FileKind.SHELL, "a.sh")
    return workload


FORMATS = {"kubernetes": _kubernetes, "compose": _compose, "compose-list": _compose_list, "docker-run": _command}
PER_FORMAT = ["1", "0x1", "01", "true", "yes", "TRUE", "0", "2"]


@pytest.mark.parametrize("value", PER_FORMAT)
@pytest.mark.parametrize("build", FORMATS.values(), ids=FORMATS.keys())
def test_every_format_judges_nccl_shm_disable_alike(build, value: str) -> None:
    """Before: Kubernetes flagged true and yes, compose true, and docker run missed 0x1 and 01."""
    assert (build(value).nccl_shm_disabled is not None) is NCCL_TRUTH[value]


# -- interpolation -----------------------------------------------------------------------------------------------

INTERPOLATION = [
    ("${X:-d}", {}, ("d", True)),
    ("${X:-d}", {"X": ""}, ("d", True)),
    ("${X-d}", {"X": ""}, ("", True)),
    ("${X:+alt}", {"X": "1"}, ("alt", True)),
    ("${X:+alt}", {"X": ""}, ("", True)),
    ("${X+alt}", {"X": ""}, ("alt", True)),
    ("${X:+alt}", {}, ("", False)),  # unknown: the alternative applies only if X is set
    ("${X:?needed}", {"X": "v"}, ("v", True)),
    ("${X:?needed}", {}, ("", False)),
    ("$X/b", {"X": "a"}, ("a/b", True)),
    ("$X/b", {}, ("/b", False)),
    ("$$X", {}, ("$X", True)),
    ("${X:-${Y:-deep}}", {}, ("deep", True)),
    ("${X:-${Y}}", {"Y": "y"}, ("y", True)),
    ("${unclosed", {}, ("${unclosed", True)),
]


@pytest.mark.parametrize(("text", "known", "expected"), INTERPOLATION)
def test_interpolation_operators(text: str, known: dict[str, str], expected: tuple[str, bool]) -> None:
    assert interpolate(text, known) == expected


@given(st.text(alphabet=st.characters(blacklist_characters="$")))
def test_text_without_a_dollar_is_left_alone(text: str) -> None:
    assert interpolate(text) == (text, True)


@given(st.sampled_from(["X", "TAG", "_private", "a1"]), st.text(max_size=8), st.text(max_size=8))
def test_alternative_and_default_are_opposites(name: str, value: str, word: str) -> None:
    word = word.replace("$", "").replace("{", "").replace("}", "")  # a plain word: no nested expansion
    default, _ = interpolate(f"${{{name}:-{word}}}", {name: value})
    alternative, _ = interpolate(f"${{{name}:+{word}}}", {name: value})
    assert default == (value if value else word)
    assert alternative == (word if value else "")


def test_a_dockerfile_reads_the_alternative_operator_as_compose_does() -> None:
    """Before: ``${GPU:+...}`` was read as a default, so an empty GPU build argument still built the torch image."""
    text = 'ARG GPU=""\nFROM ${GPU:+nvcr.io/nvidia/pytorch:24.01-py3}${GPU:-ubuntu:22.04}\nRUN echo\n'
    assert torch_evidence_text(text, Signals()) is None
    assert torch_evidence_text(text, Signals(), build_args={"GPU": "1"}) is not None


# -- IPC modes ---------------------------------------------------------------------------------------------------

IPC = {
    "": None,
    "private": None,
    "shareable": None,
    "host": ShmKind.HOST_IPC,
    " host ": ShmKind.HOST_IPC,
    "none": ShmKind.NONE,
    "container:other": ShmKind.SHARED,
    "ns:/proc/1/ns/ipc": ShmKind.SHARED,
    "service:db": ShmKind.SHARED,
    "bogus": ShmKind.UNKNOWN,
}


@pytest.mark.parametrize(("mode", "kind"), IPC.items())
def test_ipc_modes(mode: str, kind: ShmKind | None) -> None:
    assert ipc_mode(mode).kind is kind
    assert ipc_mode(mode).service == ("db" if mode == "service:db" else None)


@pytest.mark.parametrize("mode", ["host", "none", "container:x", "bogus", "private"])
def test_docker_and_compose_read_an_ipc_mode_alike(mode: str) -> None:
    (command,) = _workloads(f"docker run --ipc={mode} pytorch/pytorch\n", FileKind.SHELL, "a.sh")
    (service,) = _workloads(f"services:\n  t:\n    image: pytorch/pytorch\n    ipc: {mode}\n", FileKind.YAML, "c.yaml")
    assert [s.kind for s in command.shm] == [s.kind for s in service.shm]


# -- mounts ------------------------------------------------------------------------------------------------------

OPTION_TEXT = st.lists(
    st.tuples(
        st.text(alphabet=" abcdefgz-", min_size=1, max_size=6), st.booleans(), st.text(alphabet=" ab019%", max_size=5)
    ),
    min_size=1,
    max_size=5,
).map(lambda items: ",".join(f"{key}={value}" if equals else key for key, equals, value in items))


@given(OPTION_TEXT, st.integers(min_value=0, max_value=50))
def test_option_offsets_point_at_their_values(text: str, offset: int) -> None:
    padded = "x" * offset + text
    options = split_options(text, offset)
    assert len(options) == text.count(",") + 1
    for option in options:
        assert padded[option.start : option.start + len(option.value)] == option.value
        assert option.value == option.value.strip() and option.key == option.key.strip()


@given(OPTION_TEXT)
def test_tmpfs_offsets_are_offsets_into_the_whole_spec(options: str) -> None:
    spec_text = f"/dev/shm:{options}"
    spec = parse_tmpfs(spec_text)
    assert is_shm_path(spec.target) and spec.has_options
    for option in spec.options:
        assert spec_text[option.start : option.start + len(option.value)] == option.value


def test_tmpfs_without_options() -> None:
    assert parse_tmpfs("/dev/shm") == ("/dev/shm", False, ())
    assert parse_tmpfs("/dev/shm:").has_options


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/dev/shm", ("volume", "", "/dev/shm")),
        ("/dev/shm:ro", ("volume", "", "/dev/shm")),
        ("shmvol:/dev/shm", ("volume", "shmvol", "/dev/shm")),
        ("/dev/shm:/dev/shm:rw", ("bind", "/dev/shm", "/dev/shm")),
        ("./cache:/dev/shm:z,ro", ("bind", "./cache", "/dev/shm")),
        ("C:\\cache:/dev/shm", ("volume", "C:\\cache", "/dev/shm")),
    ],
)
def test_volume_short_syntax(text: str, expected: tuple[str, str, str]) -> None:
    assert parse_volume(text)[:3] == expected


@given(st.sampled_from(["", "/host", "./rel", "~/home", "named"]), st.sampled_from(["", ":ro", ":rw,z", ":nocopy"]))
def test_volume_source_and_target_survive_any_mode(source: str, mode: str) -> None:
    text = f"{source}:/dev/shm{mode}" if source else f"/dev/shm{mode}"
    mount = parse_volume(text)
    assert (mount.source, mount.target) == (source, "/dev/shm")
    assert mount.type == ("bind" if source.startswith(("/", ".", "~")) else "volume")


def test_mount_fields() -> None:
    mount = parse_mount("Type=TMPFS, dst=/dev/shm ,tmpfs-size=1024,readonly")
    assert (mount.type, mount.target, mount.source) == ("tmpfs", "/dev/shm", "")
    size = find_option(mount.options, "tmpfs-size")
    assert size is not None and size.value == "1024"
    assert find_option(mount.options, "readonly") is None  # a bare key has no value
    assert parse_mount("type=bind,src=/a,destination=/b,target=/dev/shm").target == "/b"


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("tmpfs", (ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT)),
        ("bind", (ShmKind.HOST_PATH, ShmMechanism.BIND)),
        ("volume", (ShmKind.DISK, ShmMechanism.VOLUME)),
        ("npipe", (ShmKind.UNKNOWN, ShmMechanism.VOLUME)),
    ],
)
def test_what_a_mount_gives(kind: str, expected: tuple[ShmKind, ShmMechanism]) -> None:
    assert classify_mount(parse_mount(f"type={kind},source=x,target=/dev/shm")) == expected


def test_a_host_folder_bound_at_dev_shm_is_the_same_in_every_format() -> None:
    """Before: ``docker run -v /data:/dev/shm`` was disk while compose and Kubernetes said host path."""
    (command,) = _workloads("docker run -v /data:/dev/shm pytorch/pytorch\n", FileKind.SHELL, "a.sh")
    text = "services:\n  t:\n    image: pytorch/pytorch\n    volumes: ['/data:/dev/shm']\n"
    (service,) = _workloads(text, FileKind.YAML, "compose.yaml")
    assert [(s.kind, s.host_path) for s in command.shm] == [(s.kind, s.host_path) for s in service.shm]
    assert command.shm[0].kind is ShmKind.HOST_PATH


@pytest.mark.parametrize("device", ["/dev/dxg", "/dev/accel/accel0", "/dev/neuron0", "/dev/kfd", "/dev/dri"])
def test_compose_and_docker_run_agree_on_gpu_devices(device: str) -> None:
    """Before: compose knew only NVIDIA, kfd and dri nodes."""
    (command,) = _workloads(f"docker run --device {device} img\n", FileKind.SHELL, "a.sh")
    text = f"services:\n  t:\n    image: img\n    devices: ['{device}:{device}']\n"
    (service,) = _workloads(text, FileKind.YAML, "compose.yaml")
    assert command.gpu and service.gpu


@pytest.mark.parametrize(
    "path",
    ["/dev/shm", "/dev/shm/", " /dev/shm", "/dev/shm//", "//dev/shm", "/dev//shm", "/dev/./shm", "/x/../dev/shm"],
)
def test_shm_path_spellings(path: str) -> None:
    """As the runtimes clean a mount's path (Go's ``filepath.Clean``)."""
    assert is_shm_path(path)


@pytest.mark.parametrize("path", ["/dev/shm/x", "/dev/shmem", "/dev", "", "dev/shm", "/dev/shm/.."])
def test_other_paths(path: str) -> None:
    assert not is_shm_path(path)


# -- sizes in either dialect -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"), [("8Gi", 8 * 1024**3), ("8g", 8 * 1024**3), ("8G", 8 * 10**9), ("512", 512), ("8x", None)]
)
def test_sizes_in_either_dialect(text: str, expected: int | None) -> None:
    """One reader for ``--shm-size`` of ``shmlint fix``, the configuration file and ``shmlint size``."""
    assert sizes.parse_either(text) == expected
