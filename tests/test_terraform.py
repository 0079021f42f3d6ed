"""Terraform: the positioned HCL and JSON readers, what the extractor makes of each resource family, and the
fixer's edits in the shapes real files come in (one-line objects, tabs, CRLF, JSON heredocs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, kind_for_name
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.fix.syntax import parse_error
from shmlint.model import ShmKind
from shmlint.parsers import hcl
from shmlint.parsers.json_values import JsonError, parse_json
from shmlint.source import SourceText
from tests.support import default_engine

PATH = Path("main.tf")


def check(engine: Engine, text: str) -> list[str]:
    result = engine.check_source(SourceText("main.tf", text), FileKind.TERRAFORM, PATH)
    return [f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings]


def fixed(engine: Engine, text: str) -> str:
    source = SourceText("main.tf", text)
    result = fix_source(engine, source, FileKind.TERRAFORM, PATH)
    assert not result.problems
    assert parse_error(source.with_text(result.text), FileKind.TERRAFORM) is None
    return result.text


def workloads(engine: Engine, text: str) -> list:
    return list(engine.check_source(SourceText("main.tf", text), FileKind.TERRAFORM, PATH).workloads)


# -- readers ---------------------------------------------------------------------------------------------------


def test_values_keep_their_offsets_and_computed_values_are_unknown() -> None:
    text = 'x = { "a.b/c" = 1, d: "e\\"f", g = -2, h = "${var.x}", i = var.y, j = [true, null] }\n'
    root = hcl.parse(text)
    value = root.attribute("x")
    assert value is not None and value.kind == hcl.OBJECT
    items = {item.key: item.value for item in value.items}
    assert items["a.b/c"].value == 1 and text[items["a.b/c"].start : items["a.b/c"].end] == "1"
    assert items["d"].value == 'e"f'
    assert items["g"].value == -2
    assert items["h"].kind == hcl.UNKNOWN and items["i"].kind == hcl.UNKNOWN
    assert [item.value.value for item in items["j"].items] == [True, None]


def test_block_close_is_the_offset_of_its_brace() -> None:
    text = 'resource "a" "b" {\n  c {\n  }\n}\n'
    (resource,) = hcl.parse(text).children("resource")
    assert resource.labels == ("a", "b")
    assert text[resource.close] == "}" and text[resource.child("c").close] == "}"  # type: ignore[union-attr]


def test_a_heredoc_is_read_as_json_at_its_own_offsets() -> None:
    text = 'x = <<EOF\n{"a": [1, {"b": "c"}]}\nEOF\n'
    heredoc = hcl.parse(text).attribute("x")
    assert heredoc is not None and heredoc.kind == hcl.HEREDOC
    document = parse_json(str(heredoc.value), heredoc.body_start)
    inner = document.items[0].value.items[1].value.items[0].value
    assert inner.value == "c" and text[inner.start : inner.end] == '"c"'


@pytest.mark.parametrize("bad", ['{"a": 1,}', '{"a" 1}', "[1 2]", '{"a": 1} x', "[" * 100 + "]" * 100, '"\\x"'])
def test_invalid_json_is_a_json_error(bad: str) -> None:
    with pytest.raises(JsonError):
        parse_json(bad)


def test_nesting_beyond_the_bound_is_an_hcl_error_not_a_recursion_error() -> None:
    with pytest.raises(hcl.HclError, match="too deeply nested"):
        hcl.parse("x = " + "[" * (hcl.MAX_DEPTH + 5) + "]" * (hcl.MAX_DEPTH + 5) + "\n")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet='resource "docker_container" {}=[]\n\t#/*-:,$x0', max_size=200))
def test_any_text_is_read_or_refused_with_a_position(text: str) -> None:
    try:
        hcl.parse(text)
    except hcl.HclError as exc:
        assert exc.line >= 1 and exc.column >= 1 and 0 <= exc.offset <= len(text)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=300))
def test_the_engine_never_raises_on_a_tf_file(text: str) -> None:
    engine = default_engine()
    source = SourceText("main.tf", 'resource "docker_container" "x" {\n' + text)
    result = engine.check_source(source, FileKind.TERRAFORM, PATH)
    assert all(f.code in ("SHM000", "SHM001", "SHM005") or f.workload for f in result.findings)


# -- discovery -------------------------------------------------------------------------------------------------


def test_tf_and_tfvars_are_terraform() -> None:
    assert kind_for_name("main.tf") is FileKind.TERRAFORM
    assert kind_for_name("prod.tfvars") is FileKind.TERRAFORM


def test_a_tf_file_without_a_container_resource_is_not_parsed(engine: Engine) -> None:
    assert check(engine, 'variable "x" {\n  default = [\n') == []  # no resource it reads: not even parsed


# -- extraction ------------------------------------------------------------------------------------------------

DOCKER = 'resource "docker_container" "t" {\n  image = "pytorch/pytorch:latest"\n  gpus  = "all"\n{extra}}\n'


def test_docker_sizes_are_mib(engine: Engine) -> None:
    (workload,) = workloads(engine, DOCKER.replace("{extra}", "  shm_size = 512\n  memory = 4096\n"))
    assert workload.shm[0].size.bytes == 512 * 1024**2
    assert workload.memory_limit.bytes == 4096 * 1024**2
    assert check(engine, DOCKER.replace("{extra}", "  shm_size = 512\n")) == ["4:14 SHM005"]


def test_a_variable_size_is_known_at_apply_time_only(engine: Engine) -> None:
    (workload,) = workloads(engine, DOCKER.replace("{extra}", "  shm_size = var.shm\n"))
    assert workload.shm[0].size.bytes is None and workload.shm[0].size.error is None
    assert check(engine, DOCKER.replace("{extra}", "  shm_size = var.shm\n")) == []


@pytest.mark.parametrize(
    ("medium", "kind"),
    [
        ('"Memory"', ShmKind.MEMORY),
        ("var.shm_medium", ShmKind.MEMORY),  # known at plan time: judged as the Memory it is there for
        ('"${var.shm_medium}"', ShmKind.MEMORY),
        ('""', ShmKind.DISK),
        ("null", ShmKind.DISK),  # unset: the default medium
        ('"memory"', ShmKind.DISK),  # a wrong spelling is not Memory
    ],
)
def test_an_empty_dir_medium_written_as_an_expression_is_a_placeholder(
    engine: Engine, medium: str, kind: ShmKind
) -> None:
    text = (
        'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      image = "vllm/vllm-openai:v0.9.0"\n'
        '      resources { limits = { "nvidia.com/gpu" = 1 } }\n'
        '      volume_mount {\n        name = "dshm"\n        mount_path = "/dev/shm"\n      }\n    }\n'
        f'    volume {{\n      name = "dshm"\n      empty_dir {{\n        medium = {medium}\n'
        '        size_limit = "8Gi"\n      }\n    }\n  }\n}\n'
    )
    (workload,) = workloads(engine, text)
    assert [source.kind for source in workload.shm] == [kind]
    assert ("SHM006" in " ".join(check(engine, text))) is (kind is ShmKind.DISK)


@pytest.mark.parametrize(
    ("count", "gpu"),
    [
        ("2", True),
        ("local.gpu_config.accelerator_count", True),
        ("var.gpus", True),
        ("0", False),
        ("null", False),
        ("false", False),
    ],
)
def test_a_gpu_count_terraform_computes_asks_for_gpus(engine: Engine, count: str, gpu: bool) -> None:
    """A count known at plan time only is a count filled in later, as a template's placeholder is (audit72c: a
    vLLM Deployment's GPUs from a local were not seen at all, so nothing was said of it)."""
    text = (
        'resource "kubernetes_deployment" "vllm" {\n  spec {\n    template {\n      spec {\n        container {\n'
        '          image = "vllm/vllm-openai:v0.11.0"\n'
        f'          resources {{\n            limits = {{ "nvidia.com/gpu" = {count} }}\n          }}\n'
        "        }\n      }\n    }\n  }\n}\n"
    )
    (workload,) = workloads(engine, text)
    assert bool(workload.gpu) is gpu


