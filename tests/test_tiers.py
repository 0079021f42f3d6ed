"""The need model, wired: the extractors give the need model what it decides from (image, command, GPU count), SHM001's
severity follows the tier with a message that names the deciding evidence, the other /dev/shm rules are silent for
software known not to use /dev/shm, and configuration extends the data both ways."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shmlint.discover import FileKind, kind_by_name
from shmlint.engine import Engine
from shmlint.model import Tier
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.source import SourceText
from tests.support import default_engine

ENGINE = default_engine()
TRITON_PYTHON = "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3"  # needs /dev/shm by its image alone
POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
  - name: main
    image: {image}
    args: {args}
    resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
"""


def check(name: str, text: str, engine: Engine = ENGINE):
    kind = kind_by_name(Path(name)) or FileKind.YAML
    return engine.check_source(SourceText(name, text), kind, Path(name))


def shm001(result) -> list[tuple[Severity, str]]:
    """Severity and the whole explanation (``detail``: the one-line message names only the first evidence)."""
    return [(f.severity, f.detail) for f in result.findings if f.code == "SHM001"]


@pytest.mark.parametrize(
    ("name", "text", "image", "command", "count"),
    [
        (
            "pod.yaml",
            POD.format(image="org/app:1", args='["serve", "--port", "80"]', gpus=2),
            "org/app:1",
            "serve --port 80",
            2,
        ),
        (
            "compose.yaml",
            "services:\n  s:\n    image: org/app:1\n    entrypoint: [python]\n    command: serve.py --x 1\n"
            "    deploy: {resources: {reservations: {devices: [{capabilities: [gpu], count: 3}]}}}\n",
            "org/app:1",
            "python serve.py --x 1",
            3,
        ),
        ("run.sh", "docker run --gpus 2 --rm org/app:1 python serve.py\n", "org/app:1", "python serve.py", 2),
        (
            "run.sh",
            "docker run --gpus all --entrypoint python org/app:1 serve.py\n",
            "org/app:1",
            "python serve.py",
            None,
        ),
    ],
)
def test_extractors_fill_image_command_and_count(
    name: str, text: str, image: str, command: str, count: int | None
) -> None:
    (workload,) = check(name, text).workloads
    assert (workload.image, workload.command, workload.accelerator_count) == (image, command, count)


def test_needs_is_an_error_naming_the_software_and_the_accelerator() -> None:
    ((severity, message),) = shm001(check("run.sh", f"docker run --gpus all {TRITON_PYTHON} --model-repository=/m\n"))
    assert severity is Severity.ERROR
    assert "Python backend" in message and f"image {TRITON_PYTHON}" in message and "--gpus all" in message


def test_a_tensor_parallel_setting_is_quoted_as_the_evidence() -> None:
    """The setting that decided, not the start of a long command that a clipped quote would cut before it."""
    text = "docker run --gpus all vllm/vllm-openai:v0.7.1 --model meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4\n"
    ((severity, message),) = shm001(check("run.sh", text))
    assert severity is Severity.ERROR and "(command ... --tensor-parallel-size 4" in message, message


@pytest.mark.parametrize(
    ("command", "quoted"),
    [
        ("python train.py --config configs/imagenet.yaml --num_workers=16", "... --num_workers=16"),  # the whole word
        ("python train.py --config configs/imagenet.yaml --num_workers 16", "... --num_workers 16"),
        ("python train.py --num_workers 4", "python train.py --num_workers 4"),  # short: quoted whole
    ],
)
def test_a_late_setting_is_quoted_to_the_end_of_its_word(command: str, quoted: str) -> None:
    ((severity, message),) = shm001(check("run.sh", f"docker run --gpus all pytorch/pytorch {command}\n"))
    assert severity is Severity.ERROR and f"(command {quoted})" in message, message


def test_one_vllm_engine_process_is_undecided() -> None:
    """vLLM without tensor, pipeline or data parallel runs one engine process (its one-process executor): nothing
    shows data passing through /dev/shm (labelled unknown or no-risk on every untuned repository)."""
    ((severity, message),) = shm001(check("run.sh", "docker run --gpus all vllm/vllm-openai:v0.7.1 --model m\n"))
    assert severity is Severity.INFO and "one engine process" in message, message


def test_unknown_is_undecided_saying_what_is_unknown_and_how_to_settle_it() -> None:
    ((severity, message),) = shm001(check("pod.yaml", POD.format(image="org/app:1", args="[serve]", gpus=1)))
    assert severity is Severity.INFO  # listed here (undecided: show); by default only counted
    assert "image org/app:1" in message and "command serve" in message and "limits nvidia.com/gpu: 1" in message
    for way in ("shm-images", "shm-free-images", "shm-commands", "shm-free-commands", "shmlint.io/dataloader"):
        assert way in message


@pytest.mark.parametrize(
    "text",
    [
        "docker run --gpus all nvidia/dcgm-exporter:3.3.5\n",  # an exporter
        "docker run --gpus all pytorch/pytorch nvidia-smi\n",  # a utility run in a torch image
        "docker run pytorch/pytorch python train.py\n",  # torch on the CPU, no workers
        "docker run pytorch/pytorch torchrun train.py\n",  # one torchrun process on the CPU
    ],
)
def test_free_software_and_unknown_cpu_torch_give_no_finding(text: str) -> None:
    result = check("run.sh", text)
    assert not result.findings, [f.message for f in result.findings]


