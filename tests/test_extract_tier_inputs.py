"""The AWS (ECS/Batch JSON, CloudFormation, Terraform's ECS/Batch resources) and Python launcher (Metaflow, KFP)
extractors hand image, command and GPU count to the tier model, so that SHM001's severity follows the software."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.results import FileResult
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.source import SourceText


def check(engine: Engine, name: str, text: str, kind: FileKind) -> FileResult:
    return engine.check_source(SourceText(name, text), kind, Path(name))


def shm001(result: FileResult) -> list[str]:
    return [f.severity.label for f in result.findings if f.code == "SHM001"]


def _ecs_json(container: str) -> str:
    return '{"family": "t", "containerDefinitions": [{"name": "c", ' + container + "}]}"


def _tf(container: str) -> str:
    return f'resource "aws_ecs_task_definition" "t" {{\n  container_definitions = jsonencode([{{ {container} }}])\n}}\n'


GPU1 = '"resourceRequirements": [{"type": "GPU", "value": "1"}]'
TF_GPU1 = 'name = "c", resourceRequirements = [{ type = "GPU", value = "1" }]'


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        (
            f'"image": "nvcr.io/nvidia/pytorch:24.01-py3", "command": ["torchrun", "--nproc_per_node=2", "train.py"], '
            f"{GPU1}",
            ["error"],
        ),
        (
            f'"image": "acme/app", "entryPoint": ["deepspeed"], "command": ["--num_gpus", "2", "t.py"], {GPU1}',
            ["error"],
        ),
        (f'"image": "acme/app", "entryPoint": ["deepspeed"], "command": ["train.py"], {GPU1}', ["info"]),  # 1 process
        ('"image": "acme/app", "resourceRequirements": [{"type": "GPU", "value": "4"}]', ["info"]),  # a count only
        (f'"image": "acme/app", {GPU1}', ["info"]),  # one GPU, software unknown
        (f'"image": "acme/app", "command": ["nvidia-smi"], {GPU1}', []),  # an ECS task runs what it says
    ],
)
def test_ecs_json_containers_carry_image_command_and_count(engine: Engine, container: str, expected: list) -> None:
    assert shm001(check(engine, "task.json", _ecs_json(container), FileKind.JSON)) == expected


@pytest.mark.parametrize(
    ("container", "expected"),
    [
        (f'{TF_GPU1}, image = "acme/app", command = ["torchrun", "--nproc_per_node=2", "train.py"]', ["error"]),
        ('name = "c", image = "acme/app", resourceRequirements = [{ type = "GPU", value = "2" }]', ["info"]),
        (f'{TF_GPU1}, image = "acme/app"', ["info"]),
        (f'{TF_GPU1}, image = "acme/app", command = ["nvidia-smi"]', []),
    ],
)
def test_terraform_ecs_containers_carry_image_command_and_count(engine: Engine, container: str, expected: list) -> None:
    assert shm001(check(engine, "main.tf", _tf(container), FileKind.TERRAFORM)) == expected


def test_ecs_and_terraform_containers_carry_their_gpu_count(engine: Engine) -> None:
    """The count itself is carried (a count alone is undecided, so severity does not show it)."""
    ecs = check(
        engine,
        "task.json",
        _ecs_json('"image": "a", "resourceRequirements": [{"type": "GPU", "value": "4"}]'),
        FileKind.JSON,
    )
    tf = check(
        engine,
        "main.tf",
        _tf('name = "c", image = "a", resourceRequirements = [{ type = "GPU", value = "2" }]'),
        FileKind.TERRAFORM,
    )
    assert [w.accelerator_count for w in (*ecs.workloads, *tf.workloads)] == [4, 2]


BATCH = """AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Job:
    Type: AWS::Batch::JobDefinition
    Properties:
      Type: container
      ContainerProperties:
        Command: [{command}]
        Image: !Sub "${{Repo.RepositoryUri}}:latest"
        ResourceRequirements:
          - {{Type: GPU, Value: 1}}
