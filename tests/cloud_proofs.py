"""Proofs for fixes in cloud job definitions: the fixed file still reads with the format's own reader (``json`` for
JSON, YAML with CloudFormation's tags for YAML) and differs from the original only by added keys and new sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

#: the keys a fix may give a new value
SIZE_KEYS = {"sharedMemorySize", "SharedMemorySize", "shm_size", "size"}


class _TaggedLoader(yaml.SafeLoader):
    """CloudFormation's short functions (``!Ref``, ``!Sub``) read as plain values: the proof compares structure."""


def _untag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return {suffix: loader.construct_scalar(node)}
    if isinstance(node, yaml.SequenceNode):
        return {suffix: loader.construct_sequence(node, deep=True)}
    return {suffix: loader.construct_mapping(node, deep=True)}  # type: ignore[arg-type]


_TaggedLoader.add_multi_constructor("!", _untag)


def read(path: Path, text: str) -> Any:
    return json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_TaggedLoader)


def assert_only_sizes_change(path: Path, before: str, after: str) -> None:
    old, new = read(path, before), read(path, after)
    _assert_grows(old, new, "")


def _assert_grows(old: Any, new: Any, where: str) -> None:
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for key, value in old.items():
            assert key in new, f"{where}.{key} was removed"
            if key in SIZE_KEYS and not isinstance(value, (dict, list)):
                continue
            _assert_grows(value, new[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            _assert_grows(a, b, f"{where}[{index}]")
    else:
        assert old == new, f"{where} changed from {old!r} to {new!r}"
