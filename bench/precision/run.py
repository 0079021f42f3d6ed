"""Precision and recall of SHM001 on real repositories, against labels written by reading each workload.

Each repository in ``repos.toml`` is materialised at its pinned commit (only deployment-relevant files, under the
listed paths), checked with this tree's shmlint, and every SHM001 finding is matched to a label in
``labels.toml``. Labels also name the GPU/torch workloads shmlint does not report, so recall can be computed.

    python bench/precision/run.py --cache ~/.cache/shmlint-precision          # clone (needs network)
    python bench/precision/run.py --mirror /work/.mirror --report             # existing bare git dirs, no network

Exit status: 0 when every finding is labelled and every label still points at a file of the tree; 1 otherwise
(``--report`` always exits 0); 2 when a repository cannot be obtained.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LABELS = ("crash", "no-risk", "unknown")
#: the files a deployment lives in; everything else in a repository is left out of the tree
DEPLOYMENT_FILE = re.compile(
    r"(\.ya?ml|\.sh|\.md|\.mk|(^|/)Makefile|(^|/)Dockerfile[^/]*|(^|/)Containerfile[^/]*)$", re.I
)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
COMMIT = re.compile(r"^[0-9a-f]{40}$")
#: deployment files are small; anything larger is generated data (and mirrors may lack big blobs)
MAX_FILE_BYTES = 1 << 20
#: fetch named objects (read from stdin) into a blob-less clone, as git's own lazy fetch does
FETCH_BY_ID = (
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--recurse-submodules=no",
    "--filter=blob:none",
    "--stdin",
)


@dataclass(frozen=True)
class Repo:
    """One benchmark repository at a pinned commit, limited to some paths."""

    name: str
    commit: str
    paths: tuple[str, ...]
    exclude: tuple[str, ...]

    @property
    def whole(self) -> bool:
        """``paths = ["."]``: the whole tree, every file, as a user's ``shmlint check .`` in a clone sees it."""
        return "." in self.paths

    @property
    def slug(self) -> str:
        return self.name.replace("/", "+")

    def wants(self, path: str) -> bool:
        """Inside the listed paths (a path is a file or a folder) and deployment-relevant, or anything when whole."""
        excluded = any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.exclude)
        if self.whole:
            return not excluded
        inside = not self.paths or any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.paths)
        return inside and not excluded and DEPLOYMENT_FILE.search(path) is not None


@dataclass(frozen=True)
class Label:
    """What a workload really risks, decided by reading its file (and its software's docs)."""

    repo: str
    path: str
    workload: str
    line: int
    label: str
    reason: str
    kind: str = ""  # `class` in the file: what sort of workload, to count false positives by cause


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    workload: str
    line: int
    severity: str
    message: str


def read_repos(path: Path) -> list[Repo]:
    repos = []
    for entry in tomllib.loads(path.read_text(encoding="utf-8"))["repo"]:
        name, commit = entry["name"], entry["commit"]
        if not NAME.match(name) or not COMMIT.match(commit):
            raise SystemExit(f"{path}: bad repository name or commit: {name} {commit}")
        repos.append(Repo(name, commit, tuple(entry.get("paths", ())), tuple(entry.get("exclude", ()))))
    return repos


def read_labels(path: Path) -> list[Label]:
    labels = []
    for n, entry in enumerate(tomllib.loads(path.read_text(encoding="utf-8")).get("label", []), 1):
        label = Label(
            entry["repo"],
            entry["path"],
            entry["workload"],
            int(entry["line"]),
            entry["label"],
            entry["reason"],
            entry.get("class", ""),
        )
        if label.label not in LABELS or not label.reason.strip():
            raise SystemExit(f"{path}: label {n} ({label.path}): label must be one of {LABELS} with a reason")
        labels.append(label)
    return labels


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def has_commit(git_dir: Path, commit: str) -> bool:
    done = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}^{{commit}}"], check=False)
    return done.returncode == 0


