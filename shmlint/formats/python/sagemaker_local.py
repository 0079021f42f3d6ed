"""SageMaker's local mode: an estimator made with ``instance_type="local"`` or ``"local_gpu"`` runs its training job
on this machine with docker compose, a service per host whose config sets the image, volumes, environment, the
``nvidia`` runtime for ``local_gpu`` and nothing else, so /dev/shm is docker's 64 MiB
(sagemaker-python-sdk ``src/sagemaker/local/image.py`` ``_create_docker_host``; aws/sagemaker-python-sdk#937 and
#3331: DataLoader workers fail there) unless the session's ``local.container_config`` adds ``shm_size``, here in the
module or in the user's ``~/.sagemaker/config.yaml``, which no repository holds. The framework estimators run the
``entry_point`` script with Python, from the ``source_dir`` copied into the container: that is what is followed."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

from shmlint import sizes
from shmlint.containers import base_dir
from shmlint.containers.docker import RUNTIME, SHM_SIZE, DockerOptions, Setting, judge_docker
from shmlint.formats.python.calls import Arg, CallReader, called_name, text_value
from shmlint.model import Evidence, Launch, Workload, WorkloadFormat, WorkloadId

#: the instance types that run the job on this machine (``local_gpu``: with the nvidia runtime)
LOCAL_TYPES = frozenset({"local", "local_gpu"})
#: the keyword that names them (``train_instance_type`` before SDK v2)
_TYPE_KEYWORDS = ("instance_type", "train_instance_type")
#: what local mode passes an estimator's image as its command (``_create_docker_host``: ``command: train``)
TRAIN = "train"
#: estimators whose image is AWS's PyTorch one: torch evidence on the CPU too
_TORCH_ESTIMATORS = frozenset({"PyTorch", "HuggingFace"})
#: the SDK's framework estimators (any other estimator's class name ends in ``Estimator``); processors, models
#: and tuners are not training containers
_FRAMEWORK_ESTIMATORS = _TORCH_ESTIMATORS | {"TensorFlow", "MXNet", "SKLearn", "XGBoost", "Chainer", "RLEstimator"}


class SageMakerLocal:
    """Reads SageMaker estimators made for local mode through a module's ``CallReader``."""

    def __init__(self, reader: CallReader) -> None:
        self.reader = reader
        self.shm = tuple(self.container_shm())

    def workloads(self, call: ast.Call) -> Iterator[Workload]:
        """An estimator (an ``entry_point``, or an image of its own) with a local instance type: the training
        container it runs. A model's ``deploy`` and a processor run other programs: not read."""
        name = called_name(call) or ""
        if not (name in _FRAMEWORK_ESTIMATORS or name.endswith("Estimator")):
            return
        options = self.reader.keywords(call)
        kind = next((options[key] for key in _TYPE_KEYWORDS if key in options), None)
        entry = options.get("entry_point")
        image = options.get("image_uri") or options.get("image_name")
        if kind is None or kind.value not in LOCAL_TYPES or (entry is None and image is None):
            return
        arguments = self.command(options) if entry is not None else (TRAIN,)  # an image's own program: ``train``
        gpu = (
            (Setting(RUNTIME, "nvidia", 'instance_type="local_gpu"', self.reader.span(kind.node)),)
            if kind.value == "local_gpu"
            else ()
        )
        view = DockerOptions(
            base_dir=base_dir(self.reader.source.path),
            settings=(*gpu, *self.shm),
            image=text_value(image),
            image_span=self.reader.span(image.node) if image is not None else None,
            arguments=arguments,
            command_span=self.reader.span(entry.node) if entry is not None else None,
        )
        judged = judge_docker(view, self.reader.signals)
        if name in _TORCH_ESTIMATORS:  # followed on the CPU too: AWS's PyTorch image runs it
            evidence = Evidence(f"SageMaker {name} estimator", self.reader.span(call))
            launch = judged.launch or Launch(view.base_dir, (), view.arguments)
            judged = judged._replace(torch=(*judged.torch, evidence), launch=launch)
        yield judged.workload(
            WorkloadId(WorkloadFormat.PYTHON, "SageMaker local mode", name, "", "training container"),
            self.reader.span(call),
            None,  # the size is the session's configuration, not an argument of this call
        )

    def command(self, options: dict[str, Arg]) -> tuple[str, ...]:
        """What the training toolkit starts: ``python`` (``sh`` for a shell script) with the entry point from the
        local ``source_dir`` (the file's own folder without one). A script named at run time, a ``source_dir``
        computed, remote (``s3://``) or of another repository (``git_config``) is not in these files: nothing."""
        entry, source_dir = options["entry_point"], options.get("source_dir")
        folder = source_dir.value if source_dir is not None else ""
        if not isinstance(entry.value, str) or not isinstance(folder, str) or "://" in folder:
            return ()
        if "git_config" in options:
            return ()
        script = os.path.join(folder, entry.value)
        return ("sh" if entry.value.endswith(".sh") else "python", script)

    def container_shm(self) -> Iterator[Setting]:
        """``shm_size`` in a ``container_config`` mapping the module writes (``{"local": {"container_config":
        {"shm_size": "8G"}}}``), the size every local-mode container of its session gets."""
        for node in ast.walk(self.reader.tree):
            local = self.entry(node, "local")
            config = self.entry(local, "container_config") if local is not None else None
            if config is not None:
                for inner, size in zip(config.keys, config.values, strict=True):
                    if inner is not None and self.reader.value(inner) == "shm_size":
                        arg = Arg(size, self.reader.value(size))
                        described = "local.container_config shm_size"
                        yield Setting(
                            SHM_SIZE, None, described, self.reader.span(size), self.reader.size(arg, sizes.DOCKER)
                        )

    def entry(self, node: ast.AST, key: str) -> ast.Dict | None:
        """The mapping a dict literal holds under ``key``, None for anything else."""
        if not isinstance(node, ast.Dict):
            return None
        for name, value in zip(node.keys, node.values, strict=True):
            if name is not None and self.reader.value(name) == key and isinstance(value, ast.Dict):
                return value
        return None
