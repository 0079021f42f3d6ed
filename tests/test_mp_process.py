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
