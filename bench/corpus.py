"""A deterministic mixed corpus: Kubernetes multi-document files, compose files, shell scripts, Markdown, Terraform
and Python modules, and (one file in 25 each) dev containers, GitHub Actions job containers, Jenkinsfiles and GitLab
runner configurations, and ECS task definitions or Azure ML jobs.

About 10% of the files hold a GPU/torch workload, half of those without a sized /dev/shm; the rest look like the
ordinary services a monorepo is full of. The same seed always gives the same bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels:
    app: {name}
    team: {team}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
        - name: {name}
          image: {image}
          ports:
            - containerPort: {port}
          env:
            - name: LOG_LEVEL
              value: info
            - name: REGION
              value: eu-west-{replicas}
          resources:
            requests:
              cpu: 250m
              memory: 256Mi
            limits:
{limits}
          readinessProbe:
            httpGet:
              path: /healthz
              port: {port}
{mounts}{volumes}---
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector:
    app: {name}
  ports:
    - port: 80
      targetPort: {port}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}-config
data:
  settings.yaml: |
    feature_flags: [a, b, c]
    timeout_seconds: {port}
"""
SHM_MOUNTS = """          volumeMounts:
            - name: dshm
              mountPath: /dev/shm
"""
SHM_VOLUMES = """      volumes:
        - name: dshm
          emptyDir:
            medium: Memory
            sizeLimit: 8Gi
"""
COMPOSE = """services:
  {name}:
    image: {image}
    restart: unless-stopped
    ports:
      - "{port}:{port}"
    environment:
      - LOG_LEVEL=info
{extra}  cache:
    image: redis:7
    volumes:
      - cache-data:/data
volumes:
  cache-data: {{}}
"""
SHELL = """#!/usr/bin/env bash
set -euo pipefail
# deploy helper for {name}
IMAGE="{image}"
echo "starting {name}"
docker pull "$IMAGE"
docker run -d --rm --name {name} -p {port}:{port} {flags}"$IMAGE" {command}
docker logs -f {name} | tee /tmp/{name}.log
"""
MARKDOWN = """# {name}

Run the service locally:

```bash
docker run --rm -p {port}:{port} {flags}{image} {command}
```

Then open http://localhost:{port}/ and check the logs. Configuration lives in `config/{name}.yaml`.

| option | default |
| --- | --- |
| port | {port} |
| replicas | 2 |
"""

TERRAFORM = """resource "kubernetes_deployment_v1" "{name}" {{
  metadata {{
    name = "{name}"
  }}
  spec {{
    template {{
      metadata {{}}
      spec {{
        container {{
          name  = "{name}"
          image = "{image}"
          resources {{
            limits = {{
              memory = "16Gi"
{gpu}            }}
          }}
{mount}        }}
{volume}      }}
    }}
  }}
}}
"""
TF_GPU = '              "nvidia.com/gpu" = 1\n'
TF_MOUNT = (
    '          volume_mount {\n            mount_path = "/dev/shm"\n            name       = "dshm"\n          }\n'
)
TF_VOLUME = (
    '        volume {\n          name = "dshm"\n          empty_dir {\n            medium     = "Memory"\n'
    '            size_limit = "8Gi"\n          }\n        }\n'
)
FLOW = """from metaflow import FlowSpec, kubernetes, step


class {cls}(FlowSpec):
    @kubernetes(image="{image}", gpu=1{shm})
    @step
    def start(self):
        self.next(self.end)

    @step
    def end(self):
        pass
"""
MODULE = """\"\"\"Helpers for {name}.\"\"\"

import json
from pathlib import Path

PORT = {port}


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def url(host: str) -> str:
    return f"http://{{host}}:{{PORT}}/"
"""

PLAIN_IMAGES = ("nginx:1.27", "redis:7", "postgres:16", "ghcr.io/acme/api:1.4.2", "python:3.12-slim", "node:22")
TORCH_IMAGES = (
    "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime",
    "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3",  # needs /dev/shm by its image alone
    "nvcr.io/nvidia/pytorch:24.05-py3",
)


# -- containers started by dev containers, CI jobs and GitLab runners (issue 16): one file in 25 ------------------
DEVCONTAINER = """{{
  // dev container for {name}
  "name": "{name}",
  "image": "{image}",
  "runArgs": [{args}],
  "customizations": {{ "vscode": {{ "extensions": ["ms-python.python"] }} }},
}}
"""
WORKFLOW = """name: {name}
on: [push]
jobs:
  test:
    runs-on: [self-hosted, linux]
    container:
      image: {image}
      options: --init {flags}
    steps:
      - uses: actions/checkout@v4
      - run: python -m pytest
"""
JENKINSFILE = """pipeline {{
    agent {{
        docker {{
            image '{image}'
            args '--init {flags}'
        }}
    }}
    stages {{
        stage('test') {{ steps {{ sh 'python -m pytest' }} }}
    }}
}}
"""
RUNNER = """concurrent = 4

[[runners]]
  name = "{name}"
  executor = "docker"
  [runners.docker]
    image = "{image}"
{settings}"""


