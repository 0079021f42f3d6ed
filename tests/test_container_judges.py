"""One judge per container model (``shmlint.containers``): the same container written in two syntaxes is judged
the same (its /dev/shm, memory limit, GPUs, NCCL setting and launch), and the sizing policy lives in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.model import Launch, MountedConfig, ShmKind, Workload
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.sizes import GIB, MIB
from shmlint.sizing import half, pod_cap
from shmlint.source import SourceText

POD_YAML = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      volumes:
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: 512Mi
        - name: code
          configMap:
            name: train-code
            items:
              - key: train.py
                path: main.py
      containers:
        - name: trainer
          image: registry.example.com/trainer:1
          command: ["torchrun", "--nproc_per_node", "2"]
          args: ["train.py"]
          workingDir: /workspace
          env:
            - name: NCCL_SHM_DISABLE
              value: "1"
          resources:
            limits:
              nvidia.com/gpu: 2
              memory: 4Gi
          volumeMounts:
            - name: dshm
              mountPath: /dev/shm
            - name: code
              mountPath: /opt/code/main.py
              subPath: main.py
        - name: sidecar
          image: busybox
          resources:
            limits:
              memory: 2Gi
"""

POD_TERRAFORM = """\
resource "kubernetes_job_v1" "train" {
  metadata {
    name = "train"
  }
  spec {
    template {
      metadata {}
      spec {
        volume {
          name = "dshm"
          empty_dir {
            medium     = "Memory"
            size_limit = "512Mi"
          }
        }
        volume {
          name = "code"
          config_map {
            name = "train-code"
            items {
              key  = "train.py"
              path = "main.py"
            }
          }
        }
        container {
          name        = "trainer"
          image       = "registry.example.com/trainer:1"
          command     = ["torchrun", "--nproc_per_node", "2"]
          args        = ["train.py"]
          working_dir = "/workspace"
          env {
            name  = "NCCL_SHM_DISABLE"
            value = "1"
          }
          resources {
            limits = {
              "nvidia.com/gpu" = 2
              memory           = "4Gi"
            }
          }
          volume_mount {
            name       = "dshm"
            mount_path = "/dev/shm"
          }
          volume_mount {
            name       = "code"
            mount_path = "/opt/code/main.py"
            sub_path   = "main.py"
          }
        }
        container {
          name  = "sidecar"
          image = "busybox"
          resources {
            limits = {
              memory = "2Gi"
            }
          }
        }
      }
    }
  }
}
"""

DOCKER_TERRAFORM = """\
resource "docker_container" "train" {
  name        = "train"
  image       = "registry.example.com/trainer:1"
  entrypoint  = ["python"]
  command     = ["train.py", "--epochs", "3"]
  working_dir = "/workspace"
  gpus        = "2"
  shm_size    = 1024
  memory      = 8192
  ipc_mode    = "private"
  env         = ["NCCL_SHM_DISABLE=1", "EPOCHS=3"]
}
"""

DOCKER_SDK = """\
import docker

client = docker.from_env()
client.containers.run(
    "registry.example.com/trainer:1",
    ["train.py", "--epochs", "3"],
    entrypoint="python",
    working_dir="/workspace",
    device_requests=[docker.types.DeviceRequest(count=2, capabilities=[["gpu"]])],
    environment={"NCCL_SHM_DISABLE": "1", "EPOCHS": "3"},
    shm_size="1g",
    mem_limit="8g",
    ipc_mode="private",
)
"""


def _workloads(engine: Engine, name: str, text: str, kind: FileKind) -> list[Workload]:
    return list(engine.check_source(SourceText(name, text), kind, Path(name)).workloads)


def _verdict(workload: Workload) -> tuple:
    """What the judge decides, without how each syntax spells or places it."""
    shm = tuple((s.kind, s.size.bytes if s.size else None, s.cap_bytes) for s in workload.shm)
    memory = workload.memory_limit.bytes if workload.memory_limit else None
    return shm, memory, bool(workload.gpu), workload.nccl_shm_disabled is not None, workload.command


