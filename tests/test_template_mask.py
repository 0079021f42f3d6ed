"""Jinja templates of manifests outside Helm charts, read as the YAML they render to
(``shmlint.parsers.template_mask``): statement lines blanked, whole-value expressions quoted, positions kept, no fix
offered, and said in a note (audit77c: a vLLM Deployment written as ``deployment.yaml.j2`` was not read)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.parsers.template_mask import masked_template
from shmlint.runner import check_paths
from shmlint.settings import Settings

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}
spec:
  template:
    spec:
      containers:
{% for model in models %}
      - name: vllm
        image: "{{ registry }}/vllm-openai:{{ tag }}"
        args: ["--tensor-parallel-size", "4"]  # {{ note }}
{% if gpu %}
        resources:
          limits:
            nvidia.com/gpu: 4
            memory: {{ memory }}
{% endif %}
{% endfor %}
{# rendered by deploy.py #}
"""


def test_statement_lines_are_blanked_and_whole_values_quoted_in_place() -> None:
    masked = masked_template(DEPLOYMENT)
    assert masked is not None and len(masked) == len(DEPLOYMENT)
    assert masked.splitlines()[3] == '  name: "{{name}}"'  # the spaces inside pay for the quotes
    assert masked.splitlines()[8].strip() == "" and masked.splitlines()[-1].strip() == ""
    assert masked.splitlines()[16] == '            memory: "{{memory}}"'
    assert '"{{ registry }}/vllm-openai:{{ tag }}"' in masked  # inside a quoted value: left as written
    assert "# {{ note }}" in masked


@pytest.mark.parametrize(
    "text",
    [
        "image: repo:{% if cuda %}cu124{% else %}cpu{% endif %}\n",  # a statement inside a line
        "name: {{x}}\n",  # no spaces to pay for the quotes
        "name: {{ a \"b\" 'c' }}\n",  # quotes of both kinds inside
        "{# a comment\n   over two lines #}\nkind: Pod\n",  # a comment's lines are not statement lines
    ],
)
def test_what_cannot_be_read_in_place_is_refused(text: str) -> None:
    assert masked_template(text) is None


_PIECES = st.sampled_from(
    [
        "kind: Pod\n",
        "{% if x %}\n",
        "  {%- endif -%}\n",
        "  name: {{ n }}\n",
        "- {{ item }}  # c\n",
        "{{- end }}\n",
        "a: {{ b | default('c') }}\n",
        'x: "{{ y }}"\n',
        "{# c #}\r\n",
        "z: {% raw %}\n",
        "\n",
        "é: {{ ü }}\n",
    ]
)


@given(st.lists(_PIECES, max_size=12))
def test_a_mask_keeps_the_templates_length_line_breaks_and_plain_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    masked = masked_template(text)
    if masked is None:
        return
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c in "\r\n"] == [i for i, c in enumerate(text) if c in "\r\n"]
    changed = [i for i, (a, b) in enumerate(zip(text, masked, strict=True)) if a != b]
    lines = text.splitlines(keepends=True)
    starts = [sum(len(line) for line in lines[:n]) for n in range(len(lines))]
    for at in changed:  # only on a line that holds a template mark
        line = max(n for n, start in enumerate(starts) if start <= at)
        assert "{{" in lines[line] or "{%" in lines[line] or "{#" in lines[line]


def _check(tmp_path: Path, name: str, text: str):
    (tmp_path / name).write_text(text, encoding="utf-8")
    return check_paths(Settings(), [tmp_path], jobs=1)


@pytest.mark.parametrize("name", ["deployment.yaml.j2", "deployment.yaml", "deployment.yml.jinja"])
def test_a_jinja_deployment_is_read_said_and_offered_no_fix(tmp_path: Path, name: str) -> None:
    report = _check(tmp_path, name, DEPLOYMENT)
    ((finding),) = report.findings
    assert (finding.code, finding.severity.label, finding.span.line, finding.span.column) == ("SHM001", "error", 10, 9)
    assert "--tensor-parallel-size 4" in finding.message and finding.fix is None
    ((notice),) = report.notices
    assert "read as the YAML it renders to" in notice.message and "no fix offered" in notice.message


def test_a_template_value_is_no_invalid_quantity_and_a_sized_shm_is_read(tmp_path: Path) -> None:
    """``memory: {{ memory }}`` is a value to come (never SHM011), and a template that mounts a sized Memory
    volume at /dev/shm has no finding."""
    sized = DEPLOYMENT.replace(
        "{% endif %}\n",
        "{% endif %}\n        volumeMounts: [{name: shm, mountPath: /dev/shm}]\n"
        "      volumes:\n      - name: shm\n        emptyDir:\n          medium: Memory\n          sizeLimit: {{ shm_size }}\n",
    )
    report = _check(tmp_path, "deployment.yaml.j2", sized)
    assert not report.findings
    assert [n.message.split(" read as")[0] for n in report.notices] == ["Jinja template"]


def test_both_branches_that_set_one_key_are_not_read(tmp_path: Path) -> None:
    """``{% if %} image: a {% else %} image: b {% endif %}``: both kept make a duplicate key, which no reader
    accepts; the file stays a template not checked, never SHM000."""
    text = DEPLOYMENT.replace(
        '        image: "{{ registry }}/vllm-openai:{{ tag }}"\n',
        "{% if cuda %}\n        image: vllm/vllm-openai:v0.9.0\n{% else %}\n        image: vllm/vllm-cpu:v0.9.0\n"
        "{% endif %}\n",
    )
    report = _check(tmp_path, "deployment.yaml.j2", text)
    assert not report.findings
    assert [n.message.split(":")[0] for n in report.notices] == [
        "template (Helm, Jinja, Terraform or envsubst markers)"
    ]


def test_a_compose_template_stays_a_note(tmp_path: Path) -> None:
    """Compose reads ``shm_size: {{ shm_size }}`` as a literal size (the review: SHM011 errors): only Kubernetes
    manifests are read from a template."""
    compose = "services:\n  trainer:\n    image: {{ image }}\n    shm_size: {{ shm_size }}\n    runtime: nvidia\n"
    report = _check(tmp_path, "docker-compose.yml.j2", compose)
    assert not report.findings
    assert [n.message.split(":")[0] for n in report.notices] == [
        "template (Helm, Jinja, Terraform or envsubst markers)"
    ]
