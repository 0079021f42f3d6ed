"""Proofs that a fix of a dev container, CI job container or GitLab runner file changed nothing but the /dev/shm
option: both texts are read with the format's own reader and compared with the option taken out again."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import yaml

from shmlint.discover import FileKind
from shmlint.parsers import jsonc
from shmlint.parsers.groovy import tokens

_OPTION = re.compile(r" ?--shm-size=\S+?(?=['\"\s]|$)")


def plain(node: jsonc.JNode) -> Any:
    """A JSONC node as the Python value ``json.loads`` would give (iteratively: documents may nest deeply)."""
    if isinstance(node, (jsonc.JString, jsonc.JScalar)):
        return node.value
    if isinstance(node, jsonc.JArray):
        return [plain(item) for item in node.items]
    return {key.value: plain(value) for key, value in node.members}


def _without_shm_args(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _without_shm_args(item)
            for key, item in value.items()
            if not (key == "runArgs" and isinstance(item, list) and all(str(i).startswith("--shm-size") for i in item))
        }
    if isinstance(value, list):
        return [_without_shm_args(item) for item in value if not str(item).startswith("--shm-size")]
    return value


def _runner_without_shm(settings: dict) -> dict:
    for runner in settings.get("runners", []):
        runner.get("docker", {}).pop("shm_size", None)
    return settings


def _options_without_shm(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _options_without_shm(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_options_without_shm(item) for item in value]
    return _OPTION.sub("", value).strip() if isinstance(value, str) else value


def assert_only_shm_added(kind: FileKind, before: str, after: str) -> None:
    assert before != after
    if kind is FileKind.DEVCONTAINER:
        old, new = plain(jsonc.parse(before)), plain(jsonc.parse(after))
        assert any(str(arg).startswith("--shm-size=") for arg in new.get("runArgs", []))
        assert _without_shm_args(new) == _without_shm_args(old)
    elif kind is FileKind.GITLAB_RUNNER:
        new_settings = tomllib.loads(after)
        assert all(
            runner["docker"]["shm_size"] > 0 for runner in new_settings["runners"] if "gpus" in runner.get("docker", {})
        )
        assert _runner_without_shm(new_settings) == _runner_without_shm(tomllib.loads(before))
    elif kind is FileKind.JENKINSFILE:
        old_tokens = [(t.kind, _OPTION.sub("", t.text).strip()) for t in tokens(before)]
        new_tokens = [(t.kind, _OPTION.sub("", t.text).strip()) for t in tokens(after)]
        added = [t for t in new_tokens if t not in old_tokens or new_tokens.count(t) > old_tokens.count(t)]
        assert set(added) <= {("name", "args"), ("string", ""), ("punct", ";")}, added
    else:
        assert _options_without_shm(yaml.safe_load(after)) == _options_without_shm(yaml.safe_load(before))