def test_a_sidecar_that_mounts_the_volume_bounds_it(engine: Engine) -> None:
    """Its pages there count against its own limit too (Seldon's Triton ServerConfig: an rclone sidecar's 256M
    limit had hidden SHM005 on the triton container's 256Mi /dev/shm, a volume the sidecar never mounts)."""
    sharing = POD_YAML.replace(
        "        - name: sidecar\n          image: busybox\n",
        "        - name: sidecar\n          image: busybox\n"
        "          volumeMounts:\n            - name: dshm\n              mountPath: /scratch\n",
    )
    assert sharing != POD_YAML
    trainer = _workloads(engine, "job.yaml", sharing, FileKind.YAML)[0]
    assert trainer.shm[0].cap_bytes == GIB  # half the sidecar's 2Gi


def test_a_pod_spec_is_judged_the_same_in_yaml_and_terraform(engine: Engine) -> None:
    yaml = _workloads(engine, "job.yaml", POD_YAML, FileKind.YAML)
    terraform = _workloads(engine, "main.tf", POD_TERRAFORM, FileKind.TERRAFORM)
    assert [_verdict(w) for w in yaml] == [_verdict(w) for w in terraform]
    trainer = yaml[0]
    # half the trainer's own 4Gi: the sidecar's 2Gi bounds nothing in a volume it does not mount
    assert trainer.shm[0].kind is ShmKind.MEMORY and trainer.shm[0].cap_bytes == 2 * GIB
    assert yaml[0].accelerator_count == terraform[0].accelerator_count == 2
    assert yaml[0].launch is not None and terraform[0].launch is not None
    assert yaml[0].launch._replace(base_dir="", manifest="") == terraform[0].launch._replace(base_dir="", manifest="")
    assert terraform[0].launch == Launch(
        ".", ("torchrun", "--nproc_per_node", "2"), ("train.py",), "/workspace", (("NCCL_SHM_DISABLE", "1"),), "", "",
        "", dockerfile_beside=True, manifest="main.tf",
        configs=(MountedConfig("/opt/code/main.py", "train-code", (("train.py", "main.py"),), "main.py"),),
    )  # fmt: skip
    # no GPU, no torch by name: what it starts is kept, as a build of its image may show torch work
    (sidecar_yaml, sidecar_terraform) = (yaml[1].launch, terraform[1].launch)
    assert sidecar_yaml is not None and sidecar_terraform is not None
    assert sidecar_yaml._replace(base_dir="", manifest="") == sidecar_terraform._replace(base_dir="", manifest="")


def test_docker_options_are_judged_the_same_in_terraform_and_the_docker_sdk(engine: Engine) -> None:
    (terraform,) = _workloads(engine, "main.tf", DOCKER_TERRAFORM, FileKind.TERRAFORM)
    (sdk,) = _workloads(engine, "launch.py", DOCKER_SDK, FileKind.PYTHON)
    assert _verdict(terraform) == _verdict(sdk)
    assert [(s.kind, s.size.bytes if s.size else None) for s in sdk.shm] == [(ShmKind.MEMORY, GIB)]
    assert sdk.memory_limit is not None and sdk.memory_limit.bytes == 8 * GIB
    assert terraform.accelerator_count == 2  # gpus = "2", as --gpus 2 on a command line
    for workload in (terraform, sdk):
        assert workload.launch == Launch(
            ".", ("python",), ("train.py", "--epochs", "3"), "/workspace", (("NCCL_SHM_DISABLE", "1"), ("EPOCHS", "3"))
        )


def test_an_ecs_container_definition_gives_its_launch(engine: Engine) -> None:
    text = """{
  "family": "train",
  "containerDefinitions": [
    {
      "name": "trainer",
      "image": "registry.example.com/trainer:1",
      "entryPoint": ["python"],
      "command": ["train.py"],
      "workingDirectory": "/app",
      "environment": [{"name": "EPOCHS", "value": "3"}],
      "resourceRequirements": [{"type": "GPU", "value": "1"}]
    }
  ]
}
"""
    (workload,) = _workloads(engine, "infra/task.json", text, FileKind.JSON)
    assert workload.launch == Launch("infra", ("python",), ("train.py",), "/app", (("EPOCHS", "3"),))


def test_an_azureml_command_runs_in_a_shell_in_its_code_folder(engine: Engine) -> None:
    text = (
        "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncode: src\n"
        "command: cd jobs && python train.py --epochs ${{inputs.epochs}}\n"
        "environment_variables:\n  EPOCHS: '3'\ncompute: azureml:gpu-cluster\n"
    )
    (workload,) = _workloads(engine, "ml/job.yml", text, FileKind.YAML)
    assert workload.launch == Launch(
        "ml/src", (), ("sh", "-c", "cd jobs && python train.py --epochs ${{inputs.epochs}}"), "", (("EPOCHS", "3"),)
    )


