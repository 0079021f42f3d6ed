"""Python code that launches containers: Metaflow, Kubeflow Pipelines and Flyte resources, the docker SDK and
Airflow's DockerOperator and KubernetesPodOperator, SageMaker estimators in local mode."""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Notice, WorkloadFormat

if TYPE_CHECKING:
    from collections.abc import Mapping

    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.project.index import ProjectFiles
    from shmlint.source import SourceText

#: a .py file that imports none of these launches no container: an ordinary Python tree costs one search a file
_LAUNCHER_WORDS = ("metaflow", "kfp", "flytekit", "docker", "sagemaker", "airflow", "podman")
#: a string that starts a container engine's run, or a list whose first items do (``"docker", "run"``, ``"docker
#: run``): a process call may run it (``shmlint.formats.python.shell_runs`` reads it)
STARTS_A_RUN = LazyRegex(
    r"[\"'](?:sudo[\"', \t]+)?(?:docker|podman|nvidia-docker)(?:[\"'][ \t]*,[ \t\r\n]*[\"']|[ \t]+)"
    r"(?:container(?:[\"'][ \t]*,[ \t\r\n]*[\"']|[ \t]+))?(?:run|create)\b",
    0,
    ("docker", "podman"),
)
_PYTHON_LAUNCHERS = LazyRegex(
    r"^[ \t]*(?:from|import)[ \t]+(?:metaflow|kfp|flytekit|docker|sagemaker|airflow\.(?:providers|contrib))\b",
    re.MULTILINE,
)


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """Python launcher calls; their reader is imported only for a file that needs it."""
    text = source.text
    if not any(word in text for word in _LAUNCHER_WORDS) or (
        _PYTHON_LAUNCHERS.search(text) is None and STARTS_A_RUN.search(text) is None
    ):
        return [], []  # substring tests first: a few microseconds on a module that names none of them
    from shmlint.extract.dispatch import UnparsableInput
    from shmlint.formats.python.extract import PythonError, PythonSyntax, extract_python

    folder = os.path.dirname(os.fspath(path))

    def sibling(module: str) -> Mapping[str, object] | None:  # ``from consts import *``: consts.py beside the file
        return run.files.per_folder(_sibling_constants, os.path.join(folder, *module.split(".")) + ".py")

    try:
        return extract_python(source, run.signals, sibling), []
    except PythonSyntax as exc:  # a note, not SHM000: a file for a newer Python is fine, only not checked here
        running = f"Python {sys.version_info.major}.{sys.version_info.minor}"
        why = f"line {exc.line}: not checked: {running} cannot parse it ({exc.message}); if the file is written"
        return [], [Notice(source.path, f"{why} for a newer Python, run shmlint under that one")]
    except PythonError as exc:
        raise UnparsableInput(exc.message, exc.line, exc.column, exc.offset) from None


def _sibling_constants(files: ProjectFiles, path: str) -> Mapping[str, object] | None:
    """The constants of a module beside a launcher file, read once a run however many files import it."""
    from shmlint.formats.python.extract import constants_of

    found = files.source(path)
    return constants_of(found.text) if found is not None else None


def _syntax_error(source: SourceText, strict: bool) -> str | None:
    """Re-read with ``ast``: what the fixer's edits are verified against."""
    import ast

    try:
        ast.parse(source.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return f"line {getattr(exc, 'lineno', 1) or 1}: {exc}"
    return None


FORMAT = Format(
    name="python",
    label="Python launcher",
    workload_format=WorkloadFormat.PYTHON,
    remedy=(
        "pass the launcher's shared memory option (shared_memory=, shm_size=, or a Memory emptyDir at /dev/shm; "
        "SageMaker local mode: shm_size in the session's local.container_config)"
    ),
    fix_in_short="pass the launcher's shm size option",
    writer="shmlint.formats.python.edit",
    fixtures=("python",),
    files=(FileNames(FileKind.PYTHON, rank=110, endings=(".py",), syntax_error=_syntax_error),),
    read=_read,
)