"""


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('"nvidia-smi"', ["info"]),  # a placeholder SubmitJob replaces: the GPU job's software is unknown
        (
            '"torchrun", "--nproc_per_node=2", "fold.py"',
            ["error"],
        ),  # a default command that names its software still counts
    ],
)
def test_a_batch_job_definitions_utility_command_is_a_placeholder(engine: Engine, command: str, expected: list) -> None:
    text = BATCH.format(command=command)
    assert shm001(check(engine, "stack.yaml", text, FileKind.YAML)) == expected


FLOW = (
    "from metaflow import FlowSpec, batch, step\n\n\nclass F(FlowSpec):\n    {extra}@batch({options})\n    @step\n"
    "    def s(self):\n        {body}\n"
)


@pytest.mark.parametrize(
    ("extra", "options", "body", "expected"),
    [
        # Metaflow starts the step's own code in the image, never its entrypoint: the image's name is no evidence
        ("", 'gpu=1, image="axolotlai/axolotl:main-latest"', "pass", ["info"]),
        ("", 'cpu=2, image="deepspeed/deepspeed:latest"', "pass", []),  # audit59b: a CPU gloo step failed the gate
        ("", "gpu=2", "pass", ["info"]),  # two GPUs in one container: a count, not software
        # the launcher extensions: @deepspeed one process per GPU of the step (n_slots), torchrun's run() says
        ("@deepspeed\n    ", "gpu=4", "current.deepspeed.run(entrypoint='t.py')", ["error"]),
        ("@deepspeed\n    ", "gpu=1", "current.deepspeed.run(entrypoint='t.py')", ["info"]),
        ("", "gpu=8", "TorchrunSingleNodeMultiGPU().run(entrypoint='t.py', nproc_per_node=8)", ["error"]),
        ("", "gpu=8", "current.torch.run(entrypoint='t.py')", ["info"]),  # metaflow-torchrun's default: 1
        ("", "gpu=8", "current.torch.run(torchrun_args={'nproc_per_node': '4'})", ["error"]),
        ("", "gpu=6", "current.deepspeed.run(deepspeed_args=['--num_nodes=4', '--num_gpus=6'])", ["error"]),
        ("", "gpu=6", "current.deepspeed.run(deepspeed_args=['--num_gpus', 2])", ["error"]),
        ("", "cpu=8", "current.torch.run(nproc_per_node=8)", []),  # gloo on the CPU: no GPU, no finding
    ],
)
def test_metaflow_steps_carry_their_gpus_and_launched_processes(
    engine: Engine, extra: str, options: str, body: str, expected: list
) -> None:
    text = FLOW.format(extra=extra, options=options, body=body)
    assert shm001(check(engine, "flow.py", text, FileKind.PYTHON)) == expected


@pytest.mark.parametrize("limit", ["2", "1"])
def test_kfp_tasks_carry_their_accelerator_limit(engine: Engine, limit: str) -> None:
    """The limit is carried as the count; a count alone is not software, so both are undecided."""
    text = f"from kfp import dsl\n\n\n@dsl.pipeline\ndef p():\n    a = op()\n    a.set_accelerator_limit({limit})\n"
    result = check(engine, "pipeline.py", text, FileKind.PYTHON)
    assert shm001(result) == ["info"]
    assert [w.accelerator_count for w in result.workloads] == [int(limit)]


def test_an_image_the_configuration_names_is_evidence_on_a_metaflow_step() -> None:
    """The step's own code runs in the image, so the data's image names say nothing there; the owner's word does
    (review: ``shm-images`` was ignored on Metaflow steps)."""
    from shmlint.settings import Settings

    text = FLOW.format(extra="", options='gpu=1, image="acme/trainer:1"', body="pass")
    configured = Engine(Settings(shm_images=("^acme/trainer$",)))
    assert shm001(check(configured, "flow.py", text, FileKind.PYTHON)) == ["error"]
    assert shm001(check(Engine(Settings()), "flow.py", text, FileKind.PYTHON)) == []  # undecided: not listed


@pytest.mark.parametrize(
    ("imports", "consts", "expected"),
    [
        ("from consts import *", "N_GPU = 6\n", ["error"]),  # outerbounds' metaflow-deepspeed dolly example
        ("from consts import N_GPU", "N_GPU = 6\n", ["error"]),
        ("from .consts import N_GPU as N_GPU", "N_GPU = 6\n", ["error"]),
        ("from consts import N_GPU", "N_GPU = 1\n", ["info"]),  # one process
        ("from consts import *\nfrom elsewhere import N_GPU", "N_GPU = 6\n", []),  # rebound: the count is unknown
        ("from consts import N_GPU", "N_GPU = 6\nN_GPU = 8\n", []),  # assigned twice: no constant
        ("from missing import *", "N_GPU = 6\n", []),  # no such module beside the flow
        ("N_GPU = 1\nfrom consts import *", "N_GPU = 6\n", ["error"]),  # the import after the assignment wins
        ("from consts import *\nN_GPU = 1", "N_GPU = 6\n", ["info"]),  # the assignment after the import wins
        ("N_GPU = 6\nfrom elsewhere import N_GPU", "N_GPU = 6\n", []),  # bound again to a value not known
        ("from consts import *", "_N_GPU = 6\nN_GPU = _N_GPU\n", []),  # a star import leaves _private names
        ("from consts import *", "__all__ = ['X']\nN_GPU = 6\n", []),  # what __all__ lists is not read
        ("from consts import *\ndef f():\n    N_GPU = 1", "N_GPU = 6\n", ["error"]),  # a function's local
    ],
)
def test_a_metaflow_steps_gpu_count_imported_from_a_sibling_module_is_read(
    tmp_path: Path, imports: str, consts: str, expected: list
) -> None:
    (tmp_path / "consts.py").write_text(consts)
    text = FLOW.format(extra="@deepspeed\n    ", options="gpu=N_GPU", body="current.deepspeed.run(entrypoint='t.py')")
    (tmp_path / "flow.py").write_text(f"{imports}\n{text}")
    report = check_paths(Settings(undecided="show"), [tmp_path])
    assert [f.severity.label for f in report.findings if f.code == "SHM001"] == expected


def test_a_sibling_module_is_read_once_a_run_and_only_for_a_name_left_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten flows that import one module: it is parsed once (review: 100 flows with eight 0.5 MB modules took 8
    minutes); a flow whose launcher calls name no imported constant reads none."""
    from shmlint.formats.python import extract

    parsed: list[str] = []
    real = extract.constants_of

    def counted(text: str) -> dict[str, object] | None:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(extract, "constants_of", counted)
    (tmp_path / "consts.py").write_text("N_GPU = 6\n")
    (tmp_path / "other.py").write_text("X = 1\n")
    text = FLOW.format(extra="@deepspeed\n    ", options="gpu=N_GPU", body="current.deepspeed.run(entrypoint='t.py')")
    for index in range(10):
        (tmp_path / f"flow{index}.py").write_text(f"from consts import *\n{text}")
    literal = FLOW.format(extra="", options="gpu=1", body="pass")
    (tmp_path / "literal.py").write_text(f"from other import X\n{literal}")
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    assert [f.severity.label for f in report.findings if f.code == "SHM001"].count("error") == 10
    assert parsed == ["N_GPU = 6\n"]
