"""Manifests named as templates (``x.yaml.template``, ``x.yaml-template``, ``x.yml.tmpl``, ``x.yaml.j2``...): read
as YAML when they are plain YAML with envsubst placeholders (values to come), otherwise not checked: a notice when
they look like a manifest, never SHM000, nothing for templates of other files."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import kind_by_name
from shmlint.format_descriptor import FileKind
from shmlint.runner import check_paths
from shmlint.settings import Settings

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: trainer}}
spec:
  containers:
  - name: trainer
    image: {image}
    command: [torchrun, --nproc_per_node=4, train.py]
    resources: {{limits: {{nvidia.com/gpu: 4}}}}
"""


@pytest.mark.parametrize(
    "name",
    ["job.yaml.template", "job.yml.template", "job.yaml-template", "job.yml.tmpl", "job.yaml.j2", "JOB.YAML.TPL"],
)
def test_template_names_are_yaml_templates(name: str) -> None:
    assert kind_by_name(name) is FileKind.YAML_TEMPLATE
    assert kind_by_name("job.yaml") is FileKind.YAML and kind_by_name("notes.template") is None


def _check(tmp_path: Path, name: str, image: str):
    (tmp_path / name).write_text(POD.format(image=image), encoding="utf-8")
    return check_paths(Settings(), [tmp_path], jobs=1)


def test_an_envsubst_template_is_read(tmp_path: Path) -> None:
    report = _check(tmp_path, "pod.yaml-template", "${REGISTRY}/trainer:${TAG}")
    assert [(f.code, f.severity.label) for f in report.findings] == [("SHM001", "error")]
    assert not report.notices


@pytest.mark.parametrize(
    ("image", "said"),
    [
        (
            "{{ image }}:{% if cuda %}cu124{% else %}cpu{% endif %}",
            "template (Helm, Jinja, Terraform or envsubst markers): not plain YAML, not checked",
        ),  # a Jinja statement inside a line: no YAML without rendering it
        ("@IMAGE@", "a template that is not plain YAML (invalid YAML"),  # configure_file's placeholder
    ],
)
def test_a_template_that_is_not_plain_yaml_is_reported_not_checked(tmp_path: Path, image: str, said: str) -> None:
    report = _check(tmp_path, "pod.yaml.j2", image)
    assert not report.findings  # not SHM000 either: a template is not broken YAML
    ((notice),) = report.notices
    assert said in notice.message and notice.path.endswith("pod.yaml.j2")


PLACEHOLDERS = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: trainer
    image: ${REGISTRY}/trainer:${TAG}
    command: [torchrun, --nproc_per_node=4, train.py]
    resources: {limits: {nvidia.com/gpu: 4, memory: "${MEM}"}}
    volumeMounts: [{name: dshm, mountPath: /dev/shm}]
  volumes:
  - name: dshm
    emptyDir: {medium: Memory, sizeLimit: "$SHM_SIZE"}
"""


def test_a_placeholder_quantity_is_unknown_not_invalid(tmp_path: Path) -> None:
    """envsubst fills ``${MEM}``: the quantity is computed when rendered, never a malformed one (SHM011), and no
    rule sizes against it; the same text in a plain manifest is what kubectl would refuse."""
    from shmlint.engine import Engine
    from shmlint.source import SourceText

    path = tmp_path / "pod.yaml.template"
    result = Engine(Settings()).check_source(SourceText(str(path), PLACEHOLDERS), FileKind.YAML_TEMPLATE, path)
    (workload,) = result.workloads
    (shm,) = workload.shm
    assert workload.memory_limit is not None and shm.size is not None
    assert (workload.memory_limit.text, workload.memory_limit.bytes, workload.memory_limit.error) == (
        "${MEM}",
        None,
        None,
    )
    assert (shm.size.text, shm.size.bytes, shm.size.error) == ("$SHM_SIZE", None, None)
    assert not result.findings
    # in a file named like any manifest a value that is one variable is envsubst's too (audit61b: a script pipes
    # the plain-named files through envsubst); one that adds a unit to it is still what kubectl would refuse
    (tmp_path / "pod.yaml").write_text(PLACEHOLDERS, encoding="utf-8")
    assert not check_paths(Settings(), [tmp_path / "pod.yaml"], jobs=1).findings
    (tmp_path / "pod.yaml").write_text(PLACEHOLDERS.replace('"${MEM}"', '"${MEM}Gi"'), encoding="utf-8")
    plain = check_paths(Settings(), [tmp_path / "pod.yaml"], jobs=1).findings
    assert [f.code for f in plain] == ["SHM011"]


OPENSHIFT_TEMPLATE = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: trainer}
objects:
- apiVersion: v1
  kind: Pod
  metadata: {name: trainer}
  spec:
    containers:
    - name: trainer
      image: acme/trainer
      command: [torchrun, --nproc_per_node=4, train.py]
      resources: {limits: {nvidia.com/gpu: 4, memory: "${MEMORY_LIMIT}"}}
parameters:
- {name: MEMORY_LIMIT, value: 512Mi}
"""