def git_dir_for(repo: Repo, mirror: Path | None, cache: Path, remote_base: str) -> Path:
    """A git directory holding the pinned commit: an existing mirror, or a blob-less clone made once in the cache."""
    if mirror is not None:
        for candidate in (
            mirror / repo.slug / "repo",
            mirror / repo.slug / "repo" / ".git",
            mirror / repo.slug,
            mirror,
        ):
            if (candidate / "objects").is_dir() and has_commit(candidate, repo.commit):
                return candidate
        raise LookupError(f"no bare git directory holding {repo.name}@{repo.commit[:12]} under {mirror}")
    target = cache / "git" / repo.slug
    if not (target / "HEAD").is_file():
        url = f"{remote_base.rstrip('/')}/{repo.name}.git"
        subprocess.run(["git", "clone", "--bare", "--filter=blob:none", "--quiet", "--", url, str(target)], check=True)
    if not has_commit(target, repo.commit):
        git(target, "fetch", "--quiet", "--filter=blob:none", "origin", repo.commit)
    return target


def prefetch(git_dir: Path, objects: list[str]) -> None:
    """Fetch a blob-less clone's wanted blobs in one request (``git archive`` would fetch them one at a time)."""
    if objects:
        command = ["git", f"--git-dir={git_dir}", "fetch", *FETCH_BY_ID, "origin"]
        subprocess.run(command, input="\n".join(objects) + "\n", text=True, check=True)


def blob_sizes(git_dir: Path, objects: list[str]) -> dict[str, int]:
    """Sizes of the objects the git dir holds; absent ones (big files a mirror left out) are not in the answer."""
    answer = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch-check=%(objectname) %(objectsize)"],
        input="".join(f"{object_id}\n" for object_id in objects),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {name: int(size) for name, size in (line.split() for line in answer.splitlines()) if size.isdigit()}


def materialise(repo: Repo, git_dir: Path, cache: Path, *, own_clone: bool) -> Path:
    """The deployment files of the pinned commit in ``cache/trees/<slug>@<commit>`` (made once, then reused).

    Only a clone the script made itself is fetched into; a mirror is only read.
    """
    tree = cache / "trees" / f"{repo.slug}@{repo.commit[:12]}{'-whole' if repo.whole else ''}"
    done = tree / ".complete"
    if done.is_file():
        write_index(git_dir, repo.commit, tree)  # a tree made before the index was written gets one
        write_origin(repo, tree)
        return tree
    listing = git(git_dir, "ls-tree", "-r", "-z", repo.commit).decode("utf-8", "surrogateescape")
    candidates, attributes = [], []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        _mode, kind, object_id = meta.split()
        if kind == "blob" and repo.wants(path):
            candidates.append((path, object_id))
        elif path.endswith(".gitattributes"):  # git archive reads them
            attributes.append(object_id)
    if own_clone:
        prefetch(git_dir, [object_id for _, object_id in candidates] + attributes)
    sizes = blob_sizes(git_dir, [object_id for _, object_id in candidates])
    wanted = [path for path, object_id in candidates if sizes.get(object_id, MAX_FILE_BYTES + 1) <= MAX_FILE_BYTES]
    tree.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(wanted), 500):  # bounded argument lists
        chunk = [f":(literal){p}" for p in wanted[start : start + 500]]
        archive = git(git_dir, "archive", "--format=tar", repo.commit, "--", *chunk)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter=_as_cloned)
    write_index(git_dir, repo.commit, tree)
    write_origin(repo, tree)
    done.write_text(repo.commit + "\n", encoding="utf-8")
    return tree


def write_index(git_dir: Path, commit: str, tree: Path) -> None:
    """The git index a clone of the commit holds (``tree/.git/index``): shmlint checks tracked files that a
    ``.gitignore`` pattern names, as in a user's clone. Written from the trees only, so no file is fetched."""
    index = tree / ".git" / "index"
    if index.is_file():
        return
    subprocess.run(["git", "init", "--quiet", "--template=", str(tree)], check=True, capture_output=True)
    env = dict(os.environ, GIT_INDEX_FILE=str(index))
    subprocess.run(["git", f"--git-dir={git_dir}", "read-tree", commit], check=True, capture_output=True, env=env)