def test_docker_tmpfs_and_mounts_at_dev_shm(engine: Engine) -> None:
    tmpfs = '  tmpfs = { "/dev/shm" = "rw,size=2g" }\n'
    (workload,) = workloads(engine, DOCKER.replace("{extra}", tmpfs))
    assert workload.shm[0].kind is ShmKind.MEMORY and workload.shm[0].size.bytes == 2 * 1024**3
    bind = '  mounts {\n    target = "/dev/shm"\n    source = "/dev/shm"\n    type = "bind"\n  }\n'
    (workload,) = workloads(engine, DOCKER.replace("{extra}", bind))
    assert workload.shm[0].kind is ShmKind.HOST_PATH


def test_ecs_task_ipc_mode_host_reaches_every_container(engine: Engine) -> None:
    text = (
        'resource "aws_ecs_task_definition" "t" {\n  ipc_mode = "host"\n'
        '  container_definitions = jsonencode([{ name = "a", resourceRequirements = [{ type = "GPU", value = "1" }] }])\n}\n'
    )
    assert check(engine, text) == ["2:3 SHM007"]


def test_batch_multinode_ranges_are_containers(engine: Engine) -> None:
    text = (
        'resource "aws_batch_job_definition" "t" {\n  type = "multinode"\n'
        "  node_properties = jsonencode({\n    numNodes = 2\n    nodeRangeProperties = [\n"
        '      { targetNodes = "0:", container = { resourceRequirements = [{ type = "GPU", value = "1" }], image = "pytorch/pytorch:latest" } }\n    ]\n  })\n}\n'
    )
    assert check(engine, text) == ["6:41 SHM001"]


