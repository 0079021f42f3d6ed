"""The prefilter never hides a finding: its words come from the signal data, and every text a signal matches
holds one of them (bug: AMD/ROCm/HIP environment variables, /dev/dxg and /dev/accel were not among the hand-written
words, so a workload whose only signal was one of them got no finding)."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.prefilter import FORMAT_WORDS, Prefilter, prefilter_words, signal_patterns, stems
from shmlint.settings import Settings
from shmlint.signals import Signals
from shmlint.source import SourceText
from tests.hostile import POD_TEMPLATE, TORCHRUN_COMMAND

BUILT_IN = Signals()
PREFILTER = Prefilter(BUILT_IN)
#: a file that names no signal, no shm setting and nothing shmlint reads
PLAIN = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: info}\n"


def _as_regex(pattern: str, is_regex: bool) -> re.Pattern[str]:
    """The signal as a regular expression over ASCII text (image names, resource names and commands are ASCII)."""
    flags = re.IGNORECASE | re.ASCII
    if is_regex:
        return re.compile(pattern, flags)
    return re.compile(fnmatch.translate(pattern), flags)


SIGNALS = list(signal_patterns(BUILT_IN))


@pytest.mark.parametrize(("pattern", "is_regex"), SIGNALS, ids=[pattern for pattern, _ in SIGNALS])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # drawn from patterns
@given(data=st.data())
def test_every_text_a_built_in_signal_matches_passes(pattern: str, is_regex: bool, data: st.DataObject) -> None:
    """The meta-test: examples drawn from each signal itself (resource names, runtimes, environment names, device
    paths, KServe formats, image and command patterns), alone and inside a file."""
    example = data.draw(st.from_regex(_as_regex(pattern, is_regex), fullmatch=True), label="signal")
    assert PREFILTER.passes(example), example
    assert PREFILTER.passes(f"{PLAIN}  note: {example}\n"), example


@pytest.mark.parametrize(("pattern", "is_regex"), [s for s in SIGNALS if not s[1]], ids=lambda p: str(p))
def test_every_built_in_literal_passes_as_written(pattern: str, is_regex: bool) -> None:
    literal = pattern.replace("*", "0")  # a glob's wildcard stands for anything: here a device number
    assert PREFILTER.passes(literal) and PREFILTER.passes(literal.upper())


def test_a_text_without_signals_is_ruled_out() -> None:
    """Else the prefilter would be no filter at all."""
    assert not PREFILTER.passes(PLAIN)
    assert not PREFILTER.passes("#!/bin/sh\necho hello > /dev/null\nmake -j4\n")


_WORD = st.text(alphabet="abr-/dev_x", min_size=1, max_size=8)


@given(words=st.lists(_WORD, min_size=1, max_size=12), text=st.text(alphabet="abr-/dev_xAB ", max_size=40))
def test_the_stem_searches_find_a_text_exactly_when_one_word_is_in_it(words: list[str], text: str) -> None:
    """Fewer searches (``stems``), the same answer as looking for every word."""
    prefilter = Prefilter(BUILT_IN)
    prefilter.stems = stems(tuple(words))
    assert prefilter.passes(text) == any(word in text.lower() for word in words)


def test_the_built_in_words_take_fewer_searches() -> None:
    words = prefilter_words(BUILT_IN)
    assert words is not None and PREFILTER.stems is not None and len(PREFILTER.stems) < len(words)
    assert any(stem == "/dev" and len(members) > 2 for stem, members in PREFILTER.stems)  # the device paths


def test_words_are_derived_from_the_data() -> None:
    """A signal added to the data (here by configuration) brings its own word; nothing is written twice."""
    words = prefilter_words(BUILT_IN)
    assert words is not None and words[: len(FORMAT_WORDS)] == FORMAT_WORDS
    for word in ("rocr_visible_devices", "hip_visible_devices", "amd", "habana", "/dev/dxg", "/dev/accel"):
        assert word in words
    extended = BUILT_IN._replace(gpu_resources=(*BUILT_IN.gpu_resources, "example.com/npu-*"))
    assert Prefilter(extended).passes("resources: {limits: {example.com/npu-large: 1}}")
    assert not PREFILTER.passes("resources: {limits: {example.com/npu-large: 1}}")


def test_a_configured_pattern_without_any_literal_turns_the_prefilter_off() -> None:
    anything = BUILT_IN._replace(torch_images=(*BUILT_IN.torch_images, r"^[a-z]+\d$"))
    assert prefilter_words(anything) is None
    assert Prefilter(anything).passes(PLAIN)


def test_a_configured_alternation_needs_a_word_for_each_branch() -> None:
    either = BUILT_IN._replace(torch_commands=(*BUILT_IN.torch_commands, r"(?:jaxrun|flaxlaunch)\s"))
    prefilter = Prefilter(either)
    assert prefilter.passes("command: [jaxrun, x]") and prefilter.passes("command: [flaxlaunch, x]")


def test_optional_parts_of_a_pattern_are_not_required() -> None:
    """``(py3-)?sdk``: a text without ``py3-`` still matches, so ``py3-`` must not be the only word."""
    optional = BUILT_IN._replace(torch_images=(*BUILT_IN.torch_images, r"(?:mega-)?trainer-[0-9]+"))
    assert Prefilter(optional).passes("image: registry/trainer-7")


# -- the findings the old word list hid ------------------------------------------------------------------------

#: the container's only signal is the ROCm variable: the image name says nothing
ROCR_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: rocm-job}
spec:
  containers:
    - {name: main, image: registry.example.com/team/trainer:1, env: [{name: ROCR_VISIBLE_DEVICES, value: all}]}
"""


