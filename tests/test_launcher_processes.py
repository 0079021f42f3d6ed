"""Launchers decide by the processes they start in one container: NCCL passes data through /dev/shm
between local processes, so torchrun, Accelerate and MPI launchers are evidence when they start two or more on the
GPUs of the container, and say nothing by themselves when they start one (the script's DataLoader workers decide).
An MPIJob's worker pods hold ``slotsPerWorker`` ranks that its launcher's mpirun starts from another pod."""

from __future__ import annotations

import pytest

from shmlint.severity import Severity
from tests.test_tiers import POD, check, shm001

ERROR, INFO = Severity.ERROR, Severity.INFO


def judged(command: str, gpus: int | str) -> list[tuple[Severity, str]]:
    """SHM001 on a pod running ``command`` (words split on blanks) with ``gpus`` counted GPUs (0: none)."""
    args = "[" + ", ".join(f'"{word}"' for word in command.split()) + "]"
    text = POD.format(image="registry.example/team/train:1", args=args, gpus=gpus)
    if gpus == 0:
        text = text.replace("    resources: {limits: {nvidia.com/gpu: 0}}\n", "")
    return shm001(check("pod.yaml", text))


@pytest.mark.parametrize(
    ("command", "gpus", "severity", "words"),
    [
        # torchrun's own default is one process: no NCCL peer, the launcher alone is not evidence
        ("torchrun train.py", 1, INFO, "one local process"),
        ("torchrun train.py", 8, INFO, "one local process"),
        ("python -m torch.distributed.run --nproc_per_node=1 main.py", 4, INFO, "one local process"),
        # one process and no DataLoader workers on its command line: nothing uses /dev/shm
        ("python -m torch.distributed.run main.py --workers=0", 1, None, ""),
        ("torchrun --standalone train.py --num_workers 0", 1, None, ""),
        # several processes: NCCL between them
        ("torchrun --nproc_per_node=8 train.py", 8, ERROR, "NCCL between processes"),
        ("torchrun --nproc_per_node=8 train.py --workers=0", 8, ERROR, "NCCL between processes"),
        ("torchrun --nproc-per-node=gpu train.py", 4, ERROR, "4 GPUs"),
        ("torchrun --nproc_per_node auto train.py", 2, ERROR, "one process per visible GPU"),
        ("torchrun --nproc_per_node=gpu train.py", 1, INFO, "one local process"),  # one GPU, one process
        ("torchrun --nproc_per_node=$NUM_GPUS train.py", 8, ERROR, "set at run time"),
        ("torchrun --nproc_per_node=$NUM_GPUS train.py", 1, INFO, "one local process"),
        ("torchrun --nproc-per-node {{ gpu_count }} train.py", 4, ERROR, "set at run time"),  # an Ansible template
        # Accelerate: every visible GPU without a count or a config file
        ("accelerate launch train.py", 2, ERROR, "without --num_processes"),
        ("accelerate launch train.py", 1, INFO, "Accelerate launcher with one process"),
        ("accelerate launch --num_processes 4 train.py", 4, ERROR, "--num_processes > 1"),
        ("accelerate launch --config_file fsdp.yaml train.py", 8, INFO, "config file decides"),
        # TRL's training CLI launches through Accelerate (trl/cli/accelerate_launcher.py)
        ("trl sft --model_name_or_path m --dataset_name d", 4, ERROR, "one process per visible GPU"),
        ("trl grpo --model_name_or_path m", 1, INFO, "TRL's training CLI with one process"),
        ("trl dpo --num_processes 2 --model_name_or_path m", 2, ERROR, "--num_processes > 1"),
        ("trl sft --accelerate_config zero3 --model_name_or_path m", 8, ERROR, "multi-process accelerate configs"),
        ("trl sft --accelerate_config single_gpu --model_name_or_path m", 8, INFO, "accelerate config decides"),
        ("trl sft --accelerate_config zero3 --num_processes 1", 8, INFO, "accelerate config decides"),
        ("trl env", 4, INFO, "has an accelerator"),  # not a training command: no entry, the GPUs alone
        # launch options may follow the training arguments, or sit in a --config YAML: undecided, never per-GPU
        ("trl sft --model_name_or_path m " + "--x 1 " * 60 + "--num_processes 1", 4, INFO, "with one process"),
        ("trl sft --config cfg.yaml", 4, INFO, "accelerate config decides"),
        ("trl sft --accelerate_config zero3.yaml", 4, INFO, "accelerate config decides"),  # the user's own file
        ("trl vllm-serve --model m --tensor_parallel_size 2", 2, ERROR, "NCCL between processes"),
        # MosaicML Composer's launcher: -n processes; PHP's composer -n takes no number
        ("composer -n 8 train.py --config c.yaml", 8, ERROR, "Composer's launcher"),
        ("composer -n install", 2, INFO, "has an accelerator"),
        ("composer -n 2>&1", 2, INFO, "has an accelerator"),  # PHP's: a redirection, not a count
        # DeepSpeed's launcher: one process per visible GPU unless --num_gpus says; one process has no NCCL peer
        # (ds_report's advice to size /dev/shm is for NCCL; audit59b: 13 single-process steps failed the gate)
        ("deepspeed --num_gpus 1 train.py", 1, INFO, "DeepSpeed with one local process"),
        ("deepspeed --num_gpus 1 train.py", 4, INFO, "DeepSpeed with one local process"),
        ("deepspeed train.py", 1, INFO, "DeepSpeed with one local process"),
        ("deepspeed train.py", 4, ERROR, "DeepSpeed launcher told no count"),
        ("deepspeed --num_nodes 1 --num_gpus=4 train.py", 1, ERROR, "several local processes"),  # it says so
        ("deepspeed --num_accelerators 2 train.py", 2, ERROR, "several local processes"),
        ("deepspeed --num_gpus $NGPU train.py", 4, ERROR, "set at run time"),  # review: read as the GPU count
        ("deepspeed --num_gpus $NGPU train.py", 1, INFO, "DeepSpeed with one local process"),
        ("deepspeed --include localhost:0 train.py", 4, INFO, "DeepSpeed with one local process"),  # review
        # MPI ranks in the container
        ("mpirun --allow-run-as-root -np 2 all_reduce_perf -b 1M -g 1", 2, ERROR, "several accelerator ranks"),
        ("mpirun --n 4 all_reduce_perf -g 1", 4, ERROR, "several accelerator ranks"),  # Open MPI's --n is -np
        ("horovodrun -np 4 -H localhost:4 python train.py", 4, ERROR, "several accelerator ranks"),
        ("horovodrun -np 16 -H host1:4,host2:4,host3:4,host4:4 python train.py", 4, ERROR, "several accelerator ranks"),
        ("mpirun -np 64 -N 8 all_reduce_perf -g 1", 8, ERROR, "several accelerator ranks"),
        ("mpiexec --map-by ppr:4:node python train.py", 4, ERROR, "several accelerator ranks"),
        # the mpi-operator's own launcher example: its host list comes from the operator, not the file
        ("mpirun --allow-run-as-root -np 4 -bind-to none -map-by slot python t.py", 1, INFO, "does not show"),
        ("mpirun -np 16 --map-by ppr:8:node python train.py", 8, ERROR, "several accelerator ranks"),
        ("mpirun -np 1 all_reduce_perf -g 1", 1, INFO, "does not show"),
        ("mpirun -np 16 --hostfile /etc/mpi/hostfile python train.py", 8, INFO, "does not show"),
        ("mpirun -np 2 -H node1:1,node2:1 python train.py", 1, INFO, "does not show"),
        # a launcher pod without GPUs only starts ranks elsewhere
        ("mpirun -np 16 python train.py", 0, None, ""),
        ("horovodrun -np 4 -H localhost:4 python train.py", 0, None, ""),
    ],
)
def test_a_launcher_is_evidence_by_the_processes_it_starts_here(
    command: str, gpus: int, severity: Severity | None, words: str
) -> None:
    found = judged(command, gpus)
    if severity is None:
        assert not found, found
        return
    ((got, message),) = found
    assert got is severity and words in message, (got, message)


