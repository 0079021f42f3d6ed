"""Real policy engines for the generated admission policies, and the pods of the fixtures as the API server would
hand them to admission.

CEL: ``common-expression-language`` (the Rust ``cel`` crate; its ``matches`` is the ``regex`` crate, RE2 syntax),
with the Kubernetes CEL library functions the policies call provided here (``K8S_FUNCTIONS``, each tested in
tests/test_policy.py against Kubernetes' documented examples). Kubernetes' typed ``Object`` constructors of an
apply configuration become map literals (``untyped``). Rego: ``regorus`` (Microsoft's Rego interpreter, Python
bindings published as ``hobofan-regorus``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cel
import hobofan_regorus as regorus
import yaml

from shmlint.sizes import parse_kubernetes


def _quantity(text: str) -> dict[str, str]:
    """What ``quantity()`` returns: a map no CEL arithmetic accepts (as Kubernetes' Quantity type refuses it),
    holding the exact value as a fraction, read through its methods only."""
    parsed = parse_kubernetes(text)
    if parsed.bytes is None and parsed.error:
        raise ValueError(f"quantity({text!r}): {parsed.error}")
    return {"quantity": str(_exact(text))}


_SUFFIXES = {
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
    "n": 10**-9,
    "u": 10**-6,
    "m": 10**-3,
    "": 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|)$")


def _exact(text: str) -> Any:
    """The quantity's value as an exact fraction (Kubernetes keeps it exact: 1.5Gi is a whole number of bytes)."""
    from fractions import Fraction

    match = _QUANTITY.match(text)
    if match is None:
        raise ValueError(f"quantity({text!r}): not a quantity")
    number, suffix = match.groups()
    if suffix[:1] in ("e", "E"):
        return Fraction(number) * Fraction(10) ** int(suffix[1:])
    return Fraction(number) * Fraction(_SUFFIXES[suffix])


def _is_integer(value: dict[str, str]) -> bool:
    from fractions import Fraction

    exact = Fraction(value["quantity"])
    return exact.denominator == 1 and abs(exact) < 2**63


def _as_integer(value: dict[str, str]) -> int:
    from fractions import Fraction

    if not _is_integer(value):
        raise ValueError("asInteger: the quantity is not an integer or overflows int64")
    return int(Fraction(value["quantity"]))


def _join(items: list[str], separator: str = "") -> str:
    return separator.join(items)


def _split(text: str, separator: str) -> list[str]:
    return text.split(separator) if separator else list(text)


def _last_index_of(text: str, sub: str) -> int:
    return text.rfind(sub) if sub else len(text)


def _substring(text: str, start: int, end: int | None = None) -> str:
    end = len(text) if end is None else end
    if not 0 <= start <= end <= len(text):
        raise IndexError(f"substring({start}, {end}) out of range for a string of {len(text)}")
    return text[start:end]


def _sum(items: list[int]) -> int:
    return sum(items)


#: the Kubernetes CEL library functions the generated policies use (strings ext, lists, quantity)
K8S_FUNCTIONS = {
    "join": _join,
    "split": _split,
    "lastIndexOf": _last_index_of,
    "substring": _substring,
    "sum": _sum,
    "quantity": _quantity,
    "isInteger": _is_integer,
    "asInteger": _as_integer,
}


class CelPolicy:
    """Variables evaluated in order, as the API server does, then any expression over ``object`` and them."""

    def __init__(self, variables: list[dict[str, str]]) -> None:
        self.variables = [(v["name"], cel.compile(v["expression"])) for v in variables]
        self.compiled: dict[str, Any] = {}

    def bind(self, pod: dict[str, Any]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name, program in self.variables:
            values[name] = program.execute(
                cel.Context(variables={"object": pod, "variables": values}, functions=K8S_FUNCTIONS)
            )
        return values

    def evaluate(self, expression: str, pod: dict[str, Any], values: dict[str, Any]) -> Any:
        if expression not in self.compiled:
            self.compiled[expression] = cel.compile(expression)
        return self.compiled[expression].execute(
            cel.Context(variables={"object": pod, "variables": values}, functions=K8S_FUNCTIONS)
        )


_CONSTRUCTOR = re.compile(r"Object(?:\.\w+)*\{")
_FIELD = re.compile(r"([{,]\s*)([A-Za-z_]\w*): ")


def untyped(expression: str) -> str:
    """An apply configuration with Kubernetes' typed ``Object`` constructors written as map literals."""
    constructors = len(_CONSTRUCTOR.findall(expression))
    text = _CONSTRUCTOR.sub("{", expression)
    text, fields = _FIELD.subn(lambda m: f"{m.group(1)}'{m.group(2)}': ", text)
    assert constructors and fields, expression
    return text


_KEYS = {"volumes": "name", "containers": "name", "initContainers": "name", "volumeMounts": "mountPath"}


def server_side_apply(target: Any, patch: Any, key: str | None = None) -> Any:
    """Merge an apply configuration as server-side apply does for the fields a mutation sets: maps field by field,
    the pod's keyed lists item by item (containers and volumes by name, mounts by mountPath)."""
    if isinstance(patch, dict) and isinstance(target, dict):
        merged = dict(target)
        for field, value in patch.items():
            merged[field] = server_side_apply(target.get(field), value, field)
        return merged
    if isinstance(patch, list) and key in _KEYS:
        merged_list = [dict(item) for item in (target or [])]
        for item in patch:
            index = next((i for i, old in enumerate(merged_list) if old.get(_KEYS[key]) == item[_KEYS[key]]), None)
            if index is None:
                merged_list.append(item)
            else:
                merged_list[index] = server_side_apply(merged_list[index], item)
        return merged_list
    return patch


class RegoPolicy:
    def __init__(self, module: str) -> None:
        self.engine = regorus.Engine()
        self.engine.add_policy("template.rego", module)

    def query(self, pod: dict[str, Any], query: str) -> Any:
        self.engine.set_input_json(json.dumps({"review": {"object": pod, "operation": "CREATE"}, "parameters": {}}))
        result = json.loads(self.engine.eval_query_as_json(query))
        expressions = result["result"][0]["expressions"] if result["result"] else [{"value": None}]
        return expressions[0]["value"]


# -- the fixtures' pods ---------------------------------------------------------------------------------------


def _strings(value: Any) -> list[str] | None:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else None


def _named(items: Any, *required: str) -> list[dict[str, Any]]:
    return [
        item for item in items or () if isinstance(item, dict) and all(isinstance(item.get(k), str) for k in required)
    ]


def _container(raw: dict[str, Any]) -> dict[str, Any]:
    """A container as the API server stores it: strings where the API has strings, malformed entries (which the
    server refuses) left out."""
    container: dict[str, Any] = {"name": raw["name"]}
    if isinstance(raw.get("image"), str):
        container["image"] = raw["image"]
    for key in ("command", "args"):
        if (words := _strings(raw.get(key))) is not None:
            container[key] = words
    env = []
    for entry in _named(raw.get("env"), "name"):
        env.append(
            {"name": entry["name"], **({"value": entry["value"]} if isinstance(entry.get("value"), str) else {})}
        )
    if env:
        container["env"] = env
    resources = raw.get("resources")
    if isinstance(resources, dict):
        sections = {
            section: {k: v for k, v in values.items() if isinstance(v, str)}
            for section in ("limits", "requests")
            if isinstance(values := resources.get(section), dict)
        }
        if sections:
            container["resources"] = sections
    mounts = [
        {"name": m["name"], "mountPath": m["mountPath"]} for m in _named(raw.get("volumeMounts"), "name", "mountPath")
    ]
    if mounts:
        container["volumeMounts"] = mounts
    return container


def _volume(raw: dict[str, Any]) -> dict[str, Any] | None:
    volume: dict[str, Any] = {"name": raw["name"]}
    if isinstance(raw.get("emptyDir"), dict) or "emptyDir" in raw:
        empty = raw.get("emptyDir") if isinstance(raw.get("emptyDir"), dict) else {}
        volume["emptyDir"] = {k: v for k, v in empty.items() if k in ("medium", "sizeLimit") and isinstance(v, str)}
    elif isinstance(raw.get("hostPath"), dict) and isinstance(raw["hostPath"].get("path"), str):
        volume["hostPath"] = {"path": raw["hostPath"]["path"]}
    else:
        kinds = [key for key in raw if key != "name" and isinstance(raw[key], dict)]
        if not kinds:
            return None
        volume[kinds[0]] = {}
    return volume


def admitted_pod(spec: dict[str, Any], metadata: Any, name: str) -> dict[str, Any] | None:
    """The Pod a controller would create from ``spec`` (and its template's ``metadata``), or None when the API
    server would refuse it (a container without a name or an image: the linter reads a pod whose containers name no
    image as a kustomize patch)."""
    containers = [c for c in spec.get("containers") or () if isinstance(c, dict)]
    inits = [c for c in spec.get("initContainers") or () if isinstance(c, dict)]
    if not containers or not all(isinstance(c.get("name"), str) and "image" in c for c in containers + inits):
        return None
    pod_spec: dict[str, Any] = {"containers": [_container(c) for c in containers]}
    if inits:
        pod_spec["initContainers"] = [_container(c) for c in inits]
    volumes = [v for v in (_volume(raw) for raw in _named(spec.get("volumes"), "name")) if v is not None]
    if volumes:
        pod_spec["volumes"] = volumes
    if isinstance(spec.get("hostIPC"), str):
        pod_spec["hostIPC"] = spec["hostIPC"].lower() == "true"
    if isinstance(spec.get("runtimeClassName"), str):
        pod_spec["runtimeClassName"] = spec["runtimeClassName"]
    names = {volume["name"] for volume in volumes}
    if any(
        m["name"] not in names
        for c in pod_spec["containers"] + pod_spec.get("initContainers", [])
        for m in c.get("volumeMounts", [])
    ):
        return None  # the API server refuses a mount of a volume the pod does not have
    meta: dict[str, Any] = {"name": name}
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict):
        meta["annotations"] = {k: v for k, v in annotations.items() if isinstance(v, str)}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}