@pytest.mark.parametrize(
    ("name", "text", "needs"),
    [
        # Python's -c code with no accelerator: that code runs (or the server's ENTRYPOINT refuses it), never the server
        (
            "run.sh",
            'docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 -c "import tritonclient"\n',
            False,
        ),
        (
            "run.sh",
            "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 /usr/bin/python3 -u -c 'import tritonclient'\n",
            False,
        ),
        (
            "run.sh",
            "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 -uc 'import tritonclient'\n",
            False,
        ),
        (
            "run.sh",
            "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 -W ignore -c 'import tritonclient'\n",
            False,
        ),
        (
            "run.sh",
            "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 bash -c \"python3 -c 'import tritonclient'\"\n",
            False,
        ),
        (
            "run.sh",
            "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 -m x -c 1\n",
            False,
        ),  # -c is the module's, and the module replaces the server: NGC's entrypoint runs the command given
        (
            "pod.yaml",
            POD.format(
                image="nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3", args='["python3", "-c", "1"]', gpus=0
            ),
            False,
        ),
        # options for the image's own server: the image decides; NGC's entrypoint runs any other command given in
        # place of the server (audit74a), a script or a file run by Python too: what that runs decides
        ("run.sh", "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model x\n", True),
        ("run.sh", "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 Qwen/Qwen2-7B-Instruct\n", False),
        ("run.sh", "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 /start.py\n", False),
        ("run.sh", "docker run --rm nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 --version -c 1\n", False),
        # on an accelerator too: the code runs, not the server (audit63a: a TensorRT-LLM version check was an error)
        (
            "run.sh",
            'docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 python3 -c "import tritonclient"\n',
            False,
        ),
        (
            "run.sh",
            'docker run --gpus all nvcr.io/nvidia/tensorrt-llm/release:1.0.0 python -c "import tensorrt_llm"\n',
            False,
        ),
    ],
)
def test_inline_python_code_is_what_runs_not_the_images_server(name: str, text: str, needs: bool) -> None:
    found = shm001(check(name, text))
    assert (found != [] and found[0][0] is Severity.ERROR) == needs, found


def test_cpu_dataloader_workers_are_an_error() -> None:
    ((severity, message),) = shm001(check("run.sh", "docker run pytorch/pytorch python train.py --num-workers 4\n"))
    assert severity is Severity.ERROR and "DataLoader" in message


@pytest.mark.parametrize(
    ("shm", "code"),
    [
        ("--shm-size=128m", "SHM005"),  # too small
        ("--tmpfs /dev/shm", "SHM003"),  # unbounded
        ("--ipc=host", "SHM007"),  # host IPC
        ("--ipc=none", "SHM013"),  # no /dev/shm at all
        ("-e NCCL_SHM_DISABLE=1", "SHM012"),
    ],
)
def test_other_shm_rules_are_silent_for_free_software(shm: str, code: str) -> None:
    unknown = check("run.sh", f"docker run --gpus all {shm} org/app:1 serve\n")
    assert code in {f.code for f in unknown.findings}  # the rule does fire for GPU work of unknown need
    free = check("run.sh", f"docker run --gpus all {shm} nvidia/dcgm-exporter:3 serve\n")
    assert code not in {f.code for f in free.findings}


def test_configuration_extends_the_data_both_ways(tmp_path: Path, invoke) -> None:
    (tmp_path / ".shmlint.yaml").write_text(
        'shm-images: ["^org/trainer$"]\nshm-free-images: ["^org/probe$"]\nshm-free-commands: ["^warmup\\\\b"]\n'
    )
    (tmp_path / "run.sh").write_text(
        "docker run --gpus all org/trainer:1 go\n"  # configured needs: error
        "docker run --gpus all org/probe:1 go\n"  # configured free: nothing
        "docker run --gpus all vllm/vllm-openai warmup --fast\n"  # a configured free command beats the image
        "docker run --gpus all org/other:1 go\n"  # unknown: undecided, counted
    )
    document = json.loads(invoke("check", "--format", "json", str(tmp_path)).stdout)
    assert [(f["line"], f["severity"]) for f in document["findings"]] == [(1, "error")]
    assert document["summary"]["undecided"] == 1


def test_an_invalid_configured_pattern_is_a_configuration_error(tmp_path: Path, invoke) -> None:
    (tmp_path / ".shmlint.yaml").write_text('shm-free-images: ["(unclosed"]\n')
    (tmp_path / "run.sh").write_text("docker run --gpus all org/app:1\n")
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 2 and "shm-free-images" in result.stdout + result.stderr


TRAINER_RUNTIME = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-distributed}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          spec:
            template:
              spec:
                containers:
                - {name: node, image: pytorch/pytorch:2.4.0}