def _codes(text: str, kind: FileKind, name: str) -> list[str]:
    source = SourceText(name, text)
    result = Engine(Settings(undecided="show")).check_source(source, kind, Path(name))
    return [finding.code for finding in result.findings]


def test_a_pod_whose_only_gpu_signal_is_rocr_visible_devices_is_reported() -> None:
    assert "SHM001" in _codes(ROCR_POD, FileKind.YAML, "pod.yaml")


@pytest.mark.parametrize("variable", ["AMD_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"])
def test_the_other_rocm_variables_are_reported(variable: str) -> None:
    assert "SHM001" in _codes(ROCR_POD.replace("ROCR_VISIBLE_DEVICES", variable), FileKind.YAML, "pod.yaml")


@pytest.mark.parametrize("device", ["/dev/dxg", "/dev/accel/accel0"])
def test_a_docker_run_whose_only_gpu_signal_is_a_device_is_reported(device: str) -> None:
    assert "SHM001" in _codes(f"docker run --device {device} img\n", FileKind.SHELL, "run.sh")


def test_the_same_findings_with_the_prefilter_off() -> None:
    for text, kind, name in (
        (ROCR_POD, FileKind.YAML, "pod.yaml"),
        ("docker run --device /dev/dxg img\n", FileKind.SHELL, "run.sh"),
    ):
        source = SourceText(name, text)
        on = Engine(Settings(undecided="show")).check_source(source, kind, Path(name)).findings
        off = Engine(Settings(undecided="show", prefilter=False)).check_source(source, kind, Path(name)).findings
        assert on == off


def test_a_kserve_predictor_whose_only_signal_is_its_model_format_is_reported() -> None:
    """Also hidden by the old word list: ``huggingface`` (a torch model format) was not among its words."""
    text = (
        "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: llm}\n"
        "spec:\n  predictor:\n    huggingface: {storageUri: 'hf://org/model'}\n"
    )
    # on the CPU with unknown software no finding is claimed (cpu_only_pytorch): the workload must still be seen
    result = Engine(Settings(undecided="show")).check_source(
        SourceText("isvc.yaml", text), FileKind.YAML, Path("isvc.yaml")
    )
    assert [evidence.text for w in result.workloads for evidence in w.torch] == ["KServe huggingface predictor"]


#: a pod with no GPU of its own: only what the configuration adds makes it a workload
_CPU_POD = POD_TEMPLATE.format(name="p").replace("    resources: {limits: {nvidia.com/gpu: 2}}\n", "")
#: files whose only signal is a configured one, in every format the extractors read
CONFIGURED_ONLY = {
    "pod.yaml": _CPU_POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "corp/trainer:1").replace(
        TORCHRUN_COMMAND, '["train.py"]'
    ),
    "launch.yaml": _CPU_POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "busybox").replace(
        TORCHRUN_COMMAND, '["corp-launch", "train.py"]'
    ),
    "accel.yaml": _CPU_POD.replace("nvcr.io/nvidia/pytorch:24.05-py3", "alpine").replace(TORCHRUN_COMMAND, '["x"]')
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
