"""Terraform JSON heredocs are templates: ``${...}`` inside strings are opaque values and the JSON around them is
read; what cannot be known (a computed number or object, a definition read from a file, directives) is said in a
notice, never dropped silently. The heredoc and the ``jsonencode`` spelling of one definition get one answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.fix.syntax import parse_error
from shmlint.parsers.hcl import NUMBER, OBJECT, TUPLE, UNKNOWN, Value
from shmlint.parsers.json_values import JsonError, parse_json, parse_template_json
from shmlint.results import FileResult
from shmlint.severity import Severity
from shmlint.source import SourceText
from tests.support import FIXTURES

REAL_WORLD = FIXTURES / "terraform" / "SHM001-batch-heredoc-interpolated.tf"


def check(engine: Engine, text: str) -> FileResult:
    return engine.check_source(SourceText("main.tf", text), FileKind.TERRAFORM, Path("main.tf"))


def _entry(value: Value, key: str) -> Value:
    return next(item.value for item in value.items if item.key == key)


def test_a_real_world_heredoc_with_several_interpolations_is_read(engine: Engine) -> None:
    result = check(engine, REAL_WORLD.read_text())
    (workload,) = result.workloads
    assert workload.image is None  # "${repository_url}:${tag}": known at plan time only
    assert [e.text for e in workload.gpu] == ["resourceRequirements GPU: 4"]
    assert workload.torch and "torchrun --nproc_per_node=4 train.py" in workload.command
    assert [(f.code, f.severity) for f in result.findings] == [("SHM001", Severity.ERROR)]
    (notice,) = result.notices
    assert "${var.vcpus} (line 14)" in notice.message and "the JSON around them is checked" in notice.message


def test_the_fix_writes_linux_parameters_into_the_heredoc(engine: Engine) -> None:
    source = SourceText("main.tf", REAL_WORLD.read_text())
    text = fix_source(engine, source, FileKind.TERRAFORM, Path("main.tf")).text
    assert '"linuxParameters": {"sharedMemorySize": 8192}' in text
    assert parse_error(source.with_text(text), FileKind.TERRAFORM) is None
    assert not [f for f in check(engine, text).findings if f.code == "SHM001"]


HEREDOC = """resource "aws_batch_job_definition" "train" {
  name = "train"
  container_properties = <<EOF
{
  "image": "${var.image}",
  "jobRoleArn": "${aws_iam_role.job.arn}",
  "command": ["torchrun", "--nproc_per_node=4", "train.py", "--out", "s3://${var.bucket}/out"],
  "resourceRequirements": [{"type": "GPU", "value": "4"}, {"type": "MEMORY", "value": "61440"}]
}
EOF
}
"""

JSONENCODE = """resource "aws_batch_job_definition" "train" {
  name = "train"
  container_properties = jsonencode({
    image      = var.image
    jobRoleArn = aws_iam_role.job.arn
    command    = ["torchrun", "--nproc_per_node=4", "train.py", "--out", "s3://${var.bucket}/out"]
    resourceRequirements = [{ type = "GPU", value = "4" }, { type = "MEMORY", value = "61440" }]
  })
}
"""


def test_a_heredoc_with_interpolations_reports_what_the_jsonencode_block_reports(engine: Engine) -> None:
    """Same code, severity, words and fix; each points at its own container definition (the JSON object's brace
    one line below the ``jsonencode({`` it stands for)."""
    heredoc, encoded = check(engine, HEREDOC), check(engine, JSONENCODE)
    assert [(f.code, f.severity, f.message) for f in heredoc.findings] == [
        (f.code, f.severity, f.message) for f in encoded.findings
    ]
    assert [f.code for f in heredoc.findings] == ["SHM001"]
    assert [f.fix is not None for f in heredoc.findings] == [True]


@pytest.mark.parametrize("indented", [False, True], ids=["<<EOF", "<<-EOF"])
def test_both_heredoc_markers_are_read(engine: Engine, indented: bool) -> None:
    text = HEREDOC.replace("<<EOF", "<<-EOF").replace("\nEOF\n", "\n    EOF\n") if indented else HEREDOC
    assert [f.code for f in check(engine, text).findings] == ["SHM001"]


@pytest.mark.parametrize(
    "call", ['file("${path.module}/job.json")', 'templatefile("job.json.tpl", { image = var.image })']
)
def test_a_definition_read_from_a_file_is_a_notice(engine: Engine, call: str) -> None:
    text = (
        'resource "aws_batch_job_definition" "train" {\n  name = "train"  # torchrun on nvidia.com/gpu\n'
        f"  container_properties = {call}\n}}\n"
    )
    result = check(engine, text)
    assert not result.findings and not result.workloads
    (notice,) = result.notices
    assert f"read from a file by {call.split('(')[0]}()" in notice.message and "not checked" in notice.message


def test_a_template_that_cannot_be_read_is_a_notice_not_an_invalid_file(engine: Engine) -> None:
    text = HEREDOC.replace('"image": "${var.image}",', '"image": "${var.image}" ${var.more}')
    result = check(engine, text)
    assert not result.findings
    (notice,) = result.notices
    assert "cannot read around its template sequences" in notice.message


def test_a_heredoc_without_template_sequences_that_is_not_json_is_still_invalid(engine: Engine) -> None:
    text = HEREDOC.replace("${var.image}", "x").replace("${aws_iam_role.job.arn}", "y").replace("${var.bucket}", "z")
    result = check(engine, text.replace('"x",', '"x"'))
    assert [f.code for f in result.findings] == ["SHM000"]


# -- the template reader ------------------------------------------------------------------------------------------


def test_interpolations_with_nested_braces_and_quotes_are_one_opaque_value() -> None:
    text = '{"a": "${lookup({x = "}"}, "k", "${var.d}")}", "b": ${jsonencode({c = [1, {d = 2}]})}, "n": 1}'
    read = parse_template_json(text)
    assert [(i.key, i.value.kind) for i in read.value.items] == [("a", UNKNOWN), ("b", UNKNOWN), ("n", NUMBER)]
    assert [text[v.start : v.end] for v in read.computed] == ["${jsonencode({c = [1, {d = 2}]})}"]


def test_directives_are_read_with_the_if_taken_and_each_for_once() -> None:
    text = (
        '{"env": [%{ for k, v in var.env ~}{"name": "${k}"},%{ endfor ~}], '
        '%{ if var.gpu }"gpu": 1,%{ else }"cpu": {"x": "%{ if y }z%{ endif }"},%{ endif }"last": true}'
    )
    read = parse_template_json(text, 10)
    assert [i.key for i in read.value.items] == ["env", "gpu", "last"]
    assert _entry(read.value, "env").kind == TUPLE and read.directives == 5
    assert all(item.start >= 10 for item in read.value.items)  # offsets are the file's


def test_escaped_template_sequences_are_literal_text() -> None:
    read = parse_template_json('{"a": "$${HOME} and %%{x}"}')
    assert _entry(read.value, "a").value == "${HOME} and %{x}" and not read.computed


def test_an_unclosed_template_sequence_is_a_json_error() -> None:
    with pytest.raises(JsonError, match="never closed"):
        parse_template_json('{"a": "${var.x"}')


def _plain(value: Value) -> object:
    if value.kind == OBJECT:
        return {item.key: _plain(item.value) for item in value.items}
    if value.kind == TUPLE:
        return [_plain(item.value) for item in value.items]
    return (value.kind, value.value)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(alphabet='ab{}$% "\\', max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _has_sequence(text: str) -> bool:
    return "${" in text or "%{" in text


@settings(max_examples=150, deadline=None)
@given(_JSON)
def test_a_template_without_sequences_reads_like_json(document: object) -> None:
    """Template reading changes nothing for JSON that holds no ``${`` or ``%{``."""
    text = json.dumps(document, indent=1)
    if not _has_sequence(text):
        assert _plain(parse_template_json(text).value) == _plain(parse_json(text))


@settings(max_examples=150, deadline=None)
@given(_JSON, st.sampled_from(["${var.x}", '${lookup(m, "}")}', "%{ if a }b%{ endif }"]))
def test_a_string_holding_a_sequence_is_opaque_and_the_rest_is_read(document: object, sequence: str) -> None:
    nested = json.dumps(document)
    assume(not _has_sequence(nested))  # a lone "%{" is an unclosed directive in Terraform too
    text = '{"known": 1, "templated": "prefix-' + sequence + '", "nested": ' + nested + "}"
    read = parse_template_json(text)
    assert _entry(read.value, "templated").kind == UNKNOWN and _entry(read.value, "known").value == 1
    assert _plain(_entry(read.value, "nested")) == _plain(parse_json(nested))


ECS_AND_NODES = """resource "aws_batch_job_definition" "ecs" {
  name = "ecs"
  ecs_properties = <<EOF
{"taskProperties": [{"containers": [
  {"name": "train", "image": "${var.image}", "command": ["torchrun", "--nproc_per_node=4", "train.py"],
   "resourceRequirements": [{"type": "GPU", "value": "4"}]}
]}]}
EOF
}
resource "aws_batch_job_definition" "nodes" {
  name = "nodes"
  node_properties = <<EOF
{"numNodes": 2, "mainNode": 0, "nodeRangeProperties": [
  {"targetNodes": "0:", "eksProperties": {"podProperties": {"containers": [{"image": "${var.image}"}]}}}
]}
EOF
}
"""


def test_batch_ecs_properties_are_read_and_an_eks_node_range_is_a_notice(engine: Engine) -> None:
    result = check(engine, ECS_AND_NODES)
    assert [(f.code, f.workload.id.container if f.workload else None) for f in result.findings] == [("SHM001", "train")]
    (notice,) = result.notices
    assert (
        "aws_batch_job_definition.nodes node_properties runs an EKS pod in a node range: not checked" in notice.message
    )
    text = fix_source(engine, SourceText("main.tf", ECS_AND_NODES), FileKind.TERRAFORM, Path("main.tf")).text
    assert '"value": "4"}], "linuxParameters": {"sharedMemorySize": 8192}}' in text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]"\\$%~:, abif01\n', max_size=60))
def test_any_text_is_a_document_or_a_json_error(text: str) -> None:
    """Hostile heredocs: the template reader answers or raises ``JsonError`` with an offset inside the text."""
    try:
        read = parse_template_json(text, 7)
    except JsonError as exc:
        assert 7 <= exc.offset <= 7 + len(text)
    else:
        assert 7 <= read.value.start <= read.value.end <= 7 + len(text)