"""
TOY_TRAINJOB = """---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: toy}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {command: [torchrun, toy.py], resourcesPerNode: {limits: {cpu: 1}}}
"""


def test_a_training_runtime_is_judged_by_its_ml_policy() -> None:
    with_gpus = TRAINER_RUNTIME.replace("2.4.0}", '2.4.0, resources: {limits: {"nvidia.com/gpu": 8}}}')
    ((severity, message),) = shm001(check("runtime.yaml", with_gpus))
    assert severity is Severity.ERROR and "mlPolicy.torch" in message and "8 in each node" in message


def test_a_training_runtime_with_no_gpus_of_its_own_leaves_the_need_to_its_trainjobs() -> None:
    """One process per device on the GPUs a TrainJob gives: one GPU is one process, the CPU is gloo's processes
    (no /dev/shm), so the runtime alone is no evidence (kubeflow/manifests' torch-distributed runtime failed the
    gate; audit58b labelled it unknown)."""
    result = check("runtime.yaml", TRAINER_RUNTIME)
    ((severity, message),) = shm001(result)
    assert severity is Severity.INFO and "one process per device a TrainJob gives" in message  # undecided, listed
    (workload,) = result.workloads
    assert workload.launched_by is None


@pytest.mark.parametrize(
    ("policy", "resources", "severity"),
    [
        # torch: numProcPerNode auto (the default) or gpu is one process per device
        ("torch: {}", '{limits: {"nvidia.com/gpu": 2}}', Severity.ERROR),
        ("torch: {}", '{limits: {"nvidia.com/gpu": 1}}', Severity.INFO),
        ("torch: {numProcPerNode: gpu}", '{limits: {"nvidia.com/gpu": 1}}', Severity.INFO),
        ("torch: {numProcPerNode: 4}", '{limits: {"nvidia.com/gpu": 1}}', Severity.ERROR),
        ("torch: {numProcPerNode: cpu}", '{limits: {"nvidia.com/gpu": 2}}', Severity.INFO),
        # MPI: the hostfile's slots, 1 by default
        ("mpi: {mpiImplementation: OpenMPI}", '{limits: {"nvidia.com/gpu": 1}}', Severity.INFO),
        ("mpi: {numProcPerNode: 1}", '{limits: {"nvidia.com/gpu": 4}}', Severity.INFO),
        ("mpi: {numProcPerNode: 4}", '{limits: {"nvidia.com/gpu": 4}}', Severity.ERROR),
        ("mpi: {numProcPerNode: '4'}", '{limits: {"nvidia.com/gpu": 4}}', Severity.ERROR),
        # null or empty is unset, as the API server reads it: the default
        ("mpi: {numProcPerNode: null}", '{limits: {"nvidia.com/gpu": 4}}', Severity.INFO),
        ("torch: {numProcPerNode: }", '{limits: {"nvidia.com/gpu": 1}}', Severity.INFO),
        # a value that is no single scalar says nothing (a notice); a digit int() cannot read is no crash
        ("mpi: {numProcPerNode: [4]}", '{limits: {"nvidia.com/gpu": 4}}', Severity.INFO),
        ("torch: {numProcPerNode: '²'}", '{limits: {"nvidia.com/gpu": 1}}', Severity.ERROR),
    ],
)
def test_a_training_runtime_counts_the_processes_its_policy_starts(
    policy: str, resources: str, severity: Severity
) -> None:
    """Kubeflow Trainer's numProcPerNode (trainingruntime_types.go: torch ``auto``, MPI 1 by default): one process
    in a node is no NCCL between local processes."""
    runtime = TRAINER_RUNTIME.replace("torch: {}", policy).replace(
        "image: pytorch/pytorch:2.4.0}", f"image: pytorch/pytorch:2.4.0, resources: {resources}}}"
    )
    result = check("runtime.yaml", runtime)
    ((found, message),) = shm001(result)
    assert found is severity, message
    assert ("mlPolicy" in message) == (severity is Severity.ERROR)
    assert any("not a single value" in notice.message for notice in result.notices) == ("[4]" in policy)


def test_a_runtime_that_a_trainjob_of_the_file_names_is_judged_by_that_trainjob() -> None:
    result = check("runtime.yaml", TRAINER_RUNTIME + TOY_TRAINJOB)
    assert not shm001(result)  # torch image on the CPU, one torchrun process: nothing uses /dev/shm
    gpu_job = TOY_TRAINJOB.replace("{cpu: 1}", '{"nvidia.com/gpu": 1}')
    ((severity, message),) = shm001(check("runtime.yaml", TRAINER_RUNTIME + gpu_job))
    assert severity is Severity.INFO and "one local process" in message  # one GPU, torchrun's default: one process
    per_gpu = gpu_job.replace("1}", "2}").replace("[torchrun, ", "[torchrun, --nproc-per-node=gpu, ")
    ((severity, message),) = shm001(check("runtime.yaml", TRAINER_RUNTIME + per_gpu))
    assert severity is Severity.ERROR and "one process per visible GPU" in message and "2 GPUs" in message


def test_kuberay_manages_the_shm_of_aibrix_fleets() -> None:
    fleet = """apiVersion: orchestration.aibrix.ai/v1alpha1
kind: RayClusterFleet
metadata: {name: f}
spec:
  template:
    spec:
      headGroupSpec:
        template:
          spec:
            containers:
            - {name: ray-head, image: vllm/vllm-openai:v0.7.1, resources: {limits: {nvidia.com/gpu: 1}}}
"""
    (workload,) = check("fleet.yaml", fleet).workloads
    assert workload.shm_managed_by and not check("fleet.yaml", fleet).findings


def test_nginx_holding_a_gpu_is_a_placeholder_but_a_dataloader_hint_wins() -> None:
    """Tests elsewhere use nginx as a neutral image; with a GPU it is a known placeholder (free), unless the
    workload declares a DataLoader: a declaration beats the image."""
    pod = POD.format(image="nginx:1.27", args="[]", gpus=1)
    assert check("pod.yaml", pod).workloads[0].need.tier is Tier.FREE
    hinted = pod.replace("  - name: main", "  - name: main  # shmlint: dataloader workers=4 batch=8 sample=1024")
    assert check("pod.yaml", hinted).workloads[0].need.tier is Tier.NEEDS


def test_settings_without_tiers_data_change_nothing_for_non_gpu_work() -> None:
    engine = Engine(Settings(shm_images=("^busybox$",)))
    result = check(
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: busybox}\n",
        engine,
    )
    assert not result.findings  # the tier model decides how sure a finding is, never whether work is GPU work


TPU_POD = POD.replace("nvidia.com/gpu", "google.com/tpu")


@pytest.mark.parametrize(
    ("image", "args", "expected"),
    [
        ("us-docker.pkg.dev/cloud-tpu-images/jax-ai-image/tpu:latest", '["python", "train.py"]', []),  # JAX
        ("acme/trainer:1", '["python", "train.py"]', []),  # nothing shows torch: one process per host
        ("tensorflow/tensorflow:2.17.0", '["python", "train.py"]', []),
        ("pytorch/pytorch:2.4.0", '["python", "train.py"]', [Severity.INFO]),  # torch: undecided
        (
            "us-central1-docker.pkg.dev/tpu-pytorch-releases/docker/xla:r2.5",
            '["python", "train.py"]',
            [Severity.INFO],  # PyTorch/XLA: one process per chip, workers unknown
        ),
        (
            "us-central1-docker.pkg.dev/tpu-pytorch-releases/docker/xla:r2.5",
            '["python", "train.py", "--num_workers", "4"]',
            [Severity.ERROR],  # DataLoader workers: /dev/shm whatever the device
        ),
        ("vllm/vllm-tpu:nightly", '["--model", "m"]', [Severity.INFO]),  # vLLM on TPU: one engine process
        ("acme/trainer:1", '["jupyter", "lab"]', [Severity.INFO]),  # a notebook runs anything
    ],
)
def test_a_tpu_request_alone_is_not_evidence(image: str, args: str, expected: list) -> None:
    """JAX (and TensorFlow) drive a TPU host's chips from one process; PyTorch/XLA and workers decide."""
    result = check("pod.yaml", TPU_POD.format(image=image, args=args, gpus=4))
    assert [severity for severity, _ in shm001(result)] == expected


