"""Property tests: generated Kubernetes manifests in many styles, fixed, must parse, re-check clean, stay valid
against the Kubernetes schema, and keep every untouched line byte-identical."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from shmlint.source import SourceText
from tests import proofs
from tests.support import default_engine

ENGINE = default_engine()


@dataclass(frozen=True)
class Style:
    indent: int
    flush: bool  # sequences flush with their key instead of indented
    crlf: bool
    comments: bool
    volumes: str  # "absent", "flow-empty", "block-other", "null"
    flow_containers: bool
    memory_limit: bool
    kind: str  # "Pod", "Deployment", "PyTorchJob"


styles = st.builds(
    Style,
    indent=st.sampled_from([2, 4]),
    flush=st.booleans(),
    crlf=st.booleans(),
    comments=st.booleans(),
    volumes=st.sampled_from(["absent", "flow-empty", "block-other", "null"]),
    flow_containers=st.booleans(),
    memory_limit=st.booleans(),
    kind=st.sampled_from(["Pod", "Deployment", "PyTorchJob"]),
)
containers = st.lists(st.sampled_from(["gpu", "torch", "plain"]), min_size=1, max_size=3)


def render(style: Style, kinds: list[str]) -> str:
    """A manifest as a person might write it in that style."""
    i = " " * style.indent
    dash_pad = "" if style.flush else i

    def block(level: int, lines: list[str]) -> list[str]:
        return [i * level + line for line in lines]

    def container(n: int, kind: str) -> list[str]:
        image = {
            "gpu": "nvidia/cuda:12.4.0-base",
            "torch": "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3",
            "plain": "nginx:1.27",
        }[kind]
        limits = (["nvidia.com/gpu: 1"] if kind == "gpu" else []) + (["memory: 16Gi"] if style.memory_limit else [])
        if style.flow_containers:
            flow_limits = ", ".join(limits)
            resources = f", resources: {{limits: {{{flow_limits}}}}}" if limits else ""
            return [f"- {{name: c{n}, image: {image}{resources}}}"]
        lines = [f"- name: c{n}" + ("  # the container" if style.comments else ""), f"  image: {image}"]
        if limits:
            lines += ["  resources:", f"  {i}limits:"] + [f"  {i}{i}{limit}" for limit in limits]
        return lines

    pod: list[str] = []
    if style.comments:
        pod.append("# pod settings")
    pod.append("containers:")
    for n, kind in enumerate(kinds):
        pod.extend(dash_pad + line for line in container(n, kind))
    if style.volumes == "flow-empty":
        pod.append("volumes: []")
    elif style.volumes == "null":
        pod.append("volumes:")
    elif style.volumes == "block-other":
        pod += ["volumes:", f"{dash_pad}- name: scratch", f"{dash_pad}  emptyDir: {{}}"]

    head = ["apiVersion: v1", f"kind: {style.kind}", "metadata:", f"{i}name: gen"]
    if style.kind == "Pod":
        body = ["spec:", *block(1, pod)]
    elif style.kind == "Deployment":
        head[0] = "apiVersion: apps/v1"
        body = [
            "spec:",
            f"{i}selector:",
            f"{i}{i}matchLabels: {{app: gen}}",
            f"{i}template:",
            f"{i}{i}metadata:",
            f"{i}{i}{i}labels: {{app: gen}}",
            f"{i}{i}spec:",
            *block(3, pod),
        ]
    else:
        head[0] = "apiVersion: kubeflow.org/v1"
        body = [
            "spec:",
            f"{i}pytorchReplicaSpecs:",
            f"{i}{i}Worker:",
            f"{i}{i}{i}replicas: 2",
            f"{i}{i}{i}template:",
            f"{i}{i}{i}{i}spec:",
            *block(5, pod),
        ]
    newline = "\r\n" if style.crlf else "\n"
    return newline.join(head + body) + newline


def _is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(line == candidate for candidate in it) for line in needles)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(styles, containers)
def test_generated_manifests_fix_cleanly(style: Style, kinds: list[str]) -> None:
    text = render(style, kinds)
    source = SourceText("gen.yaml", text)
    path = Path("gen.yaml")
    before = ENGINE.check_source(source, FileKind.YAML, path)
    assert not [f for f in before.findings if f.code == "SHM000"], text
    expected_flags = {"gpu", "torch"} & set(kinds)
    assert bool([f for f in before.findings if f.code == "SHM001"]) == bool(expected_flags)

    result = fix_source(ENGINE, source, FileKind.YAML, path)
    assert not result.problems
    after = ENGINE.check_source(SourceText("gen.yaml", result.text), FileKind.YAML, path)
    assert not [f for f in after.findings if f.code == "SHM000"], result.text
    assert not [f for f in after.findings if f.fix and f.fix.applicability is Applicability.SAFE], result.text
    assert not fix_source(ENGINE, after.source, FileKind.YAML, path).changed

    untouched = [
        line
        for line in text.splitlines(keepends=True)
        if "[]" not in line and not line.rstrip().endswith(("volumes:", "}"))
    ]
    assert _is_subsequence(untouched, result.text.splitlines(keepends=True)), result.text
    if style.crlf:
        assert "\n" not in result.text.replace("\r\n", "")
    proofs.assert_kubernetes_still_valid(text, result.text)