def _job_container_file(index: int, gpu: bool, sized: bool, image: str) -> tuple[str, str]:
    name = f"svc-{index:05d}"
    flags = ("--gpus all " if gpu else "") + ("--shm-size=8g" if sized else "")
    kind = index // 25 % 4
    if kind == 0:
        args = ", ".join(f'"{flag}"' for flag in ["--init", *flags.split()])
        return f"dev/{name}/.devcontainer/devcontainer.json", DEVCONTAINER.format(name=name, image=image, args=args)
    if kind == 1:
        return f"ci/{name}/.github/workflows/test.yml", WORKFLOW.format(name=name, image=image, flags=flags)
    if kind == 2:
        return f"ci/{name}/Jenkinsfile", JENKINSFILE.format(image=image, flags=flags)
    settings = ('    gpus = "all"\n' if gpu else "") + ("    shm_size = 8589934592\n" if sized else "")
    return f"runners/{name}/config.toml", RUNNER.format(name=name, image=image, settings=settings)


def _file(rng: random.Random, index: int) -> tuple[str, str]:
    relative, text, gpu, sized, image = _service_file(rng, index)
    if index % 25 == 24 and index % 40 != 39:  # after the draws, so every other file stays what it was
        return _job_container_file(index, gpu, sized, image)
    return relative, text


def _service_file(rng: random.Random, index: int) -> tuple[str, str, bool, bool, str]:
    kind = rng.choice(("k8s", "k8s", "k8s", "compose", "shell", "markdown"))
    gpu = rng.random() < 0.10
    sized = gpu and rng.random() < 0.5
    name = f"svc-{index:05d}"
    image = rng.choice(TORCH_IMAGES if gpu else PLAIN_IMAGES)
    port = 8000 + index % 1000
    if index % 40 == 39:  # one file in 40 of the kinds issue 16 added (the random draws above stay the same)
        relative, text = _documentation_or_unit(index, name, image, port, gpu, sized)
        return relative, text, gpu, sized, image
    if kind == "k8s":
        limits = "              memory: 16Gi\n" + ("              nvidia.com/gpu: 1\n" if gpu else "")
        text = DEPLOYMENT.format(
            name=name,
            team=f"team-{index % 17}",
            replicas=1 + index % 3,
            image=image,
            port=port,
            limits=limits,
            mounts=SHM_MOUNTS if sized else "",
            volumes=SHM_VOLUMES if sized else "",
        )
        return f"k8s/{name[-2:]}/{name}.yaml", text, gpu, sized, image
    if kind == "compose":
        extra = ""
        if gpu:
            extra = "    deploy:\n      resources:\n        reservations:\n          devices:\n            - capabilities: [gpu]\n"
            extra += '    shm_size: "8gb"\n' if sized else ""
        compose = COMPOSE.format(name=name, image=image, port=port, extra=extra)
        return f"compose/{name}/compose.yaml", compose, gpu, sized, image
    if kind == "shell" and index % 3 == 0:  # issue 17: every third script slot is a Terraform file instead
        gpu_line, mount, volume = (TF_GPU if gpu else ""), (TF_MOUNT if sized else ""), (TF_VOLUME if sized else "")
        text = TERRAFORM.format(name=name, image=image, gpu=gpu_line, mount=mount, volume=volume)
        return f"infra/{name}.tf", text, gpu, sized, image
    if kind == "markdown" and index % 3 == 0:  # and every third Markdown slot a Python module, mostly ordinary
        if gpu:
            shm = ", shared_memory=8192" if sized else ""
            flow = FLOW.format(cls=f"Flow{index}", image=image, shm=shm)
            return f"flows/{name}.py", flow, gpu, sized, image
        module = MODULE.format(name=name, port=port)
        return f"src/{name.replace('-', '_')}.py", module, gpu, sized, image
    flags = ("--gpus all " if gpu else "") + ("--shm-size=8g " if sized else "")
    command = "python -m app.serve" if gpu else "serve"
    if kind == "shell":
        script = SHELL.format(name=name, image=image, port=port, flags=flags, command=command)
        return f"scripts/{name}.sh", script, gpu, sized, image
    markdown = MARKDOWN.format(name=name, image=image, port=port, flags=flags, command=command)
    return f"docs/{name}.md", markdown, gpu, sized, image