def _argo_pod_specs(workflow: dict[str, Any]) -> Iterator[tuple[dict[str, Any], Any]]:
    """The pods Argo creates for a Workflow's (or CronWorkflow's) container and script templates: the template's
    container as ``main``, with the workflow's and the template's volumes (a script's source is a file then)."""
    spec = workflow.get("spec") if isinstance(workflow.get("spec"), dict) else {}
    if workflow.get("kind") == "CronWorkflow" and isinstance(spec.get("workflowSpec"), dict):
        spec = spec["workflowSpec"]
    shared = spec.get("volumes") if isinstance(spec.get("volumes"), list) else []
    for template in spec.get("templates") or ():
        for key in ("container", "script"):
            container = template.get(key) if isinstance(template, dict) else None
            if isinstance(container, dict):
                main = {k: v for k, v in container.items() if k != "source"} | {"name": container.get("name", "main")}
                own = template.get("volumes") if isinstance(template.get("volumes"), list) else []
                yield {"containers": [main], "volumes": shared + own}, template


def _pod_specs(node: Any, holder: Any = None) -> Iterator[tuple[dict[str, Any], Any]]:
    """(pod spec, the mapping that holds it) by shape, as the Kubernetes extractor finds them; Argo's templates
    as the pods Argo makes of them."""
    if isinstance(node, dict) and str(node.get("apiVersion", "")).startswith("argoproj.io/"):
        yield from _argo_pod_specs(node)
        return
    if isinstance(node, dict):
        if any(isinstance(c, dict) for c in node.get("containers") or () if isinstance(node.get("containers"), list)):
            yield node, holder
            return
        for key, value in node.items():
            if key not in ("metadata", "status"):
                yield from _pod_specs(value, node)
    elif isinstance(node, list):
        for item in node:
            yield from _pod_specs(item, holder)


