"""Settings in the YAML, JSON or TOML files a command line names (``--config configs/train.yaml``), read line by
line for the few keys that decide /dev/shm use: a bounded scan, so a config of any shape or size costs linear
time and nothing in it is evaluated."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from shmlint.model import CodeFact
from shmlint.named_tuple import NamedTuple

if TYPE_CHECKING:
    from shmlint.project.triton import Walk

#: the keys read, and the smallest value that means /dev/shm is used
THRESHOLDS = {"num_workers": 1, "dataloader_num_workers": 1, "tensor_parallel_size": 2}
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
_SETTING = re.compile(
    r"""^[ \t{]*["']?(?P<key>dataloader_num_workers|num_workers|tensor_parallel_size)["']?[ \t]*[:=][ \t]*"""
    r"""["']?(?P<value>[0-9]{1,6})["']?[ \t]*[,}]?[ \t]*(?:#.*)?$""",
    re.MULTILINE,
)


class Setting(NamedTuple):
    key: str
    value: int
    line: int

    @property
    def uses_shm(self) -> bool:
        return self.value >= THRESHOLDS[self.key]


def settings(text: str) -> list[Setting]:
    """Every ``key: number`` (YAML), ``"key": number`` (JSON) or ``key = number`` (TOML) of the keys read."""
    return [
        Setting(m.group("key"), int(m.group("value")), text.count("\n", 0, m.start()) + 1)
        for m in _SETTING.finditer(text)
    ]


def named_configs(arguments: Iterable[str]) -> list[str]:
    """The words of a command line that name a config file (``x.yaml``, ``--config=x.yaml``)."""
    found = []
    for word in arguments:
        value = word.partition("=")[2] if word.startswith("-") else word
        if value.lower().endswith(CONFIG_SUFFIXES) and "\x00" not in value:
            found.append(value)
    return found


#: ``accelerate launch`` options that set the local process count on the command line (then the data's command
#: patterns decide, not the config file), or keep it on the CPU
ACCELERATE_OWN_COUNT = frozenset({"--num_processes", "--num-processes", "--cpu"})
#: Accelerate's distributed types whose launch starts ``num_processes // num_machines`` local GPU processes with
#: NCCL between them (``accelerate_configs`` in shmlint/data/shm_need.yaml)
ACCELERATE_GPU_TYPES = frozenset({"MULTI_GPU", "FSDP", "DEEPSPEED", "MEGATRON_LM"})
_ACCELERATE_KEY = re.compile(
    r"""^(?P<indent>[ \t{]{0,16})["']?(?P<key>num_processes|num_machines|distributed_type|compute_environment)["']?[ \t]*:[ \t]*"""
    r"""["']?(?P<value>[A-Za-z0-9_-]{1,32})["']?[ \t]*,?[ \t]*(?:#.*)?$""",
    re.MULTILINE,
)


class AccelerateConfig(NamedTuple):
    """What an Accelerate config file (``accelerate config``'s YAML or JSON) says of the local processes."""

    processes: int  # num_processes // num_machines
    distributed_type: str
    line: int  # of ``num_processes``

    @property
    def local_gpu_processes(self) -> int:
        """The GPU processes ``accelerate launch`` starts on this machine: none unless its type launches them."""
        return self.processes if self.distributed_type in ACCELERATE_GPU_TYPES else 0


def accelerate_config(text: str) -> AccelerateConfig | None:
    """The top-level keys that decide the launch (a nested key of the same name is another setting); None without
    ``num_processes``, or when the config is for another compute environment (SageMaker: not launched here)."""
    found: dict[str, tuple[str, int]] = {}
    json = text.lstrip().startswith("{")  # JSON keys are indented; a YAML key that is, is nested
    for match in _ACCELERATE_KEY.finditer(text):
        if match.group("indent") and not json:
            continue
        found.setdefault(match.group("key"), (match.group("value"), text.count("\n", 0, match.start()) + 1))
    processes, machines = found.get("num_processes"), found.get("num_machines", ("1", 0))
    environment = found.get("compute_environment", ("LOCAL_MACHINE", 0))[0]
    if processes is None or not processes[0].isdigit() or not machines[0].isdigit() or environment != "LOCAL_MACHINE":
        return None
    local = int(processes[0]) // max(int(machines[0]), 1)
    return AccelerateConfig(local, found.get("distributed_type", ("NO", 0))[0], processes[1])


def follow_accelerate(walk: Walk, argv: Sequence[str], script: str) -> None:
    """``accelerate launch --config_file X``: the local GPU processes its config starts are a fact, when the command
    line sets no count of its own (its ``--num_processes`` is the data's to read) and does not ask for the CPU."""
    options = list(argv[: argv.index(script)] if script in argv else argv)
    if any(word.partition("=")[0] in ACCELERATE_OWN_COUNT for word in options):
        return
    named = [
        value
        for index, word in enumerate(options)
        if word.partition("=")[0] in ("--config_file", "--config-file")
        and (value := word.partition("=")[2] or (options[index + 1] if index + 1 < len(options) else ""))
    ]
    path = walk.reader.locate(walk.bases, named[-1]) if named and "\x00" not in named[-1] else None
    text = walk.read(path) if path is not None else None
    config = accelerate_config(text) if text is not None else None
    if path is not None and config is not None and config.local_gpu_processes >= 2:
        said = f"{config.processes} local GPU processes ({config.distributed_type}), NCCL between them"
        walk.needs.append(CodeFact(f"{walk.reader.display(path)}:{config.line}", f"accelerate config: {said}"))