def test_a_gpu_count_alone_is_undecided_and_says_the_count() -> None:
    """Not "two or more GPUs, so NCCL": NCCL is there only when the software starts processes."""
    ((severity, _),) = shm001(check("pod.yaml", POD.format(image="org/app:1", args="[serve]", gpus=4)))
    assert severity is Severity.INFO
    (workload,) = check("pod.yaml", POD.format(image="org/app:1", args="[serve]", gpus=4)).workloads
    assert "4 GPUs in one container" in workload.need.because
    # the software that does start them is still an error on the same request
    ((severity, _),) = shm001(check("pod.yaml", POD.format(image="org/app:1", args='["serve", "--tp", "4"]', gpus=4)))
    assert severity is Severity.ERROR


@pytest.mark.parametrize(
    ("image", "args", "severity"),
    [
        ("vllm/vllm-openai:v0.7.1", '["sleep", "infinity"]', Severity.INFO),  # a holder in a vLLM image
        ("vllm/vllm-openai:v0.7.1", '["tail", "-f", "/dev/null"]', Severity.INFO),
        ("vllm/vllm-openai:v0.7.1", '["jupyter", "lab", "--ip", "0.0.0.0"]', Severity.INFO),
        # the NGC PyTorch image is where PyTorch is, not a need: what runs in it decides (bench/precision/fresh3)
        ("nvcr.io/nvidia/pytorch:24.01-py3", '["jupyter", "lab", "--ip", "0.0.0.0"]', Severity.INFO),
        ("nvcr.io/nvidia/pytorch:24.01-py3", '["bash"]', Severity.INFO),
        # a holder drops every image match, a python-backend Triton image's too: it runs none of it by itself
        ("nvcr.io/nvidia/tritonserver:25.08-vllm-python-py3", '["sleep", "infinity"]', Severity.INFO),
        # the server itself, named: its model repository decides (not in the files here), not the image's name
        (
            "nvcr.io/nvidia/tritonserver:25.08-vllm-python-py3",
            '["tritonserver", "--model-repository=/m"]',
            Severity.INFO,
        ),
        ("vllm/vllm-openai:v0.7.1", '["sh", "-c", "sleep 5 && vllm serve m -tp 2"]', Severity.ERROR),  # no holder
        ("nvcr.io/nvidia/pytorch:24.01-py3", '["python", "train.py"]', Severity.INFO),
        ("nvcr.io/nvidia/pytorch:24.01-py3", '["python", "-c", "import torch"]', Severity.INFO),
        ("nvcr.io/nvidia/pytorch:24.01-py3", '["torchrun", "--nproc_per_node=8", "train.py"]', Severity.ERROR),
        ("nvcr.io/nvidia/pytorch:24.01-py3", '["python", "train.py", "--num-workers", "4"]', Severity.ERROR),
    ],
)
def test_a_holder_or_notebook_command_is_what_runs_not_the_image(image: str, args: str, severity: Severity) -> None:
    ((found, _),) = shm001(check("pod.yaml", POD.format(image=image, args=args, gpus=2)))
    assert found is severity