MPIJOB = """apiVersion: kubeflow.org/{version}
kind: MPIJob
metadata: {{name: job}}
spec:
  slotsPerWorker: {slots}
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
          - name: launcher
            image: registry.example/hpc/bench:1
            command: [sh, -c, "mpirun --allow-run-as-root -np {ranks} python bench.py --variable_update=horovod"]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: worker
            image: registry.example/hpc/bench:1
            resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
"""


@pytest.mark.parametrize("version", ["v2beta1", "v1"])
def test_an_mpijob_worker_with_several_slots_on_several_gpus_holds_local_nccl_ranks(version: str) -> None:
    result = check("job.yaml", MPIJOB.format(version=version, slots=8, ranks=16, gpus=8))
    ((finding),) = [f for f in result.findings if f.code == "SHM001"]
    assert finding.severity is ERROR and "Worker" in finding.message
    assert "mpirun -np 16 with slotsPerWorker: 8 on 8 GPUs: 8 NCCL ranks in each worker pod" in finding.detail


@pytest.mark.parametrize(
    ("slots", "ranks", "gpus"),
    [
        (1, 16, 1),  # one rank per worker pod: ranks talk across pods
        (8, 1, 8),  # the launcher starts a single rank
        (8, 16, 1),  # a single GPU: not GPU ranks side by side
    ],
)
def test_an_mpijob_worker_with_one_rank_or_one_gpu_is_not_evidence(slots: int, ranks: int, gpus: int) -> None:
    found = shm001(check("job.yaml", MPIJOB.format(version="v2beta1", slots=slots, ranks=ranks, gpus=gpus)))
    assert [severity for severity, _ in found] == [INFO]  # the worker's GPU, software undecided; launcher: nothing


