"""What makes a workload GPU or torch: kept as data so configuration can extend it.

Every format asks the same questions here (is this resource a GPU, is this image torch-like, does this command
launch torch), so a Kubernetes container, a compose service and a ``docker run`` line are judged alike.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable

from shmlint.configured_patterns import ConfiguredPattern
from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import ascii_float, ascii_int


class Accelerator(NamedTuple):
    """How one kind of accelerator reaches a container, in every format's own terms: each format reads its
    accelerator evidence from this one table, so none misses what another recognises."""

    name: str
    resources: tuple[str, ...]  # Kubernetes extended resources and CDI kinds (globs): resources, --device, devices
    runtimes: tuple[str, ...]  # OCI runtimes: runtimeClassName, compose runtime and device driver, --runtime
    envs: tuple[str, ...]  # variables that hand devices over or select them: env, environment, -e
    devices: tuple[str, ...]  # host device nodes (globs): compose devices, --device, device binds, hostPath
    counted: bool  # several devices in one container talk through /dev/shm (NCCL, RCCL): the count matters
    handover_env: str | None  # the variable whose list is what the runtime puts in the container (counted)
    source: str  # where the names come from


#: how the NVIDIA device plugin's resources renamed by GPU model begin (A100, A5000, H100, L40S, T4, V100, P100, K80,
#: B200, GH200, RTX A6000, GTX 1080 Ti, ``gpu-a100``...): never a network operator's NIC (``rdma_*``, ``sriov_*``)
_NVIDIA_MODELS = (
    *("a1", "a2", "a3", "a4", "a5", "a6", "a8", "h1", "h2", "h8", "l2", "l4", "t4", "v1", "p1", "p4", "k8"),
    *("b1", "b2", "gb2", "gh2", "rtx", "gtx", "titan", "quadro", "tesla", "geforce", "gpu-"),
)
#: every accelerator shmlint recognises. Only GPUs whose collective library uses /dev/shm between local processes
#: are ``counted``: a request of several TPU, Gaudi, Neuron or Intel devices is accelerator evidence, never evidence
#: of software that uses /dev/shm, so such a workload stays in the ``unknown`` tier unless its software
#: is known.
ACCELERATORS = (
    Accelerator(
        "NVIDIA GPU",
        (
            *("nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*"),
            # the device plugin's resources renamed by GPU model (its config's ``resources.gpus[].name``:
            # ``nvidia.com/a100``, ``nvidia.com/rtxa6000`` on the NRP cluster; NVIDIA/dcgm-exporter#359, audit71c),
            # not the network operator's NICs (``nvidia.com/rdma_shared_device_a``, ``nvidia.com/sriov_*``)
            *(f"nvidia.com/{model}*" for model in _NVIDIA_MODELS),
        ),
        ("nvidia", "nvidia-cdi", "nvidia-legacy"),
        ("NVIDIA_VISIBLE_DEVICES",),
        ("/dev/nvidia*", "/dev/dxg"),  # dxg: GPUs under WSL2
        True,
        "NVIDIA_VISIBLE_DEVICES",
        "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
    ),
    # GPU sharing schedulers: a share of one NVIDIA GPU (memory, cores) or a count of virtual GPUs, never a count of
    # GPUs whose ranks talk through /dev/shm; what runs on it decides, as for any GPU
    Accelerator(
        "NVIDIA GPU shared (Alibaba Cloud cGPU, gpushare)",
        ("aliyun.com/gpu-mem", "aliyun.com/gpu-count", "aliyun.com/gpu-core.percentage"),
        (),
        (),
        (),
        False,
        None,
        "https://github.com/AliyunContainerService/gpushare-scheduler-extender/blob/master/docs/userguide.md",
    ),
    Accelerator(
        "NVIDIA vGPU (4paradigm's k8s-vgpu-scheduler and its successor HAMi)",
        # a share of each vGPU's memory and cores; such a request alone gets the scheduler's default count of vGPUs
        ("nvidia.com/gpumem", "nvidia.com/gpumem-percentage", "nvidia.com/gpucores"),
        (),
        (),
        (),
        False,
        None,
        "https://github.com/4paradigm/k8s-vgpu-scheduler/blob/b00bc30577391dbb7ddce83a65a945172ea387fd/README.md",
    ),
    Accelerator(
        "NVIDIA GPU shared (Tencent GPU Manager)",
        ("tencent.com/vcuda-core", "tencent.com/vcuda-memory"),
        (),
        (),
        (),
        False,
        None,
        "https://github.com/tkestack/gpu-manager/blob/master/README.md",
    ),
    Accelerator(
        "NVIDIA GPU shared (Volcano GPU sharing)",
        ("volcano.sh/gpu-memory", "volcano.sh/gpu-number"),
        (),
        (),
        (),
        False,
        None,
        "https://github.com/volcano-sh/volcano/blob/master/docs/user-guide/how_to_use_gpu_sharing.md",
    ),
    Accelerator(
        "NVIDIA GPU shared (Volcano vGPU)",
        ("volcano.sh/vgpu-number", "volcano.sh/vgpu-memory", "volcano.sh/vgpu-cores"),
        (),
        (),
        (),
        False,
        None,
        "https://github.com/volcano-sh/volcano/blob/master/docs/user-guide/how_to_use_vgpu.md",
    ),
    Accelerator(
        "AMD GPU (ROCm)",
        ("amd.com/gpu", "rocm.com/gpu"),  # rocm.com/gpu: the AMD Container Toolkit's CDI kind
        ("amd",),  # the AMD Container Toolkit's runtime
        ("AMD_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"),
        ("/dev/kfd",),
        True,
        "AMD_VISIBLE_DEVICES",  # HIP_/ROCR_VISIBLE_DEVICES only select inside a process: not a count
        "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html",
    ),
    Accelerator(
        "Intel GPU (XPU)",
        ("gpu.intel.com/*",),  # i915, xe, and the CDI kind gpu.intel.com/all
        (),
        (),
        ("/dev/dri", "/dev/dri/*"),  # also AMD's render nodes: either way an accelerator
        False,
        None,
        "https://github.com/intel/intel-device-plugins-for-kubernetes/blob/main/cmd/gpu_plugin/README.md",
    ),
    Accelerator(
        "Intel Gaudi (Habana)",
        ("habana.ai/gaudi",),
        ("habana",),
        ("HABANA_VISIBLE_DEVICES",),
        ("/dev/accel*", "/dev/hl*"),  # /dev/accel: the kernel's accel subsystem (Gaudi, TPU), hl: older drivers
        False,
        None,
        "https://docs.habana.ai/en/latest/Installation_Guide/Additional_Installation/Docker_Installation.html",
    ),
    Accelerator(
        "AWS Neuron",
        ("aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "aws.amazon.com/neurondevice"),
        ("neuron",),  # the runtime the Neuron OCI hook tutorial configures (oci_neuron_hook_wrapper.sh)
        ("AWS_NEURON_VISIBLE_DEVICES",),
        ("/dev/neuron*",),
        False,
        None,
        "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/containers/tutorials/tutorial-oci-hook.html",
    ),
    Accelerator(
        "Google TPU",
        ("google.com/tpu",),
        (),
        ("TPU_VISIBLE_CHIPS",),
        ("/dev/accel*",),  # /dev/accel0..3 on TPU VMs
        False,
        None,
        "https://cloud.google.com/kubernetes-engine/docs/how-to/tpus",
    ),
)


def _union(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


GPU_RESOURCES = _union(name for accelerator in ACCELERATORS for name in accelerator.resources)
GPU_RUNTIMES = _union(name for accelerator in ACCELERATORS for name in accelerator.runtimes)
GPU_VISIBLE_ENVS = _union(name for accelerator in ACCELERATORS for name in accelerator.envs)
GPU_DEVICES = _union(path for accelerator in ACCELERATORS for path in accelerator.devices)
#: resources whose count says how many GPUs share one container's /dev/shm (``counted`` accelerators)
COUNTED_RESOURCES = _union(
    name for accelerator in ACCELERATORS if accelerator.counted for name in accelerator.resources
)
COUNTED_RUNTIMES = _union(name for accelerator in ACCELERATORS if accelerator.counted for name in accelerator.runtimes)
COUNTED_ENVS = _union(accelerator.handover_env for accelerator in ACCELERATORS if accelerator.handover_env)

#: regular expressions matched against the image reference without its tag or digest
TORCH_IMAGES = (
    r"(^|/)[^/]*torch[^/]*$",  # pytorch/pytorch, nvcr.io/nvidia/pytorch, kubeflow/pytorch-dist-mnist, torchserve
    r"(^|/)pytorch(/|$)",
    r"vllm",
    r"sglang",
    r"text-generation-inference",
    r"tritonserver",
    r"deepspeed",
    r"(^|/)nemo[^/]*$",
    r"(^|/)ray-ml$",
    r"(^|/)ray-llm$",
    r"(^|/)verl[^/]*$",
    r"huggingface/transformers-pytorch",
    r"(^|/)comfyui[^/]*$",
    r"(^|/)invokeai[^/]*$",
)

#: image tags that mark client or SDK images: the name says torch/triton but nothing trains or serves there
NON_WORKLOAD_TAGS = (r"(^|[-_.])(py3-)?(client)?sdk($|[-_.])",)
_NON_WORKLOAD_TAG_RE = LazyRegex("|".join(NON_WORKLOAD_TAGS), re.IGNORECASE, required=("sdk",))

#: regular expressions matched against a container's command and arguments joined by spaces
TORCH_COMMANDS = (
    r"(^|[\s/])torchrun(\s|$)",
    r"-m\s+torch\.distributed\.(run|launch)\b",
    r"(^|[\s/])accelerate\s+launch\b",
    r"(^|[\s/])deepspeed(\s|$)",
    r"(^|[\s/])vllm\s+serve\b",
    r"-m\s+vllm\.entrypoints\b",
    r"-m\s+sglang\.launch_server\b",
    r"(^|[\s/])text-generation-launcher(\s|$)",
    r"(^|[\s/])tritonserver(\s|$)",
    r"(^|[\s/])torchserve(\s|$)",
    r"\bimport\s+torch\b",
    # DataLoader workers as a Python program's option (``python train.py --num_workers 4``, ``./train.py ...``) on
    # its line or the lines a backslash continues: another program's ``--num_workers`` (LiteLLM's proxy: web server
    # processes) says nothing of torch, nor does a ``.py`` an option takes (``--config callbacks.py``,
    # ``--config=callbacks.py``) or a Python line above it. No lookaround: the admission policies' RE2 reads it too
    r"(^|[;&|\n(] *|(^| )[^\s-]\S{0,127} +)([^\s=-][^\s=]{0,127}/)?(python[0-9.]*|[\w.-]{1,64}\.py)"
    r"( ([^;&|\n]|\\[\n]){0,512})? --num[_-]workers[= ]+[1-9]",
)

#: KServe model formats served by a torch runtime (``predictor.model.modelFormat.name``, ``predictor.pytorch``)
TORCH_MODEL_FORMATS = ("pytorch", "huggingface", "triton")

#: a container whose command is one of these is a diagnostic or a benchmark client, not a GPU workload
UTILITY_COMMANDS = ("nvidia-smi", "perf_client", "perf_analyzer")
#: MPI launchers: each starts ranks of one program, in its own container or on the hosts its list names (the
#: MPIJob reader's launcher line, the ssh-rank reader's launcher in another container of a compose file)
MPI_LAUNCHERS = frozenset({"mpirun", "mpiexec", "horovodrun"})
#: torch's elastic launcher, as a program and as the modules ``python -m`` runs (a PyTorchJob's process count, the
#: launchers a followed command starts)
TORCHRUN_PROGRAMS = frozenset({"torchrun"})
TORCHRUN_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch"})
#: programs that start other processes, whose command lines the tier data judges by their options (a command that
#: names them is what starts the work, where ``pip install deepspeed`` only names it)
LAUNCHER_PROGRAMS = TORCHRUN_PROGRAMS | MPI_LAUNCHERS | {"deepspeed", "accelerate", "composer", "tune", "srun"}

#: more devices than one node holds: a larger count is read as unknown-many rather than as a number
MAX_DEVICES = 4096
NO_GPU_VISIBLE = frozenset({"", "none", "void"})


class _SignalLists(NamedTuple):
    """The lists of ``Signals``: its fields, equality and hash."""

    gpu_resources: tuple[str, ...] = GPU_RESOURCES
    gpu_runtimes: tuple[str, ...] = GPU_RUNTIMES
    gpu_envs: tuple[str, ...] = GPU_VISIBLE_ENVS
    gpu_devices: tuple[str, ...] = GPU_DEVICES
    counted_resources: tuple[str, ...] = COUNTED_RESOURCES
    counted_runtimes: tuple[str, ...] = COUNTED_RUNTIMES
    counted_envs: tuple[str, ...] = COUNTED_ENVS
    torch_images: tuple[str, ...] = TORCH_IMAGES
    torch_commands: tuple[str, ...] = TORCH_COMMANDS
    torch_model_formats: tuple[str, ...] = TORCH_MODEL_FORMATS
    utility_commands: tuple[str, ...] = UTILITY_COMMANDS


class Signals(_SignalLists):
    """What marks a workload as GPU or torch; configuration can extend every list (a changed copy is
    ``signals._replace(field=...)``). The lists cannot change; the matchers made from them (patterns compile on
    first use) are made when first asked for and kept with the value, and a changed copy makes its own."""

    @functools.cached_property
    def _matchers(self) -> _Matchers:
        return _Matchers.of(self)

    @property
    def configured(self) -> bool:
        """Configuration added torch patterns or GPU resources: the prefilter cannot know their words."""
        matchers = self._matchers
        return (
            matchers.configured_image is not None
            or matchers.configured_command is not None
            or any(glob not in GPU_RESOURCES for glob in self.gpu_resources)
        )

    def is_gpu_resource(self, name: str) -> bool:
        return self._matchers.gpu_resource_globs.match(name)

    def is_counted_resource(self, name: str) -> bool:
        """A GPU resource whose count matters for /dev/shm (several in one container talk through it)."""
        return self._matchers.counted_resource_globs.match(name)

    def is_counted_runtime(self, name: str) -> bool:
        """A runtime or compose device driver of a counted GPU kind (``nvidia``, ``amd``)."""
        return name.strip().lower() in self.counted_runtimes

    def is_gpu_runtime(self, name: str) -> bool:
        return name.strip().lower() in self.gpu_runtimes

    def is_gpu_device(self, device: str) -> bool:
        """A device request (``--device``, compose ``devices``) that hands over a GPU: a host node with an optional
        ``:container-path:permissions`` (``/dev/dri:/dev/dri``) or a CDI name (``nvidia.com/gpu=all``)."""
        if not device.startswith("/"):
            return self.is_gpu_resource(device.split("=", 1)[0])
        return self._matchers.gpu_device_globs.match(device.split(":", 1)[0])

    def is_torch_model_format(self, name: str) -> bool:
        return name.lower() in self.torch_model_formats

    def is_gpu_env(self, name: str, value: str) -> bool:
        """``NVIDIA_VISIBLE_DEVICES=all`` and its ROCm cousins, unless set to expose nothing."""
        return name in self.gpu_envs and gpu_visible(value)

    def is_torch_image(self, image: str) -> bool:
        repository, tag = split_image(image)
        if tag and _NON_WORKLOAD_TAG_RE.search(tag):
            return False
        matchers = self._matchers
        if any(pattern.search(repository) for pattern in matchers.image_res):
            return True
        return matchers.configured_image is not None and matchers.configured_image.search(repository) is not None

    def torch_command(self, command: str) -> str | None:
        """The part of a command line that launches torch, or None: the leftmost match, the first pattern's of
        those that start there (what the patterns joined by ``|`` would match)."""
        matchers = self._matchers
        match = None
        for pattern in matchers.command_res:
            candidate = pattern.search(command)
            if candidate is not None and (match is None or candidate.start() < match.start()):
                match = candidate
        if match is None and matchers.configured_command is not None:
            found = matchers.configured_command.search(command)
            return found.strip() if found is not None else None
        return match.group(0).strip() if match else None

    def is_utility_command(self, words: list[str]) -> bool:
        return bool(words) and words[0].rsplit("/", 1)[-1] in self.utility_commands


class _Matchers(NamedTuple):
    """What ``Signals`` matches with, made from its lists: the built-in patterns on ``re``, what configuration added
    on the bounded engine, and globs."""

    image_res: tuple[LazyRegex[str], ...]
    command_res: tuple[LazyRegex[str], ...]
    configured_image: ConfiguredPattern | None
    configured_command: ConfiguredPattern | None
    gpu_resource_globs: Globs
    counted_resource_globs: Globs
    gpu_device_globs: Globs

    @classmethod
    def of(cls, signals: Signals) -> _Matchers:
        return cls(
            _builtin_patterns(signals.torch_images, TORCH_IMAGES),
            _builtin_patterns(signals.torch_commands, TORCH_COMMANDS),
            _configured("torch-images", signals.torch_images, TORCH_IMAGES),
            _configured("torch-commands", signals.torch_commands, TORCH_COMMANDS),
            Globs(signals.gpu_resources),
            Globs(signals.counted_resources),
            Globs(signals.gpu_devices),
        )


class Globs:
    """Names matched against globs as ``fnmatch.fnmatchcase`` matches them; exact names and ``prefix*`` globs (every
    built-in one) are answered by string tests, and only other globs become a regular expression."""

    __slots__ = ("_exact", "_others", "_prefixes")

    def __init__(self, globs: Iterable[str]) -> None:
        exact, prefixes, others = set(), [], []
        for glob in globs:
            if _GLOB_CHARACTERS.isdisjoint(glob):
                exact.add(glob)
            elif glob.endswith("*") and _GLOB_CHARACTERS.isdisjoint(glob[:-1]):
                prefixes.append(glob[:-1])
            else:
                others.append(glob)
        self._exact = frozenset(exact)
        self._prefixes = tuple(prefixes)
        self._others = LazyRegex("|".join(fnmatch.translate(glob) for glob in others)) if others else None

    def match(self, name: str) -> bool:
        return (
            name in self._exact
            or name.startswith(self._prefixes)
            or (self._others is not None and self._others.match(name) is not None)
        )


#: what makes a glob more than a name for fnmatch
_GLOB_CHARACTERS = frozenset("*?[")


def _builtin_patterns(patterns: tuple[str, ...], builtin: tuple[str, ...]) -> tuple[LazyRegex[str], ...]:
    """The built-in patterns (reviewed here, linear on any input) with the standard engine, each compiled only when
    a value holds the words its matches contain (worked out when the data is built)."""
    from shmlint.data.signal_words import PATTERN_WORDS

    return tuple(LazyRegex(p, re.IGNORECASE, PATTERN_WORDS.get(p)) for p in patterns if p in builtin)


def _configured(key: str, patterns: tuple[str, ...], builtin: tuple[str, ...]) -> ConfiguredPattern | None:
    """What configuration added to a built-in list, with the bounded engine; None when it added nothing."""
    extra = tuple(p for p in patterns if p not in builtin)
    return ConfiguredPattern(key, extra) if extra else None


def split_image(image: str) -> tuple[str, str]:
    """``registry:5000/ns/name:tag@sha256:...`` -> (``registry:5000/ns/name``, ``tag``)."""
    reference = image.split("@", 1)[0]
    slash = reference.rfind("/")
    colon = reference.rfind(":")
    if colon > slash:
        return reference[:colon], reference[colon + 1 :]
    return reference, ""


def gpu_visible(value: str) -> bool:
    """``NVIDIA_VISIBLE_DEVICES`` exposes GPUs unless it is empty, ``none`` or ``void``."""
    return value.strip().lower() not in NO_GPU_VISIBLE


def positive_count(value: str) -> bool:
    """A resource count above zero; ``0``, ``"0"`` and unparsable counts are not GPUs."""
    text = value.strip().strip("\"'")
    if text.isascii() and text.isdigit():  # however long (no conversion): a count above zero is a GPU
        return text.strip("0") != ""
    number = ascii_float(text)
    return number is not None and number > 0


def device_count(value: str) -> int | None:
    """How many devices a request names, when it says: ``2``, ``0,1``, ``device=0,1`` (``--gpus``), ``count=2``,
    ``GPU-3f2a...``; None for ``all``, a variable, a template's placeholder (``{{ .Values.gpus }}``, filled in
    later) or anything unreadable (unknown-many)."""
    text = value.strip().strip("\"'").strip()
    if text.lower() in NO_GPU_VISIBLE:
        return 0
    if "$" in text or "{{" in text or text.lower() == "all":
        return None
    if text.isdigit():  # any digit, "²" too: one that is not an ASCII count is unreadable (unknown-many)
        return ascii_int(text, maximum=MAX_DEVICES)
    items = [item.strip().strip("\"'") for item in text.split(",")]
    for index, item in enumerate(items):
        key, equals, setting = item.partition("=")
        if equals and key == "count":
            return ascii_int(setting, maximum=MAX_DEVICES)
        if equals and key == "device":
            devices = [setting] + [rest for rest in items[index + 1 :] if "=" not in rest]
            return len([device for device in devices if device])
    if any("=" in item for item in items):
        return None
    return len([item for item in items if item])
