"""The red-team campaign of issue 18, repeatable: hostile inputs, data safety under concurrent edits and SIGKILL,
security probes, and the worst time and memory for any file under ``max-file-size``.

    PYTHONPATH=$PWD python3 bench/redteam.py            # the full campaign (about ten minutes on a busy machine)
    PYTHONPATH=$PWD python3 bench/redteam.py --quick    # fewer trials, a smoke run
    PYTHONPATH=$PWD python3 bench/redteam.py --round3   # only issue 27's inputs, each with its time and memory

Prints one line per input class and the figures in the issue's form: inputs tried, tracebacks, internal errors,
hangs, edits lost, files corrupted, security issues; worst time and peak memory (RSS of the ``shmlint`` process)
for a file under the limit. Every input runs in its own ``python -m shmlint`` process (a hang is a time-out, memory
is that process's peak), except the mutated fixtures, which run in-process and are timed one by one.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_bounded_work import DOCKER  # noqa: E402
from tests.test_bounded_work import POD_DOCUMENT as AUDIT_POD  # noqa: E402
from tests.test_no_data_loss import APPENDER, build_tree, fix_process, kill_group, snapshot, wait_for_lines  # noqa: E402
from tests.test_render_offline import Counting  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
LIMIT = 10 * 1024 * 1024  # the default max-file-size
UNDER = LIMIT - 64 * 1024  # generated files stay just under it
HANG_SECONDS = 120.0
#: the worst-shape pod and ``docker run`` line the hardening audit fills files with (one document here)
POD = AUDIT_POD.removeprefix("---\n")


@dataclass
class Figures:
    inputs: int = 0
    tracebacks: int = 0
    internal_errors: int = 0
    hangs: int = 0
    silent: int = 0  # a run that should have said something said "All checked" or exited 0 (issue 27)
    edits_lost: int = 0
    files_corrupted: int = 0
    security_issues: int = 0
    worst: tuple[float, str] = (0.0, "")
    peak: tuple[int, str] = (0, "")
    notes: list[str] = field(default_factory=list)

    def record(self, name: str, outcome: Outcome) -> None:
        self.inputs += 1
        self.tracebacks += outcome.traceback
        self.internal_errors += outcome.internal
        self.hangs += outcome.hung
        if outcome.under_limit:
            self.worst = max(self.worst, (outcome.seconds, name))
            self.peak = max(self.peak, (outcome.rss_kib, name))


@dataclass(frozen=True)
class Outcome:
    code: int | None
    seconds: float
    rss_kib: int
    stdout: bytes
    stderr: bytes
    under_limit: bool

    @property
    def hung(self) -> bool:
        return self.code is None

    @property
    def traceback(self) -> bool:
        return b"Traceback (most recent call last)" in self.stderr

    @property
    def internal(self) -> bool:
        return b"internal error" in self.stderr or self.code not in (None, 0, 1, 2)


#: GNU time measures the ``shmlint`` process alone: ``ru_maxrss`` from our own ``wait4`` would include this
#: process's pages at the fork (Linux keeps the high-water mark across exec)
TIME = shutil.which("time") or "/usr/bin/time"


def shmlint(args: list[str], cwd: Path, *, stdin: bytes | None = None, under_limit: bool = True) -> Outcome:
    """One ``python -m shmlint`` process: exit code (None: killed after HANG_SECONDS), wall time, peak RSS."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        rss_file = Path(scratch) / "rss"
        out, err, into = (open(Path(scratch) / name, "w+b") for name in ("out", "err", "in"))  # noqa: SIM115
        with out, err, into:
            if stdin is not None:
                into.write(stdin)
                into.seek(0)
            process = subprocess.Popen(
                [TIME, "-f", "%M", "-o", str(rss_file), sys.executable, "-m", "shmlint", *args],
                cwd=cwd,
                env=ENV,
                stdin=into if stdin is not None else subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            try:
                code: int | None = process.wait(HANG_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait()
                code = None
            seconds = time.perf_counter() - started
            out.seek(0)
            err.seek(0)
            text = rss_file.read_text() if rss_file.exists() else ""
            rss = int(text.split()[-1]) if text.split() and text.split()[-1].isdigit() else 0
            return Outcome(code, seconds, rss, out.read(), err.read(), under_limit)


# -- worst shapes just under max-file-size ---------------------------------------------------------------------


def _fill(unit: Callable[[int], str], head: str = "", tail: str = "", size: int = UNDER) -> str:
    parts, total, i = [head], len(head) + len(tail), 0
    while True:
        piece = unit(i)
        if total + len(piece) > size:
            break
        parts.append(piece)
        total += len(piece)
        i += 1
    parts.append(tail)
    return "".join(parts)


def shapes() -> Iterator[tuple[str, str, bytes]]:
    """(name, file name, bytes): the worst shapes we could think of, each just under the size limit."""
    gpu = "# nvidia.com/gpu torch\n"
    half = UNDER // 2
    yield "flow sequence [1,1,...]", "flow.yaml", (gpu + "data: [" + "1," * ((UNDER - 40) // 2) + "1]\n").encode()
    yield "flow mapping {a0: 1, ...}", "map.yaml", _fill(lambda i: f"a{i}: 1, ", gpu + "data: {", "z: 1}\n").encode()
    yield "deep flow nesting [[[...]]]", "deep.yaml", (gpu + "a: " + "[" * half + "]" * half + "\n").encode()
    nested = (UNDER - 100) // 5
    yield "deep flow mappings {a: {a: ...}}", "deepmap.yaml", (gpu + "{a: " * nested + "}" * nested).encode()
    depth = int((2 * UNDER) ** 0.5) - 10
    block = "".join(" " * i + f"k{i}:\n" for i in range(depth))
    yield "deep block nesting (indentation)", "block.yaml", (gpu + block[: UNDER - 100]).encode()
    yield "many GPU pods (multi-document)", "pods.yaml", _fill(lambda i: "---\n" + POD.format(i=i)).encode()
    yield (
        "many CPU pods (prefilter path)",
        "cpu.yaml",
        _fill(
            lambda i: (
                "---\n" + POD.format(i=i).replace("pytorch/pytorch:2.3.0", "nginx").replace("nvidia.com/gpu", "cpu")
            )
        ).encode(),
    )
    yield (
        "one pod, 100k+ env entries",
        "env.yaml",
        _fill(lambda i: f"    - {{name: V{i}, value: x}}\n", POD.format(i=0) + "    env:\n").encode(),
    )
    yield (
        "one pod, many containers",
        "containers.yaml",
        _fill(lambda i: f"  - name: c{i}\n    image: pytorch/pytorch\n", POD.format(i=0)).encode(),
    )
    yield (
        "compose, many services",
        "compose.yaml",
        _fill(
            lambda i: (
                f"  s{i}:\n    image: pytorch/pytorch:2.3.0\n    deploy: {{resources: {{reservations: {{devices: [{{capabilities: [gpu]}}]}}}}}}\n"
            ),
            "services:\n",
        ).encode(),
    )
    yield "many docker run lines (shell)", "run.sh", _fill(lambda i: DOCKER.format(i=i), "#!/bin/sh\n").encode()
    yield (
        "many docker run lines (Markdown blocks)",
        "README.md",
        _fill(lambda i: "```bash\n" + DOCKER.format(i=i) + "```\n").encode(),
    )
    yield "many docker run lines (Makefile)", "Makefile", _fill(lambda i: f"t{i}:\n\t" + DOCKER.format(i=i)).encode()
    yield (
        "many docker run lines (CI YAML run:)",
        "ci.yaml",
        _fill(lambda i: f"      - run: {DOCKER.format(i=i)}", "jobs:\n  t:\n    steps:\n").encode(),
    )
    yield (
        "huge single-line YAML scalar",
        "line.yaml",
        (POD.format(i=0).replace("pytorch/pytorch:2.3.0", "pytorch/" + "a" * (UNDER - 400))).encode(),
    )
    yield (
        "huge single docker line (200k flags)",
        "flags.sh",
        ("docker run --gpus all " + "-e A=1 " * ((UNDER - 100) // 7) + "pytorch/pytorch torchrun\n").encode(),
    )
    yield (
        "one docker line, then echo lines",
        "words.sh",
        (DOCKER.format(i=0) + _fill(lambda i: "echo a b c d e f\n")).encode(),
    )
    yield "huge single line, no newline", "oneline.sh", ("docker run " + "x" * (UNDER - 20)).encode()
    yield (
        "line continuations (one logical line)",
        "cont.sh",
        ("docker run --gpus all \\\n" + "  -v /a:/b \\\n" * ((UNDER - 100) // 14) + "  pytorch/pytorch\n").encode(),
    )
    yield (
        "billion laughs (aliases)",
        "laughs.yaml",
        (
            "a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 40))
            + POD.format(i=0)
        ).encode(),
    )
    yield (
        "many aliases to a large anchor",
        "alias.yaml",
        (
            "big: &big {"
            + ", ".join(f"k{i}: v" for i in range(20000))
            + "}\n"
            + _fill(lambda i: f"r{i}: *big\n", size=UNDER - 400_000)
            + POD.format(i=0)
        ).encode(),
    )
    chain = "".join(f"a{i}: &a{i}\n  <<: *a{i - 1}\n" for i in range(1, 990))
    yield "merge-key chain 990 deep", "merge.yaml", ("a0: &a0 {x: 1}\n" + chain + POD.format(i=0)).encode()
    yield (
        "many dataloader hints",
        "hints.yaml",
        _fill(
            lambda i: f"---\n# shmlint: dataloader workers={i % 64} batch=8 sample=3x224x224\n" + POD.format(i=i)
        ).encode(),
    )
    yield (
        "hints with 4,000-digit numbers",
        "bighint.yaml",
        (
            "# shmlint: dataloader workers=" + "9" * 4000 + " batch=" + "9" * 4000 + " sample=3\n" + POD.format(i=0)
        ).encode(),
    )
    yield (
        "many suppression comments",
        "ignore.yaml",
        _fill(lambda i: "---\n# shmlint: ignore[SHM001]\n" + POD.format(i=i)).encode(),
    )
    yield "sizes with 100k digits", "size.sh", ("docker run --gpus all --shm-size=" + "9" * 100_000 + " img\n").encode()
    yield (
        "UTF-16 many pods",
        "utf16.yaml",
        b"\xff\xfe" + _fill(lambda i: "---\n" + POD.format(i=i), size=UNDER // 2).encode("utf-16-le"),
    )
    yield "lone CR line breaks", "cr.yaml", _fill(lambda i: ("---\n" + POD.format(i=i)).replace("\n", "\r")).encode()
    yield "NUL and control bytes", "ctl.yaml", (POD.format(i=0) + "# " + "\x00\x1b[2J\x07" * 100_000).encode()
    yield "undecodable bytes", "bad.yaml", POD.format(i=0).encode() + bytes(range(128, 256)) * 30_000
    yield "unclosed quote, 9 MB", "quote.sh", ("docker run --gpus all '" + "a " * (UNDER // 2 - 20)).encode()
    yield (
        "heredoc 9 MB",
        "heredoc.sh",
        ("cat <<EOF\n" + "docker run --gpus all img\n" * (UNDER // 26 - 2) + "EOF\n").encode(),
    )


def run_shapes(figures: Figures, work: Path) -> None:
    print("\n== worst shapes just under max-file-size (check; fix for the fixable ones; stdin for some)")
    for name, file_name, data in shapes():
        folder = work / "shapes"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        path = folder / file_name
        path.write_bytes(data)
        runs = [("check", shmlint(["check", "--format", "json", file_name], folder))]
        if file_name in ("pods.yaml", "run.sh", "compose.yaml", "flow.yaml"):
            runs.append(("fix", shmlint(["fix", file_name], folder)))
            runs.append(("stdin", shmlint(["check", "--stdin-filename", file_name, "-"], folder, stdin=data)))
        for mode, outcome in runs:
            figures.record(f"{name} ({mode})", outcome)
            verdict = _verdict(outcome)
            print(
                f"  {name:42} {mode:5} {len(data) / 2**20:5.1f} MiB  exit {outcome.code}  "
                f"{outcome.seconds:6.2f} s  {outcome.rss_kib / 1024:6.0f} MiB  {verdict}"
            )
    over = work / "over"
    over.mkdir(exist_ok=True)
    (over / "big.yaml").write_bytes(b"# gpu\n" + b"a: 1\n" * (LIMIT // 5 + 10))
    outcome = shmlint(["check", "big.yaml"], over, under_limit=False)
    figures.record("over the limit", outcome)
    print(
        f"  {'file over the limit (refused)':42} check  exit {outcome.code}  {outcome.seconds:6.2f} s  {_verdict(outcome)}"
    )
    outcome = shmlint(["check", "-"], over, stdin=b"a" * (LIMIT * 5), under_limit=False)
    figures.record("stdin over the limit", outcome)
    print(f"  {'stdin 50 MiB (refused)':42} check  exit {outcome.code}  {outcome.seconds:6.2f} s  {_verdict(outcome)}")


def _verdict(outcome: Outcome) -> str:
    if outcome.hung:
        return "HANG"
    if outcome.traceback:
        return "TRACEBACK"
    if outcome.internal:
        return "INTERNAL ERROR"
    return "ok"


# -- mutated fixtures, in-process -------------------------------------------------------------------------------

TOKENS = [b"\x00", b"\xff", b"\r", b"\n", b"\t", b"'", b'"', b"&a ", b"*a", b"<<: *a", b"[", b"{", b"]", b"}", b": ",
          b"- ", b"---\n", b"\\\n", b"$(", b"`", b"<path>", b"...", b"--shm-size=", b"-v", b"--gpus all", b"#",
          b"!!python/object/apply:os.system ['true']", b"\x1b[2J", b"\xef\xbb\xbf", b"9" * 400]  # fmt: skip


def mutate(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        where = rng.randrange(len(data) + 1)
        choice = rng.random()
        if choice < 0.3 and data:
            data[min(where, len(data) - 1)] = rng.randrange(256)
        elif choice < 0.5:
            del data[where : where + rng.randint(1, 40)]
        elif choice < 0.7 and data:
            start = rng.randrange(len(data))
            data[where:where] = data[start : start + rng.randint(1, 200)]
        else:
            data[where:where] = rng.choice(TOKENS)
    return bytes(data)


def run_mutations(figures: Figures, count: int) -> None:
    print(f"\n== {count} mutated fixtures, check and fix in-process")
    from shmlint.discover import kind_by_name
    from shmlint.engine import Engine
    from shmlint.fix.apply import fix_source
    from shmlint.settings import Settings
    from shmlint.source import InputError, SourceText

    engine = Engine(Settings())
    seeds = [p for p in sorted((ROOT / "fixtures").rglob("*")) if p.is_file() and kind_by_name(p) is not None]
    rng = random.Random(18)
    slowest = (0.0, "")
    errors = 0
    for index in range(count):
        seed = seeds[index % len(seeds)]
        kind = kind_by_name(seed)
        assert kind is not None
        data = mutate(rng, seed.read_bytes())
        started = time.perf_counter()
        try:
            source = SourceText.from_bytes(seed.name, data)
            result = engine.check_source(source, kind, seed)
            if any(f.fixable for f in result.findings):
                fix_source(engine, source, kind, seed)
        except InputError:
            pass
        except Exception as exc:  # noqa: BLE001 - any exception is a finding of the campaign
            errors += 1
            print(f"  TRACEBACK on a mutation of {seed.relative_to(ROOT)}: {type(exc).__name__}: {exc}"[:300])
        seconds = time.perf_counter() - started
        slowest = max(slowest, (seconds, str(seed.relative_to(ROOT))))
        figures.inputs += 1
        figures.hangs += seconds > HANG_SECONDS
    figures.tracebacks += errors
    print(f"  {count} inputs, {errors} exceptions, slowest {slowest[0]:.2f} s ({slowest[1]})")


# -- data safety ------------------------------------------------------------------------------------------------


def run_appends(figures: Figures, work: Path, trials: int, files: int) -> None:
    print(f"\n== concurrent appends during fix --write: {trials} trials x {files} files")
    lost = refused = fixed = appended_total = 0
    for trial in range(trials):
        tree = work / f"append-{trial}"
        tree.mkdir(parents=True)
        paths = []
        for i in range(files):
            path = tree / f"pod-{i:03d}.yaml"
            path.write_text(POD.format(i=i), encoding="utf-8")
            paths.append(str(path))
        appender = subprocess.Popen([sys.executable, "-c", APPENDER, "3", *paths], stdout=subprocess.PIPE, env=ENV)
        run = subprocess.run([sys.executable, "-m", "shmlint", "fix", "--write", "."], cwd=tree, env=ENV,
                             capture_output=True, timeout=300, check=False)  # fmt: skip
        appended = int(appender.communicate(timeout=60)[0])
        figures.inputs += 1
        figures.tracebacks += b"Traceback" in run.stderr
        figures.internal_errors += b"internal error" in run.stderr
        kept = sum(
            sum(line.startswith("# edit ") for line in Path(p).read_text(encoding="utf-8").splitlines()) for p in paths
        )
        fixed += sum("dshm" in Path(p).read_text(encoding="utf-8") for p in paths)
        refused += run.stderr.count(b"changed ")
        lost += appended - kept
        appended_total += appended
        shutil.rmtree(tree)
    figures.edits_lost += lost
    print(f"  {appended_total} edits appended, {lost} lost; {refused} writes refused (file changed), {fixed} fixed")


def run_kills(figures: Figures, work: Path, kills: int) -> None:
    print(f"\n== SIGKILL during fix --write: {kills} kills of a 2,000-file tree")
    tree, expected_tree = work / "kill-tree", work / "kill-expected"
    build_tree(tree)
    shutil.copytree(tree, expected_tree)
    original = snapshot(tree)
    subprocess.run([sys.executable, "-m", "shmlint", "fix", "--write", str(expected_tree)], env=ENV,
                   capture_output=True, timeout=600, check=True)  # fmt: skip
    expected = snapshot(expected_tree)
    rng = random.Random(1818)
    done = corrupted = mid_write = 0
    while done < kills:
        before = snapshot(tree)
        process = fix_process(tree)
        wait_for_lines(process, rng.randint(1, 300), timeout=120)
        time.sleep(rng.uniform(0, 0.2))
        if process.poll() is None:
            kill_group(process)
            done += 1
        else:
            process.communicate()
        after = snapshot(tree)
        corrupted += sum(after[name] not in (original[name], expected[name]) for name in original)
        fixed = sum(after[name] == expected[name] for name in original)
        mid_write += after != before and fixed < len(original)
        if fixed == len(original):
            for name, data in original.items():
                (tree / name).write_bytes(data)
    final = subprocess.run([sys.executable, "-m", "shmlint", "fix", "--write", str(tree)], env=ENV,
                           capture_output=True, timeout=600, check=False)  # fmt: skip
    result = snapshot(tree)
    corrupted += sum(result.get(name) != expected[name] for name in original)
    left = [name for name in result if name.endswith(".shmlint-tmp")]
    figures.inputs += kills
    figures.files_corrupted += corrupted + len(left)
    figures.tracebacks += b"Traceback" in final.stderr
    print(f"  {kills} SIGKILLs ({mid_write} mid-write): {corrupted} files corrupted, {len(left)} temp files left")
    shutil.rmtree(tree)
    shutil.rmtree(expected_tree)


# -- security ---------------------------------------------------------------------------------------------------


def _counting_server(hits: list[str]) -> http.server.ThreadingHTTPServer:
    """A local server that serves a GPU pod for any path and records every request in ``hits`` (the suite's own
    counting handler, ``tests/test_render_offline.py``)."""
    handler = type("Handler", (Counting,), {"requests": hits})
    return http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)


def run_security(figures: Figures, work: Path) -> None:
    print("\n== security probes")
    hits: list[str] = []
    server = _counting_server(hits)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/pod.yaml"
    escaped = "".join(f"\\x{ord(c):02x}" if c in "ht" else c for c in url[:4]) + url[4:]
    probes: list[tuple[str, Callable[[Path], bool]]] = []

    def kustomization(text: str, base: str | None = None) -> Callable[[Path], bool]:
        def probe(root: Path) -> bool:
            (root / "k").mkdir()
            (root / "k" / "kustomization.yaml").write_text(text)
            if base is not None:
                (root / "base").mkdir()
                (root / "base" / "kustomization.yaml").write_text(base)
            before = len(hits)
            outcome = shmlint(["check", "--render", "auto", "."], root)
            figures.record("kustomization", outcome)
            return len(hits) == before and not outcome.hung

        return probe

    probes += [
        ("remote resource, top level", kustomization(f"resources:\n  - {url}\n")),
        ("remote resource, through a local base", kustomization("resources:\n  - ../base\n", f"resources: [{url}]\n")),
        ("remote resource, YAML escape", kustomization(f'resources:\n  - "{escaped}"\n')),
        ("remote resource, upper-case scheme", kustomization(f"resources:\n  - {url.upper()}\n")),
        ("remote patch file", kustomization(f"patches:\n  - path: {url}\n")),
        ("remote component", kustomization(f"components:\n  - {url}\n")),
    ]

    def flag_folder(root: Path) -> bool:
        secret = root / "secret.txt"
        secret.write_text("TOPSECRET-VALUE\n")
        folder = root / "tree" / "--load-restrictor=LoadRestrictionsNone"
        folder.mkdir(parents=True)
        (folder / "kustomization.yaml").write_text(
            "resources: [pod.yaml]\nconfigMapGenerator:\n- name: c\n  files: [../../secret.txt]\n"
        )
        (folder / "pod.yaml").write_text(POD.format(i=0))
        outcome = shmlint(["check", "."], root / "tree")
        figures.record("flag folder", outcome)
        return b"TOPSECRET" not in outcome.stdout + outcome.stderr

    def link_out(root: Path) -> bool:
        (root / "outside").mkdir()
        (root / "tree").mkdir()
        (root / "outside" / "x.yaml").write_text(POD.format(i=0))
        (root / "tree" / "link.yaml").symlink_to("../outside/x.yaml")
        outcome = shmlint(["fix", "--write", "tree"], root)
        figures.record("link", outcome)
        return (root / "outside" / "x.yaml").read_text() == POD.format(i=0)

    def output_link(option: str) -> Callable[[Path], bool]:
        def probe(root: Path) -> bool:
            (root / "victim").write_text("precious\n")
            (root / "repo").mkdir()
            (root / "repo" / "pod.yaml").write_text(POD.format(i=0))
            (root / "repo" / "shmlint.sarif").symlink_to(root / "victim")
            outcome = shmlint(["check", "--format", "sarif", option, "repo/shmlint.sarif", "repo"], root)
            figures.record("output link", outcome)
            return (root / "victim").read_text() == "precious\n"

        return probe

    def never_executed(root: Path) -> bool:
        marker = root / "pwned"
        payloads = {
            "a.yaml": f"!!python/object/apply:os.system ['touch {marker}']\n",
            "b.yaml": POD.format(i=0).replace(
                "  name: p0", f"  name: !!python/object/apply:os.system ['touch {marker}']"
            ),
            "run.sh": f"docker run --gpus all $(touch {marker}) `touch {marker}` img\n",
            "README.md": f"```bash\ndocker run --gpus all $(touch {marker}) img\n```\n",
            "Makefile": f"t:\n\tdocker run --gpus all $$(touch {marker}) img\n",
            "compose.yaml": f"services:\n  t:\n    image: pytorch/pytorch\n    command: $(touch {marker})\n",
        }
        for name, text in payloads.items():
            (root / name).write_text(text)
        outcome = shmlint(["check", "."], root)
        figures.record("payloads", outcome)
        fixed = shmlint(["fix", "--write", "."], root)
        figures.record("payloads fix", fixed)
        return not marker.exists()

    def backtracking(root: Path) -> bool:
        (root / ".shmlint.yaml").write_text('torch-images: ["(a+)+$", "(a|aa)+$"]\ntorch-commands: ["(a|aa)+$"]\n')
        (root / "c.yaml").write_text("# " + "a" * 40 + "!\nkind: ConfigMap\n")
        (root / "p.yaml").write_text(POD.format(i=0).replace("pytorch/pytorch:2.3.0", "a" * 40 + "!"))
        outcome = shmlint(["check", "."], root)
        figures.record("regex", outcome)
        return outcome.seconds < 30 and not outcome.hung

    probes += [
        ("folder named like a kubectl flag", flag_folder),
        ("fix --write through a link out of the tree", link_out),
        ("--output through a planted link", output_link("--output")),
        ("--write-baseline through a planted link", output_link("--write-baseline")),
        ("YAML tags, $( ), backticks never executed", never_executed),
        ("backtracking configured patterns", backtracking),
    ]
    for name, probe in probes:
        root = work / "security"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        safe = probe(root)
        figures.security_issues += not safe
        print(f"  {name:48} {'ok' if safe else 'SECURITY ISSUE'}")
    server.shutdown()
    print(f"  HTTP requests the local server received: {len(hits)}")
    figures.security_issues += bool(hits)


#: the summary line that counts undecided findings: the run said something about the workload
UNDECIDED_NOTE = "need is undecided"

# -- issue 27: inputs that stopped a run, passed it silently or made it hang ------------------------------------

#: the acceptance of issue 27: each input under these on this machine, or a clear SHM000 "too complex"
ROUND3_SECONDS, ROUND3_MIB = 10.0, 300


def _quadlet(size: int) -> str:
    head = "[Container]\nImage=docker.io/pytorch/pytorch\nExec=torchrun train.py\nAddDevice=nvidia.com/gpu=all\n"
    return _fill(lambda i: f"PodmanArgs=--env A{i}=b\n", head, size=size)


def _terraform_pods(size: int) -> str:
    pod = (
        'resource "kubernetes_pod" "p{i}" {{\n  metadata {{ name = "p{i}" }}\n  spec {{\n    container {{\n'
        '      image = "pytorch/pytorch"\n      command = ["torchrun", "train.py"]\n'
        '      resources {{ limits = {{ "nvidia.com/gpu" = 1 }} }}\n    }}\n  }}\n}}\n'
    )
    return _fill(lambda i: pod.format(i=i), size=size)


def _round3_inputs() -> Iterator[tuple[str, Callable[[Path], list[str]]]]:
    """(name, build): ``build`` writes the input into an empty folder and returns the ``check`` arguments."""
    from tests.hostile import aliased_pod
    from tests.test_bounded_work import HOSTILE_GITIGNORE
    from tests.test_hostile_files import NUMBER_SITES
    from tests.test_never_silent import _deeper_than_path_max

    def files(named: dict[str, str], *args: str) -> Callable[[Path], list[str]]:
        def build(root: Path) -> list[str]:
            for name, text in named.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text, encoding="utf-8")
            return ["check", *args]

        return build

    def deep_tree(root: Path) -> list[str]:
        _deeper_than_path_max(root)
        return ["check", "."]

    def gitignore_tree(root: Path) -> list[str]:
        (root / ".git").mkdir()
        deep = root.joinpath(*["x"] * 40)
        deep.mkdir(parents=True)
        (deep / "pod.yaml").write_text(POD.format(i=0), encoding="utf-8")
        (root / ".gitignore").write_text(HOSTILE_GITIGNORE + "\n", encoding="utf-8")
        return ["check", "."]

    backtracking = "".join(
        f"  - name: c{i}\n    image: {'a' * 20}!\n    resources: {{limits: {{nvidia.com/gpu: 1}}}}\n"
        for i in range(174 * 1024 // 70)
    )
    flow = "import metaflow\nx = [" + "1," * ((UNDER - 40) // 2) + "]\n"
    jsonc = (
        '{"image": "pytorch/pytorch", "runArgs": ["--gpus", "all"], "x": [' + ",".join(["[1]"] * (UNDER // 4)) + "]}"
    )
    yield "--gpus ² (shell)", files({"run.sh": "docker run --gpus \u00b2 pytorch/pytorch python train.py\n"}, ".")
    sites = {name: text for name, text, _ in NUMBER_SITES}
    yield "5000-digit numbers, 11 formats, --output", files(sites, ".", "--format", "sarif", "--output", "out.sarif")
    yield "a tree deeper than PATH_MAX", deep_tree
    yield "Quadlet .container 200 KB", files({"t.container": _quadlet(200 * 1024)}, ".")
    yield "Quadlet .container 9.9 MB", files({"t.container": _quadlet(UNDER)}, ".")
    yield ".gitignore **/x/**/x/... , 40-deep tree", gitignore_tree
    yield (
        "(a|aa)+$ over a 174 KB pod",
        files({"pod.yaml": POD.format(i=0) + backtracking, ".shmlint.yaml": 'torch-images: ["(a|aa)+$"]\n'}, "."),
    )
    yield "Terraform 9.5 MB of pods", files({"main.tf": _terraform_pods(UNDER)}, ".")
    yield (
        "Terraform 200 KB of 1+1+...",
        files(
            {
                "ops.tf": _terraform_pods(500).replace(
                    "image =", "x = " + "+".join(["1"] * 100_000) + "\n      image =", 1
                )
            },
            ".",
        ),
    )
    yield "YAML aliases 1.1 MB", files({"pod.yaml": aliased_pod(22_000, 10_000)}, ".")
    yield "YAML aliases just under the budget", files({"pod.yaml": aliased_pod(1_500, 10_000)}, ".")
    yield "Python 9.9 MB", files({"flow.py": flow}, ".")
    yield "JSONC 9.9 MB", files({".devcontainer/devcontainer.json": jsonc}, ".")
    # the other whole-file parsers, for the general defence (every parser under a work budget)
    runner = '[[runners]]\n  executor = "docker"\n  [runners.docker]\n    image = "pytorch/pytorch"\n    gpus = "all"\n'
    toml = _fill(lambda i: f'[[runners]]\n  name = "r{i}"\n  executor = "shell"\n', runner)
    yield "GitLab runner config.toml 9.9 MB", files({"config.toml": toml}, ".")
    agent = "pipeline {{ agent {{ docker {{ image 'pytorch/pytorch' args '--gpus all' }} }} stages {{ {body} }} }}\n"
    groovy = agent.format(body=_fill(lambda i: f"stage('s{i}') {{ steps {{ sh 'echo {i}' }} }}\n", size=UNDER - 200))
    yield "Jenkinsfile 9.9 MB", files({"Jenkinsfile": groovy}, ".")
    service = _fill(lambda i: f"Environment=A{i}=b\n", "[Service]\nExecStart=docker run --gpus all img torchrun\n")
    yield "systemd .service 9.9 MB", files({"t.service": service}, ".")
    ecs = json.dumps(
        {
            "family": "x",
            "containerDefinitions": [
                {"name": "t", "image": "pytorch/pytorch", "resourceRequirements": [{"type": "GPU", "value": "1"}]}
            ],
            "x": [[1]] * (UNDER // 6),
        }
    )
    yield "ECS task definition JSON 9.9 MB", files({"task-definition.json": ecs}, ".")


def run_round3(figures: Figures, work: Path) -> None:
    print(f"\n== issue 27: each under {ROUND3_SECONDS:.0f} s and {ROUND3_MIB} MiB, or a clear SHM000; never silent")
    from shmlint.engine import DEFECT

    for name, build in _round3_inputs():
        folder = work / "round3"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        args = build(folder)
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if "PATH_MAX" not in name else 0
        outcome = shmlint(args, folder)
        figures.record(name, outcome)
        said = outcome.stdout.decode(errors="replace")
        verdict = _verdict(outcome)
        if verdict == "ok" and DEFECT in said:
            verdict, figures.internal_errors = "INTERNAL ERROR (as a finding)", figures.internal_errors + 1
        elif verdict == "ok" and (outcome.code == 0 or "All checked" in said) and UNDECIDED_NOTE not in said:
            # an undecided finding (a GPU, software not known) is counted in the summary line: said, not silent
            verdict, figures.silent = "SILENT PASS", figures.silent + 1
        elif verdict == "ok" and "--output" in args and not (folder / "out.sarif").exists():
            verdict, figures.silent = "NO --output", figures.silent + 1
        elif verdict == "ok" and (outcome.seconds > ROUND3_SECONDS or outcome.rss_kib > ROUND3_MIB * 1024):
            verdict = "OVER BUDGET"
        elif verdict == "ok":
            refused = ("too complex", "alias bomb", "ran longer than", "left out", "cannot read folder")
            verdict = next((f"ok: {word}" for word in refused if word in said), "ok")
        print(
            f"  {name:42} {size / 2**20:5.1f} MiB  exit {outcome.code}  {outcome.seconds:6.2f} s  "
            f"{outcome.rss_kib / 1024:6.0f} MiB  {verdict}"
        )


#: planted in files outside the checked tree: a run that prints it has disclosed a runner file
MARKER = "RUNNER-SECRET-4f1c"


def _disclosure_inputs() -> Iterator[tuple[str, Callable[[Path], list[str]], Callable[[Path, str], str | None]]]:
    """Issue 27 items 1-7: (name, build, probe). ``build`` writes the input under ``root/repo`` (a runner file at
    ``root/home``) and returns the ``check``/``fix`` arguments; ``probe`` names what leaked or was forged, if anything.
    The LSP hover (item 6) has no process to time: tests/test_output_safety.py holds it."""
    from tests.hostile import TORCHRUN_POD as FLAGGED  # an NGC PyTorch pod: an error, fixable
    from tests.test_output_safety import FORGED, HOSTILE
    from tests.test_render_offline import GENERATOR, PATCHER, REMOTE_BASE

    def repo(root: Path, files: dict[str, str]) -> Path:
        (root / "home").mkdir(exist_ok=True)
        (root / "home" / "id_ed25519").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{MARKER}\n")
        (root / "repo" / ".git").mkdir(parents=True, exist_ok=True)
        for name, text in {"pod.yaml": FLAGGED, **files}.items():
            (root / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "repo" / name).write_text(text, encoding="utf-8")
        return root / "repo"

    def linked(name: str, *args: str) -> Callable[[Path], list[str]]:
        def build(root: Path) -> list[str]:
            (repo(root, {}) / name).symlink_to(root / "home" / "id_ed25519")
            return [*args, "."] if args else ["check", "."]

        return build

    def tree(files: dict[str, str]) -> Callable[[Path], list[str]]:
        def build(root: Path) -> list[str]:
            repo(root, files)
            return ["check", "."]

        return build

    def unsaid(marker: str) -> Callable[[Path, str], str | None]:
        return lambda root, said: f"'{marker[:20]}' in the output" if marker in said else None

    def said(word: str) -> Callable[[Path, str], str | None]:
        return lambda root, text: None if word in text and MARKER not in text else f"'{word}' not said"

    def no_forgery(root: Path, text: str) -> str | None:
        lines = text.splitlines()
        forged = [line for line in lines if line.lstrip().startswith(("::", "+++ evil")) or "\x1b" in line]
        return f"forged line {forged[0][:40]!r}" if forged else None

    def output_link(root: Path) -> list[str]:
        (repo(root, {}) / "reports").symlink_to(root / "home")
        return ["check", "--format", "sarif", "--output", "reports/x.sarif", "."]

    def nothing_outside(root: Path, text: str) -> str | None:
        return "wrote outside the tree" if (root / "home" / "x.sarif").exists() else None

    def forged_names(root: Path) -> list[str]:
        for name in FORGED:
            (repo(root, {}) / name).mkdir()
            (root / "repo" / name / "pod.yaml").write_text(FLAGGED, encoding="utf-8")
        return ["check", "--format", "junit", "."]

    def hostile_name(*args: str) -> Callable[[Path], list[str]]:
        def build(root: Path) -> list[str]:
            (repo(root, {}) / (HOSTILE + ".yaml")).write_text(FLAGGED, encoding="utf-8")
            chart = root / "repo" / (HOSTILE + "chart")
            (chart / "templates").mkdir(parents=True)
            (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
            (chart / "templates" / "p.yaml").write_text("kind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n")
            return [*args, "."]

        return build

    def chart_link(root: Path) -> list[str]:
        chart = repo(root, {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"}) / "chart"
        (chart / "templates").mkdir()
        (chart / "templates" / "cm.yaml").write_text('data:\n  k: {{ .Files.Get "key" | quote }}\n')
        (chart / "key").symlink_to(root / "home" / "id_ed25519")
        return ["check", "--render", "auto", "chart"]

    yield "1 .shmlint.yaml -> ~/.ssh/id_ed25519", linked(".shmlint.yaml"), said("a link out of the repository")
    yield "1 pyproject.toml -> ~/.ssh/id_ed25519", linked("pyproject.toml"), said("a link out of the repository")
    yield "1 --baseline -> ~/.ssh/id_ed25519", linked("b.json", "check", "--baseline", "b.json"), said("a link out")
    long_value = "s" * 10_000
    yield "1 config value 10 KB quoted", tree({".shmlint.yaml": f"select: ['{long_value}']\n"}), unsaid("s" * 60)
    transformer = {"k/kustomization.yaml": "transformers:\n- p.yaml\n", "k/p.yaml": PATCHER.format(path="http://x")}
    yield "2 transformers: PatchTransformer http path", tree(transformer), said("names a remote resource")
    generator = GENERATOR.format(field="files", value="https://x.test/f")
    generated = {"k/kustomization.yaml": "generators:\n- g.yaml\n", "k/g.yaml": generator}
    yield "2 generators: ConfigMapGenerator https file", tree(generated), said("names a remote resource")
    spaced = {"k/kustomization.yaml": "resources:\n- my base\n", "k/my base/kustomization.yaml": REMOTE_BASE}
    yield "2 a base folder named with a space", tree(spaced), said("names a remote resource")
    yield "3 junit: names forging ::add-mask:: etc.", forged_names, no_forgery
    yield "4 fix: a name with ESC and a line break", hostile_name("fix"), no_forgery
    yield "4 fix --write: the same name", hostile_name("fix", "--write"), no_forgery
    yield "4 check --quiet: unrendered chart so named", hostile_name("check", "--quiet"), no_forgery
    yield "5 --output reports/x.sarif, reports -> ~", output_link, nothing_outside
    yield "7 helm chart key -> ~/.ssh/id_ed25519", chart_link, said("out of the repository")


def run_disclosure(figures: Figures, work: Path) -> None:
    print("\n== issue 27 items 1-7: nothing disclosed, forged or written outside the tree; time and memory")
    for name, build, probe in _disclosure_inputs():
        folder = work / "disclosure"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        args = build(folder)
        outcome = shmlint(args, folder / "repo")
        figures.record(name, outcome)
        text = (outcome.stdout + outcome.stderr).decode(errors="replace")
        problem = probe(folder, text) or (MARKER if MARKER in text else None)
        figures.security_issues += problem is not None
        verdict = _verdict(outcome) if problem is None else f"SECURITY: {problem}"
        print(
            f"  {name:46} exit {outcome.code}  {outcome.seconds:6.2f} s  {outcome.rss_kib / 1024:6.0f} MiB  {verdict}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer trials: a smoke run")
    parser.add_argument("--round3", action="store_true", help="only the inputs of issue 27 (about a minute)")
    args = parser.parse_args()
    figures = Figures()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="shmlint-redteam-") as folder:
        work = Path(folder)
        run_round3(figures, work)
        run_disclosure(figures, work)
        if args.round3:
            return _summary(figures, started)
        run_shapes(figures, work)
        run_mutations(figures, 100 if args.quick else 1500)
        run_security(figures, work)
        run_appends(figures, work, 2 if args.quick else 20, 50 if args.quick else 150)
        run_kills(figures, work, 5 if args.quick else 40)
    _summary(figures, started)


def _summary(figures: Figures, started: float) -> None:
    print(f"\n== figures ({time.perf_counter() - started:.0f} s)")
    summary = {
        "inputs tried": figures.inputs,
        "tracebacks": figures.tracebacks,
        "internal errors": figures.internal_errors,
        "hangs": figures.hangs,
        "silent passes": figures.silent,
        "edits lost": figures.edits_lost,
        "files corrupted": figures.files_corrupted,
        "security issues": figures.security_issues,
        "worst time under the limit": f"{figures.worst[0]:.1f} s ({figures.worst[1]})",
        "peak memory under the limit": f"{figures.peak[0] / 1024:.0f} MiB ({figures.peak[1]})",
    }
    for key, value in summary.items():
        print(f"  {key}: {value}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