_SUFFIXES_READ = (".yaml", ".yml", ".json", ".md")
_FENCE = re.compile(r"^```ya?ml[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _documents(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    blocks = _FENCE.findall(text) if path.name.removesuffix(".fixed").endswith(".md") else [text]
    documents: list[Any] = []
    for block in blocks:
        try:
            documents.extend(yaml.load_all(block, Loader=yaml.BaseLoader))
        except yaml.YAMLError:
            continue
    return documents


def fixture_pods(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where it came from, the admitted pod) for every pod spec in the YAML and JSON fixtures that parse."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name.removesuffix(".fixed").endswith(_SUFFIXES_READ))
    found = 0
    for path in files:
        try:
            documents = _documents(path)
        except UnicodeDecodeError:
            continue
        for number, document in enumerate(documents):
            items = (
                document.get("items") if isinstance(document, dict) and document.get("kind") == "List" else [document]
            )
            for item in items if isinstance(items, list) else ():
                for index, (spec, holder) in enumerate(_pod_specs(item)):
                    metadata = holder.get("metadata") if isinstance(holder, dict) else None
                    pod = admitted_pod(spec, metadata, f"pod-{found:04d}")
                    if pod is not None:
                        found += 1
                        yield f"{path.relative_to(root)}#{number}.{index}", pod


# -- pods drawn at random from the values the rules turn on ------------------------------------------------------

IMAGES = (
    "vllm/vllm-openai:v0.6.0",
    "lmsysorg/sglang:latest",
    "nvcr.io/nvidia/pytorch:24.05-py3",
    "pytorch/pytorch:2.3.0",
    "nvcr.io/nvidia/tritonserver:24.05-vllm-python-py3",
    "nvcr.io/nvidia/tritonserver:24.05-py3",
    "nvcr.io/nvidia/tritonserver:24.05-py3-sdk",
    "nvidia/dcgm-exporter:3.3",
    "busybox",
    "python:3.11",
    "rayproject/ray:2.9.0",
    "rayproject/ray-ml:2.9.0",
    "deepspeed/deepspeed:latest",
    "registry:5000/ml/torchserve:0.9",
    "ghcr.io/huggingface/text-generation-inference:2.0",
    "repo/trainer@sha256:0123abcd",
    "nginx:1.25",
    "example.com/team/app:torch-2.3",
    "mindspore/mindspore-gpu:2.0",
    "nvcr.io/nvidia/k8s-device-plugin:v0.15",
)
COMMANDS = (
    ["torchrun", "--nproc_per_node=2", "train.py"],
    ["python", "-m", "torch.distributed.run", "t.py"],
    ["nvidia-smi"],
    ["sh", "-c", "nvidia-smi; sleep 5"],
    ["python", "train.py", "--num_workers=4"],
    ["python", "-c", "import torch; print(1)"],
    ["vllm", "serve", "m", "--tensor-parallel-size", "2"],
    ["tensorboard", "--logdir", "/logs"],
    ["ray", "start", "--head"],
    ["/usr/bin/perf_analyzer", "-m", "x"],
    ["python", "serve.py"],
    ["bash", "-c", "torchrun train.py\n"],
    ["accelerate", "launch", "t.py"],
    [""],
)
RESOURCES = (
    {},
    {"limits": {"nvidia.com/gpu": "1"}},
    {"limits": {"nvidia.com/gpu": "2", "memory": "16Gi"}},
    {"limits": {"nvidia.com/gpu": "0"}},
    {"requests": {"nvidia.com/gpu": "4"}},
    {"limits": {"nvidia.com/mig-1g.5gb": "1"}, "requests": {"nvidia.com/gpu": "1"}},
    {"limits": {"amd.com/gpu": "1"}},
    {"limits": {"google.com/tpu": "4"}},
    {"limits": {"memory": "1Gi"}},
    {"limits": {"memory": "3Gi", "amd.com/gpu": "1"}},
    {"limits": {"nvidia.com/gpu": "1", "amd.com/gpu": "1"}},
)
ENVS = (
    [],
    [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
    [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "none"}],
    [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "0,1"}],
    [{"name": "NCCL_SHM_DISABLE", "value": "1"}],
    [{"name": "NCCL_SHM_DISABLE", "value": "0x1"}],
    [{"name": "NCCL_SHM_DISABLE", "value": "true"}],
    [{"name": "AMD_VISIBLE_DEVICES", "value": "3"}],
    [{"name": "NVIDIA_VISIBLE_DEVICES"}],
)
VOLUMES = (
    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}},
    {"name": "dshm", "emptyDir": {"medium": "Memory"}},
    {"name": "dshm", "emptyDir": {}},
    {"name": "dshm", "hostPath": {"path": "/dev/shm"}},
    {"name": "dshm", "hostPath": {"path": "/dev/shm/mps"}},
    {"name": "gpu", "hostPath": {"path": "/dev/nvidia0"}},
    {"name": "shm-cache", "emptyDir": {"medium": "Memory"}},
    {"name": "data", "persistentVolumeClaim": {}},
)
MOUNTS = (
    [],
    [{"name": "dshm", "mountPath": "/dev/shm"}],
    [{"name": "dshm", "mountPath": "/dev/shm/"}],
    [{"name": "gpu", "mountPath": "/dev/nvidia0"}],
    [{"name": "data", "mountPath": "/dev/shm"}],
    [{"name": "missing", "mountPath": "/dev/shm"}],
    [{"name": "data", "mountPath": "/data"}],
)
ANNOTATIONS = (
    {},
    {"shmlint.io/ignore": "SHM001"},
    {"shmlint.io/ignore": "missing-shm, host-ipc"},
    {"shmlint.io/ignore": "shm003"},
    {"shmlint.io/ignore": "MISSING-SHM"},
    {"shmlint.io/dataloader": "workers=4 batch=32 sample=3x224x224"},
    {"shmlint.io/dataloader": "workers=0 batch=32 sample=3x224x224"},
    {"shmlint.io/dataloader": "workers=4"},
)


