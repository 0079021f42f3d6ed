"""Is a YAML file a compose file, and is it an override that only means something on top of a base file?"""

from __future__ import annotations

from pathlib import PurePath, PurePosixPath

from shmlint.formats.compose import COMPOSE_OVERRIDE_FILES, is_compose_name
from shmlint.parsers.yamlnodes import Mappings, Node


def is_compose(path: str, documents: list[Node]) -> bool:
    """A compose file by its name, or by a top-level ``services`` mapping whose services have image or build."""
    if is_compose_name(file_name(path)):
        return True
    mappings = Mappings()
    for document in documents:
        services = mappings.get(document, "services")
        for service_name, (_, service) in mappings.items(services).items():
            if not service_name.startswith("x-") and (
                mappings.get(service, "image") is not None or mappings.get(service, "build") is not None
            ):
                return True
    return False


def is_override(path: str | PurePath) -> bool:
    """``compose.override.yaml`` and friends: partial services that only mean something on top of a base file."""
    return file_name(path) in COMPOSE_OVERRIDE_FILES


def file_name(path: str | PurePath) -> str:
    return PurePosixPath(str(path).replace("\\", "/")).name