@pytest.mark.parametrize(
    ("text", "severity", "entry"),
    [
        ("docker run --gpus 2 nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.0\n", Severity.ERROR, "nvidia-nim"),
        # the NIM guide's 16 GB is for several GPUs without NVLink: one GPU, or a count left to run time, is undecided
        ("docker run --gpus 1 nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.0\n", Severity.INFO, None),
        ("docker run --gpus all nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.0\n", Severity.INFO, None),
        ("docker run --gpus all nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.0 list-model-profiles\n", None, "x"),
        ("docker run --gpus all openmmlab/lmdeploy lmdeploy serve api_server m\n", Severity.INFO, "lmdeploy"),
        ("docker run --gpus all ultralytics/ultralytics yolo train data=c.yaml\n", Severity.ERROR, "ultralytics"),
        # config overrides for the Lightly Worker's own entrypoint; its loader workers default to the CPU cores
        (
            "docker run --gpus all -it lightly/worker:latest token=T worker.worker_id=W\n",
            Severity.ERROR,
            "lightly-worker",
        ),
        ("docker run --gpus all acme/yolo yolo train data=c.yaml workers=0\n", Severity.INFO, None),
        ("docker run --gpus all lightly/worker:latest --help\n", None, "x"),  # prints its options and exits
        ("docker run --gpus all acme/app python train.py --help\n", None, "x"),
        ("docker run --gpus all lightly/worker:latest sh -c 'run; echo --help'\n", Severity.ERROR, "lightly-worker"),
        ("docker run --gpus all ghcr.io/huggingface/text-embeddings-inference:1.8 --model-id m\n", None, "x"),
        ("docker run --gpus all ollama/ollama\n", None, "x"),
        (
            "docker run --gpus all hiyouga/llamafactory sh -c 'FORCE_TORCHRUN=1 NNODES=1 llamafactory-cli train a.yaml'\n",
            Severity.ERROR,
            "llama-factory-torchrun",
        ),
        ("docker run --gpus all hiyouga/llamafactory llamafactory-cli train a.yaml\n", Severity.INFO, "llama-factory"),
        # TGI starts one shard per visible GPU unless told: two counted GPUs shard over NCCL, one (or `all`, one
        # entry of NVIDIA_VISIBLE_DEVICES) is one shard, undecided; an explicit --num-shard 2 needs on any count
        (
            "docker run --gpus 2 ghcr.io/huggingface/text-generation-inference:3.0 --model-id m\n",
            Severity.ERROR,
            "tgi-family",
        ),
        ("docker run --gpus 2 ghcr.io/predibase/lorax:main --model-id m\n", Severity.ERROR, "tgi-family"),
        (
            "docker run --gpus 1 ghcr.io/huggingface/text-generation-inference:3.0 --model-id m\n",
            Severity.INFO,
            "tgi-one-shard",
        ),
        (
            "docker run --gpus all ghcr.io/huggingface/text-generation-inference:3.0 --model-id m\n",
            Severity.INFO,
            "tgi-one-shard",
        ),
        (
            "docker run --gpus all ghcr.io/huggingface/text-generation-inference:3.0 --model-id m --num-shard 2\n",
            Severity.ERROR,
            "nccl-multi-gpu",
        ),
        # told one shard, on any count: one process (the launcher's own option; the environment's is not read)
        (
            "docker run --gpus 2 ghcr.io/huggingface/text-generation-inference:3.0 --model-id m --num-shard 1\n",
            Severity.INFO,
            "tgi-one-shard-set",
        ),
        ("docker run --gpus 2 acme/tgi text-generation-launcher --sharded false\n", Severity.INFO, "tgi-one-shard-set"),
        # a device check prints and exits; a second command after it is what runs
        ("docker run --runtime=amd --device /dev/dri ubuntu ls -l /dev/dri\n", None, "x"),
        ("docker run --gpus all ubuntu cat /proc/driver/nvidia/version\n", None, "x"),
        (
            "docker run --gpus all acme/app sh -c 'echo ok; python t.py --num-workers 4'\n",
            Severity.ERROR,
            "pytorch-dataloader-workers",
        ),
        ("docker run --gpus all acme/app sh -c 'cat /etc/os-release && python t.py'\n", Severity.INFO, None),
        ("docker run --gpus all acme/app sh -c 'echo starting\n./run_training'\n", Severity.INFO, None),  # two lines
        ("docker run --gpus all acme/app echo ok\n", None, "x"),
        # a check that the GPU is seen: imports and prints (audit65a); code that calls more is read as a program
        (
            "docker run --gpus all pytorch/pytorch python -c 'import torch; print(torch.cuda.is_available())'\n",
            None,
            "x",
        ),
        (
            "docker run --gpus all acme/app python3 -c 'import torch as t; print(t.__version__); print(t.cuda.device_count())'\n",
            None,
            "x",
        ),
        (  # the image's tier here; what the code starts is the project walk's (test_project_python)
            "docker run --gpus all pytorch/pytorch python -c 'import torch; torch.multiprocessing.spawn(f)'\n",
            Severity.INFO,
            "pytorch-images",
        ),
        (
            "docker run --gpus all pytorch/pytorch python -c 'import torch; print(torch.ones(2).cuda())'\n",
            Severity.INFO,
            "pytorch-images",
        ),
        # one process per GPU: a container given exactly one counted GPU holds one rank, its peers in other pods
        # (audit53b: SGLang --tp-size 4 over four one-GPU pods); uncounted (all) or two still fail
        # one GPU for four tensor-parallel ranks: undecided, said by the setting (not "one process, the default")
        (
            "docker run --gpus 1 lmsysorg/sglang python3 -m sglang.launch_server --tp-size 4\n",
            Severity.INFO,
            "nccl-multi-gpu",
        ),
        (
            "docker run --gpus all lmsysorg/sglang python3 -m sglang.launch_server --tp-size 4\n",
            Severity.ERROR,
            "nccl-multi-gpu",
        ),
        (
            "docker run --gpus 2 lmsysorg/sglang python3 -m sglang.launch_server --tp-size 2\n",
            Severity.ERROR,
            "nccl-multi-gpu",
        ),
        # YOLOX's tools with an experiment (-f, or a built-in one by -n): its loaders' 4 default workers;
        # data_num_workers 0 among the options turns them off; another tools/train.py is not YOLOX's
        (
            "docker run --gpus all acme/bt python3 tools/train.py -f exps/example/mot/x.py -d 8 -b 48 --fp16\n",
            Severity.ERROR,
            "yolox-training",
        ),
        (
            "docker run --gpus all acme/bt python tools/eval.py -f exps/s.py -c s.pth -b 64\n",
            Severity.ERROR,
            "yolox-training",
        ),
        (
            "docker run --gpus all megvii/yolox python -m yolox.tools.train -n yolox-s -d 8 -b 64\n",
            Severity.ERROR,
            "yolox-training",
        ),
        ("docker run --gpus all acme/seg python tools/train.py configs/x.py --name exp1\n", Severity.INFO, None),
        (  # the next line's setting is another command's
            "docker run --gpus all acme/bt sh -c 'python tools/train.py -f exps/x.py\necho data_num_workers 0'\n",
            Severity.ERROR,
            "yolox-training",
        ),
        ("docker run --gpus all acme/bt python tools/train.py -f exps/x.py data_num_workers 0\n", Severity.INFO, None),
        ("docker run --gpus all acme/seg python tools/train.py configs/x.py --work-dir w\n", Severity.INFO, None),
        # nerfstudio spawns a process per device, NCCL between them; one device is one process
        (
            "docker run --gpus all dromni/nerfstudio ns-train nerfacto --machine.num-devices 4 --data /d\n",
            Severity.ERROR,
            "nerfstudio-multi-device",
        ),
        (
            "docker run --gpus all acme/sdf ns-train neus-facto --machine.num-gpus=8 sdfstudio-data\n",
            Severity.ERROR,
            "nerfstudio-multi-device",
        ),
        ("docker run --gpus all dromni/nerfstudio ns-train nerfacto --machine.num-devices 1\n", Severity.INFO, None),
        # Piper's training module: VitsModel's loaders take one worker by default; its other modules load nothing
        (
            "docker run --gpus all acme/piper python3 -m piper_train --dataset-dir /d --batch-size 16\n",
            Severity.ERROR,
            "piper-tts-training",
        ),
        ("docker run --gpus all acme/piper python3 -m piper_train.preprocess --input-dir /w\n", Severity.INFO, None),
        ("docker run --gpus all acme/piper python3 -m piper_train.export_onnx m.ckpt m.onnx\n", Severity.INFO, None),
        # YOLOv5's train.py, known by the YOLO weights or config it trains from; --workers 0 anywhere: none
        (
            "docker run --gpus all acme/det python train.py --weights yolov5l.pt\n",
            Severity.ERROR,
            "yolov5-family-train",
        ),
        (
            "docker run --gpus all acme/det python3 segment/train.py --cfg yolov5s-seg.yaml\n",
            Severity.ERROR,
            "yolov5-family-train",
        ),
        ("docker run --gpus all acme/det python train.py --weights yolov7.pt --workers 0\n", Severity.INFO, None),
        ("docker run --gpus all acme/det python train.py --workers 0 --weights yolov5s.pt\n", Severity.INFO, None),
        (
            "docker run --gpus all acme/det python train.py --batch 16 --data c.yaml --weights yolov5s.pt --workers 4\n",
            Severity.ERROR,
            "yolov5-family-train",
        ),
        ("docker run --gpus all acme/det python train.py --weights resnet50.pt\n", Severity.INFO, None),
        ("docker run --gpus all acme/det python detect.py --weights yolov5s.pt\n", Severity.INFO, None),
        # other YOLOv3 ports: a TensorFlow checkpoint, a Darknet .cfg (their train.py is not YOLOv5's)
        (
            "docker run --gpus all tf/tf python train.py --mode fit --weights ./checkpoints/yolov3.tf\n",
            Severity.INFO,
            None,
        ),
        ("docker run --gpus all acme/det python train.py --cfg config/yolov3_default.cfg\n", Severity.INFO, None),
        # argparse's abbreviation of --workers, and a count the shell fills in
        ("docker run --gpus all acme/det python train.py --weights yolov5s.pt --work 0\n", Severity.INFO, None),
        ("docker run --gpus all acme/det python train.py --weights yolov5s.pt --workers $W\n", Severity.INFO, None),
    ],
)
def test_known_software_reaches_the_finding_with_its_entry(text: str, severity: Severity | None, entry) -> None:
    result = check("run.sh", text)
    (workload,) = result.workloads
    if severity is None:  # free software: no finding at all
        assert workload.need.tier is Tier.FREE and not result.findings
        return
    ((found, _),) = shm001(result)
    assert found is severity and workload.need.entry == entry


