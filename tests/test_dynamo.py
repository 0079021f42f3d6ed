"""NVIDIA Dynamo's graphs: the operator mounts an 8Gi Memory emptyDir at /dev/shm in each component's main
container unless the component sizes or turns it off (audit55b: eight "64 MiB /dev/shm" messages on v1beta1
components given 8Gi, and v1alpha1 services, whose main container is ``extraPodSpec.mainContainer``, not read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine


def findings(engine: Engine, tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "dgd.yaml"
    path.write_text(text)
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    return [f"{f.code} {f.severity.label} {f.message}" for f in result.findings]


def graph(version: str) -> str:
    return f"apiVersion: nvidia.com/{version}\nkind: DynamoGraphDeployment\nmetadata: {{name: g}}\nspec:\n"


def beta(setting: str, limits: str = "nvidia.com/gpu: 2") -> str:
    return (
        graph("v1beta1")
        + f"""\
  components:
    - name: Worker
      {setting}
      podTemplate:
        spec:
          containers:
            - name: main
              image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.2.1
              command: [python3, -m, dynamo.vllm, --tensor-parallel-size, "2"]
              resources: {{limits: {{{limits}}}}}
            - name: helper
              image: busybox
              command: [sleep, infinity]
"""
    )


def alpha(setting: str) -> str:
    return (
        graph("v1alpha1")
        + f"""\
  services:
    Worker:
      {setting}
      resources:
        limits:
          gpu: "2"
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0
          args: ["python3 -m dynamo.vllm --tensor-parallel-size 2"]
          command: [/bin/sh, -c]
"""
    )


@pytest.mark.parametrize("make", [beta, alpha])
def test_the_operators_default_is_8gi(engine: Engine, tmp_path: Path, make) -> None:
    assert findings(engine, tmp_path, make("replicas: 1")) == []


def test_a_size_the_component_gives_is_the_size(engine: Engine, tmp_path: Path) -> None:
    assert findings(engine, tmp_path, beta("sharedMemorySize: 32Gi")) == []
    assert findings(engine, tmp_path, alpha("sharedMemory: {size: 32Gi}")) == []
    # a zero v1alpha1 size is the operator's default (``Size.IsZero``), not no /dev/shm
    assert findings(engine, tmp_path, alpha("sharedMemory: {size: '0'}")) == []


def test_a_null_size_is_the_default(engine: Engine, tmp_path: Path) -> None:
    assert findings(engine, tmp_path, beta("sharedMemorySize:")) == []
    assert findings(engine, tmp_path, alpha("sharedMemory: {size: null}")) == []


@pytest.mark.parametrize(
    "text",
    [beta('sharedMemorySize: "0"'), beta("sharedMemorySize: 0Gi"), alpha("sharedMemory: {disabled: true}")],
)
def test_a_component_that_turns_it_off_gets_64_mib(engine: Engine, tmp_path: Path, text: str) -> None:
    (found,) = findings(engine, tmp_path, text)
    assert found.startswith("SHM001 error") and 'container "main"' in found and "has 64 MiB" in found


def test_v1alpha1_gpus_are_the_services_resources(engine: Engine, tmp_path: Path) -> None:
    """Dynamo's ``gpu`` is the device plugin's ``nvidia.com/gpu``, given to the main container."""
    text = alpha("sharedMemory: {disabled: true}").replace("python3 -m dynamo.vllm --tensor-parallel-size 2", "serve")
    (found,) = findings(engine, tmp_path, text)
    assert found.startswith("SHM001 info") and "accelerator (limits nvidia.com/gpu: 2)" in found


def test_the_operators_size_is_judged_like_a_volume(engine: Engine, tmp_path: Path) -> None:
    """Its default over a 4Gi memory limit is SHM004's case, said where the component would size it."""
    path = tmp_path / "dgd.yaml"
    path.write_text(beta("replicas: 1", "nvidia.com/gpu: 2, memory: 4Gi"))
    (candidate,) = discover([path])
    (found,) = engine.check_candidate(candidate).findings
    assert found.code == "SHM004" and "/dev/shm 8Gi is over the 4Gi memory limit" in found.message
    assert path.read_text().splitlines()[found.span.line - 1].strip() == "podTemplate:"


def test_no_fix_writes_a_pod_volume_for_the_operator(engine: Engine, tmp_path: Path) -> None:
    """The size is the component's setting, not a pod volume: a fix would add a second /dev/shm mount beside the
    one the operator makes (judged, not fixed)."""
    path = tmp_path / "dgd.yaml"
    path.write_text(beta('sharedMemorySize: "0"'))
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    assert [f.code for f in result.findings] == ["SHM001"]
    assert not any(f.fixable for f in result.findings)


def own_mount(setting: str, size: str) -> str:
    """A v1beta1 component whose main container mounts an emptyDir of its own at /dev/shm."""
    mounted = beta(setting).replace(
        "              resources: {limits: {nvidia.com/gpu: 2}}\n",
        "              resources: {limits: {nvidia.com/gpu: 2}}\n"
        "              volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n",
    )
    volume = f"          volumes: [{{name: dshm, emptyDir: {{medium: Memory, sizeLimit: {size}}}}}]\n"
    return mounted.replace("          containers:\n", volume + "          containers:\n")


def test_the_operators_mount_replaces_the_main_containers_own(engine: Engine, tmp_path: Path) -> None:
    """The operator drops a mount of the main container's own at /dev/shm before adding its volume's (review): a
    16Gi emptyDir the manifest mounts there is not what the pod gets, the 64Mi sharedMemorySize is; and a 64Mi one
    of its own is no finding where the operator's 8Gi replaces it."""
    found = findings(engine, tmp_path, own_mount("sharedMemorySize: 64Mi", "16Gi"))
    assert [f.split()[0] for f in found] == ["SHM005"] and "64Mi" in found[0]
    assert findings(engine, tmp_path, own_mount("replicas: 1", "64Mi")) == []


@pytest.mark.parametrize(
    ("resources", "said"),
    [
        ('{limits: {gpu: "2"}}', "limits nvidia.com/gpu: 2"),
        ("{limits: {gpu: '2', gpuType: amd.com/gpu}}", "limits amd.com/gpu: 2"),
        ("{limits: {custom: {amd.com/gpu: '1'}}}", "limits amd.com/gpu: 1"),
    ],
)
def test_v1alpha1_service_resources_are_laid_over_the_main_containers(
    engine: Engine, tmp_path: Path, resources: str, said: str
) -> None:
    """The operator merges the service's resources into the main container's own (review: a main container with
    a memory limit of its own lost the service's GPUs); ``gpuType`` names the GPU resource, ``custom`` holds
    resources by their own names."""
    text = alpha("sharedMemory: {disabled: true}").replace(
        '      resources:\n        limits:\n          gpu: "2"\n', f"      resources: {resources}\n"
    )
    text = text.replace("python3 -m dynamo.vllm --tensor-parallel-size 2", "serve")
    text += "          resources: {limits: {memory: 64Gi}}\n"
    (found,) = findings(engine, tmp_path, text)
    assert found.startswith("SHM001 info") and f"accelerator ({said})" in found