def test_fargate_only_definitions_are_left_alone(engine: Engine) -> None:
    text = (
        'resource "aws_batch_job_definition" "t" {\n  platform_capabilities = ["FARGATE"]\n'
        '  container_properties = jsonencode({ image = "pytorch/pytorch:latest" })\n}\n'
    )
    assert workloads(engine, text) == []


def test_invalid_json_in_a_heredoc_is_reported_where_it_is(engine: Engine) -> None:
    text = 'resource "aws_ecs_task_definition" "t" {\n  container_definitions = <<EOF\n[{"gpu": }]\nEOF\n}\n'
    assert check(engine, text) == ["3:10 SHM000"]


def test_a_file_without_any_signal_word_is_not_parsed(engine: Engine) -> None:
    """HCL parses slowly; a file with a container resource but no accelerator, torch or /dev/shm word cannot hold
    a finding, so it is not parsed, and its syntax is Terraform's to judge, as for a file without such resources
    (the control above: the same broken heredoc with a signal word is reported)."""
    text = 'resource "aws_ecs_task_definition" "t" {\n  container_definitions = <<EOF\n[{"name": }]\nEOF\n}\n'
    assert check(engine, text) == []


# -- fixes -----------------------------------------------------------------------------------------------------


def test_one_line_container_objects_get_an_inline_entry(engine: Engine) -> None:
    text = (
        'resource "aws_ecs_task_definition" "t" {\n'
        '  container_definitions = jsonencode([{ name = "a", resourceRequirements = [{ type = "GPU", value = "1" }], image = "pytorch/pytorch:latest", }])\n}\n'
    )
    assert 'image = "pytorch/pytorch:latest", linuxParameters = { sharedMemorySize = 8192 } }' in fixed(engine, text)


def test_existing_linux_parameters_get_the_size(engine: Engine) -> None:
    text = (
        'resource "aws_ecs_task_definition" "t" {\n  container_definitions = <<EOF\n'
        '[{"resourceRequirements": [{"type": "GPU", "value": "1"}], "image": "pytorch/pytorch:latest", "linuxParameters": {"initProcessEnabled": true}}]\nEOF\n}\n'
    )
    assert '{"initProcessEnabled": true, "sharedMemorySize": 8192}' in fixed(engine, text)


def test_tabs_and_crlf_are_kept(engine: Engine) -> None:
    text = 'resource "docker_container" "t" {\r\n\timage = "pytorch/pytorch:latest"\r\n\tgpus = "all"\r\n}\r\n'
    assert fixed(engine, text).endswith('\tgpus = "all"\r\n\tshm_size = 8192\r\n}\r\n')


def test_a_closing_brace_after_content_cannot_take_new_lines(engine: Engine) -> None:
    text = 'resource "docker_container" "t" {\n  image = "pytorch/pytorch:latest"\n  gpus = "all" }\n'
    result = engine.check_source(SourceText("main.tf", text), FileKind.TERRAFORM, PATH)
    (finding,) = result.findings
    assert finding.code == "SHM001" and finding.fix is None


def test_a_taken_volume_name_is_not_reused(engine: Engine) -> None:
    text = (
        'resource "kubernetes_pod" "p" {\n  spec {\n    container {\n      image = "pytorch/pytorch:latest"\n'
        '      resources {\n        limits = { "nvidia.com/gpu" = "1" }\n      }\n'
        '      volume_mount {\n        mount_path = "/data"\n        name = "dshm"\n      }\n    }\n'
        '    volume {\n      name = "dshm"\n      persistent_volume_claim {\n        claim_name = "x"\n      }\n'
        "    }\n  }\n}\n"
    )
    after = fixed(engine, text)
    assert 'name       = "dshm-1"' in after and 'name = "dshm-1"' in after