def drawn_pods(count: int, seed: int) -> list[dict[str, Any]]:
    """Pods combining the values above at random (seeded: the same pods on every run)."""
    import random

    rng = random.Random(seed)
    pods = []
    for number in range(count):
        volumes = {v["name"]: v for v in rng.sample(VOLUMES, rng.randint(0, 3))}

        def container(name: str, volumes: dict[str, Any] = volumes) -> dict[str, Any]:
            c: dict[str, Any] = {"name": name, "image": rng.choice(IMAGES)}  # the API server requires one
            if rng.random() < 0.6:
                words = list(rng.choice(COMMANDS))
                split = rng.randint(0, len(words))
                if words[:split]:
                    c["command"] = words[:split]
                if words[split:]:
                    c["args"] = words[split:]
            if resources := rng.choice(RESOURCES):
                c["resources"] = resources
            if env := rng.choice(ENVS):
                c["env"] = env
            if mounts := [m for m in rng.choice(MOUNTS) if m["name"] in volumes]:  # as the API server requires
                c["volumeMounts"] = mounts
            return c

        spec: dict[str, Any] = {"containers": [container(f"c{i}") for i in range(rng.randint(1, 3))]}
        if rng.random() < 0.2:
            spec["initContainers"] = [container("setup")]
        if volumes:
            spec["volumes"] = list(volumes.values())
        if rng.random() < 0.1:
            spec["hostIPC"] = True
        if rng.random() < 0.15:
            spec["runtimeClassName"] = rng.choice(("nvidia", "runc", " NVIDIA "))
        metadata: dict[str, Any] = {"name": f"drawn-{number:04d}"}
        if annotations := rng.choice(ANNOTATIONS):
            metadata["annotations"] = annotations
        pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
    return pods