def _server_pod(command: str, gpus: int = 0, image: str = "") -> str:
    """A pod of a server's image (one that needs /dev/shm by itself unless told) whose command replaces its
    entrypoint. Triton's, an NGC image, runs the command given in place of its server (``need.image_runs_it``)."""
    pod = POD.format(image=image or TRITON_PYTHON, args='["--port", "8088"]', gpus=gpus)
    return pod.replace("    args:", f"    command: {command}\n    args:")


@pytest.mark.parametrize(
    ("command", "needs"),
    [
        ('["mooncake_master"]', False),  # a coordinator of its own, run from the server's image
        # a path into the image, a script it may hold, the server itself named: NGC's entrypoint runs them in place
        # of the server, so what they run decides (the model repository, for tritonserver: not in the files here)
        ('["/usr/local/bin/mooncake_master"]', False),
        ('["/sgl-workspace/start_server.sh"]', False),
        ('["start_server.sh"]', False),
        ('["python3", "-m", "mooncake.mooncake_store_service"]', False),
        ('["python3", "-u", "-m", "kvstore.service"]', False),
        ('["tritonserver", "--model-repository=/m"]', False),
        ('["python3", "/start.py"]', False),
        ('["bash", "-c", "./start.sh"]', False),
        ('["--model-repository=/m"]', True),  # options for its own server
    ],
)
def test_a_program_of_its_own_on_the_cpu_is_not_the_images_server(command: str, needs: bool) -> None:
    """With no accelerator, a container whose command replaces the image's entrypoint with a program the data
    does not know does not run the server the image is named for."""
    found = shm001(check("pod.yaml", _server_pod(command)))
    assert (found != [] and found[0][0] is Severity.ERROR) == needs, found


def test_a_program_of_its_own_with_an_accelerator_leaves_the_image_deciding() -> None:
    """A program the data does not know, on an accelerator, in an image whose entrypoint is its software (not an
    NGC image's): the program may be that software's launcher."""
    ((severity, _),) = shm001(
        check("pod.yaml", _server_pod('["trainer"]', gpus=1, image="ultralytics/ultralytics:8.3.0"))
    )
    assert severity is Severity.ERROR
    ((severity, _),) = shm001(check("pod.yaml", _server_pod('["mooncake_master"]', gpus=1)))
    assert severity is Severity.INFO  # Triton's: NGC's entrypoint runs it in place of the server


