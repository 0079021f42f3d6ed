"""Accelerator signals are identical in every format: each entry of the one table
(``signals.ACCELERATORS``) makes a workload accelerator work in Kubernetes, compose and a ``docker run`` line, through
the default prefilter; and a request of non-GPU accelerators is never taken for software that uses /dev/shm
(TPU, Gaudi, Neuron, Intel XPU with unknown software are a warning, not an error).

Each signal is spelled as each format spells it: an extended resource is a Kubernetes resource limit, a compose
CDI device (``devices: [name=all]``) and ``--device name=all``; a runtime is ``runtimeClassName``, compose
``runtime:`` and ``--runtime``; a variable is ``env``, ``environment`` and ``-e``; a device node is a Kubernetes
hostPath volume mounted in the container, a compose ``devices`` entry and ``--device``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.model import Tier
from shmlint.severity import Severity
from shmlint.signals import ACCELERATORS, Accelerator
from shmlint.source import SourceText
from tests.support import default_engine

ENGINE = default_engine()
IMAGE = "registry.example/team/app:1"  # an image no data entry knows: the accelerator alone decides
POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
{spec}  containers:
  - name: main
    image: registry.example/team/app:1
{container}"""
COMPOSE = "services:\n  main:\n    image: registry.example/team/app:1\n{service}"
RUN = "#!/bin/sh\ndocker run {options} registry.example/team/app:1 serve\n"
FORMATS = ("kubernetes", "compose", "docker run")


def _example(glob: str) -> str:
    """A concrete name for a glob of the table (``nvidia.com/mig-*`` -> ``nvidia.com/mig-1g.5gb``)."""
    return glob.replace("*", "1g.5gb" if glob.endswith("-*") else "0")


def _spellings(accelerator: Accelerator) -> Iterator[tuple[str, str, str]]:
    """(signal, format, file text) for every signal of one table entry in every format."""
    for glob in accelerator.resources:
        name = _example(glob)
        yield name, "kubernetes", POD.format(spec="", container=f"    resources:\n      limits:\n        {name}: 1\n")
        yield name, "compose", COMPOSE.format(service=f"    devices:\n      - {name}=all\n")
        yield name, "docker run", RUN.format(options=f"--device {name}=all")
    for runtime in accelerator.runtimes:
        yield runtime, "kubernetes", POD.format(spec=f"  runtimeClassName: {runtime}\n", container="")
        yield runtime, "compose", COMPOSE.format(service=f"    runtime: {runtime}\n")
        yield runtime, "docker run", RUN.format(options=f"--runtime={runtime}")
    for variable in accelerator.envs:
        container = f"    env:\n    - name: {variable}\n      value: all\n"
        yield variable, "kubernetes", POD.format(spec="", container=container)
        yield variable, "compose", COMPOSE.format(service=f"    environment:\n      {variable}: all\n")
        yield variable, "docker run", RUN.format(options=f"-e {variable}=all")
    for glob in accelerator.devices:
        node = _example(glob)
        volumes = f"  volumes:\n  - name: dev\n    hostPath: {{path: {node}}}\n"
        container = f"    volumeMounts:\n    - {{name: dev, mountPath: {node}}}\n"
        yield node, "kubernetes", POD.format(spec=volumes, container=container)
        yield node, "compose", COMPOSE.format(service=f"    devices:\n      - {node}:{node}\n")
        yield node, "docker run", RUN.format(options=f"--device {node}")


CASES = [(a.name, *spelling) for a in ACCELERATORS for spelling in _spellings(a)]


def check(form: str, text: str):
    name, kind = {"kubernetes": ("pod.yaml", FileKind.YAML), "compose": ("compose.yaml", FileKind.YAML)}.get(
        form, ("run.sh", FileKind.SHELL)
    )
    return ENGINE.check_source(SourceText(name, text), kind, Path(name))