V1ALPHA1_MPIJOB = """apiVersion: kubeflow.org/v1alpha1
kind: MPIJob
metadata: {{name: job}}
spec:
  {extra}
  template:
    spec:
      containers:
      - name: job
        image: mpioperator/tensorflow-benchmarks:latest
        command: [mpirun, --allow-run-as-root, -x, NCCL_DEBUG=INFO, python, tf_cnn_benchmarks.py, --variable_update=horovod]
        resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
"""


def test_a_v1alpha1_mpijob_gives_each_worker_as_many_ranks_as_its_gpu_limit() -> None:
    """mpi-operator's v1alpha1 writes ``slots=<the template's nvidia.com/gpu limit>`` for each worker in the
    hostfile when ``slotsPerWorker`` is unset (aws-samples/eks-kubeflow-workshop's Horovod job, audit62b)."""
    result = check("job.yaml", V1ALPHA1_MPIJOB.format(extra="replicas: 2", gpus=4))
    ((finding),) = [f for f in result.findings if f.code == "SHM001"]
    assert finding.severity is ERROR
    assert "the v1alpha1 operator's slots per worker, its nvidia.com/gpu: 4 on 4 GPUs: 4 NCCL ranks" in finding.detail


@pytest.mark.parametrize(
    ("extra", "gpus"),
    [
        (["replicas: 2"], 1),  # one GPU, one slot
        (["replicas: 2", "slotsPerWorker: 1"], 4),  # the job's own slot count wins
        (["gpus: 8"], 4),  # workers and slots come from the operator's per-node flags
        (["replicas: 2", "processingResourceType: cpu"], 4),  # slots counted in CPUs
        (["backoffLimit: 2"], 4),  # no workers written
        (["replicas: 0"], 4),  # no worker pods
        (["replicas: null"], 4),
    ],
)
def test_a_v1alpha1_mpijob_without_gpu_slots_is_not_evidence(extra: list[str], gpus: int) -> None:
    found = shm001(check("job.yaml", V1ALPHA1_MPIJOB.format(extra="\n  ".join(extra), gpus=gpus)))
    assert [severity for severity, _ in found] == [INFO], found


def test_the_slots_rule_is_read_from_mpijobs_only() -> None:
    other = MPIJOB.format(version="v2beta1", slots=8, ranks=16, gpus=8).replace("kind: MPIJob", "kind: OtherJob")
    assert [severity for severity, _ in shm001(check("job.yaml", other))] == [INFO]