@pytest.mark.parametrize(
    ("limits", "cap"),
    [((), None), ((None, 0), None), ((4 * GIB,), 2 * GIB), ((4 * GIB, None, 2 * GIB + 2), GIB + 1)],
)
def test_pod_cap_is_half_the_smallest_known_limit(limits: tuple, cap: int | None) -> None:
    assert pod_cap(limits) == cap


def test_half_a_limit() -> None:
    assert half(512 * MIB) == 256 * MIB and half(3) == 1


def test_a_command_line_is_judged_by_the_same_docker_options_judge(engine: Engine) -> None:
    """``docker run`` options mean what Terraform's and the SDK's settings mean; a torch container without a GPU
    flag is followed into the repository too (its DataLoader workers need /dev/shm on the CPU as well)."""
    text = "docker run --shm-size=1g --ipc=private -w /workspace -e EPOCHS=3 pytorch/pytorch python train.py\n"
    (workload,) = _workloads(engine, "scripts/run.sh", text, FileKind.SHELL)
    assert [(s.kind, s.size.bytes if s.size else None) for s in workload.shm] == [(ShmKind.MEMORY, GIB)]
    assert not workload.gpu and workload.torch
    assert workload.launch == Launch(
        "scripts",
        (),
        ("python", "train.py"),
        "/workspace",
        (("EPOCHS", "3"),),
        manifest="scripts/run.sh",  # the file that writes the run (its own build of the image is the image)
        caller_relative=True,
    )


def test_a_medium_spelled_in_lower_case_is_said_to_stop_the_pod(tmp_path: Path) -> None:
    """``medium: memory``: the kubelet knows only ``Memory`` and refuses the pod; the finding says so rather than
    only calling it a disk."""
    from shmlint.runner import check_paths
    from shmlint.settings import Settings

    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n"
        "      image: vllm/vllm-openai:latest\n      resources: {limits: {nvidia.com/gpu: 1}}\n"
        "      volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n"
        "  volumes:\n    - name: dshm\n      emptyDir: {medium: memory, sizeLimit: 8Gi}\n"
    )
    (finding,) = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert finding.code == "SHM006" and 'Kubernetes knows only "Memory"' in finding.message


@pytest.mark.parametrize(
    ("command", "severity"),
    [
        ("bash -c 'pip install deepspeed && python app.py'", "info"),  # installed, never run here
        ("bash -c 'git clone https://x/DeepSpeed && cd DeepSpeed && python app.py'", "info"),
        ("bash -c 'python -m pip install vllm; python app.py'", "info"),
        ("bash -c 'pip install deepspeed && deepspeed --num_gpus 2 train.py'", "error"),  # and run
        ("bash -c 'pip install vllm; vllm serve m -tp 2'", "error"),
        ("vllm serve m -tp 2", "error"),
        ("deepspeed --num_gpus 2 train.py", "error"),
    ],
)
def test_software_a_container_only_installs_is_not_its_evidence(tmp_path: Path, command: str, severity: str) -> None:
    """A command string that installs or fetches software names it without running it: the software's entry
    decides only where one of the string's commands runs it, as for a command a repository's script runs."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  a:\n    image: pytorch/pytorch:2.1\n"
        f'    command: "{command}"\n'
        "    deploy: {resources: {reservations: {devices: [{capabilities: [gpu]}]}}}\n"
    )
    (tmp_path / "app.py").write_text("print('hello')\n")
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings if f.code == "SHM001"] == [severity]


@pytest.mark.parametrize(
    ("image", "command", "codes"),
    [
        # LiteLLM's proxy: --num_workers is its web server's processes (found on homelab LLM stacks, no GPU)
        ("ghcr.io/berriai/litellm:main-stable", "--config /app/config.yaml --port 4000 --num_workers 4", []),
        ("ghcr.io/berriai/litellm:main-stable", "litellm --config /app/config.yaml --num_workers 4", []),
        # a .py an option takes, and a Python line above the proxy's, are not the program --num_workers is given to
        ("ghcr.io/berriai/litellm:main-stable", "--config /app/custom_callbacks.py --num_workers 4", []),
        ("ghcr.io/berriai/litellm:main-stable", "litellm --config=/app/custom_callbacks.py --num_workers 4", []),
        ("myorg/app", "python3 train.py --num_workers 4", ["SHM001"]),  # a Python program's DataLoader workers
        ("myorg/app", "CUDA_VISIBLE_DEVICES=0 python train.py --num_workers 8", ["SHM001"]),
        ("myorg/app", "./train.py --data x --num-workers 2", ["SHM001"]),
        ("pytorch/pytorch", "--num_workers 4", ["SHM001"]),  # options to a torch image's own program
    ],
)
def test_num_workers_on_the_cpu_is_dataloader_evidence_only_for_python(
    tmp_path: Path, image: str, command: str, codes: list[str]
) -> None:
    """With no accelerator, ``--num_workers N`` is torch evidence only as a Python program's option (or given to an
    image known to hold torch): another program's option of that name counts its own processes."""
    (tmp_path / "compose.yaml").write_text(f'services:\n  a:\n    image: {image}\n    command: "{command}"\n')
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.code for f in findings] == codes


