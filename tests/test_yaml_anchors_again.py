"""An anchor defined again is valid YAML (an alias refers to the latest node of that anchor; Go's yaml behind Helm,
kubectl and compose reads it so), which PyYAML's composers refuse: audit53b's two wrong SHM000 errors were Helm
values files that define ``&port`` twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.parsers.yamlnodes import MAX_PYTHON_DEPTH, Mappings, Refused, YamlError, compose, scalar
from shmlint.source import SourceText

AGAIN = """\
service:
  port: &port 8080
probe:
  port: *port
metrics:
  port: &port 9090
scrape:
  port: *port
"""


def test_an_alias_refers_to_the_latest_definition() -> None:
    (document,) = compose(SourceText("values.yaml", AGAIN))
    m = Mappings()
    ports = [scalar(m.path(document, key, "port")) for key in ("service", "probe", "metrics", "scrape")]
    assert ports == ["8080", "8080", "9090", "9090"]


def test_a_pod_with_an_anchor_defined_again_is_judged(engine: Engine) -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: train, labels: {app: &name train}}
spec:
  containers:
  - name: *name
    image: pytorch/pytorch:2.3.0
    command: [torchrun, --nproc_per_node, "2", train.py]
    resources: {limits: {nvidia.com/gpu: &gpus 2}}
  - name: &name sidecar
    image: busybox
    resources: {limits: {cpu: *gpus}}
"""
    result = engine.check_source(SourceText("pod.yaml", text), FileKind.YAML, Path("pod.yaml"))
    assert [f.code for f in result.findings] == ["SHM001"], [f.message for f in result.findings]
    assert 'container "train"' in result.findings[0].message


def test_an_undefined_alias_is_still_an_error() -> None:
    with pytest.raises(YamlError, match="undefined alias"):
        compose(SourceText("bad.yaml", "a: &x 1\nb: &x 2\nc: *y\n"))


def test_a_redefining_document_is_bounded_in_depth() -> None:
    deep = "a: &x 1\nb: &x 2\nc: " + "[" * (MAX_PYTHON_DEPTH + 1) + "]" * (MAX_PYTHON_DEPTH + 1) + "\n"
    with pytest.raises(Refused, match="nested deeper"):
        compose(SourceText("deep.yaml", deep))
    # the document's mapping is the first level
    shallow = "a: &x 1\nb: &x 2\nc: " + "[" * (MAX_PYTHON_DEPTH - 1) + "]" * (MAX_PYTHON_DEPTH - 1) + "\n"
    assert compose(SourceText("ok.yaml", shallow))


def test_a_large_redefining_text_is_too_complex_not_slow() -> None:
    """Found (review): the Python composer reads about a megabyte a second; a 10 MB file took 11 s."""
    from shmlint.parsers.yamlnodes import MAX_PYTHON_CHARS, TooComplex

    padding = "".join(f"k{i}: {'v' * 1000}\n" for i in range(MAX_PYTHON_CHARS // 1000))
    with pytest.raises(TooComplex, match="anchor defined again"):
        compose(SourceText("big.yaml", "a: &x 1\nb: &x 2\n" + padding))
