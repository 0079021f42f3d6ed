"""Settings in the YAML, JSON or TOML files a command line names (``--config configs/train.yaml``), read line by
line for the few keys that decide /dev/shm use: a bounded scan, so a config of any shape or size costs linear
time and nothing in it is evaluated."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from shmlint.model import CodeFact
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.argv import option_values
from shmlint.source import SourceText

if TYPE_CHECKING:
    from shmlint.project.triton import Walk

#: the keys read, and the smallest value that means /dev/shm is used; ``num_loader_workers`` and
#: ``num_eval_loader_workers``: Coqui TTS's trainer config, passed as the training and evaluation DataLoaders'
#: ``num_workers`` (TTS/tts/models/base_tts.py, ``get_data_loader``); ``max_data_loader_n_workers``: kohya
#: sd-scripts' option, which its ``--config_file`` TOML sets as well (``kohya-sd-scripts`` in shm_need.yaml; audit79a)
THRESHOLDS = {
    "num_workers": 1,
    "dataloader_num_workers": 1,
    "num_loader_workers": 1,
    "num_eval_loader_workers": 1,
    "max_data_loader_n_workers": 1,
    "tensor_parallel_size": 2,
}
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
#: the keys of THRESHOLDS and a project's own names for a loader's worker count (``no_workers``, ``n_workers``,
#: ``numWorkers``: audit83c, ``DataLoader(num_workers=cfg["no_workers"])``); those are values the code may read, never
#: a fact by themselves, and not a bare ``workers`` (a web server's, read for any ``args.workers``: the review)
_SETTING = re.compile(
    r"""^[ \t{]*["']?(?P<key>[A-Za-z0-9_]{0,32}[a-z_][Ww]orkers?|tensor_parallel_size)["']?[ \t]*[:=][ \t]*"""
    r"""["']?(?P<value>[0-9]{1,6})["']?[ \t]*[,}]?[ \t]*(?:#.*)?$""",
    re.MULTILINE,
)


class Setting(NamedTuple):
    key: str
    value: int
    line: int

    @property
    def uses_shm(self) -> bool:
        least = THRESHOLDS.get(self.key)
        return least is not None and self.value >= least


def settings(text: str) -> list[Setting]:
    """Every ``key: number`` (YAML), ``"key": number`` (JSON) or ``key = number`` (TOML) of the keys read (``_SETTING``)."""
    source = SourceText("", text)  # its line table, made once: a line found per setting costs no rescan
    return [
        Setting(m.group("key"), int(m.group("value")), source.position(m.start())[0]) for m in _SETTING.finditer(text)
    ]


def unambiguous(found: Iterable[Setting]) -> list[Setting]:
    """The settings (of every file the code reads) without a project's own key given two different values
    (``train: {n_workers: 8}``, ``serve: {n_workers: 0}``: which one the code reads is not known, the review);
    THRESHOLDS' keys keep all theirs."""
    found = list(found)
    values: dict[str, set[int]] = {}
    for setting in found:
        values.setdefault(setting.key, set()).add(setting.value)
    return [s for s in found if s.key in THRESHOLDS or len(values[s.key]) == 1]


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
ACCELERATE_KEYS = ("num_processes", "num_machines", "distributed_type", "compute_environment")
_ACCELERATE_KEY = re.compile(
    rf"""^(?P<indent>[ \t]{{0,16}})["']?(?P<key>{"|".join(ACCELERATE_KEYS)})["']?[ \t]*:[ \t]*"""
    r"""["']?(?P<value>[A-Za-z0-9_-]{1,32})["']?[ \t]*,?[ \t]*(?:#.*)?$""",
    re.MULTILINE,
)
#: a JSON string (and whether a colon follows: a key) or a bracket, for finding a top-level key's line
_JSON_TOKEN = re.compile(r'(?P<string>"[^"\\]*(?:\\.[^"\\]*)*")(?P<colon>[ \t\r\n]*:)?|[{}\[\]]')
#: digits of a count read (a process count has a few; int() of thousands is refused by Python itself)
_MAX_COUNT_DIGITS = 6


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
    ``num_processes``, or when the config is for another compute environment (SageMaker: not launched here).
    ``text`` is a file as the project reader gives it, within max-file-size."""
    found = _accelerate_json(text) if text.lstrip().startswith("{") else _accelerate_yaml(text)
    processes, machines = found.get("num_processes"), found.get("num_machines", ("1", 0))
    environment = found.get("compute_environment", ("LOCAL_MACHINE", 0))[0]
    if processes is None or not _count(processes[0]) or not _count(machines[0]) or environment != "LOCAL_MACHINE":
        return None
    local = int(processes[0]) // max(int(machines[0]), 1)
    return AccelerateConfig(local, found.get("distributed_type", ("NO", 0))[0], processes[1])


def _count(value: str) -> bool:
    return value.isascii() and value.isdigit() and len(value) <= _MAX_COUNT_DIGITS


def _accelerate_yaml(text: str) -> dict[str, tuple[str, int]]:
    """The unindented ``key: value`` lines of the keys read (an indented one is nested), the first of each."""
    found: dict[str, tuple[str, int]] = {}
    for match in _ACCELERATE_KEY.finditer(text):
        if not match.group("indent") and match.group("key") not in found:  # its line counted once, not per repeat
            found[match.group("key")] = (match.group("value"), text.count("\n", 0, match.start()) + 1)
    return found


def _accelerate_json(text: str) -> dict[str, tuple[str, int]]:
    """The keys read of the top-level object of a JSON config (any layout, one line too), as text with their line;
    nothing when it is not a JSON object. Numbers and strings only (``true`` is no count)."""
    import json  # loaded for a JSON config only: the one-file start-up never reads one

    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, an integer of too many digits, nesting beyond the stack
        return {}
    if not isinstance(document, dict):
        return {}
    lines = _top_level_lines(text)
    return {
        key: (str(value), lines.get(f'"{key}"', 1))
        for key in ACCELERATE_KEYS
        if isinstance(value := document.get(key), (int, str)) and not isinstance(value, bool)
    }


def _top_level_lines(text: str) -> dict[str, int]:
    """The line of each key read (``"num_processes"``, quoted) as a key of the top-level object of a JSON text: the
    last one, whose value ``json`` keeps (a key spelled with escapes is not found). One regex scan passes strings
    and brackets; lines come from the text's line table: linear work however often a key repeats."""
    wanted = {f'"{key}"' for key in ACCELERATE_KEYS}
    source = SourceText("", text)
    depth = 0
    lines: dict[str, int] = {}
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
        elif depth == 1 and match.group("colon") and match.group("string") in wanted:
            lines[match.group("string")] = source.position(match.start())[0]
    return lines


def follow_accelerate(walk: Walk, argv: Sequence[str], script: str) -> None:
    """``accelerate launch --config_file X``: the local GPU processes its config starts are a fact, when the command
    line sets no count of its own (its ``--num_processes`` is the data's to read) and does not ask for the CPU."""
    options = list(argv[: argv.index(script)] if script in argv else argv)
    if any(word.partition("=")[0] in ACCELERATE_OWN_COUNT for word in options):
        return
    named = [value for value in option_values(options, ("--config_file", "--config-file")) if value]
    path = walk.locate(named[-1]) if named and "\x00" not in named[-1] else None
    text = walk.read(path) if path is not None else None
    config = accelerate_config(text) if text is not None else None
    if path is not None and config is not None and config.local_gpu_processes >= 2:
        said = f"{config.processes} local GPU processes ({config.distributed_type}), NCCL between them"
        walk.needs.append(CodeFact(f"{walk.reader.display(path)}:{config.line}", f"accelerate config: {said}"))
