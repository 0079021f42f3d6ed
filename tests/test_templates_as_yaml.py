"""Valid YAML is checked as YAML: ``{{ }}`` inside scalars is content (KServe ServingRuntimes, compiled Argo
workflows); only a Helm chart's templates, or text that is not a manifest until rendered, is left to a renderer."""

from __future__ import annotations

from pathlib import Path

RUNTIME = """\
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: hf
  labels:
    x: "{{.Labels.x}}"
spec:
  containers:
    - name: kserve-container
      image: kserve/huggingfaceserver:latest
      args: ["--model_dir={{.Labels.modelDir}}"]
      resources:
        limits: {nvidia.com/gpu: "1"}
"""

ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: train-}
spec:
  entrypoint: train
  templates:
    - name: train
      container:
        image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
        command: [torchrun, "--nproc_per_node={{inputs.parameters.gpus}}", "{{$}}"]
        resources: {limits: {nvidia.com/gpu: 2}}
"""

HELM = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: vllm/vllm-openai
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _check(invoke, path: Path) -> tuple[int, str]:
    result = invoke("check", "--undecided=strict", str(path))  # the KServe runtime's software is not known
    return result.exit_code, result.output


def test_quoted_template_marks_in_valid_yaml_are_content(tmp_path: Path, invoke) -> None:
    for name, text in (("runtime.yaml", RUNTIME), ("workflow.yaml", ARGO)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        code, output = _check(invoke, tmp_path / name)
        assert code == 1 and "SHM001" in output, output


def test_chart_templates_are_left_to_the_renderer(tmp_path: Path, invoke) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "templates" / "runtime.yaml").write_text(RUNTIME, encoding="utf-8")
    _, output = _check(invoke, chart / "templates" / "runtime.yaml")
    assert "SHM001" not in output and "Helm chart" in output, output


def test_unrendered_template_that_happens_to_parse_is_not_a_manifest(tmp_path: Path, invoke) -> None:
    """``name: {{ .Release.Name }}`` composes as a mapping used as a key: a template outside any chart, noted and
    never reported as ``Deployment/?``."""
    (tmp_path / "deployment.yaml").write_text(HELM, encoding="utf-8")
    code, output = _check(invoke, tmp_path / "deployment.yaml")
    assert code == 0 and "SHM001" not in output and "template" in output, output
    # Jinja's ``{{ name }}`` (no Helm action) is read as the YAML it renders to (``parsers.template_mask``): its
    # quoted '{{ memory_limit }}' is a value to come, never SHM011 (audit67b), the pod named as the template writes
    # it, and the GPU container undecided (a warning under strict)
    jinja = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ name }}\nspec:\n  containers:\n  - name: c\n"
        "    image: acme/app:1\n    resources:\n      limits: {memory: '{{ memory_limit }}', nvidia.com/gpu: 1}\n"
    )
    (tmp_path / "deployment.yaml").write_text(jinja, encoding="utf-8")
    code, output = _check(invoke, tmp_path / "deployment.yaml")
    assert "SHM011" not in output and "Jinja template read as" in output, output
    assert 'SHM001 [warning] Pod/{{name}}, container "c": accelerator' in output, output
