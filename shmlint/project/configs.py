"""Settings in the YAML, JSON or TOML files a command line names (``--config configs/train.yaml``), read line by
line for the few keys that decide /dev/shm use: a bounded scan, so a config of any shape or size costs linear
time and nothing in it is evaluated."""

from __future__ import annotations

import re
from collections.abc import Iterable

from shmlint.named_tuple import NamedTuple

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