@pytest.mark.parametrize("slots", ["99999999999999999999999", "-3", "eight", "8.5", "٨"])
def test_a_hostile_slot_count_is_not_read(slots: str) -> None:
    found = shm001(check("job.yaml", MPIJOB.format(version="v2beta1", slots=f'"{slots}"', ranks=16, gpus=8)))
    assert [severity for severity, _ in found] == [INFO]


def test_software_whose_entry_says_what_it_does_as_mpi_ranks_keeps_its_tier() -> None:
    """nvbandwidth (NVIDIA's k8s samples) copies between GPUs with CUDA and uses MPI only to start its ranks: its
    entry (unknown, ``under_launchers``) is more specific than "GPU ranks, so NCCL"."""
    text = MPIJOB.format(version="v2beta1", slots=2, ranks=8, gpus=2).replace(
        "registry.example/hpc/bench:1", "ghcr.io/nvidia/k8s-samples:nvbandwidth-v0.7"
    )
    ((severity, message),) = shm001(check("job.yaml", text))
    assert severity is INFO and "nvbandwidth" in message


@pytest.mark.parametrize(
    ("command", "ranks"),
    [
        ("mpirun -np 16 python train.py", 16),
        ("mpirun -np=8 ./all_reduce_perf", 8),
        ("mpirun --allow-run-as-root python train.py -n 3", None),  # the program's own -n is not the launcher's
        ("horovodrun -H localhost:4 python3 /x/train.py -c 2", None),
    ],
)
def test_a_launcher_rank_count_is_read_up_to_the_program_it_launches(command: str, ranks: int | None) -> None:
    from shmlint.formats.kubernetes.extract import _launched_ranks

    assert _launched_ranks(command.split()) == ranks


def test_the_tier_data_and_the_mpijob_reader_know_the_same_launchers_and_rank_options() -> None:
    """The rank options are spelt twice, as an alternation in the tier data's pattern (data that the policy export
    reads too) and as the set the MPIJob reader looks up: held to each other here."""
    import re

    from shmlint.build_data import read_need_yaml
    from shmlint.formats.kubernetes.extract import MPI_RANK_OPTIONS
    from shmlint.signals import MPI_LAUNCHERS

    (entry,) = [item for item in read_need_yaml()["software"] if item["id"] == "mpi-local-ranks"]
    first = entry["match"]["commands"][0]
    launchers = re.search(r"\((mpirun\|[^)]*)\)", first)
    options = re.search(r" \((-np\|[^)]*)\)", first)
    assert launchers is not None and options is not None
    assert frozenset(launchers.group(1).split("|")) == MPI_LAUNCHERS
    assert frozenset(options.group(1).split("|")) == MPI_RANK_OPTIONS


PYTORCHJOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {{name: ddp}}
spec:
{spec}  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/ml/ddp:1
            command: {command}
            resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
