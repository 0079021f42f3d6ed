"""The /dev/shm need data and the precision benchmark's data are well formed, and the benchmark's script scores right.

The benchmark itself runs only where its repositories are already on disk (it never downloads here): set
SHMLINT_PRECISION_MIRROR to a folder of bare git mirrors (such as /work/.mirror) or SHMLINT_PRECISION_CACHE to the
script's cache folder; otherwise that one test is skipped and says how to run it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from tests.support import ROOT, run_precision_benchmark, script_module

NEED = ROOT / "shmlint" / "data" / "shm_need.yaml"
BENCH = ROOT / "bench" / "precision"
TIERS = {"needs", "unknown", "free"}
EVIDENCE = {"docs", "code", "issue", "measurement", "reading"}
#: held out for an independent check (HELPERS.md): the benchmark must never use them
HELD_OUT = {
    "nvidia/nim-deploy", "nvidia/generativeaiexamples", "huggingface/text-embeddings-inference", "internlm/lmdeploy",
    "xorbitsai/inference", "kubeflow/katib", "kubeflow/pipelines", "hiyouga/llama-factory", "axolotl-ai-cloud/axolotl",
    "lmcache/lmcache", "bentoml/openllm", "vllm-project/production-stack", "kserve/kserve", "kubernetes-sigs/lws",
    "kubernetes-sigs/jobset", "aws-samples/awsome-distributed-training", "huggingface/text-generation-inference",
    "h2oai/h2ogpt", "argoproj/argo-workflows", "googlecloudplatform/ai-on-gke", "oobabooga/text-generation-webui",
    "facebookresearch/detectron2", "nvidia/megatron-lm", "sgl-project/sglang", "open-webui/open-webui",
    "blakeblackshear/frigate", "ollama/ollama", "lllyasviel/fooocus", "immich-app/immich",
    "ahmetoner/whisper-asr-webservice", "abdbarho/stable-diffusion-webui-docker", "mosaicml/composer", "nvidia/nemo",
}  # fmt: skip
#: a quantified group that is itself quantified: the shape of catastrophic backtracking
NESTED_QUANTIFIER = re.compile(r"\([^()]*[+*][^()]*\)[+*{]")
#: an unbounded run of a negated class or `.` that more pattern follows (only `$` and `)` may follow it)
UNBOUNDED_GAP = re.compile(r"(\[\^(\\.|[^\]\\])*\]|\.|\\[SsWwDd])[*+](?![$)]*$)")


def _source_ok(source: object) -> bool:
    return isinstance(source, str) and source.startswith(("https://", "measurement: "))


@pytest.fixture(scope="module")
def need() -> dict:
    return yaml.safe_load(NEED.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return script_module(BENCH / "run.py", "precision_run")


def test_every_software_entry_has_tier_match_and_source(need: dict) -> None:
    assert need["version"] == 1
    ids = [entry["id"] for entry in need["software"]]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for entry in need["software"]:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", entry["id"]), entry["id"]
        assert entry["tier"] in TIERS, entry["id"]
        assert entry["evidence"] in EVIDENCE, entry["id"]
        assert entry["what"].strip(), entry["id"]
        assert _source_ok(entry["source"]), entry["id"]
        assert all(_source_ok(extra) for extra in entry.get("also", [])), entry["id"]
        assert set(entry["match"]) <= {"images", "commands", "image_tags"} and entry["match"], entry["id"]
        assert all(isinstance(patterns, list) and patterns for patterns in entry["match"].values()), entry["id"]
        for flag in ("accelerator_only", "command_wins", "host_centric", "under_launchers"):
            assert isinstance(entry.get(flag, False), bool), (entry["id"], flag)
        assert isinstance(entry.get("min_devices", 0), int) and entry.get("min_devices", 0) >= 0, entry["id"]
        if entry.get("command_wins"):  # it says what the command runs: it needs command patterns
            assert entry["match"].get("commands"), entry["id"]


def test_accelerator_defaults_are_tiers_with_sources(need: dict) -> None:
    accelerators = need["accelerators"]
    assert accelerators["default_tier"] in TIERS
    multi = accelerators["multi_device"]
    assert multi["tier"] == "unknown" and multi["min_devices"] >= 2 and _source_ok(multi["source"])
    alone = accelerators["tpu_alone"]
    assert alone["tier"] in TIERS and _source_ok(alone["source"]) and alone["evidence_patterns"]
    for pattern in alone["evidence_patterns"]:
        re.compile(pattern)
        assert not NESTED_QUANTIFIER.search(pattern)


def test_every_pattern_compiles_and_cannot_backtrack_badly(need: dict) -> None:
    for entry in need["software"]:
        for pattern in (p for patterns in entry["match"].values() for p in patterns):
            re.compile(pattern)
            assert not NESTED_QUANTIFIER.search(pattern), (entry["id"], pattern)


def test_no_pattern_scans_an_unbounded_gap_before_more_pattern(need: dict) -> None:
    """A gap like `[^;&|]*` followed by more pattern (or inside a lookahead) is scanned again from every occurrence
    of what precedes it: quadratic on a long hostile line (110 kB took 4 s). Gaps end the pattern or are bounded,
    `[^;&|]{0,256}`. The control: the unbounded spelling is caught."""
    assert UNBOUNDED_GAP.search(r"(^|[ /])train_net\.py\b(?![^;&|]*NUM_WORKERS[= ]+0\b)")
    assert not UNBOUNDED_GAP.search(r"(^|[ /])train_net\.py\b(?![^;&|]{0,256}NUM_WORKERS[= ]+0\b)")
    assert not UNBOUNDED_GAP.search(r"(^|/)comfyui[^/]*$")
    assert UNBOUNDED_GAP.search(r"(^|[;&|(] *)(\S*/)?tensorboard( |$)")  # a class escape is a gap too: 100 KB, 25 s
    assert not UNBOUNDED_GAP.search(r"(^|[;&|(] *)([^ ]{0,256}/)?tensorboard( |$)")
    for entry in need["software"]:
        for pattern in (p for patterns in entry["match"].values() for p in patterns):
            assert not UNBOUNDED_GAP.search(pattern), (entry["id"], pattern)


def test_each_tier_is_represented_with_its_evidence(need: dict) -> None:
    tiers = {entry["tier"] for entry in need["software"]}
    assert tiers == TIERS
    assert any(entry["source"].startswith("measurement: ") or entry.get("also") for entry in need["software"])


RANK = {"free": 0, "unknown": 1, "needs": 2}


def _tier_for(need: dict, image: str = "", command: str = "") -> str:
    """The documented precedence: a free command wins, otherwise the strongest tier among the matches."""
    repository, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
    by_image, by_command, command_wins = set(), set(), False
    for entry in need["software"]:
        match = entry["match"]
        # an image whose entrypoint runs the command given is what runs only for a command of options
        runs = not entry.get("entrypoint_runs_command") or not command or command.startswith("-")
        if runs and repository and any(re.search(p, repository, re.IGNORECASE) for p in match.get("images", [])):
            by_image.add(entry["tier"])
        if runs and tag and any(re.search(p, tag) for p in match.get("image_tags", [])):
            by_image.add(entry["tier"])
        if command and any(re.search(p, command, re.IGNORECASE) for p in match.get("commands", [])):
            by_command.add(entry["tier"])
            command_wins = command_wins or bool(entry.get("command_wins"))
    if "free" in by_command and "needs" not in by_command:
        return "free"
    if command_wins:  # a holder or a notebook: the image is only where the command runs
        by_image = set()
    return max(by_image | by_command, key=RANK.__getitem__, default="")


@pytest.mark.parametrize(
    ("image", "command", "tier"),
    [
        ("vllm/vllm-openai:v0.7.1", "", "unknown"),  # one engine process by default
        ("quay.io/ascend/vllm-ascend:v0.11.0rc1-a3", "", "unknown"),
        ("aibrix/vllm-mock:nightly", "", "free"),
        ("ghcr.io/vllm-project/semantic-router/extproc:latest", "", "free"),
        ("aibrix/sglang-router:v0.1.6", "", "free"),
        ("nvcr.io/nvidia/k8s/dcgm-exporter:4.5.3-4.8.2-distroless", "", "free"),
        ("nvcr.io/nvidia/k8s/cuda-sample:nbody", "nbody -benchmark", "free"),
        ("nvidia/samples:vectoradd-cuda11.2.1", "", "free"),  # the GPU Operator's older test pod (audit76a)
        ("example.org/nvidia-samples:1", "", ""),  # not the repository: no entry
        # NGC's entrypoint runs the command given: another program replaces the server (audit74a)
        ("nvcr.io/nvidia/tritonserver:26.07-vllm-python-py3", "", "needs"),
        ("nvcr.io/nvidia/tritonserver:26.07-vllm-python-py3", "--model-repository=/models", "needs"),
        ("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "python3 bench.py --engine /e", "unknown"),
        ("pytorch/torchserve:latest-gpu", "", "unknown"),
        ("ghcr.io/speaches-ai/speaches:latest-cuda", "", "free"),
        ("", "sh -c nvidia-smi; sleep 3600", "free"),
        ("", "torchrun --nproc_per_node=8 train.py", "needs"),
        ("", "python train.py --num-workers 4", "needs"),
        ("", "python train.py --num-workers 0", ""),
        ("nvcr.io/nvidia/tritonserver:26.07-py3", "tritonserver --model-repository=/models", "unknown"),
        ("ostris/aitoolkit:latest", "", "needs"),
        ("tensorflow/tensorflow:latest-gpu", "tensorboard --logdir=/app/logs --bind_all", "free"),
        ("ghcr.io/nvidia/k8s-samples:nvbandwidth-v0.7-8d103163", "", "unknown"),
        ("docker.io/yanwk/comfyui-boot:cu126-megapak", "env", "free"),
        (
            "ghcr.io/kubeflow/trainer/torchtune-trainer",
            "tune run --rdzv_endpoint=localhost:29500 full_finetune_distributed",
            "needs",
        ),
    ],
)
def test_patterns_sort_benchmark_examples_into_the_labelled_tier(
    need: dict, image: str, command: str, tier: str
) -> None:
    assert _tier_for(need, image, command) == tier


#: per entry family: an image and a command that match, and a near miss that must not
FAMILIES = [
    # NVIDIA NIM (LLM and retrieval): nvcr.io/nim only; a NIM-named image elsewhere is not the product
    ("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.0", "", "needs"),
    ("nvcr.io/nim/nvidia/nv-embedqa-e5-v5:1.5.0", "", "needs"),
    ("docker.io/acme/nim-proxy:1", "", ""),
    ("harbor.example.com:5000/nim/meta/llama-3.1-70b-instruct:1.8", "", "needs"),  # a mirror keeps nvcr's path
    ("harbor.example.com/nvidia/pytorch:24.01-py3", "", "unknown"),  # the NGC entry, matched through a mirror
    ("harbor.example.com/team/nvidia/pytorch-extra:1", "", ""),
    ("harbor.example.com/ultralytics/ultralytics:latest", "", "needs"),
    # TEI is free, TGI needs; the launcher's sharding settings need on any image
    ("ghcr.io/huggingface/text-embeddings-inference:cuda-1.8", "", "free"),
    ("", "text-embeddings-router --model-id BAAI/bge-m3", "free"),
    ("ghcr.io/huggingface/text-generation-inference:3.0", "", "needs"),
    ("", "myserver --num-shard 2", "needs"),
    ("", "myserver --sharded true", "needs"),
    ("", "myserver --num-shard 1", "unknown"),  # one shard, undecided (TGI's option name; the default tier too)
    # vLLM / SGLang / LMDeploy: one engine process is undecided; tensor, pipeline or data parallel > 1 needs
    ("public.ecr.aws/acme/vllm-openai:v0.8", "", "unknown"),
    ("", "python -m vllm.entrypoints.openai.api_server --model m", "unknown"),
    ("", "python -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 2", "needs"),
    ("", "vllm serve m -tp 4", "needs"),
    ("", "vllm serve m --pipeline-parallel-size 2", "needs"),
    ("", "vllm serve m --data-parallel-size 2", "needs"),
    ("", "vllm serve m -dp 8", "needs"),
    # nnU-Net training: its augmentation workers' torch tensors go through /dev/shm; v2's prediction too (its
    # preprocessing workers, audit79d), v1's is not read
    ("", "nnUNetv2_train 4 3d_fullres 0", "needs"),
    ("", "/opt/conda/bin/nnUNet_train 3d_fullres nnUNetTrainerV2 66 4", "needs"),
    ("", "nnUNetv2_predict -i in -o out -d 4 -c 3d_fullres", "needs"),
    ("", "nnUNetv2_predict_from_modelfolder -i in -o out -m model", "needs"),
    ("", "nnUNet_predict -i in -o out -t 4 -m 3d_fullres", ""),
    ("", "nnUNetv2_predict_custom -i in", ""),
    # MONAI Label: one NCCL process per visible GPU when its training task runs (its min_devices: 2 counted GPUs)
    ("", "monailabel start_server --app apps/radiology --studies /data", "needs"),
    ("", "monailabel apps --download --name radiology", ""),
    ("", "nnUNetv2_train_custom 4", ""),
    # TorchX's dist.ddp/dist.spmd under local_cwd: torchrun with -j's processes here (audit81c, TorchRec's launcher)
    ("", "torchx run -s local_cwd dist.ddp -j 1x4 --script dlrm_main.py", "needs"),
    ("", "torchx run --scheduler=local_cwd dist.ddp --script t.py", "needs"),  # dist.ddp's default -j is 1x2
    ("", "torchx run -s local_cwd dist.ddp -j 4 --script t.py", "needs"),  # a bare number is ddp's processes
    ("", "torchx run -s local_cwd dist.spmd -j 2:4x8 -m trainer", "needs"),
    ("", "torchx run -s local_cwd dist.ddp -j 2x1 --script t.py", ""),  # one process here
    ("", "torchx run -s local_cwd dist.spmd -j 2 --script t.py", ""),  # spmd's bare number counts hosts
    ("", "torchx run -s local_docker dist.ddp -j 1x4 --script t.py", ""),  # other containers
    ("", "torchx run dist.ddp -j 1x4 --script t.py", ""),  # the default scheduler is local_docker
    # LeRobot's trainer: four loader workers unless the command line says none (audit82d)
    ("", "lerobot-train --policy.type=act --dataset.repo_id=lerobot/aloha_sim", "needs"),
    ("", "python -m lerobot.scripts.train --policy.type=act", "needs"),
    ("", "python lerobot/scripts/lerobot_train.py --dataset.repo_id=x", "needs"),
    ("", "lerobot-train --policy.type=act --num_workers=0", ""),
    ("", "lerobot-train --help", "free"),  # the review: it prints its options and exits (a help run)
    ("", "pip install lerobot && lerobot-eval --policy.path=x", ""),
    # torchpack's dist-run: mpirun ranks on localhost unless a host list says otherwise (audit82c)
    ("", "torchpack dist-run -np 4 python tools/train.py configs/x.yaml", "needs"),
    ("", "torchpack dist-run -np 1 python tools/train.py", ""),
    ("", "torchpack dist-run -np 8 -H a:4,b:4 python tools/train.py", ""),
    ("", "torchpack dist-run -v -np 2 python tools/train.py", "needs"),
    ("", "vllm serve m --distributed-executor-backend mp", "needs"),
    # the ray executor alone: Ray actors, whose object store moves to /tmp on a small /dev/shm (audit80a)
    ("", "vllm serve m --distributed-executor-backend=ray", "unknown"),
    ("", "vllm serve m --distributed-executor-backend=ray --tensor-parallel-size 2", "needs"),
    ("", "vllm serve m --tensor-parallel-size 1 --data-parallel-size 1", "unknown"),
    ("", "vllm serve m --distributed-executor-backend uni", "unknown"),
    ("", "--model m --data-parallel-size 2", "needs"),  # a vLLM image's arguments: its entrypoint is not in them
    ("", "vllm serve m -dp=2", "needs"),
    ("", "vllm serve m -tp=2", "needs"),
    ("", "python3 convert_checkpoint.py --model_dir /m --tp_size 2", ""),  # TensorRT-LLM's converter: one process
    ("", "sglang serve --model-path m --tp 2", "needs"),
    ("", "lmdeploy serve api_server m --tp 2", "needs"),
    # a serving benchmark client in a server's image holds no model; the server in the same command still needs
    (
        "vllm/vllm-tpu:gemma4",
        "bash -c cd /b && python3 /b/utils/bench_serving/benchmark_serving.py --backend=vllm",
        "free",
    ),
    ("vllm/vllm-openai:v0.11.0", "vllm bench serve --model m --num-prompts 10", "free"),
    # a Ray Jobs client hands the job to a cluster elsewhere; starting Ray in the same command still needs
    ("rayproject/ray-ml:2.11.0-py311-cpu", "bash -c ray job submit --address http://h:8265 -- python t.py", "free"),
    ("rayproject/ray-ml:2.11.0", "ray start --head --object-store-memory 50000000000", "needs"),
    ("pytorch/pytorch:2.3.0", "bash -c ray job submit --address http://h:8265 -- python r.py ; python t.py", "unknown"),
    # a shell or a holder in a python-backend Triton image runs none of it by itself (issue 26's holders and shells)
    ("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "bash", "unknown"),
    ("nvcr.io/nvidia/tritonserver:25.08-vllm-python-py3", "bash -c trap : TERM INT; sleep infinity & wait", "unknown"),
    ("nvcr.io/nvidia/tritonserver:24.08-trtllm-python-py3", "", "needs"),  # with a terminal, its shell (test_tiers)
    ("nvcr.io/nvidia/tritonserver:24.08-py3", "bash", "unknown"),
    ("vllm/vllm-openai:v0.11.0", "vllm bench throughput --model m --tensor-parallel-size 2", "needs"),
    ("", "bash -c vllm serve m --tensor-parallel-size 2 & python benchmark_serving.py --model m", "needs"),
    ("acme/vllm-router:1", "", ""),
    ("", "sglang serve --model-path m", "unknown"),
    ("", "python3 -m sglang.launch_server --model-path m", "unknown"),
    ("docker.io/lmsysorg/sglang-router:1", "", "free"),  # a router, not the server
    ("ghcr.io/berriai/litellm:main-stable", "", "free"),  # a proxy in front of model APIs
    # PaddleOCR's VLM server on vLLM (its other backends are not vLLM)
    ("", "paddleocr genai_server --model_name PaddleOCR-VL-0.9B --host 0.0.0.0 --port 8118 --backend vllm", "unknown"),
    ("", "paddleocr genai_server --model_name PaddleOCR-VL-0.9B --backend fastdeploy", ""),
    ("ccr-2vdh3abv-pub.cnc.bj.baidubce.com/paddlepaddle/paddleocr-genai-vllm-server:latest", "", "unknown"),
    ("ghcr.io/berriai/litellm-database:main-v1.50", "", "free"),
    ("acme/litellm-gpu-fork:1", "", ""),
    # nccl-tests images (the entry counts only with two GPUs or more: shmlint.need)
    ("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9", "", "needs"),
    ("us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic:v1.1.1", "", "needs"),
    ("ghcr.io/acme/nccl-tests:cuda12", "", "needs"),
    ("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.9", "", ""),  # the receive daemon
    ("openmmlab/lmdeploy:latest", "", "unknown"),
    ("", "lmdeploy serve api_server internlm/internlm2-chat-7b", "unknown"),
    ("", "lmdeploy lite auto_awq m", ""),
    ("", "lmdeploy serve api_client http://localhost:23333", ""),  # a client of another container's server
    ("", "serve --tp 2", "needs"),
    ("", "serve --tp-size 8", "needs"),
    ("", "serve --tensor-parallel-size 16", "needs"),
    ("", "serve --pipeline-parallel-size 2", "needs"),
    ("", "serve --tp 1", ""),
    ("", "serve --tensor-parallel-size 1", ""),
    # Triton by backend
    ("nvcr.io/nvidia/tritonserver:25.01-trtllm-python-py3", "", "needs"),
    ("nvcr.io/nvidia/tritonserver:25.01-py3", "tritonserver --model-repository /m", "unknown"),
    ("nvcr.io/nvidia/tritonserver:25.01-py3-sdk", "perf_analyzer -m densenet", "free"),
    ("", "python3 scripts/launch_triton_server.py --world_size 2 --model_repo /m", "needs"),
    ("", "tritonserver --model-repository /m --backend-config=python,shm-region-prefix-name=prefix0_", "needs"),
    ("", "tritonserver --model-repository /m --backend-config=onnxruntime,default-max-batch-size=8", "unknown"),
    # Ollama, llama.cpp: one process
    ("ollama/ollama:0.5.4", "", "free"),
    ("", "ollama serve", "free"),
    ("ghcr.io/ggml-org/llama.cpp:server-cuda", "", "free"),
    ("", "llama-server -m /models/m.gguf -ngl 99", "free"),
    ("acme/llama.cpp-wrapper:1", "", ""),
    # diffusion UIs stay undecided, Whisper servers and vector databases are free
    ("universonic/stable-diffusion-webui:latest", "", "unknown"),
    ("onerahmet/openai-whisper-asr-webservice:latest-gpu", "", "free"),
    ("milvusdb/milvus:v2.4.0-gpu", "", "free"),
    ("qdrant/qdrant:gpu-nvidia-latest", "", "free"),
    ("cr.weaviate.io/semitechnologies/transformers-inference:baai-bge-small", "", "free"),
    ("acme/qdrant-loader:1", "", ""),
    # JAX, TensorFlow, PyTorch/XLA: undecided by name (the TPU rule decides on TPUs, see test_tiers)
    ("us-docker.pkg.dev/cloud-tpu-images/jax-ai-image/tpu:latest", "", "unknown"),
    ("ghcr.io/nvidia/jax:maxtext", "", "unknown"),
    ("tensorflow/tensorflow:2.17.0-gpu", "", "unknown"),
    ("us-central1-docker.pkg.dev/tpu-pytorch-releases/docker/xla:r2.5.0_3.10_tpuvm", "", "unknown"),
    ("acme/ajax-app:1", "", ""),
    # Megatron/NeMo/DeepSpeed, axolotl
    ("nvcr.io/nvidia/nemo:25.02", "", "unknown"),  # a toolbox, like NGC PyTorch: what runs in it decides
    ("nvcr.io/nvidia/nemo:25.02", "torchrun --nproc_per_node 8 pretrain.py", "needs"),
    # an image that holds DeepSpeed: its launcher's process count decides (one process has no NCCL peer)
    ("deepspeed/deepspeed:v072_torch112_cu117", "", "unknown"),
    ("tweldoncw/microsoft-bloom-deepspeed-inference-fp16:7", "", "unknown"),
    ("ghcr.io/kubeflow/trainer/deepspeed-runtime", "", "unknown"),
    ("acme/app:1", "deepspeed --num_gpus 8 train.py", "needs"),
    ("acme/app:1", "deepspeed --num_gpus 1 train.py", "unknown"),
    # the name is the image's own (its last path part), not its registry namespace: DeepSpeed's CI build image
    ("deepspeed/gh-builder:ubuntu1804-py38-torch1131-cu116", "", ""),
    ("nvcr.io/nvidia/nemo-retriever:1", "", ""),
    ("axolotlai/axolotl:main-latest", "", "needs"),
    # sd-scripts' loader option, set above zero, whatever the trainer is called (audit75d: train_network.py, musubi)
    ("", "accelerate launch train_network.py --max_data_loader_n_workers 4 --persistent_data_loader_workers", "needs"),
    ("", "python wan_train_network.py --max_data_loader_n_workers=2", "needs"),
    ("", "python train_network.py --max_data_loader_n_workers 0", ""),
    ("", "python train_network.py --dataset_config d.toml", ""),
    # verl: its install guide sizes every container's /dev/shm; its trainer module, not its other tools
    ("whatcanyousee/verl:ngc-cu124-vllm0.8.4-sglang0.4.5-mcore0.12.0-te2.2", "", "needs"),
    ("verlai/verl:app-verl0.5-vllm0.9.1", "sleep infinity", "unknown"),
    ("", "python3 -m verl.trainer.main_ppo data.train_files=t.parquet trainer.n_gpus_per_node=4", "needs"),
    ("", "python3 -m verl.model_merger merge --backend fsdp", ""),
    # NeMo RL: its Ray workers on two GPUs or more of the node (audit72b); one GPU is the config's to say
    ("", "uv run python examples/run_grpo_math.py cluster.gpus_per_node=2", "needs"),
    ("", "uv run python examples/run_sft.py --config c.yaml cluster.num_nodes=1 cluster.gpus_per_node=8", "needs"),
    ("", "uv run python examples/run_grpo_math.py cluster.gpus_per_node=1", ""),
    ("", "uv run python examples/run_grpo_math.py ++cluster.gpus_per_node=4", "needs"),  # Hydra's override
    ("", "python run_train.py cluster.gpus_per_node=4", ""),
    ("", "accelerate launch -m axolotl.cli.train config.yml", "needs"),
    ("", "axolotl train config.yml", "needs"),
    ("", "axolotl inference config.yml", ""),
    # ultralytics (workers default 8), detectron2 (NUM_WORKERS 4), OpenMMLab launchers
    ("ultralytics/ultralytics:latest", "", "needs"),
    ("", "yolo detect train data=coco8.yaml model=yolo11n.pt", "needs"),
    ("", "yolo train data=coco8.yaml workers=0", ""),
    ("", "yolo predict model=yolo11n.pt", ""),
    ("", "python tools/train_net.py --config-file c.yaml --num-gpus 8", "needs"),
    ("", "python tools/train_net.py --config-file c.yaml DATALOADER.NUM_WORKERS 0", ""),
    ("", "bash tools/dist_train.sh configs/rtmdet.py 8", "needs"),
    ("", "mim train mmdet configs/rtmdet.py", "needs"),
    ("", "python tools/test.py configs/rtmdet.py ckpt.pth", ""),
    ("", "python3 entrypoints/launch.py --model_path /m --world_size 4", "needs"),  # xDiT
    ("", "python3 entrypoints/launch.py --model_path /m --world_size 1", ""),
    # DataLoader workers as a Trainer setting
    ("", "python train.py --dataloader_num_workers 4", "needs"),
    ("", "python train.py --dataloader_num_workers 0", ""),
    # Jupyter and holders: what the command runs, whatever the image
    ("quay.io/jupyter/pytorch-notebook:cuda12-latest", "", "unknown"),
    ("quay.io/jupyter/scipy-notebook:latest", "start-notebook.py --IdentityProvider.token=", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "jupyter lab --ip 0.0.0.0", "unknown"),
    # NGC PyTorch: what runs in it decides (a notebook, a shell: undecided; several local processes: needs)
    ("nvcr.io/nvidia/pytorch:24.01-py3", "jupyter lab --ip 0.0.0.0", "unknown"),
    ("nvcr.io/nvidia/pytorch:24.01-py3", "bash", "unknown"),
    ("nvcr.io/nvidia/pytorch:24.01-py3", "torchrun --nproc_per_node=8 train.py", "needs"),
    ("vllm/vllm-openai:v0.7.1", "sleep infinity", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "sh -c sleep 86400", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "tail -f /dev/null", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "/bin/bash", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "/bin/sh -c sleep infinity", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "bash -c while true; do sleep 30; done", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "/bin/bash -c trap : TERM INT; sleep infinity & wait", "unknown"),
    # a Kubernetes command with bash's end of options, and the wait's ``;`` (a Ray image held for exec)
    ("rayproject/ray-ml:2.40.0-py311", "/bin/bash -c -- trap : TERM INT; sleep infinity & wait;", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "/bin/sh -c -- sleep infinity", "unknown"),
    ("vllm/vllm-openai:v0.7.1", "/bin/sh -c -- vllm serve m -tp 2", "needs"),
    (
        "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3",
        "bash -c while true; do python poll.py; sleep 30; done",
        "unknown",  # a program of its own in place of the server: what poll.py does decides
    ),
    ("vllm/vllm-openai:v0.7.1", "bash -lc vllm serve m -tp 2", "needs"),
    ("nvcr.io/nvidia/pytorch:24.01-py3", "/bin/sh -c nvidia-smi", "free"),
    # TensorBoard as the program, not a trainer's option value (``--report_to tensorboard`` made a trainer free)
    ("", "tensorboard --logdir /runs", "free"),
    ("", "/usr/local/bin/tensorboard --logdir /runs --bind_all", "free"),
    ("", "sh -c tensorboard --logdir /runs", "free"),
    ("", "pip install tensorboard && tensorboard --logdir x", "free"),
    ("", "sh -c exec tensorboard --logdir /runs", "free"),
    ("", "bash -lc tensorboard --logdir /runs", "free"),
    ("", "env TF_CPP_MIN_LOG_LEVEL=3 tensorboard --logdir /runs", "free"),
    ("", "nohup tensorboard --logdir /runs", "free"),
    ("", "cd /x\ntensorboard --logdir /runs", "free"),
    ("", "pip install tensorboard", ""),
    ("nvcr.io/nvidia/pytorch:24.01-py3", "bash -c nvidia-smi; sleep 10", "free"),
    ("", "accelerate launch --num_processes 2 train.py --report_to tensorboard", "needs"),
    ("", "python train.py --logging_dir /out/tensorboard --report_to tensorboard", ""),
    ("vllm/vllm-openai:v0.7.1", "sh -c sleep 10 && vllm serve m -tp 2", "needs"),
    ("vllm/vllm-openai:v0.7.1", "bash -c python -m vllm.entrypoints.openai.api_server -tp 2", "needs"),
]


@pytest.mark.parametrize(("image", "command", "tier"), FAMILIES)
def test_entry_families_match_their_examples_and_not_near_misses(
    need: dict, image: str, command: str, tier: str
) -> None:
    assert _tier_for(need, image, command) == tier


def test_kserve_runtimes_are_unique_and_sizes_are_quantities(need: dict) -> None:
    runtimes = need["kserve_runtimes"]["runtimes"]
    names = [runtime["name"] for runtime in runtimes]
    assert len(names) == len(set(names))
    assert _source_ok(need["kserve_runtimes"]["source"])
    for runtime in runtimes:
        shm = runtime["dev_shm"]
        if shm is not None:
            assert shm["medium"] == "Memory"
            assert shm["size_limit"] is None or re.fullmatch(r"[0-9]+(Ki|Mi|Gi|Ti)", shm["size_limit"])
    assert {r["name"] for r in runtimes if r["dev_shm"]} == {
        "kserve-huggingfaceserver",
        "kserve-huggingfaceserver-multinode",
        "kserve-vllmserver",
    }


def test_operators_cite_their_code(need: dict) -> None:
    for operator in need["operators"]:
        assert operator["kinds"] and _source_ok(operator["source"]), operator["id"]


def test_benchmark_repositories_are_pinned_and_not_held_out() -> None:
    repos = tomllib.loads((BENCH / "repos.toml").read_text(encoding="utf-8"))["repo"]
    assert len(repos) >= 10
    for repo in repos:
        assert re.fullmatch(r"[0-9a-f]{40}", repo["commit"]), repo["name"]
        assert repo["name"].lower() not in HELD_OUT, repo["name"]
    assert len({repo["name"] for repo in repos}) == len(repos)


def test_labels_are_complete_unique_and_name_benchmarked_repositories(bench: ModuleType) -> None:
    names = {repo.name for repo in bench.read_repos(BENCH / "repos.toml")}
    labels = bench.read_labels(BENCH / "labels.toml")
    keys = [(label.repo, label.path, label.workload, label.line) for label in labels]
    assert len(keys) == len(set(keys))
    assert {label.repo for label in labels} <= names
    assert {label.label for label in labels} == {"crash", "no-risk", "unknown"}


def test_repo_limits_files_to_deployment_files_under_its_paths(bench: ModuleType) -> None:
    repo = bench.Repo("o/n", "0" * 40, ("docs", "README.md"), ("docs/archived",))
    assert repo.wants("docs/run.md") and repo.wants("README.md") and repo.wants("docs/k8s/Dockerfile.gpu")
    assert not repo.wants("docs/archived/old.yaml")
    assert not repo.wants("docs/main.py")
    assert not repo.wants("src/deploy.yaml")
    assert not repo.wants("docsextra/a.yaml")


def test_score_counts_tiers_and_recall_from_labels(bench: ModuleType) -> None:
    crash = bench.Label("o/n", "a.yaml", "Pod/a", 3, "crash", "vLLM")
    quiet = bench.Label("o/n", "b.yaml", "Pod/b", 3, "no-risk", "exporter")
    missed = bench.Label("o/n", "c.yaml", "Pod/c", 3, "crash", "torchrun")
    findings = [
        bench.Finding("o/n", "a.yaml", "Pod/a", 4, "error", ""),
        bench.Finding("o/n", "b.yaml", "Pod/b", 3, "warning", ""),
        bench.Finding("o/n", "d.yaml", "Pod/d", 1, "error", ""),
    ]
    matched, unlabelled = bench.match(findings, [crash, quiet, missed])
    assert [f.path for f in unlabelled] == ["d.yaml"]
    result = bench.score(matched, [crash, quiet, missed])
    assert result["error"]["precision"] == 1.0
    assert result["warning"]["precision"] == 0.0
    assert result["recall"]["as_error"] == 0.5
    assert result["recall"]["missed"] == ["o/n: c.yaml:3 Pod/c"]
    assert result["no_risk_silenced"] == 0.0


def test_benchmark_has_no_unlabelled_findings_or_stale_labels(tmp_path: Path) -> None:
    # the targets: an SHM001 error is a crash, and every labelled crash is an error
    result = run_precision_benchmark("run.py", tmp_path, timeout=600)["shm001"]
    assert result["error"]["precision"] >= 0.95 and result["recall"]["as_error"] >= 0.95, result
    assert result["recall"]["as_error_or_warning"] == 1.0, result["recall"]["missed"]


POD = """apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: main
      image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime
      command: ["torchrun", "--nproc_per_node=2", "train.py"]
      resources:
        limits:
          nvidia.com/gpu: 2
