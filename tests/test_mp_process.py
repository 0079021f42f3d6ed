"""``torch.multiprocessing.Process(...)``: what it is given crosses through /dev/shm only under a start method that
pickles it (spawn, forkserver), which any file of the program may set; under Linux's fork the child has its copy
of memory (audit80d: ranks given numpy states in a container with no GPU failed the gate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.runner import check_paths
from shmlint.settings import Settings

RUN = "docker run --gpus all -v $PWD:/w -w /w pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime python main.py\n"
WORKER = (
    "import torch.multiprocessing as mp\n\n\ndef start(states):\n"
    "    p = mp.Process(target=work, args=(states,))\n    p.start()\n"
)


@pytest.mark.parametrize(
    ("main", "label"),
    [
        ("from worker import start\n\nstart([1, 2])\n", "info"),  # fork: nothing pickled
        ("import multiprocessing\nfrom worker import start\n\nmultiprocessing.set_start_method('spawn')\n", "error"),
        (
            "import torch.multiprocessing as tmp\nfrom worker import start\n\ntmp.set_start_method(method='forkserver')\n",
            "error",
        ),
        ("import torch.multiprocessing as mp\n\nmp.spawn(work, nprocs=2)\n", "error"),  # spawn always pickles
        ("from torch.multiprocessing import set_start_method\nimport worker\n\nset_start_method('spawn')\n", "error"),
        ("import multiprocessing as std_mp\nimport worker\n\nstd_mp.set_start_method('spawn', force=True)\n", "error"),
    ],
)
def test_a_process_shares_through_shm_only_under_a_pickling_start(tmp_path: Path, main: str, label: str) -> None:
    (tmp_path / "run.sh").write_text(RUN)
    (tmp_path / "main.py").write_text(main)
    (tmp_path / "worker.py").write_text(WORKER)
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    (finding,) = [f for f in report.findings if f.code == "SHM001"]
    assert finding.severity.label == label
    if label == "error" and "spawn(" not in main:
        assert "worker.py:5 mp.Process(...) shares tensors" in finding.message + (finding.detail or "")


BRANCHED = """\
import argparse
import torch.multiprocessing as mp

p = argparse.ArgumentParser()
p.add_argument("--num_proc", type=int, default=4)
args = p.parse_args()
{SETS}
if args.num_proc > 1:
    mp.spawn(work, nprocs=args.num_proc)
else:
    work(0)
"""


@pytest.mark.parametrize(
    ("argument", "sets", "label"),
    [
        ("--num_proc=1", "", "info"),  # audit80d: the launch turns the branch off
        ("--num_proc 2", "", "error"),
        ("", "", "error"),  # the default, 4
        ("--num_proc=1", "args.num_proc = torch.cuda.device_count()", "error"),  # the code sets it: not read
        # the review: a caller's arguments after it, a value merged in from a config
        ('--num_proc=1 "$@"', "", "error"),
        ("--num_proc=1", "setattr(args, 'num_proc', 4)", "error"),
    ],
)
def test_processes_in_a_branch_the_launch_turns_off_are_no_evidence(
    tmp_path: Path, argument: str, sets: str, label: str
) -> None:
    (tmp_path / "run.sh").write_text(RUN.replace("main.py", f"main.py {argument}"))
    (tmp_path / "main.py").write_text(BRANCHED.replace("{SETS}", sets))
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    (finding,) = [f for f in report.findings if f.code == "SHM001"]
    assert finding.severity.label == label


@pytest.mark.parametrize(
    ("given", "label"),
    [
        ("args=(i, args.n, args)", "info"),  # audit89c's probe: a rank's number, a count, the options' object
        ("args=(i, 2 * i, 'gloo')", "info"),
        ("", "info"),  # nothing given: nothing pickled but the target, by its name
        ("args=(i, states)", "error"),  # anything else may be a tensor
        ("args=(i,), kwargs={'s': states}", "error"),
        ("args=(j, args)", "error"),  # a name bound otherwise than so
    ],
)
def test_a_process_given_only_what_holds_no_tensor_shares_nothing(tmp_path: Path, given: str, label: str) -> None:
    main = (
        "import argparse\nimport torch.multiprocessing as mp\n\np = argparse.ArgumentParser()\n"
        "p.add_argument('--n', type=int, default=2)\nargs = p.parse_args()\nstates = load()\nj = pick()\n"
        "mp.set_start_method('spawn', force=True)\n"
        f"for i in range(args.n):\n    mp.Process(target=work, {given}).start()\n"
    )
    (tmp_path / "run.sh").write_text(RUN)
    (tmp_path / "main.py").write_text(main)
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    (finding,) = [f for f in report.findings if f.code == "SHM001"]
    assert finding.severity.label == label, finding.message