@pytest.mark.parametrize(
    ("image", "command", "severities"),
    [
        ("ghcr.io/berriai/litellm:main-stable", "--config /app/config.yaml --port 4000 --num_workers 4", []),
        ("ghcr.io/berriai/litellm-database:main-v1.50", "--num_workers 8", []),
        ("ghcr.io/berriai/litellm:main-stable", "litellm --config /app/config.yaml --num_workers 4", []),
        ("myorg/app", "litellm --config /app/config.yaml --num_workers 4", ["info"]),  # a GPU, nothing known
        ("myorg/app", "python3 train.py --num_workers 4", ["error"]),
        ("pytorch/pytorch", "--num_workers 4", ["error"]),  # options to a torch image's own program
        ("myorg/app", "--num_workers 4", ["error"]),  # to an image the data does not know
        # other programs that start torch work with DataLoader workers: console scripts and modules
        ("myorg/app", "fairseq-train /data --num-workers 8", ["error"]),
        ("myorg/app", "accelerate launch -m pkg.train --num_workers 4", ["error"]),
        ("myorg/app", "mytrain --num_workers 4", ["error"]),
    ],
)
def test_num_workers_on_a_gpu_is_dataloader_evidence_for_python_or_an_unknown_images_program(
    tmp_path: Path, image: str, command: str, severities: list[str]
) -> None:
    """With a GPU too: another program's ``--num_workers`` (LiteLLM's proxy on a GPU host, found by an audit) is no
    DataLoader's, and options given to an image the data knows to need nothing are that image's own."""
    (tmp_path / "compose.yaml").write_text(
        f'services:\n  a:\n    image: {image}\n    command: "{command}"\n'
        "    deploy: {resources: {reservations: {devices: [{capabilities: [gpu]}]}}}\n"
    )
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings if f.code == "SHM001"] == severities


@pytest.mark.parametrize(("gpus", "severities"), [(8, ["error"]), (2, ["error"]), (1, ["info"]), (0, [])])
def test_an_nccl_tests_pod_on_several_gpus_needs_dev_shm(tmp_path: Path, gpus: int, severities: list[str]) -> None:
    """An nccl-tests image holding GPUs while an ssh daemon waits for the launcher (GKE's TCPX test pods): the ranks
    it will run, one per GPU, are NCCL's local processes; on one GPU, or none (the plugin installer), it says
    nothing."""
    limits = f"      resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}\n" if gpus else ""
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: nccl-test-host-1}\nspec:\n  containers:\n"
        "    - name: nccl-test\n"
        "      image: us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9\n"
        '      command: [/bin/sh, -c, "service ssh restart;\\nsleep infinity;\\n"]\n' + limits
    )
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings if f.code == "SHM001"] == severities


@pytest.mark.parametrize(
    ("command", "severities"),
    [
        ("[all_reduce_perf, -b, '8', -e, 1G, -f, '2', -g, '8']", ["info"]),  # one process drives the GPUs
        ("[mpirun, -np, '8', /opt/nccl-tests/build/all_reduce_perf, -g, '1']", ["error"]),  # a rank per GPU
    ],
)
def test_an_nccl_tests_image_is_judged_by_the_run_its_command_shows(
    tmp_path: Path, command: str, severities: list[str]
) -> None:
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n  containers:\n"
        f"    - name: t\n      image: ghcr.io/acme/nccl-tests:12.4\n      command: {command}\n"
        "      resources: {limits: {nvidia.com/gpu: 8}}\n"
    )
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.severity.label for f in findings if f.code == "SHM001"] == severities