"""


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_clone_mode_fetches_only_deployment_files_and_demands_labels(tmp_path: Path) -> None:
    """The default path (a blob-less clone of the pinned commit) end to end, against a local remote."""
    work = tmp_path / "work"
    (work / "k8s").mkdir(parents=True)
    (work / "k8s" / "pod.yaml").write_text(POD, encoding="utf-8")
    (work / "train.py").write_text("import torch\n", encoding="utf-8")
    _git("init", "-q", cwd=work)
    _git("add", ".", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "pod", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work)
    remote = tmp_path / "remote" / "o"
    remote.mkdir(parents=True)
    _git("clone", "-q", "--bare", str(work), str(remote / "n.git"), cwd=tmp_path)
    _git("config", "uploadpack.allowFilter", "true", cwd=remote / "n.git")
    _git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=remote / "n.git")
    repos = tmp_path / "repos.toml"
    repos.write_text(f'[[repo]]\nname = "o/n"\ncommit = "{commit}"\npaths = ["k8s"]\n', encoding="utf-8")
    labels = tmp_path / "labels.toml"
    labels.write_text("", encoding="utf-8")
    command = [sys.executable, str(BENCH / "run.py"), "--repos", str(repos), "--labels", str(labels)]
    command += ["--cache", str(tmp_path / "cache"), "--remote-base", (tmp_path / "remote").as_uri()]

    first = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert first.returncode == 1, first.stderr
    unlabelled = json.loads(first.stdout)["unlabelled"]
    assert len(unlabelled) == 1 and unlabelled[0].startswith("o/n: k8s/pod.yaml:")
    tree = next((tmp_path / "cache" / "trees").iterdir())
    outside_git = [p for p in tree.rglob("*") if p.is_file() and ".git" not in p.relative_to(tree).parts]
    assert sorted(p.name for p in outside_git) == [".complete", "pod.yaml"]
    listed = _git("ls-files", cwd=tree).split()  # the index a clone has: every tracked file, fetched or not
    assert listed == ["k8s/pod.yaml", "train.py"]

    workload = unlabelled[0].split("] ", 1)[1]
    line = int(unlabelled[0].split(" ", 2)[1].rsplit(":", 1)[1])
    labels.write_text(
        f'[[label]]\nrepo = "o/n"\npath = "k8s/pod.yaml"\nworkload = {json.dumps(workload)}\nline = {line}\n'
        'label = "crash"\nreason = "torchrun on 2 GPUs"\n',
        encoding="utf-8",
    )
    second = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert second.returncode == 0, second.stderr
    scored = json.loads(second.stdout)["shm001"]
    assert scored["error"]["precision"] == 1.0 and scored["recall"]["as_error"] == 1.0