def test_an_image_the_configuration_names_decides_whatever_program_runs_on_the_cpu() -> None:
    """The configuration is the image's owner's word: its program of its own on the CPU does not set it aside."""
    engine = Engine(Settings(undecided="show", shm_images=("lmsysorg/sglang",)))
    ((severity, _),) = shm001(
        check("pod.yaml", _server_pod('["mooncake_master"]', image="lmsysorg/sglang:0.5"), engine)
    )
    assert severity is Severity.ERROR


@pytest.mark.parametrize(
    ("image", "args", "gpus", "severity"),
    [
        # a script of its own in a Ray image on the CPU (a model-cache download, audit51b) starts no object store
        ("rayproject/ray-llm:2.54.0-py311-cu128", '["/bin/bash", "/scripts/sync.sh"]', 0, None),
        # Ray's object store moves to /tmp when /dev/shm is small (slower, no failure): the work decides
        ("rayproject/ray-llm:2.54.0-py311-cu128", '["/bin/bash", "/scripts/sync.sh"]', 1, Severity.INFO),
        ("rayproject/ray-ml:2.40.0", '["ray", "start", "--head", "--block"]', 1, Severity.INFO),
        ("rayproject/ray-ml:2.40.0", '["ray", "start", "--head", "--block"]', 0, None),  # on the CPU: nothing
        # an object store over 10 GB that /dev/shm cannot hold: Ray refuses to start
        (
            "rayproject/ray-ml:2.40.0",
            '["ray", "start", "--head", "--object-store-memory=20000000000"]',
            0,
            Severity.ERROR,
        ),
    ],
)
def test_a_ray_image_is_evidence_by_the_object_store_it_starts(
    image: str, args: str, gpus: int, severity: Severity | None
) -> None:
    """audit60a: a hand-started Ray worker failed the gate; resource_spec.py caps a default object store at
    max(10 GB, /dev/shm) and services.py puts one that does not fit in /tmp with a warning."""
    found = shm001(check("pod.yaml", POD.format(image=image, args=args, gpus=gpus)))
    assert [s for s, _ in found] == ([severity] if severity else []), found


@pytest.mark.parametrize(
    ("gpus", "severity"),
    [(1, Severity.INFO), (2, Severity.ERROR), (8, Severity.ERROR)],
)
def test_axolotl_on_one_gpu_runs_one_process_and_its_config_decides(gpus: int, severity: Severity) -> None:
    """audit54b: six one-GPU axolotl QLoRA Jobs failed the gate on the software's name; on one GPU axolotl starts
    one process and passes loader workers only where its config sets them (Trainer default 0)."""
    pod = POD.format(image="registry.example/ft/trainer:1", args='["-m", "axolotl.cli.train", "q.yml"]', gpus=gpus)
    pod = pod.replace("    args:", '    command: ["accelerate", "launch"]\n    args:')
    ((found, detail),) = shm001(check("pod.yaml", pod))
    assert found is severity, detail


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        ("docker run --gpus 2 pytorch/pytorch torchrun --nproc_per_node 2 train.py\n", Severity.ERROR),
        # on the CPU the processes talk gloo over TCP (audit57b: --backend gloo --no_cuda was an error)
        ("docker run pytorch/pytorch torchrun --nproc_per_node 2 train.py --backend gloo --no_cuda\n", None),
        ("docker run pytorch/pytorch torchrun --nproc_per_node 2 train.py --num_workers 4\n", Severity.ERROR),
    ],
)
def test_local_ranks_are_nccl_only_with_an_accelerator(text: str, severity: Severity | None) -> None:
    found = shm001(check("run.sh", text))
    assert [sev for sev, _ in found] == ([severity] if severity else [])


@pytest.mark.parametrize(
    ("command", "quoted"),
    [
        (
            "torchrun --nproc_per_node=1 --nnodes=1 --master_port=29500 qwenvl/train.py --model_name_or_path m "
            "--bf16 --dataloader_num_workers 4 --report_to none",
            "torchrun ... --dataloader_num_workers 4",
        ),
        ("vllm serve meta/llama --tensor-parallel-size 2", None),  # fits: whole
        (
            "python3 -m vllm.entrypoints.openai.api_server --model /models/a-very-long-model-name-here "
            "--port 8000 --tensor-parallel-size 2",
            "python3 -m vllm.entrypoints.openai.api_server ... --tensor-parallel-size 2",
        ),
    ],
)
def test_a_command_a_file_runs_is_quoted_with_the_setting_that_decided(command: str, quoted: str | None) -> None:
    """Audit70d: ``sft.sh:65 torchrun --nproc_per_node=1 --nnodes=1 -...`` hid the ``--dataloader_num_workers 4``
    that was the need, and seemed to say one process: where the clip would cut the setting off, the program and
    the setting are quoted."""
    from shmlint.need import _quoted, builtin
    from shmlint.visible import clipped

    entry = next(e for e in builtin().entries if e.commands is not None and e.commands.search(command))
    assert _quoted(entry, command) == (quoted or clipped(command, 60))


TRAINJOB_8_RANKS = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t5}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    image: pytorch/pytorch:2.4.0
    command: [torchrun, --nproc_per_node=8, train.py]
    resourcesPerNode: {limits: {"nvidia.com/gpu": 8}}