def test_a_python_line_above_another_programs_num_workers_is_not_its_program(tmp_path: Path) -> None:
    """A shell script's Python line (a migration) and the proxy's ``--num_workers`` on the next line: the option is
    the proxy's, not a DataLoader's (the pattern crossed the line break)."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  a:\n    image: ghcr.io/berriai/litellm:main-stable\n"
        '    entrypoint: ["/bin/sh", "-c"]\n'
        "    command:\n      - |\n        python3 /app/migrate.py\n"
        "        litellm --config /app/config.yaml --num_workers 4\n"
    )
    assert check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings == []


def test_num_workers_on_a_line_a_backslash_continues_is_its_programs(tmp_path: Path) -> None:
    """A script's command continued over lines (``python train.py \\`` then ``--num_workers 8``) gives its program
    the option as one line does."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  a:\n    image: myorg/app:1\n"
        '    entrypoint: ["/bin/bash", "-c"]\n'
        "    command:\n      - |\n        python train.py \\\n          --data /data \\\n          --num_workers 8\n"
    )
    assert [f.code for f in check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings] == ["SHM001"]


@pytest.mark.parametrize(
    ("script", "code"),
    [
        # TensorBoard beside the real work (the usual way to run it): the image's software still decides
        ("nohup tensorboard --logdir /runs > /tmp/tb.log 2>&1 &\npython3 /app/serve.py --model /m", "SHM001"),
        ("cd /app\ntensorboard --logdir /runs &\npython3 serve.py", "SHM001"),
        # a path that ends in tensorboard, an option's value on a continued line, names no program
        ("python3 /app/serve.py \\\n  --model /m \\\n  --log-dir=/runs/tensorboard", "SHM001"),
        ("pip install tensorboard && tensorboard --logdir /runs", None),  # only the viewer runs
        ("nvidia-smi && grep MemTotal /proc/meminfo && touch /out/done", None),  # a utility and shell tools
        # one command whose quoted '&&' is the job's (a Ray job client): the free match on it stands
        ("ray job submit --address http://head:8265 -- chmod +x t.py '&&' python t.py", None),
    ],
)
def test_a_utility_beside_the_work_does_not_make_a_container_free(
    tmp_path: Path, script: str, code: str | None
) -> None:
    """A free command (a log viewer, a utility) says the container is free only when everything its command runs is
    such a command or prepares one (a vLLM server's container that also starts TensorBoard lost its finding)."""
    lines = "".join(f"        {line}\n" for line in script.split("\n"))
    (tmp_path / "compose.yaml").write_text(
        "services:\n  a:\n    image: ultralytics/ultralytics:8.3.0\n    runtime: nvidia\n"
        f'    entrypoint: ["/bin/bash", "-c"]\n    command:\n      - |\n{lines}'
    )
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [f.code for f in findings if f.severity.label == "error"] == ([code] if code else [])


@pytest.mark.parametrize(
    "command",
    ['bash -c "tensorboard --logdir=/out & python train.py"', 'bash -c "python train.py & tensorboard --logdir=/out"'],
)
def test_a_utility_beside_unknown_work_leaves_the_container_undecided(tmp_path: Path, command: str) -> None:
    """The viewer decides nothing when something else runs beside it (audit69a: an unknown image's training with
    TensorBoard beside it had no finding at all): the container stays undecided, an info."""
    (tmp_path / "compose.yaml").write_text(
        f"services:\n  a:\n    image: myorg/trainer\n    runtime: nvidia\n    command: {command}\n"
    )
    findings = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    assert [(f.code, f.severity.label, f.undecided) for f in findings] == [("SHM001", "info", True)]


def test_a_fix_is_not_capped_by_a_sidecar_that_will_not_mount_its_volume(engine: Engine) -> None:
    """Review: the fix gave /dev/shm half a 256M sidecar's limit (122 MiB), which SHM005, capped by the containers
    that mount the volume, then flagged; the cap is the trainer's own (16Gi), so the default 8 GiB."""
    pod = POD_YAML.replace("memory: 4Gi", "memory: 16Gi").replace("memory: 2Gi", "memory: 256M")
    pod = pod.replace("            - name: dshm\n              mountPath: /dev/shm\n", "")
    pod = pod.replace('              value: "1"\n', '              value: "0"\n')
    (trainer, _) = _workloads(engine, "job.yaml", pod, FileKind.YAML)
    assert trainer.volume_cap == 8 * GIB