"""


@pytest.mark.parametrize(
    ("spec", "command", "gpus", "count"),
    [
        ("", "[torchrun, train.py]", 4, 4),  # the operator's default nprocPerNode: auto, one a GPU
        ("  nprocPerNode: gpu\n", "[python, -m, torch.distributed.run, train.py]", 8, 8),
        ('  nprocPerNode: "2"\n', '[sh, -c, "torchrun /app/train.py --lr 0.1"]', 4, 2),
        ("  elasticPolicy: {nProcPerNode: 4, maxRestarts: 3}\n", "[torchrun, train.py]", 4, 4),
    ],
)
def test_a_pytorchjob_hands_its_processes_per_node_to_torchrun(spec: str, command: str, gpus: int, count: int) -> None:
    found = shm001(check("job.yaml", PYTORCHJOB.format(spec=spec, command=command, gpus=gpus)))
    ((severity, detail),) = found
    assert severity is ERROR and f"{count} torchrun processes in each pod" in detail and "PET_NPROC_PER_NODE" in detail


@pytest.mark.parametrize(
    ("spec", "command", "gpus"),
    [
        ('  nprocPerNode: "1"\n', "[torchrun, train.py]", 4),  # one process a pod
        ("", "[torchrun, --nproc_per_node=1, train.py]", 4),  # its own count wins over the operator's
        ("", "[python, train.py]", 4),  # no torchrun: PET_NPROC_PER_NODE is read by nothing
        ("", "[torchrun, train.py]", 1),  # auto on one GPU: one process
        ("  nprocPerNode: cpu\n", "[torchrun, train.py]", 4),  # not GPU processes
        ('  nprocPerNode: "99999999"\n', "[torchrun, train.py]", 4),  # not a count read
        ('  nprocPerNode: "²"\n', "[torchrun, train.py]", 4),  # a digit to str.isdigit, not to int(): no crash
    ],
)
def test_a_pytorchjob_without_several_local_torchrun_processes_is_not_evidence(
    spec: str, command: str, gpus: int
) -> None:
    found = shm001(check("job.yaml", PYTORCHJOB.format(spec=spec, command=command, gpus=gpus)))
    assert [severity for severity, _ in found] == [INFO]


def test_the_operator_hands_its_processes_to_the_pods_containers_not_its_init_containers() -> None:
    """training-operator's setPodEnv appends PET_NPROC_PER_NODE to each of ``Spec.Containers`` and to no init
    container: an init container that runs torchrun keeps torchrun's own default of one process."""
    text = PYTORCHJOB.format(spec="", command="[torchrun, train.py]", gpus=4).replace(
        "          containers:\n", "          initContainers:\n"
    )
    text += "          containers:\n          - {name: pytorch, image: registry.example/ml/ddp:1}\n"
    result = check("job.yaml", text)
    assert not any("torchrun processes in each pod" in f.detail for f in result.findings)
    assert not any("PET_NPROC_PER_NODE" in f.message for f in result.findings)


@pytest.mark.parametrize("spec", ["  nprocPerNode: [4]\n", "  nprocPerNode: {count: 4}\n"])
def test_an_nproc_that_is_no_single_value_is_unknown_and_said(spec: str) -> None:
    """Not 'unset' (the operator's default auto): the API server refuses such a PyTorchJob, and nothing is known
    of its processes; the report says so."""
    result = check("job.yaml", PYTORCHJOB.format(spec=spec, command="[torchrun, train.py]", gpus=4))
    assert not any("torchrun processes in each pod" in f.detail for f in result.findings)
    ((notice),) = result.notices
    assert "line 5: nprocPerNode is not a single value" in notice.message and "unknown" in notice.message


def test_the_nproc_rule_is_read_from_pytorchjobs_only() -> None:
    other = PYTORCHJOB.format(spec="", command="[torchrun, train.py]", gpus=4).replace("PyTorchJob", "OtherJob")
    assert [severity for severity, _ in shm001(check("job.yaml", other))] == [INFO]