"""
_SHM_VOLUME = "{name: dshm, emptyDir: {medium: Memory, sizeLimit: 64Gi}}"
_NODE_MOUNT = "{name: node, volumeMounts: [{name: dshm, mountPath: /dev/shm}]}"


@pytest.mark.parametrize(
    ("overrides", "found"),
    [
        ("", ["SHM001 error"]),
        # Trainer v2.1's podTemplateOverrides[].spec and v2.0's podSpecOverrides[] (audit72c: said to be 64 MiB)
        (
            f"  podTemplateOverrides:\n  - targetJobs: [{{name: node}}]\n"
            f"    spec: {{volumes: [{_SHM_VOLUME}], containers: [{_NODE_MOUNT}]}}\n",
            [],
        ),
        (
            f"  podSpecOverrides:\n  - {{targetJobs: [{{name: node}}], volumes: [{_SHM_VOLUME}], containers: [{_NODE_MOUNT}]}}\n",
            [],
        ),
        # an override of another job, or of another container, is not the trainer's
        (
            f"  podSpecOverrides:\n  - {{targetJobs: [{{name: initializer}}], volumes: [{_SHM_VOLUME}], "
            f"containers: [{_NODE_MOUNT}]}}\n",
            ["SHM001 error"],
        ),
        # a mount of the runtime's volume: that volume is not read here (the review: said to be 64 MiB, an error)
        (
            f"  podSpecOverrides:\n  - {{targetJobs: [{{name: node}}], containers: [{_NODE_MOUNT}]}}\n",
            ["SHM001 warning"],
        ),
        # the volume comes, the trainer does not mount it
        (
            f"  podSpecOverrides:\n  - {{targetJobs: [{{name: node}}], volumes: [{_SHM_VOLUME}], "
            f"containers: [{_NODE_MOUNT.replace('node', 'sidecar')}]}}\n",
            ["SHM002 error"],
        ),
    ],
)
def test_a_trainjobs_overrides_give_its_trainer_their_volumes_and_mounts(overrides: str, found: list[str]) -> None:
    findings = check("trainjob.yaml", TRAINJOB_8_RANKS + overrides).findings
    assert [f"{f.code} {f.severity.name.lower()}" for f in findings] == found


_TRTLLM = "nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3"


@pytest.mark.parametrize(
    ("line", "severity"),
    [
        # NGC's entrypoint runs the command it is given (audit74a: eleven errors on these containers)
        (f"docker run --gpus all -it {_TRTLLM}", Severity.INFO),  # its shell, a terminal attached
        (f"docker run --gpus all {_TRTLLM}", Severity.ERROR),  # its own start, whatever that is: left to its name
        (f"docker run --gpus all {_TRTLLM} python3 benchmarks/bench.py --engine /e", Severity.INFO),
        (f"docker run --gpus all {_TRTLLM} tritonserver --model-repository=/models", Severity.INFO),
        ("docker run --gpus all -it nvcr.io/nvidia/tensorrt-llm/release:1.0.0", Severity.INFO),
        # what does start the Python backend's stubs, or TensorRT-LLM's ranks
        (f"docker run --gpus all {_TRTLLM} python3 scripts/launch_triton_server.py --world_size 2", Severity.ERROR),
        ("docker run --gpus all nvcr.io/nvidia/tensorrt-llm/release:1.0.0 trtllm-serve m --tp_size 2", Severity.ERROR),
    ],
)
def test_an_ngc_image_is_what_runs_only_when_its_command_starts_it(line: str, severity: Severity) -> None:
    listed = Engine(Settings(undecided="show"))
    ((found, _),) = shm001(check("run.sh", line + "\n", listed))
    assert found is severity


@pytest.mark.parametrize(("tty", "severity"), [("    tty: true\n", Severity.INFO), ("", Severity.ERROR)])
def test_a_compose_dev_container_of_an_ngc_image_with_a_terminal_is_its_shell(tty: str, severity: Severity) -> None:
    """audit74a: a compose service of Triton's TensorRT-LLM image with ``tty`` and no command, a dev container."""
    compose = f"services:\n  triton:\n    image: {_TRTLLM}\n    gpus: all\n{tty}"
    ((found, _),) = shm001(check("compose.yaml", compose, Engine(Settings(undecided="show"))))
    assert found is severity


def test_an_empty_dirs_fields_written_beside_it_are_a_disk_empty_dir_said_so() -> None:
    """audit75a: ``medium: Memory`` and ``sizeLimit`` on a volume with no ``emptyDir:`` key (the API server's
    default, a disk emptyDir, takes none of them) were said as a "medium volume"."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: pytorch/pytorch\n"
        "    command: [torchrun, --nproc_per_node=2, t.py]\n    resources: {limits: {nvidia.com/gpu: 2}}\n"
        "    volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n  volumes:\n  - name: dshm\n    medium: Memory\n"
        "    sizeLimit: 256Mi\n"
    )
    (finding,) = check("pod.yaml", pod).findings
    assert finding.code == "SHM006" and "its medium and sizeLimit belong under emptyDir:" in finding.message


@pytest.mark.parametrize(("count", "tier"), [("1", Tier.UNKNOWN), ("2", Tier.NEEDS)])
def test_tensor_parallel_over_the_gpus_given_is_said_as_it_is(count: str, tier: Tier) -> None:
    """Tensor parallel 2 on one counted GPU: its other processes run elsewhere, or it cannot start; undecided, and
    said so, not "tensor parallel 1, the defaults" (audit76d). With the two GPUs it asks for, it needs /dev/shm."""
    text = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
        "    command: --model google/gemma-2b --tensor-parallel-size 2\n"
        "    deploy:\n      resources:\n        reservations:\n          devices:\n"
        f"            - driver: nvidia\n              count: {count}\n              capabilities: [gpu]\n"
    )
    [(severity, detail)] = shm001(check("compose.yaml", text, Engine(Settings(undecided="show"))))
    assert severity is (Severity.INFO if tier is Tier.UNKNOWN else Severity.ERROR)
    assert "the defaults" not in detail
    if tier is Tier.UNKNOWN:
        assert "(--tensor-parallel-size 2), but with 1 GPU: its other processes run elsewhere" in detail