def write_origin(repo: Repo, tree: Path, remote_base: str = "https://github.com") -> None:
    """The ``origin`` remote a clone of the repository has (``tree/.git/config``): shmlint knows a repository by its
    name there (``project.own_image``), as in a user's clone or a CI checkout, not by the cache's folder name."""
    url = f"{remote_base}/{repo.name}.git"
    config = ["git", f"--git-dir={tree / '.git'}", "config"]
    found = subprocess.run([*config, "--get", "remote.origin.url"], capture_output=True, text=True, check=False)
    if found.stdout.strip() != url:
        subprocess.run([*config, "remote.origin.url", url], check=True, capture_output=True)


def _as_cloned(member: tarfile.TarInfo, destination: str) -> tarfile.TarInfo | None:
    """tarfile's ``data`` filter, except that a symbolic link pointing outside the tree is made as a clone makes it
    (a repository may hold one: shmlint must not follow it, and the benchmark checks what a user's clone holds)."""
    try:
        return tarfile.data_filter(member, destination)
    except (tarfile.AbsoluteLinkError, tarfile.LinkOutsideDestinationError):
        if member.issym():
            return member
        raise


def shmlint(tree: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """This checkout's shmlint (not an installed one) run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *arguments], cwd=tree, env=env, capture_output=True, text=True, check=False
    )


def check_json(repo: Repo, tree: Path) -> list[dict]:
    """Every finding of this tree's shmlint on the tree, as its JSON report gives them."""
    # render never: the same findings on every machine (kubectl or helm on PATH would add rendered copies);
    # undecided findings listed (as info, never failing), so recall can count what was said at all
    done = shmlint(tree, "check", "--format", "json", "--exit-zero", "--render", "never", "--undecided=show", ".")
    if done.returncode != 0:
        raise RuntimeError(f"shmlint failed on {repo.name}: {done.stderr.strip()[-500:]}")
    findings: list[dict] = json.loads(done.stdout)["findings"]
    return findings


def relative(path: str) -> str:
    """A finding's path as the labels write it: POSIX, relative to the repository."""
    return PurePosixPath(path).as_posix().removeprefix("./")


def head_commit() -> str:
    """The shmlint commit a run measured."""
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def obtain(repos: list[Repo], mirror: Path | None, cache: Path, remote_base: str) -> dict[str, Path]:
    """Each repository's deployment files at its pinned commit; LookupError or CalledProcessError when one fails."""
    trees = {}
    for repo in repos:
        git_dir = git_dir_for(repo, mirror, cache, remote_base)
        trees[repo.name] = materialise(repo, git_dir, cache, own_clone=mirror is None)
    return trees


def run_shmlint(repo: Repo, tree: Path) -> tuple[list[Finding], Counter[str]]:
    """SHM001 findings of this tree's shmlint, paths relative to the repository; other codes only counted."""
    findings, others = [], Counter[str]()
    for item in check_json(repo, tree):
        if item["code"] != "SHM001":
            others[f"{item['code']} {item['severity']}"] += 1
            continue
        workload = item.get("workload") or ""
        findings.append(
            Finding(repo.name, relative(item["path"]), workload, int(item["line"]), item["severity"], item["message"])
        )
    return findings, others


def match(findings: list[Finding], labels: list[Label]) -> tuple[dict[Finding, Label], list[Finding]]:
    """Each finding to its label: same repository, path and workload; the line decides between equal names."""
    by_key: dict[tuple[str, str, str], list[Label]] = {}
    for label in labels:
        by_key.setdefault((label.repo, label.path, label.workload), []).append(label)
    matched, unlabelled = {}, []
    for finding in findings:
        candidates = by_key.get((finding.repo, finding.path, finding.workload), [])
        if not candidates:
            unlabelled.append(finding)
            continue
        matched[finding] = min(candidates, key=lambda label: abs(label.line - finding.line))
    return matched, unlabelled


def stale(labels: list[Label], trees: dict[str, Path]) -> list[str]:
    """Labels whose repository is not benchmarked or whose file or line is not in the tree."""
    problems = []
    for label in labels:
        tree = trees.get(label.repo)
        if tree is None:
            problems.append(f"{label.repo}: not in repos.toml ({label.path})")
            continue
        file = tree / label.path
        if not file.is_file():
            problems.append(f"{label.repo}: {label.path}: no such file in the tree")
        elif label.line > file.read_text(encoding="utf-8", errors="replace").count("\n") + 1:
            problems.append(f"{label.repo}: {label.path}:{label.line}: past the end of the file")
    return problems


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def score(matched: dict[Finding, Label], labels: list[Label]) -> dict:
    """Per tier: how many findings, what their labels say, precision; recall of the crash labels."""
    tiers: dict[str, Counter[str]] = {"error": Counter(), "warning": Counter()}
    reported: dict[Label, str] = {}
    for finding, label in matched.items():
        tiers.setdefault(finding.severity, Counter())[label.label] += 1
        if reported.get(label) != "error":
            reported[label] = finding.severity
    crashes = [label for label in labels if label.label == "crash"]
    quiet_no_risk = [label for label in labels if label.label == "no-risk" and label not in reported]
    result = {
        tier: {
            "findings": sum(counts.values()),
            "labels": dict(sorted(counts.items())),
            "precision": ratio(counts["crash"], sum(counts.values())),
            "precision_crash_or_unknown": ratio(counts["crash"] + counts["unknown"], sum(counts.values())),
        }
        for tier, counts in tiers.items()
    }
    result["recall"] = {
        "crash_workloads": len(crashes),
        "as_error": ratio(sum(reported.get(label) == "error" for label in crashes), len(crashes)),
        "as_error_or_warning": ratio(sum(label in reported for label in crashes), len(crashes)),
        "missed": sorted(
            f"{label.repo}: {label.path}:{label.line} {label.workload}" for label in crashes if label not in reported
        ),
    }
    result["errors_not_crash"] = sorted(
        f"{label.label} {label.kind}: {f.repo}: {f.path}:{f.line} {f.workload}"
        for f, label in matched.items()
        if f.severity == "error" and label.label != "crash"
    )
    result["no_risk_silenced"] = ratio(len(quiet_no_risk), sum(label.label == "no-risk" for label in labels))
    causes = Counter(f"{label.label} {label.kind}" for finding, label in matched.items() if finding.severity == "error")
    result["errors_by_class"] = dict(sorted(causes.items(), key=lambda item: (-item[1], item[0])))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "shmlint-precision")
    parser.add_argument(
        "--mirror", type=Path, help="git dirs: DIR/<owner+name>/repo (bare, or its .git), DIR/<owner+name> or DIR"
    )
    parser.add_argument("--remote-base", default="https://github.com", help="where to clone from without --mirror")
    parser.add_argument("--repos", type=Path, default=HERE / "repos.toml")
    parser.add_argument("--labels", type=Path, default=HERE / "labels.toml")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--report", action="store_true", help="only print; exit 0 even with unlabelled findings")
    args = parser.parse_args(argv)

    repos, labels = read_repos(args.repos), read_labels(args.labels)
    findings: list[Finding] = []
    others: Counter[str] = Counter()
    try:
        trees = obtain(repos, args.mirror, args.cache, args.remote_base)
    except (LookupError, subprocess.CalledProcessError) as error:
        print(f"cannot obtain a repository: {error}", file=sys.stderr)
        return 2
    for repo in repos:
        found, counted = run_shmlint(repo, trees[repo.name])
        findings += found
        others += counted
    matched, unlabelled = match(findings, labels)
    problems = stale(labels, trees)
    result = {
        "shmlint_commit": head_commit(),
        "repositories": len(repos),
        "files": sum(1 for tree in trees.values() for p in tree.rglob("*") if p.is_file() and p.name != ".complete"),
        "shm001": score(matched, labels),
        "other_findings": dict(sorted(others.items())),
        "unlabelled": [f"{f.repo}: {f.path}:{f.line} [{f.severity}] {f.workload}" for f in unlabelled],
        "stale_labels": problems,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    if (unlabelled or problems) and not args.report:
        print(f"{len(unlabelled)} unlabelled findings, {len(problems)} stale labels", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