RST = """{name}
{underline}

.. code-block:: yaml

   apiVersion: v1
   kind: Pod
   metadata:
     name: {name}
   spec:
     containers:
     - name: main
       image: {image}
       resources:
         limits:
{limits}{mounts}
"""
RAY = """cluster_name: {name}
provider:
  type: aws
  region: us-west-2
docker:
  image: {image}
  container_name: ray_container
{docker}available_node_types:
  worker:
    resources: {{"CPU": 8{gpus}}}
    node_config: {{InstanceType: m5.2xlarge}}
head_node_type: worker
"""
QUADLET = """[Unit]
Description={name}

[Container]
Image={image}
PublishPort={port}:{port}
{container}
[Install]
WantedBy=default.target
"""
UNIT = """[Unit]
Description={name}
After=docker.service

[Service]
ExecStart=/usr/bin/docker run --rm -p {port}:{port} {flags}{image} serve
Restart=always
"""


def _documentation_or_unit(index: int, name: str, image: str, port: int, gpu: bool, sized: bool) -> tuple[str, str]:
    """reStructuredText with a YAML block, Ray cluster YAML, a Quadlet unit or a systemd unit, in turn."""
    turn = index // 40 % 4
    if turn == 0:
        limits = "             memory: 16Gi\n" + ("             nvidia.com/gpu: 1\n" if gpu else "")
        mounts = (
            "       volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n     volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}]\n"
            if sized
            else ""
        )
        text = RST.format(name=name, underline="=" * len(name), image=image, limits=limits, mounts=mounts)
        return f"docs/{name}.rst", text
    if turn == 1:
        docker = "  disable_shm_size_detection: true\n" + ('  run_options: ["--shm-size=8g"]\n' if sized else "")
        return f"ray/{name}.yaml", RAY.format(name=name, image=image, docker=docker, gpus=', "GPU": 1' if gpu else "")
    if turn == 2:
        container = ("AddDevice=nvidia.com/gpu=all\n" if gpu else "") + ("ShmSize=8g\n" if sized else "")
        return f"quadlet/{name}.container", QUADLET.format(name=name, image=image, port=port, container=container)
    flags = ("--gpus all " if gpu else "") + ("--shm-size=8g " if sized else "")
    return f"systemd/{name}.service", UNIT.format(name=name, image=image, port=port, flags=flags)


ECS_TASK = """{{
  "family": "{name}",
  "requiresCompatibilities": ["EC2"],
  "containerDefinitions": [
    {{
      "name": "{name}",
      "image": "{image}",
      "memory": 16384,
      "portMappings": [{{"containerPort": {port}}}]{extra}
    }}
  ]
}}
"""
AZUREML_JOB = """$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json
code: src
command: python -m {name}.train
environment: {environment}
compute: azureml:{compute}
resources:
  instance_count: 1
"""
#: one file in CLOUD_EVERY is a cloud definition (an ECS task or an Azure ML job, in turn) drawn from its own random
#: stream: the count stays as asked and every other file stays byte-identical whatever is added here
CLOUD_EVERY = 25


def _cloud_file(index: int, seed: int) -> tuple[str, str]:
    rng = random.Random(seed * 100_003 + index)
    gpu = rng.random() < 0.10
    sized = gpu and rng.random() < 0.5
    name = f"job-{index:05d}"
    if (index // CLOUD_EVERY) % 2 == 0:
        extra = ',\n      "resourceRequirements": [{"type": "GPU", "value": "1"}]' if gpu else ""
        extra += ',\n      "linuxParameters": {"sharedMemorySize": 8192}' if sized else ""
        image = rng.choice(TORCH_IMAGES if gpu else PLAIN_IMAGES)
        return f"ecs/{name}.json", ECS_TASK.format(name=name, image=image, port=8000 + index % 1000, extra=extra)
    environment = "azureml:AzureML-acpt-pytorch-2.2-cuda12.1@latest" if gpu else "azureml:AzureML-sklearn-1.5@latest"
    compute = "gpu-cluster" if gpu else "cpu-cluster"
    return f"azureml/{name}.yml", AZUREML_JOB.format(name=name, environment=environment, compute=compute)


def generate(root: Path, count: int, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    written = []
    for index in range(count):
        relative, text = _file(rng, index)  # always drawn, so the other files stay the same bytes
        if index % CLOUD_EVERY == CLOUD_EVERY // 2:  # a slot the job containers do not take
            relative, text = _cloud_file(index, seed)
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def flagged_k8s(root: Path, count: int) -> list[Path]:
    """``count`` Kubernetes files that each need a fix (for the fix benchmark)."""
    written = []
    for index in range(count):
        text = DEPLOYMENT.format(
            name=f"gpu-{index:05d}",
            team="ml",
            replicas=1,
            image=TORCH_IMAGES[index % 3],
            port=9000,
            limits="              memory: 32Gi\n              nvidia.com/gpu: 1\n",
            mounts="",
            volumes="",
        )
        path = root / f"gpu-{index:05d}.yaml"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