def test_an_openshift_templates_parameters_are_values_to_come(tmp_path: Path) -> None:
    """``oc process`` fills an OpenShift Template's ``${PARAMETER}``s: its objects are read as a template's, so a
    placeholder quantity is no malformed one (SHM011), and the pods are judged; a file named like any manifest."""
    (tmp_path / "template.yaml").write_text(OPENSHIFT_TEMPLATE, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert [(f.code, f.severity.label) for f in report.findings] == [("SHM001", "error")]
    # another group's Template kind: not OpenShift's, its objects read as written (a unit after the parameter)
    other = OPENSHIFT_TEMPLATE.replace("template.openshift.io/v1", "acme.io/v1").replace(
        '"${MEMORY_LIMIT}"', '"${MEMORY_LIMIT}Mi"'
    )
    (tmp_path / "template.yaml").write_text(other, encoding="utf-8")
    assert "SHM011" in [f.code for f in check_paths(Settings(), [tmp_path], jobs=1).findings]
    # OpenShift's non-string parameter form is one too; a plain object beside a Template is applied as written
    plain = PLACEHOLDERS.replace('"${MEM}"', '"${MEM}Gi"')
    both = OPENSHIFT_TEMPLATE.replace('"${MEMORY_LIMIT}"', '"${{MEMORY_LIMIT}}Mi"') + "---\n" + plain
    (tmp_path / "template.yaml").write_text(both, encoding="utf-8")
    found = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert sorted(f.span.line for f in found if f.code == "SHM011") == [25]  # the Pod's ${MEM}Gi


def test_a_fix_never_writes_into_a_placeholder(tmp_path: Path) -> None:
    """A template pod without /dev/shm and a placeholder memory limit: the fix adds the volume, sized without a cap
    it cannot read, and leaves ``${MEM}`` as it is."""
    from shmlint.engine import Engine
    from shmlint.fix.apply import fix_source
    from shmlint.source import SourceText

    text = PLACEHOLDERS.replace("    volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n", "").split("  volumes:")[0]
    path = tmp_path / "pod.yaml.template"
    result = fix_source(Engine(Settings()), SourceText(str(path), text), FileKind.YAML_TEMPLATE, path, unsafe=True)
    assert result.text != text and 'memory: "${MEM}"' in result.text and "sizeLimit" in result.text


MANIFEST_HEAD = b"apiVersion: v1\nkind: Pod\n"


NOT_PLAIN, MARKERS = (
    "a template that is not plain YAML (",
    "template (Helm, Jinja, Terraform or envsubst markers): not plain YAML",
)


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("pod.yaml.j2", MANIFEST_HEAD + b"\xff\xfe\x00bad: [\n", NOT_PLAIN + "binary file"),  # rendering decides
        ("pod.yaml-template", MANIFEST_HEAD + b'x: "\xff\xfe"\n', NOT_PLAIN + "invalid YAML: not valid UTF-8"),
        ("job.yml.j2", b"containers:\n  - image: {{ image }}{% if x %}:1{% endif %}\n", MARKERS),  # a container's
        ("pod.yaml.tpl", b"\xff\xfeb\x00a\x00d\x00", None),  # UTF-16 that is no manifest either
        ("blob.yaml.j2", bytes(range(256)) * 4, None),  # binary and nothing like a manifest
        ("prometheus.yml.j2", b"global:\n  scrape_interval: {{ interval }}\nscrape_configs:\n  - job_name: x\n", None),
        ("app.yaml.tmpl", b"server:\n  port: 80\n  name: [\n", None),  # an unrelated template that does not parse
    ],
)
def test_a_template_not_checked_is_a_notice_when_it_looks_like_a_manifest(
    tmp_path: Path, name: str, data: bytes, said: str | None
) -> None:
    """Templates that cannot be read are noted only where they could render a workload; others are passed over as
    YAML without a workload is (an Ansible role has many ``*.yml.j2``)."""
    (tmp_path / name).write_bytes(data)
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert not report.findings  # never SHM000: a template is not broken YAML
    assert [said in notice.message for notice in report.notices] == ([True] if said else [])


