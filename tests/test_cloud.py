"""AWS ECS/Batch definitions (JSON, CloudFormation) and Azure ML jobs: reading, judging, fixing, probing.

The fixtures under fixtures/aws, fixtures/aws-eks and fixtures/azureml run in test_fixtures.py; this file holds
what they cannot show: the JSON reader's positions and refusals, discovery, run-time values, Fargate, the Azure ML
default, suppressions, the writers' layouts (a property test), the validation harness's view, and real public files.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind, discover
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.model import ShmKind, ShmMechanism, WorkloadFormat
from shmlint.parsers.jsonnodes import compose_json
from shmlint.parsers.yamlnodes import YamlError
from shmlint.results import FileResult
from shmlint.settings import Settings
from shmlint.sizes import GIB, MIB
from shmlint.source import SourceText
from shmlint.validate.backends import Provision, Reaper, ShmSpec
from shmlint.validate.harness import cases_for, render, run_cases, shm_spec
from shmlint.validate.probe import Outcome
from tests import cloud_proofs
from tests.support import (
    FIXTURES,
    default_engine,
    git,
    namespace_backend,
    pre_commit_env,
    pre_commit_work_tree,
    try_repo,
)

GPU_CONTAINER = (
    '{"name": "train", "image": "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime", '
    '"resourceRequirements": [{"type": "GPU", "value": "1"}]%s}'
)


def check(engine: Engine, name: str, text: str) -> FileResult:
    kind = FileKind.JSON if name.endswith(".json") else FileKind.YAML
    return engine.check_source(SourceText(name, text), kind, Path(name))


def codes(result: FileResult) -> list[str]:
    return [f"{f.span.line}:{f.span.column} {f.code}" for f in result.findings]


def task(*containers: str, **task_keys: object) -> str:
    extra = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in task_keys.items())
    return '{"family": "t", ' + extra + '"containerDefinitions": [' + ", ".join(containers) + "]}"


# -- the JSON reader ---------------------------------------------------------------------------------------------


def test_json_nodes_carry_positions_and_survive_surrogate_escapes() -> None:
    text = '{\n  "a": "\\ud83d\\ude00",\n  "b": {"c": 8192}\n}\n'
    (document,) = compose_json(SourceText("x.json", text))
    value = document.value[1][1].value[0][1]
    assert (value.value, value.start_mark.line, value.start_mark.column) == ("8192", 2, 13)
    assert text[value.start_mark.index : value.end_mark.index] == "8192"  # offsets unchanged by the masking


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [('{"a": 1,}', 1, 9), ('{\n  "a": 1\n  "b": 2\n}', 3, 3), ("{'a': 1}", 1, 2), ('{"a": 1} # c', 1, 10)],
)
def test_what_yaml_accepts_but_json_does_not_is_refused_where_json_stops(text: str, line: int, column: int) -> None:
    with pytest.raises(YamlError) as error:
        compose_json(SourceText("x.json", text))
    assert (error.value.line, error.value.column) == (line, column)


def test_deep_json_is_an_error_not_a_traceback(engine: Engine) -> None:
    text = '{"containerDefinitions": ' + "[" * 100_000 + "]" * 100_000 + "}"
    result = check(engine, "deep.json", text)
    assert [f.code for f in result.findings] == ["SHM000"]


def test_other_json_files_are_not_read_even_when_broken(engine: Engine, tmp_path: Path) -> None:
    assert check(engine, "tsconfig.json", '{"compilerOptions": {}, // comment\n}').findings == ()
    (tmp_path / "package.json").write_text('{"name": "x"}')
    (tmp_path / "task.json").write_text(task(GPU_CONTAINER % ""))
    found = {Path(c.path).name: c.kind for c in discover([tmp_path])}
    assert found == {"task.json": FileKind.JSON}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.sampled_from(["GPU", "host", "/dev/shm"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["name", "image", "type", "value", "memory", "ipcMode", "linuxParameters", "Ref"])
            | st.sampled_from(["sharedMemorySize", "tmpfs", "containerPath", "size", "mountPoints", "volumes", "host"])
            | st.sampled_from(["resourceRequirements", "sourceVolume", "sourcePath", "environment", "dockerLabels"])
            | st.text(max_size=8),
            inner,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(container=_JSON, task_keys=st.dictionaries(st.sampled_from(["ipcMode", "memory", "volumes"]), _JSON))
def test_any_json_in_a_task_definition_is_checked_and_fixed_without_a_traceback(
    container: object, task_keys: dict
) -> None:
    """Hostile values anywhere a task definition has fields: findings or nothing, never an exception."""
    text = json.dumps({"family": "t", **task_keys, "containerDefinitions": [container, {"nvidia": "gpu"}]})
    engine = default_engine()
    result = check(engine, "t.json", text)
    assert all(f.code != "SHM000" for f in result.findings)
    fixed = fix_source(engine, SourceText("t.json", text), FileKind.JSON, Path("t.json"), unsafe=True)
    json.loads(fixed.text)


def test_a_gpu_count_of_thousands_of_digits_is_no_traceback(engine: Engine) -> None:
    """``int()`` refuses strings over 4300 digits: the count is not read, the evidence stands."""
    container = GPU_CONTAINER.replace('"1"', '"' + "9" * 5000 + '"') % ""
    result = check(engine, "t.json", task(container))
    assert [f.code for f in result.findings] == ["SHM001"] and result.workloads[0].accelerator_count is None


# -- judging -----------------------------------------------------------------------------------------------------


def test_a_cloudformation_function_is_a_run_time_size_never_missing_nor_small(engine: Engine) -> None:
    json_template = {
        "Resources": {
            "T": {
                "Type": "AWS::ECS::TaskDefinition",
                "Properties": {
                    "ContainerDefinitions": [
                        {
                            "Image": "pytorch/pytorch:2.4.0",
                            "ResourceRequirements": [{"Type": "GPU", "Value": "1"}],
                            "LinuxParameters": {"SharedMemorySize": {"Ref": "Shm"}},
                        }
                    ]
                },
            }
        }
    }
    result = check(engine, "stack.json", json.dumps(json_template, indent=2))
    (workload,) = result.workloads
    (source,) = workload.shm
    assert source.kind is ShmKind.MEMORY and source.size is not None and source.size.bytes is None
    assert result.findings == ()


def test_fargate_is_told_apart_warned_and_never_fixed(engine: Engine) -> None:
    container = GPU_CONTAINER % ', "command": ["torchrun", "t.py"], "linuxParameters": {"sharedMemorySize": 64}'
    text = task(container, requiresCompatibilities=["FARGATE"])
    result = check(engine, "fargate.json", text)
    (finding,) = result.findings
    assert (finding.code, finding.severity.label, finding.fix) == ("SHM001", "warning", None)
    assert "Fargate" in finding.detail  # the one-line message names the setting, the detail why it is unsure
    (source,) = result.workloads[0].shm
    assert (source.kind, source.mechanism) == (ShmKind.UNKNOWN, ShmMechanism.PLATFORM)


def test_the_memory_limit_comes_from_the_container_then_batch_then_the_task(engine: Engine) -> None:
    sized = ', "linuxParameters": {"sharedMemorySize": 16384}'
    own = check(engine, "a.json", task(GPU_CONTAINER % (sized + ', "memory": 8192'), memory="65536"))
    from_task = check(engine, "b.json", task(GPU_CONTAINER % sized, memory="8 GB"))
    roomy = check(engine, "c.json", task(GPU_CONTAINER % sized, memory="65536"))
    assert [f.code for f in own.findings] == ["SHM004"]
    assert [f.code for f in from_task.findings] == ["SHM004"]
    assert roomy.findings == ()


def test_azure_ml_jobs_without_shm_size_get_the_2g_default_not_a_missing_finding(engine: Engine) -> None:
    job = (
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n"
        "command: torchrun --nproc_per_node=8 train.py\n"
        "compute: azureml:gpu-cluster\n"
    )
    result = check(engine, "job.yml", job)
    (workload,) = result.workloads
    (source,) = workload.shm
    assert workload.format is WorkloadFormat.AZUREML and source.size is not None and source.size.bytes == 2 * GIB
    assert result.findings == ()
    strict = Engine(Settings(min_shm_size=4 * GIB))
    (finding,) = check(strict, "job.yml", job).findings
    assert finding.code == "SHM005" and finding.fix is not None


def test_yaml_that_only_mentions_azureml_is_not_an_azure_job(engine: Engine) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: azureml-settings\ndata:\n  compute: azureml:gpu\n"
    assert check(engine, "cm.yaml", text).workloads == ()


# -- suppressions ------------------------------------------------------------------------------------------------


def test_cloudformation_comments_and_docker_labels_suppress(engine: Engine) -> None:
    template = (
        "Resources:\n"
        "  T:\n"
        "    Type: AWS::ECS::TaskDefinition\n"
        "    Properties:\n"
        "      ContainerDefinitions:\n"
        "        # shmlint: ignore[SHM001]\n"
        "        - Image: pytorch/pytorch:2.4.0\n"
        "          ResourceRequirements: [{Type: GPU, Value: '1'}]\n"
    )
    assert check(engine, "stack.yaml", template).findings == ()
    assert [f.code for f in check(engine, "stack.yaml", template.replace("# shmlint", "# no")).findings] == ["SHM001"]
    labelled = GPU_CONTAINER % ', "dockerLabels": {"shmlint.io/ignore": "SHM001"}'
    assert check(engine, "t.json", task(labelled)).findings == ()


# -- the writers -------------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    indent=st.sampled_from([None, 2, 4, "\t"]),
    linux=st.sampled_from([None, {}, {"initProcessEnabled": True}]),
    memory=st.one_of(st.none(), st.integers(min_value=2048, max_value=131072)),
)
def test_fixing_a_task_definition_adds_one_size_and_keeps_everything_else(
    indent: int | str | None, linux: dict | None, memory: int | None
) -> None:
    container: dict = {"name": "train", "image": "pytorch/pytorch:2.4.0"}
    if linux is not None:
        container["linuxParameters"] = linux
    if memory is not None:
        container["memory"] = memory
    container["resourceRequirements"] = [{"type": "GPU", "value": "1"}]
    text = json.dumps({"family": "t", "containerDefinitions": [container]}, indent=indent) + "\n"
    engine = Engine(Settings(undecided="show"))
    source = SourceText("t.json", text)
    result = fix_source(engine, source, FileKind.JSON, Path("t.json"), unsafe=False)
    assert not result.problems and result.changed
    after = json.loads(result.text)
    written = after["containerDefinitions"][0]["linuxParameters"]["sharedMemorySize"]
    assert written == min(8192, memory // 2 if memory else 8192)
    cloud_proofs.assert_only_sizes_change(Path("t.json"), text, result.text)
    assert check(engine, "t.json", result.text).findings == ()
    rewritten = set(text.splitlines()) - set(result.text.splitlines())
    assert len(rewritten) <= 1, rewritten  # only the line the new member joins (its comma, or a one-line file)


def test_the_azure_writer_adds_resources_in_a_job_that_has_none() -> None:
    job = (
        "# shmlint: dataloader workers=8 batch=64 sample=3x224x224 procs=8\n"
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\n"
        "command: python train.py\n"
        "compute: azureml:gpu-cluster\n"
    )
    engine = Engine(Settings(undecided="show"))
    result = fix_source(engine, SourceText("job.yml", job), FileKind.YAML, Path("job.yml"), unsafe=False)
    assert result.text.startswith(job) and result.text[len(job) :].startswith("resources:\n  shm_size: ")


# -- validate ----------------------------------------------------------------------------------------------------


def test_the_harness_probes_ecs_and_azure_sizes_and_says_why_not_for_fargate(engine: Engine) -> None:
    ecs = check(engine, "t.json", task(GPU_CONTAINER % ', "linuxParameters": {"sharedMemorySize": 4096}'))
    azure_job = "$schema: x/azureml/commandJob.schema.json\ncommand: python train.py\ncompute: azureml:gpu-cluster\n"
    azure = check(engine, "job.yml", azure_job)
    fargate = check(engine, "f.json", task(GPU_CONTAINER % "", requiresCompatibilities=["FARGATE"]))
    assert shm_spec(ecs.workloads[0]) == ShmSpec(Provision.IPC_SIZE, 4096 * MIB)
    assert shm_spec(azure.workloads[0]) == ShmSpec(Provision.IPC_SIZE, 2 * GIB)
    assert isinstance(shm_spec(fargate.workloads[0]), str)


# -- real public files -------------------------------------------------------------------------------------------

#: bare git mirrors as the fetch tool leaves them (DIR/<owner>+<name>/repo); nothing fetched is committed
MIRROR = Path(os.environ.get("SHMLINT_REAL_MIRROR", "/work/.mirror"))
#: (repository, pinned commit, path, expected "line:column CODE" findings, label from reading the file)
REAL_FILES = [
    (
        "HengL2022/ESMfold2-AWS-RUN",
        "a4acd4e8e07e73a345936c6eadbc1d13e1fee0ab",
        "job-definition.json",
        [],
        "Batch GPU job (ESMFold2, PyTorch) with sharedMemorySize 8192 MiB under a 30000 MiB limit: sized, clean",
    ),
    (
        "AleenDhar/clip-extractor",
        "724c94dafaa7456790c07c6e1f12006e2b67f291",
        "task-definition.json",
        [],
        "ECS Fargate task for a Gradio app calling the Gemini API: no GPU, no torch, nothing to report",
    ),
    (
        "jamesmcclain/aws-batch-ml",
        "c9f81610f25434e05f44decc399b829367ffef73",
        "job-definition.json",
        [],
        "Batch job with a fastai (PyTorch) image and no GPU request: a miss, the image is not a known torch image",
    ),
    (
        "aws-solutions-library-samples/aws-batch-arch-for-protein-folding",
        "00182ee38f3888e5e33c2f5e6ea6cddcbc84b98e",
        "infrastructure/cloudformation/batch-protein-folding-cfn-module-esmfold.yaml",
        ["100:9 SHM001"],
        "CloudFormation Batch job, 1 GPU, ESMFold (PyTorch), no SharedMemorySize on EC2: 64 MiB, a real risk; "
        "a warning: its Command nvidia-smi is a placeholder SubmitJob replaces, its image an ECR URI",
    ),
    (
        "aws-solutions-library-samples/aws-batch-arch-for-protein-folding",
        "00182ee38f3888e5e33c2f5e6ea6cddcbc84b98e",
        "infrastructure/cloudformation/batch-protein-folding-cfn-module-openfold.yaml",
        ["100:9 SHM001"],
        "CloudFormation Batch job, 1 GPU, OpenFold (PyTorch), no SharedMemorySize on EC2: 64 MiB, a real risk; "
        "a warning: its Command nvidia-smi is a placeholder SubmitJob replaces, its image an ECR URI",
    ),
    (
        "Azure/azureml-examples",
        "085cd6ea399038c1e07843acff811f34261c0887",
        "cli/jobs/single-step/pytorch/cifar-distributed/job.yml",
        [],
        "command job, PyTorch distribution on gpu-cluster, no shm_size: Azure ML's 2g default, above the minimum",
    ),
    (
        "Azure/azureml-examples",
        "085cd6ea399038c1e07843acff811f34261c0887",
        "best-practices/largescale-deep-learning/Training/Bert-Pretrain/AML-DeepSpeed-submit.yml",
        [],
        "DeepSpeed BERT pretraining, 8 processes per node, shm_size 3100m written by the authors: clean",
    ),
    (
        "Azure/azureml-examples",
        "085cd6ea399038c1e07843acff811f34261c0887",
        "cli/jobs/pipelines/cifar-10/pipeline.yml",
        [],
        "pipeline job whose three steps run on gpu-cluster without shm_size: 2g default each, clean",
    ),
]


def _real_text(repo: str, commit: str, path: str) -> str:
    git_dir = MIRROR / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        pytest.skip(f"{repo} is not mirrored under {MIRROR} (fetch it, or set SHMLINT_REAL_MIRROR)")
    show = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True, check=False, timeout=60
    )
    if show.returncode != 0:
        pytest.skip(f"{repo}@{commit[:12]} is not in the mirror: {show.stderr.decode(errors='replace').strip()}")
    return show.stdout.decode("utf-8")


@pytest.mark.parametrize(("repo", "commit", "path", "expected", "label"), REAL_FILES, ids=lambda v: str(v)[:60])
def test_real_public_files(engine: Engine, repo: str, commit: str, path: str, expected: list, label: str) -> None:
    text = _real_text(repo, commit, path)
    name = Path(path).name
    result = check(engine, name, text)
    assert codes(result) == expected, label
    unfiltered = Engine(Settings(prefilter=False))  # files without a GPU/torch word are otherwise not even composed
    assert check(unfiltered, name, text).workloads, f"nothing read from {repo}:{path}"
    fixed = fix_source(engine, result.source or SourceText(name, text), _kind(name), Path(name), unsafe=False)
    assert not fixed.problems
    if expected:
        assert fixed.changed
        cloud_proofs.assert_only_sizes_change(Path(name), text, fixed.text)
        assert check(engine, name, fixed.text).findings == ()


def _kind(name: str) -> FileKind:
    return FileKind.JSON if name.endswith(".json") else FileKind.YAML


# -- pre-commit --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_pre_commit_passes_task_definitions_and_leaves_other_json(tmp_path: Path) -> None:
    """The hook's ``types_or`` hands JSON files to shmlint: a task definition is reported, package.json is not."""
    work = pre_commit_work_tree(tmp_path)
    (work / "task.json").write_text((FIXTURES / "aws" / "SHM001-ecs-gpu.json").read_text())
    (work / "package.json").write_text('{"name": "web", "version": "1.0.0"}\n')
    git(work, "add", ".")
    env = pre_commit_env(tmp_path)
    flagged = try_repo(work, env, "shmlint", "--files", "task.json", "package.json")
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "task.json:5:5: SHM001" in flagged.stdout
    assert "package.json:" not in flagged.stdout
    clean = try_repo(work, env, "shmlint", "--files", "package.json")
    assert clean.returncode == 0, clean.stdout + clean.stderr


# -- validate: a real probe --------------------------------------------------------------------------------------


@pytest.mark.validation
@pytest.mark.parametrize("name", ["aws/SHM005-too-small.json", "azureml/SHM005-too-small.yml"])
def test_a_real_probe_fails_as_written_and_passes_after_the_fix(name: str, engine: Engine) -> None:
    """The /dev/shm a new kind's workload gets is reproduced (64 MiB ECS size, 256m Azure size): the DataLoader
    probe fails as the finding predicts, and passes in the fixed file's 8 GiB."""
    reaper = Reaper()
    backend = namespace_backend(reaper)
    try:
        (candidate,) = discover([FIXTURES / name])
        rows = run_cases(cases_for(engine, candidate), [backend], reaper, jobs=1)
    finally:
        reaper.kill_all()
    assert [(row.case.fixed, row.result.outcome if row.result else None, row.verdict) for row in rows] == [
        (False, Outcome.SHM_ERROR, "yes"),
        (True, Outcome.OK, "yes"),
    ], render(rows)