LAUNCHER_JOB = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {{name: bert}}
spec:
  slotsPerWorker: 8
{extra}  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
          - name: launcher
            image: registry.example/ml/habana-pytorch:1
            command: [bash, launch_train.sh]
{resources}"""


GPUS = "            resources: {limits: {nvidia.com/gpu: 8}}\n"


@pytest.mark.parametrize(("extra", "errors"), [("", 0), ("  runLauncherAsWorker: true\n", 1)])
def test_an_mpijob_launcher_starts_its_ranks_in_the_workers(tmp_path, extra: str, errors: int) -> None:
    """The launcher's script starts DeepSpeed over a hostfile of the worker pods: not its own processes, unless
    the job runs the launcher as a worker too (then with the GPUs of one: DeepSpeed starts a process on each).
    An ``echo`` naming DeepSpeed runs nothing in any container."""
    from shmlint.runner import check_paths
    from shmlint.settings import Settings

    (tmp_path / ".git").mkdir()
    job = LAUNCHER_JOB.format(extra=extra, resources=GPUS if extra else "")
    (tmp_path / "job.yaml").write_text(job, encoding="utf-8")
    (tmp_path / "launch_train.sh").write_text(
        'echo "Creating DeepSpeed hostfile"\ndeepspeed --hostfile /job/hostfile train.py\n', encoding="utf-8"
    )
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    found = [f for f in report.findings if f.code == "SHM001" and f.severity is ERROR]
    assert len(found) == errors
    assert all("launch_train.sh:2 deepspeed" in f.detail for f in found)


def test_a_key_written_twice_in_a_pod_spec_is_said() -> None:
    """A second ``volumeMounts:`` replaces the first, which mounted /dev/shm (audit62b): kubectl refuses such a
    file, and the report says why the mount is not seen instead of staying silent about it."""
    text = V1ALPHA1_MPIJOB.format(extra="replicas: 2", gpus=1).replace(
        "        resources:",
        "        volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n"
        "        volumeMounts: [{name: data, mountPath: /data}]\n"
        "        resources:",
    )
    result = check("job.yaml", text)
    ((notice),) = result.notices
    assert "line 13: duplicate key 'volumeMounts'" in notice.message and "kubectl refuses" in notice.message
    assert not check("job.yaml", V1ALPHA1_MPIJOB.format(extra="replicas: 2", gpus=1)).notices


@pytest.mark.parametrize(("gpus", "severity"), [(1, INFO), (4, ERROR)])
def test_a_v1alpha1_templates_mpirun_runs_in_the_launcher_not_beside_its_gpus(gpus: int, severity: Severity) -> None:
    """The template's command runs in the launcher pod, which the operator makes without resource limits; the pods
    that hold the GPUs run ``sleep 365d`` (newWorker): ``-np 2`` on one GPU per worker is one rank in each."""
    text = V1ALPHA1_MPIJOB.format(extra="replicas: 2", gpus=gpus).replace("[mpirun,", '[mpirun, -np, "2",')
    ((got, message),) = shm001(check("job.yaml", text))
    assert got is severity, message
    if severity is ERROR:
        assert "mpirun -np 2 with the v1alpha1 operator's slots per worker" in message
    else:
        assert "command sleep 365d" in message


def test_a_key_written_twice_in_an_argo_template_is_said() -> None:
    text = """apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {name: train}
spec:
  entrypoint: main
  templates:
  - name: main
    container:
      image: pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime
      command: [python, train.py]
      volumeMounts: [{name: dshm, mountPath: /dev/shm}]
      volumeMounts: [{name: data, mountPath: /data}]
      resources: {limits: {nvidia.com/gpu: 1}}
"""
    ((notice),) = check("wf.yaml", text).notices
    assert "line 12: duplicate key 'volumeMounts'" in notice.message and "the last one is read here" in notice.message


def test_a_complex_key_in_a_pod_spec_is_said_without_a_last_one() -> None:
    text = V1ALPHA1_MPIJOB.format(extra="replicas: 2", gpus=1).replace(
        "        resources:", "        env: [{name: A, value: b, ? [x, y] : z}]\n        resources:"
    )
    ((notice),) = check("job.yaml", text).notices
    assert "a mapping or sequence is used as a key of a pod spec: kubectl refuses the file" in notice.message
    assert "last one" not in notice.message


_OPERATOR_OBJECT = """apiVersion: kaiwo.silogen.ai/v1alpha1
kind: {kind}
metadata: {{name: train}}
spec:
  image: rocm/vllm:latest
{spec}"""


@pytest.mark.parametrize(
    ("kind", "spec", "said"),
    [
        ("KaiwoJob", "  gpus: 8\n  entrypoint: python train.py\n", "line 6: KaiwoJob/train asks for GPUs (gpus: 8)"),
        (
            "Batch",
            "  resources: {limits: {nvidia.com/gpu: 2}}\n",
            "line 6: Batch/train asks for GPUs (nvidia.com/gpu: 2)",
        ),
        ("KaiwoJob", "  gpus: 0\n", ""),  # no GPU asked for
        ("CustomResourceDefinition", "  gpus: 8\n", ""),  # a schema, not a workload
    ],
)
def test_an_operators_object_that_asks_for_gpus_and_holds_no_pod_spec_is_said(kind: str, spec: str, said: str) -> None:
    """An operator's own kind (audit67b: Kaiwo's KaiwoJob, whose operator makes the pods) is not read: the report
    says its containers are not checked rather than nothing."""
    result = check("job.yaml", _OPERATOR_OBJECT.format(kind=kind, spec=spec))
    assert not result.workloads
    assert [n.message.split(" and names")[0] for n in result.notices] == ([said] if said else [])