def test_binary_yaml_that_is_no_template_stays_invalid(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_bytes(MANIFEST_HEAD + b"\x00")
    assert [f.code for f in check_paths(Settings(), [tmp_path], jobs=1).findings] == ["SHM000"]


def test_binary_template_on_stdin_is_a_notice(shmlint_process) -> None:
    text = MANIFEST_HEAD.decode() + "\0"
    template = shmlint_process("check", "-", "--stdin-filename", "pod.yaml.j2", input=text)
    plain = shmlint_process("check", "-", "--stdin-filename", "pod.yaml", input=text)
    assert template.returncode == 0 and "not checked" in template.stdout and "SHM000" not in template.stdout
    assert plain.returncode == 1 and "SHM000" in plain.stdout


@pytest.mark.parametrize(
    ("medium", "size", "codes"),
    [
        ('"${SHM_MEDIUM}"', "8Gi", []),
        ("Memory", "8Gi", []),
        ('""', "8Gi", ["SHM006"]),
        ('"${SHM_MEDIUM}"', "32Mi", ["SHM005"]),  # too small whatever it renders to: a sizeLimit bounds disk alike
        ("memory", "8Gi", ["SHM006"]),  # a typo is not Memory
    ],
)
def test_an_emptydir_medium_filled_at_render_time_is_judged_as_memory(
    tmp_path: Path, medium: str, size: str, codes
) -> None:
    """A placeholder medium is there to be Memory once rendered: never "on disk" (SHM006), its size still judged;
    a medium left empty is disk, and so is one Kubernetes does not know."""
    volume = (
        "    volumeMounts: [{name: shm, mountPath: /dev/shm}]\n"
        f"  volumes: [{{name: shm, emptyDir: {{medium: {medium}, sizeLimit: {size}}}}}]\n"
    )
    (tmp_path / "pod.yaml.template").write_text(POD.format(image="pytorch/pytorch") + volume, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert [f.code for f in report.findings] == codes


def test_a_terraform_template_with_directives_is_a_template_not_broken_yaml(tmp_path: Path) -> None:
    """``templatefile()``'s ``%{ for }``/``%{ endfor }`` lines are no YAML (found on an untuned repository,
    audit51b: a kustomization written as a Terraform template failed the gate as SHM000)."""
    text = (
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        "%{ for r in resources }\n- ${r}\n%{ endfor }\n"
    )
    (tmp_path / "kustomization.tftpl.yaml").write_text(text, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert not report.findings
    assert [n.message for n in report.notices] == [
        "template (Helm, Jinja, Terraform or envsubst markers): not plain YAML, not checked; lint its rendered output instead"
    ]


def test_curls_write_out_format_is_no_template_directive(tmp_path: Path) -> None:
    """``-w '%{http_code}'`` in a probe is curl's, not Terraform's: the manifest is read (audit review)."""
    probe = "    livenessProbe: {exec: {command: [sh, -c, \"curl -s -o /dev/null -w '%{http_code}' localhost\"]}}\n"
    (tmp_path / "pod.yaml.template").write_text(POD.format(image="acme/trainer:1") + probe, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert [(f.code, f.severity.label) for f in report.findings] == [("SHM001", "error")]


def test_a_variable_line_at_the_margin_is_an_envsubst_template(tmp_path: Path) -> None:
    """audit56b (determined's devcluster config): a line that is only ``$OPT_RESOURCEPOOLS``, at the margin, is
    where envsubst puts lines of YAML; the file is a template, not broken YAML (it failed the gate as SHM000). A
    variable inside a script's block scalar is YAML text as any other."""
    text = "stages:\n  - master:\n      config_file:\n        gpus: 8\n        pools:\n$OPT_RESOURCEPOOLS\n        port: 1\n"
    (tmp_path / "devcluster.yaml").write_text(text, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert not report.findings
    assert [n.message for n in report.notices] == [
        "template (Helm, Jinja, Terraform or envsubst markers): not plain YAML, not checked; lint its rendered output instead"
    ]
    pod = "kind: Pod\nspec:\n  containers:\n  - name: c\n    args:\n    - |\n      $CMD\n    nvidia.com/gpu: [\n"
    (tmp_path / "devcluster.yaml").write_text(pod, encoding="utf-8")
    assert [f.code for f in check_paths(Settings(), [tmp_path], jobs=1).findings] == ["SHM000"]


def test_a_variable_line_under_a_key_is_an_envsubst_template(tmp_path: Path) -> None:
    """audit59a (IRISFormer's cluster jobs): ``limits:`` then an indented ``${MEM_LIMIT}`` that a script fills with
    ``memory: 32Gi``; the file is a template (it failed the gate as SHM000)."""
    text = (
        "apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n"
        "        resources:\n          limits:\n            ${MEM_LIMIT}\n            cpu: ${CPU_REQ}\n"
    )
    (tmp_path / "job.yaml").write_text(text, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert not report.findings and [n.message.split(":")[0] for n in report.notices] == [
        "template (Helm, Jinja, Terraform or envsubst markers)"
    ]


def test_a_scripts_marker_in_a_quantity_is_no_invalid_size(tmp_path: Path) -> None:
    """audit59a: ``memory: "#MEMLGi"``, a marker a script replaces before ``kubectl create``, was an SHM011 error;
    a mistyped quantity still is one."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: vllm/vllm-openai:v0.9.0\n"
        '    resources: {limits: {memory: "#MEMLGi", nvidia.com/gpu: 1}}\n'
        "    volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n"
        "  volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}]\n"
    )
    # envsubst's (audit61b) and one Jinja expression (audit67b: a SeldonDeployment template a script renders)
    for marked in ("#MEMLGi", "<MEMORY>", "__MEM__Gi", "$POD_MEMORY_LIMIT", "${MEMORY}", "{{ memory_limit }}"):
        (tmp_path / "pod.yaml").write_text(pod.replace("#MEMLGi", marked), encoding="utf-8")
        assert not check_paths(Settings(), [tmp_path], jobs=1).findings, marked
    (tmp_path / "pod.yaml").write_text(pod.replace("#MEMLGi", "32GB"), encoding="utf-8")
    assert [f.code for f in check_paths(Settings(), [tmp_path], jobs=1).findings] == ["SHM011"]


def test_a_variable_line_in_yaml_that_parses_is_text(tmp_path: Path) -> None:
    """A line at the margin that is one variable is valid YAML inside a flow sequence: such a template is read as
    the YAML it is, its command judged (review: the envsubst mark hid it)."""
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n"
        "      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n"
        '      command: [torchrun, --nproc_per_node, "4", train.py,\n$EXTRA_ARGS\n      ]\n'
        "      resources: {limits: {nvidia.com/gpu: 4}}\n"
    )
    (tmp_path / "pod.yaml.tmpl").write_text(text, encoding="utf-8")
    report = check_paths(Settings(), [tmp_path], jobs=1)
    assert [(f.code, f.severity.label) for f in report.findings] == [("SHM001", "error")]


def test_a_gpu_count_a_template_fills_in_asks_for_gpus(tmp_path: Path) -> None:
    """audit61b: ``nvidia.com/gpu: "$GPU_COUNT_PER_MODEL"`` hid the container; it asks for GPUs, how many unknown:
    undecided, listed, never 64 MiB said of a container with no accelerator."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: acme/srv:1\n"
        '    resources: {limits: {nvidia.com/gpu: "$GPU_COUNT_PER_MODEL"}}\n'
    )
    for marked in ("$GPU_COUNT_PER_MODEL", "<NUM_GPUS>", "__GPUS__"):  # a script's markers too (review)
        (tmp_path / "pod.yaml").write_text(pod.replace("$GPU_COUNT_PER_MODEL", marked), encoding="utf-8")
        report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
        ((finding),) = report.findings
        assert finding.code == "SHM001" and finding.severity.label == "info" and marked in finding.message
        assert finding.workload is not None and finding.workload.accelerator_count is None
