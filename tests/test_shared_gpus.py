"""GPUs asked for otherwise than by a device plugin's count (audit73a: a ``torchrun`` pod got no finding at all): a
Dynamic Resource Allocation claim of a GPU device class, a GPU-sharing scheduler's annotation (KAI Scheduler,
Run:ai), and a vGPU scheduler's memory or core share (4paradigm's k8s-vgpu-scheduler, HAMi)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.engine import Engine
from shmlint.format_descriptor import FileKind
from shmlint.settings import Settings
from shmlint.source import SourceText

ENGINE = Engine(Settings())
TORCHRUN = "image: pytorch/pytorch:2.4.0\n    command: [torchrun, --nproc_per_node=2, train.py]"


def gpus(text: str) -> list[list[str]]:
    """Each workload's accelerator evidence, as messages say it."""
    result = ENGINE.check_source(SourceText("pod.yaml", text), FileKind.YAML, Path("pod.yaml"))
    return [[evidence.text for evidence in workload.gpu] for workload in result.workloads]


def pod(containers: str, spec: str = "", annotations: str = "") -> str:
    return f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n{annotations}spec:\n{spec}  containers:\n{containers}"


CLAIMING = "  - name: train\n    " + TORCHRUN + "\n    resources:\n      claims:\n      - name: gpus\n"
TEMPLATE = (
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: {name}\nspec:\n  spec:\n"
    "    devices:\n      requests:\n      - name: r\n        exactly:\n          deviceClassName: {device_class}\n---\n"
)


@pytest.mark.parametrize(
    ("template", "claims", "found"),
    [
        (TEMPLATE.format(name="one", device_class="gpu.nvidia.com"), "resourceClaimTemplateName: one", ["gpus"]),
        (TEMPLATE.format(name="slice", device_class="mig.nvidia.com"), "resourceClaimTemplateName: slice", ["gpus"]),
        # a class the file says is not a GPU, whatever the names
        (TEMPLATE.format(name="gpu-nic", device_class="rdma.example.com"), "resourceClaimTemplateName: gpu-nic", []),
        # a template elsewhere: its name says it
        ("", "resourceClaimTemplateName: single-gpu", ["gpus"]),
        ("", "resourceClaimName: shared-accelerator", ["gpus"]),  # the claim's own name (gpus) says GPU
    ],
)
def test_a_resource_claim_of_a_gpu_device_class_is_a_gpu(template: str, claims: str, found: list[str]) -> None:
    spec = f"  resourceClaims:\n  - name: gpus\n    {claims}\n"
    (evidence,) = gpus(template + pod(CLAIMING, spec))
    assert [text.split()[2] for text in evidence] == found


def test_a_claim_the_container_does_not_name_is_not_its() -> None:
    spec = "  resourceClaims:\n  - name: gpus\n    resourceClaimTemplateName: single-gpu\n"
    containers = CLAIMING + "  - name: sidecar\n    image: busybox\n"
    assert [bool(evidence) for evidence in gpus(pod(containers, spec))] == [True, False]


@pytest.mark.parametrize(
    ("annotations", "found"),
    [
        ('    gpu-fraction: "0.5"\n', [True, False]),
        ('    gpu-memory: "2000"\n', [True, False]),
        ('    gpu-fraction: "0.5"\n    gpu-fraction-container-name: sidecar\n', [False, True]),
        ('    gpu-fraction: "0"\n', [False, False]),
        ('    gpu-fraction: "0.0"\n', [False, False]),
    ],
)
def test_a_share_of_a_gpu_asked_for_by_annotation_is_the_named_or_first_containers(
    annotations: str, found: list[bool]
) -> None:
    containers = f"  - name: train\n    {TORCHRUN}\n  - name: sidecar\n    image: busybox\n"
    text = pod(containers, "  schedulerName: kai-scheduler\n", "  annotations:\n" + annotations)
    assert [bool(evidence) for evidence in gpus(text)] == found


@pytest.mark.parametrize(
    "resource", ["nvidia.com/gpumem: 3000", "nvidia.com/gpucores: 30", "nvidia.com/gpumem-percentage: 50"]
)
def test_a_vgpu_share_alone_is_a_gpu(resource: str) -> None:
    containers = f"  - name: train\n    {TORCHRUN}\n    resources:\n      limits:\n        {resource}\n"
    assert [bool(evidence) for evidence in gpus(pod(containers))] == [True]


TWO_REQUESTS = (
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: node\nspec:\n  spec:\n"
    "    devices:\n      requests:\n      - name: nic\n        exactly: {deviceClassName: rdma.example.com}\n"
    "      - name: gpu\n        exactly: {deviceClassName: gpu.nvidia.com}\n---\n"
)


@pytest.mark.parametrize(
    ("named", "found"),
    [("", True), ("        request: gpu\n", True), ("        request: nic\n", False)],
)
def test_every_request_of_a_claim_counts_and_a_container_that_names_one_gets_that_one(named: str, found: bool) -> None:
    """The review: only the first request's class was read (a NIC listed first hid the GPU), and a container that
    claims only the NIC was taken for a GPU one."""
    containers = CLAIMING + named
    spec = "  resourceClaims:\n  - name: gpus\n    resourceClaimTemplateName: node\n"
    (evidence,) = gpus(TWO_REQUESTS + pod(containers, spec))
    assert bool(evidence) is found


def test_a_template_among_a_lists_items_is_read() -> None:
    template = TEMPLATE.format(name="gpu-nic", device_class="rdma.example.com").removesuffix("---\n")
    listed = "apiVersion: v1\nkind: List\nitems:\n- " + template.replace("\n", "\n  ").rstrip() + "\n---\n"
    spec = "  resourceClaims:\n  - name: gpus\n    resourceClaimTemplateName: gpu-nic\n"
    (evidence,) = gpus(listed + pod(CLAIMING, spec))
    assert evidence == []  # its class, read through the List, says it is no GPU (its names alone would)


def test_a_share_asked_for_by_the_owner_and_not_by_its_pod_template_is_not_the_containers() -> None:
    """The scheduler reads the pod's annotations: a Deployment's own are not its pods' (the review)."""
    deployment = (
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  annotations:\n    gpu-fraction: "0.5"\n'
        "spec:\n  template:\n{pod}    spec:\n      containers:\n      - name: train\n        "
        + TORCHRUN.replace("\n", "\n    ")
        + "\n"
    )
    on_pod = '    metadata:\n      annotations:\n        gpu-fraction: "0.5"\n'
    assert [bool(evidence) for evidence in gpus(deployment.format(pod=""))] == [False]
    assert [bool(evidence) for evidence in gpus(deployment.format(pod=on_pod))] == [True]


def test_a_utility_container_on_a_share_is_no_gpu_work() -> None:
    """As for a GPU counted in its resources: ``nvidia-smi`` decides nothing (the policies read it so too)."""
    containers = "  - name: probe\n    image: ubuntu\n    command: [nvidia-smi]\n"
    assert gpus(pod(containers, "", '  annotations:\n    gpu-fraction: "0.5"\n')) == [[]]