@pytest.mark.parametrize(("accelerator", "signal", "form", "text"), CASES, ids=[":".join(c[:3]) for c in CASES])
def test_every_signal_is_recognised_in_every_format(accelerator: str, signal: str, form: str, text: str) -> None:
    result = check(form, text)
    (workload,) = result.workloads
    assert workload.gpu, f"{accelerator} signal {signal} not recognised in {form}:\n{text}"
    assert any(signal.lower() in evidence.text.lower() for evidence in workload.gpu), workload.gpu
    if signal in TPU_ONLY:  # a TPU request without torch is JAX/TensorFlow's one process per host
        assert workload.need is not None and workload.need.tier is Tier.FREE, workload.need
        assert not result.findings, [f.message for f in result.findings]
        return
    # the software is unknown: a warning that says so, never an error (and never nothing)
    assert workload.need is not None and workload.need.tier is Tier.UNKNOWN
    assert [(f.code, f.severity, f.undecided) for f in result.findings] == [("SHM001", Severity.INFO, True)]


#: signals that can only be a Google TPU (``/dev/accel*`` is Gaudi's too, so it stays undecided)
TPU_ONLY = {"google.com/tpu", "TPU_VISIBLE_CHIPS"}


def test_the_tpu_only_signals_are_the_tables_tpu_signals() -> None:
    """The control for the branch above: the TPU signals exist in the table, so the free branch is exercised."""
    (tpu,) = (a for a in ACCELERATORS if a.name == "Google TPU")
    assert {*tpu.resources, *tpu.envs} == TPU_ONLY


def test_every_format_is_covered_for_every_entry() -> None:
    for accelerator in ACCELERATORS:
        forms = {form for name, _, form, _ in CASES if name == accelerator.name}
        assert forms == set(FORMATS), accelerator.name


def test_habana_runtime_and_devices_are_recognised_on_a_docker_run_line() -> None:
    for options in ("--runtime=habana", "-e HABANA_VISIBLE_DEVICES=all"):
        (workload,) = check("docker run", RUN.format(options=options)).workloads
        assert workload.gpu, options


def test_the_table_covers_every_accelerator_family() -> None:
    names = " ".join(accelerator.name for accelerator in ACCELERATORS)
    for family in ("NVIDIA", "AMD", "Intel GPU", "Gaudi", "Neuron", "TPU"):
        assert family in names


@pytest.mark.parametrize(
    ("form", "text", "tier"),
    [
        # TPUs without torch: JAX/TensorFlow drive a host's chips from one process (tpu_alone)
        (
            "kubernetes",
            POD.format(spec="", container="    resources:\n      limits:\n        google.com/tpu: 4\n"),
            Tier.FREE,
        ),
        (
            "kubernetes",
            POD.format(spec="", container="    resources:\n      limits:\n        habana.ai/gaudi: 8\n"),
            Tier.UNKNOWN,
        ),
        (
            "kubernetes",
            POD.format(spec="", container="    resources:\n      limits:\n        aws.amazon.com/neuron: 2\n"),
            Tier.UNKNOWN,
        ),
        (
            "kubernetes",
            POD.format(spec="", container="    resources:\n      limits:\n        gpu.intel.com/i915: 2\n"),
            Tier.UNKNOWN,
        ),
        ("docker run", RUN.format(options="--runtime=habana -e HABANA_VISIBLE_DEVICES=0,1,2,3"), Tier.UNKNOWN),
    ],
)
def test_several_non_gpu_accelerators_are_not_software_evidence(form: str, text: str, tier: Tier) -> None:
    (workload,) = check(form, text).workloads
    assert workload.accelerator_count is None  # only NCCL/RCCL GPUs are counted
    assert workload.need is not None and workload.need.tier is tier


