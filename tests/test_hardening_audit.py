"""Issue 18 item 8 held end to end: any file under ``max-file-size`` is checked within seconds and a few hundred MiB,
or reported as SHM000 "too complex" (found by the audit: libyaml's scanner does tokens x flow-depth work, so a
990-deep ``[[[...]]]`` around 5 million items took 150 s and a 100,000-deep nest 141 s, with or without a signal).

Each shape runs in its own ``python -m shmlint`` process; its wall time and peak RSS come from ``os.wait4`` (an
upper bound: Linux keeps the test process's own high-water mark across the fork and exec). The bounds leave room
for a loaded CI machine (measured here with GNU time: 2-10 s and 30-60 MiB)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import NESTING_REFUSED, ROOT

LIMIT = 10 * 1024 * 1024
ITEMS = (LIMIT - 8192) // 2
SECONDS = 45.0
RSS_MIB = 400
SIGNAL = "# nvidia.com/gpu torch\n"
POD = """---
apiVersion: v1
kind: Pod
metadata:
  name: p{i}
spec:
  containers:
  - name: train
    image: pytorch/pytorch:2.3.0
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
DOCKER = "docker run --rm --gpus all -v /data:/data pytorch/pytorch:2.3.0 torchrun train.py --seed {i}\n"


def _fill(piece: str) -> str:
    count = (LIMIT - 8192) // len(piece.format(i=99999))
    return "".join(piece.format(i=i) for i in range(count))


SHAPES = {
    "deep-flow-nest": ("deep.yaml", SIGNAL + "a: " + "[" * (ITEMS // 2) + "]" * (ITEMS // 2) + "\n", "nesting"),
    "flow-around-items": ("around.yaml", SIGNAL + "a: " + "[" * 990 + "1," * (ITEMS - 1000) + "1" + "]" * 990, "too complex"),
    "no-signal-flow-around-items": ("plain.yaml", "a: " + "[" * 900 + "1," * (ITEMS - 1000) + "1" + "]" * 900, "too complex"),
    "flow-sequence": ("flow.yaml", SIGNAL + "data: [" + "1," * (ITEMS - 10) + "1]\n", "too complex"),
    "many-pods": ("pods.yaml", _fill(POD), "SHM000"),
    "many-docker-lines": ("run.sh", _fill(DOCKER), "SHM000"),
    "many-shell-words": ("words.sh", DOCKER.format(i=0) + _fill("echo a b c d e f g h i\n"), "shell words"),
    "one-docker-line-of-flags": ("flags.sh", "docker run --gpus all " + "-e A=1 " * (ITEMS // 4) + "img\n", "shell words"),
    # no signal, a few flow collections in each of many documents: parsed in C, never refused
    "many-cpu-pods": ("cpu.yaml", _fill(POD.replace("pytorch/pytorch:2.3.0", "nginx").replace("nvidia.com/gpu", "cpu")), ""),
}  # fmt: skip


def _run(folder: Path, name: str) -> tuple[int, float, int, bytes]:
    """Exit code, wall seconds and peak RSS (KiB) of ``shmlint check name``; killed past twice the bound.

    Linux gives an exec'd child the peak RSS of the process it was forked from (the test worker, hundreds of MiB
    after other tests), so a small Python process starts shmlint and reports that grandchild's own peak."""
    started = time.perf_counter()
    with open(folder / "out", "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", _PEAK_RSS, str(folder / "rss"), sys.executable, "-m", "shmlint", "check", name],
            cwd=folder,
            env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            process.wait(timeout=2 * SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"{name}: still running after {2 * SECONDS:.0f} s")
    rss_kib = int((folder / "rss").read_text())
    return process.returncode, time.perf_counter() - started, rss_kib, (folder / "out").read_bytes()


#: run argv[2:], write its own peak RSS (KiB) to argv[1], exit with its code
_PEAK_RSS = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[2:])\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_worst_shapes_under_the_size_limit_take_seconds_and_little_memory(tmp_path: Path, shape: str) -> None:
    name, text, expected = SHAPES[shape]
    data = text.encode()
    assert len(data) < LIMIT
    (tmp_path / name).write_bytes(data)
    code, seconds, rss_kib, output = _run(tmp_path, name)
    assert b"Traceback" not in output and b"internal error" not in output, output[-2000:]
    if expected:
        assert code == 1 and expected.encode() in output, output[-2000:]
    else:
        assert code == 0 and b"no findings" in output, output[-2000:]
    assert seconds < SECONDS, f"{shape}: {seconds:.1f} s"
    assert rss_kib < RSS_MIB * 1024, f"{shape}: {rss_kib // 1024} MiB"


def test_flow_work_is_bounded_before_composing() -> None:
    """In-process: the event pass stops on the flow work, long before the 5 million items are read."""
    from shmlint.parsers.yamlnodes import MAX_FLOW_WORK, TooComplex, YamlError, compose
    from shmlint.source import SourceText

    around = "a: " + "[" * 500 + "1," * 300_000 + "1" + "]" * 500 + "\n"
    assert MAX_FLOW_WORK < 500 * 300_000
    started = time.perf_counter()
    with pytest.raises(TooComplex, match="flow collections nested"):
        compose(SourceText("a.yaml", around))
    with pytest.raises(YamlError, match=NESTING_REFUSED):  # shmlint's words, or PyYAML 6.0.4's
        compose(SourceText("d.yaml", "a: " + "[" * 300_000 + "]" * 300_000 + "\n"))
    assert time.perf_counter() - started < 20
    shallow = "a: [[" + "1," * 1000 + "1]]\n"  # ordinary flow content is composed as before
    assert len(compose(SourceText("s.yaml", shallow))) == 1