@pytest.mark.parametrize(
    ("form", "text", "count"),
    [
        ("kubernetes", POD.format(spec="", container="    resources:\n      limits:\n        nvidia.com/gpu: 2\n"), 2),
        ("kubernetes", POD.format(spec="", container="    resources:\n      requests:\n        amd.com/gpu: 4\n"), 4),
        # a chart's count, filled in when it is rendered: GPUs, how many unknown (review: counted as one)
        (
            "kubernetes",
            POD.format(spec="", container="    resources:\n      limits:\n        nvidia.com/gpu: '{{ .Values.n }}'\n"),
            None,
        ),
        (
            "kubernetes",
            POD.format(spec="", container="    env:\n    - {name: NVIDIA_VISIBLE_DEVICES, value: '0,1'}\n"),
            2,
        ),
        (
            "compose",
            COMPOSE.format(
                service="    deploy:\n      resources:\n        reservations:\n          devices:\n"
                "            - {driver: nvidia, count: 2, capabilities: [gpu]}\n"
            ),
            2,
        ),
        (
            "compose",
            COMPOSE.format(
                service="    deploy:\n      resources:\n        reservations:\n          devices:\n"
                "            - {driver: nvidia, device_ids: ['0', '3', '5'], capabilities: [gpu]}\n"
            ),
            3,
        ),
        (  # audit89a's probe: one entry of two, as a generator writes it (the runtime reads "0,1" as two)
            "compose",
            COMPOSE.format(
                service="    deploy:\n      resources:\n        reservations:\n          devices:\n"
                "            - {driver: nvidia, device_ids: ['0,1'], capabilities: [gpu]}\n"
            ),
            2,
        ),
        (  # a variable compose cannot resolve may hold several
            "compose",
            COMPOSE.format(
                service="    deploy:\n      resources:\n        reservations:\n          devices:\n"
                "            - {driver: nvidia, device_ids: ['${GPU_IDS}'], capabilities: [gpu]}\n"
            ),
            None,
        ),
        ("compose", COMPOSE.format(service="    gpus: all\n"), None),
        ("docker run", RUN.format(options="--gpus 2"), 2),
        ("docker run", RUN.format(options="--gpus '\"device=0,1\"'"), 2),
        ("docker run", RUN.format(options="--gpus all"), None),
        ("docker run", RUN.format(options="--gpus all -e HIP_VISIBLE_DEVICES=0,1"), None),
    ],
)
def test_counted_gpus_are_counted_but_decide_no_tier(form: str, text: str, count: int | None) -> None:
    result = check(form, text)
    (workload,) = result.workloads
    assert workload.accelerator_count == count
    # a GPU count is not software, so several GPUs alone stay undecided (info naming the count)
    assert [(f.code, f.severity) for f in result.findings] == [("SHM001", Severity.INFO)]
    if count and count >= 2:
        assert f"{count} GPUs in one container" in workload.need.because


@pytest.mark.parametrize(
    ("value", "count"),
    [
        ("2", 2),
        ("0,1,2", 3),
        ("device=0,1", 2),
        ("count=4", 4),
        ("none", 0),
        ("all", None),
        ("$GPUS", None),
        ("{{ .Values.gpus }}", None),  # a Helm chart's count, filled in later: not one device (review)
        ("{{ gpu_ids }}", None),  # an Ansible variable
    ],
)
def test_a_device_count_is_what_the_value_names_and_a_placeholder_none(value: str, count: int | None) -> None:
    from shmlint.signals import device_count

    assert device_count(value) == count


@pytest.mark.parametrize(
    ("resource", "gpu"),
    [
        ("nvidia.com/a100", True),  # the device plugin's resources renamed by model (audit71c: the NRP cluster)
        ("nvidia.com/rtxa6000", True),
        ("nvidia.com/gh200", True),
        ("nvidia.com/a5000", True),
        ("nvidia.com/gpu-a100", True),
        ("nvidia.com/rdma_shared_device_a", False),  # the network operator's NICs
        ("nvidia.com/sriov_rdma_vf", False),
        ("nvidia.com/hostdev", False),
    ],
)
def test_nvidia_resources_named_for_a_gpu_model_are_gpus_and_nics_are_not(resource: str, gpu: bool) -> None:
    text = POD.format(
        spec="",
        container=f"    command: [torchrun, --nproc_per_node=4, t.py]\n    resources:\n      limits:\n        {resource}: 4\n",
    )
    findings = [f for f in check("kubernetes", text).findings if f.code == "SHM001"]
    assert [f.severity for f in findings] == ([Severity.ERROR] if gpu else [])
