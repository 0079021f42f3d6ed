"""A program's own option read where its code sends it (``shmlint.project.pyoption_flow``): ``--num_workers 4``
is evidence of DataLoader workers by its name only until the repository's program shows the count goes elsewhere
(audit75c: a list of Ray actors, six errors with no loader in the repository)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.model import ProjectFacts, Tier
from shmlint.need import builtin, decide
from shmlint.project.pyoption_flow import Kept, kept_options
from shmlint.project.pyoptions import options
from shmlint.runner import check_paths
from shmlint.settings import Settings
from tests.support import pod_workload

_PARSER = (
    "import argparse\n"
    "p = argparse.ArgumentParser()\n"
    "p.add_argument('--num_workers', type=int, default=4, help='Number of parallel workers')\n"
    "p.add_argument('--model', default='m')\n"
    "args = p.parse_args()\n"
)


def _kept(body: str, arguments: tuple[str, ...] = ("--num_workers", "4"), *modules: str) -> list[str]:
    text = _PARSER + body
    declared = options(list(ast.walk(ast.parse(text))))
    files = [("batch.py", text), *((f"pipeline{i or ''}.py", module) for i, module in enumerate(modules))]
    return [kept.flag for kept in kept_options(files, arguments, declared, "batch.py")]


@pytest.mark.parametrize(
    "body",
    [
        "",  # declared and never read
        "print(f'workers: {args.num_workers}')\nlogger.info('n=%d', args.num_workers)\n",
        "actors = [Worker.remote(args.model) for _ in range(args.num_workers)]\n",
        "if args.num_workers > 1:\n    print('parallel')\n",
        # a class of the program's own keeps it, stores it and uses it in arithmetic and as an index
        (
            "class Orchestrator:\n"
            "    def __init__(self, model, num_workers=4):\n"
            "        self.num_workers = num_workers\n"
            "        self.workers = [W.remote() for _ in range(num_workers)]\n"
            "    def pick(self, i):\n"
            "        at = i % self.num_workers\n"
            "        return self.workers[at]\n"
            "Orchestrator(args.model, num_workers=args.num_workers)\n"
        ),
        # passed whole to a function of its own, which reads it for a count of threads it logs
        "def main(opts):\n    n = min(opts.num_workers, 8)\n    print(n)\nmain(args)\n",
        "def run(model, count):\n    for i in range(count):\n        print(i)\nrun(args.model, args.num_workers)\n",
        "def workers():\n    return args.num_workers\nprint(workers())\n",  # returned to a caller that prints it
    ],
)
def test_a_count_the_program_keeps_to_itself_is_kept(body: str) -> None:
    assert _kept(body) == ["--num_workers"]


@pytest.mark.parametrize(
    "body",
    [
        "DataLoader(ds, num_workers=args.num_workers)\n",  # a loader: never the program's own
        "loader = timm.create_loader(ds, num_workers=args.num_workers)\n",  # a library's call may make one
        "trainer = Trainer(args)\n",  # the whole options object handed to a library
        "cfg = dict(vars(args))\n",
        "cfg = {}\ncfg['num_workers'] = args.num_workers\n",  # a config's key: anything may read it
        "def workers():\n    return args.num_workers\nload(workers())\n",  # its callers send it on
        "n = args.num_workers\nsubprocess.run(f'python train.py --workers {n}', shell=True)\n",
        "def build(**kw):\n    return make(**kw)\nbuild(num_workers=args.num_workers)\n",  # on through **kwargs
        "def build(n):\n    return DataLoader(ds, num_workers=n)\nbuild(args.num_workers)\n",
        "x = lambda: args.num_workers\n",
        "a, b = args.num_workers, 1\n",  # unpacked: not followed
        # review of this change: each once dropped to "undecided" while the value reached a library
        "cfg = get_cfg()\ncfg.DATALOADER.NUM_WORKERS = args.num_workers\nDefaultTrainer(cfg).train()\n",
        "config = SimpleNamespace()\nconfig.loader_workers = args.num_workers\nmylib.fit(config)\n",
        "class Cfg:\n    num_workers: int = 0\ncfg = Cfg(num_workers=args.num_workers)\nmylib.fit(cfg)\n",
        "def get_args():\n    return p.parse_args()\nopts = get_args()\nmylib.train(opts)\n",
        "opts: argparse.Namespace = p.parse_args()\nmylib.train(opts)\n",
        "class App:\n    def __init__(self):\n        self.args = p.parse_args()\n"
        "    def go(self):\n        mylib.train(self.args)\nApp().go()\n",
        "def main(opt):\n    mylib.fit(opt)\nmain(p.parse_args())\n",
        "mylib.train(**dict(args._get_kwargs()))\n",
        "subprocess.run([sys.executable, '-m', 'pkg.train'] + sys.argv[1:])\n",
        (
            "class Loader(DataLoader):\n    def __init__(self, ds, num_workers):\n"
            "        super().__init__(ds, num_workers=num_workers)\nLoader(ds, args.num_workers)\n"
        ),
        (
            "class R:\n    def run(self, cmd):\n        pass\n"
            "subprocess.run(['python', 'inner.py', '--num_workers', str(args.num_workers)])\n"
        ),
        (
            "class L:\n    @staticmethod\n    def make(workers, verbose):\n        return DataLoader(ds, num_workers=workers)\n"
            "L.make(args.num_workers, True)\n"
        ),
        "@mylib.spawn_per_worker\ndef work(n):\n    print(n)\nwork(args.num_workers)\n",
        (
            "def build_dataloader(cfg):\n    return cfg\n"
            "mmdet.datasets.build_dataloader(ds, workers_per_gpu=args.num_workers)\n"
        ),
        "for nw in [0, args.num_workers]:\n    DataLoader(ds, num_workers=nw)\n",
        # the second review: each once dropped to "undecided" while the value reached a library
        "class CFG:\n    workers = args.num_workers\nmylib.fit(loader_workers=CFG.workers)\n",
        "def launch(w):\n    print(w)\nlaunch = mylib.elastic_launch(launch)\nlaunch(args.num_workers)\n",
        "class Loader:\n    def __init__(self, n):\n        print(n)\nLoader = mylib.Loader\nLoader(args.num_workers)\n",
        "def get_workers():\n    return args.num_workers\nmylib.fit(workers_fn=get_workers)\n",
        "@mylib.hook\ndef loader_workers():\n    return args.num_workers\nmylib.run()\n",
        "opts = p.parse_intermixed_args()\nmylib.fit(opts)\n",
        "cfg = mylib.default_config()\np.parse_args(namespace=cfg)\nmylib.fit(cfg)\n",
        "mylib.cli(p)\n",
        "import sys as s\nsubprocess.run(['python', 'inner.py', *s.argv[1:]])\n",
        "from sys import argv as cli\nsubprocess.run(['python', 'inner.py', *cli[1:]])\n",
        "known, rest = p.parse_known_args()\nprint(known.num_workers)\nmylib.LightningCLI()\n",
        (
            "class Own:\n    def __init__(this, w):\n        this.w = w\n        mylib.register(this)\n"
            "Own(args.num_workers)\n"
        ),
        "class DM(mylib.DataModule):\n    def build(self):\n        self.prepare(args.num_workers)\nDM().build()\n"
        "class Helper:\n    def prepare(self, n):\n        print(n)\n",
        "class Base(mylib.Module):\n    pass\nclass Own(Base):\n    def __init__(self, n):\n        self.n = n\n"
        "Own(args.num_workers)\n",
        "exec('mylib.fit(workers=args.num_workers)')\n",
        "DataLoader(ds, num_workers=len(range(args.num_workers)))\n",  # range only counts a loop
    ],
)
def test_a_count_that_may_reach_a_loader_is_not_kept(body: str) -> None:
    assert _kept(body) == []


_SERVICE = (
    "import pipeline\n"
    "class Servicer(pipeline.ServiceServicer):\n"
    "    def __init__(self, n):\n        self.n = n\n"
    "    def Generate(self, request, context):\n        return [i for i in range(3)]\n"
    "    def start(self):\n        for i in range(self.n):\n            print(i)\n"
    "servicer = Servicer(args.num_workers)\nservicer.start()\n"
    "pipeline.add_ServiceServicer_to_server(servicer, server)\n"
)
_GENERATED = (  # what grpc_tools writes: a base of the program's own and a function that hands its methods on
    "import grpc\n"
    "class ServiceServicer(object):\n    def Generate(self, request, context):\n        raise NotImplementedError()\n"
    "def add_ServiceServicer_to_server(servicer, server):\n"
    "    handlers = {'Generate': grpc.unary_unary_rpc_method_handler(servicer.Generate)}\n"
    "    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler('S', handlers),))\n"
)


def test_a_servicer_of_the_programs_own_generated_module_keeps_its_count() -> None:
    """audit87d: a gRPC server's ``--num_workers`` sized its threads, kept in a servicer whose base is the program's
    own generated module's (``service_pb2_grpc.ServiceServicer``) and handed to that module's function, which gives
    its methods to grpc: whoever calls a method gives it only its arguments."""
    assert _kept(_SERVICE, ("--num_workers", "4"), _GENERATED) == ["--num_workers"]
    library_base = _GENERATED.replace("class ServiceServicer(object)", "class ServiceServicer(grpc.Base)")
    assert _kept(_SERVICE, ("--num_workers", "4"), library_base) == []  # a library's base may read its self
    handed = _SERVICE.replace("return [i for i in range(3)]", "return mylib.fit(workers=self.n)")
    assert _kept(handed, ("--num_workers", "4"), _GENERATED) == []  # the method handed on gives it to a library
    assert (
        _kept(_SERVICE.replace("import pipeline", "import grpc_gen as pipeline"), ("--num_workers", "4"), _GENERATED)
        == []
    )


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        # audit87d: another file's function builds its own ``args`` for a model: not the options' object
        (
            "def load():\n    args = mylib.Namespace(dim=52)\n    return mylib.Model(args)\nprint(args.num_workers)\n",
            True,
        ),
        ("def run(n):\n    print(n)\ndef other(n):\n    mylib.fit(workers=n)\nrun(args.num_workers)\nother(3)\n", True),
        # the same variable in a function nested in its own: a closure reads it
        ("def run(n):\n    def inner():\n        mylib.fit(workers=n)\n    inner()\nrun(args.num_workers)\n", False),
        # ``global`` makes a function's name the module's
        ("def show():\n    global args\n    mylib.fit(args)\nshow()\n", False),
        ("def show():\n    mylib.fit(args)\nshow()\n", False),  # read, never bound there: the module's
        # a comprehension's own variable of that name is not known to be another: its uses count
        ("def show(xs):\n    return [mylib.fit(args) for args in xs]\nprint(args.num_workers)\n", False),
    ],
)
def test_a_name_is_followed_in_the_scope_that_binds_it(body: str, kept: bool) -> None:
    assert _kept(body) == (["--num_workers"] if kept else [])


def test_reflection_in_a_module_the_value_never_reaches_keeps_nothing_from_it() -> None:
    """audit87d: a generated protobuf module's ``_globals = globals()`` reaches its own names only; reflection in the
    program run, in a module that imports the program's files, or where the value goes still keeps nothing."""
    counts = "import pipeline\nfor i in range(args.num_workers):\n    print(i, pipeline.DESCRIPTOR)\n"
    generated = "from google.protobuf import builder\nDESCRIPTOR = 1\n_globals = globals()\nbuilder.build(_globals)\n"
    assert _kept(counts, ("--num_workers", "4"), generated) == ["--num_workers"]
    assert _kept(counts + "g = globals()\n", ("--num_workers", "4"), generated) == []  # the program run
    assert _kept(counts, ("--num_workers", "4"), "import batch\n" + generated) == []  # it reads the program's files
    handed = "import pipeline\npipeline.keep(args.num_workers)\n"
    assert _kept(handed, ("--num_workers", "4"), "def keep(n):\n    globals()['N'] = n\n") == []  # the value's there


def test_a_module_of_the_program_that_sends_the_count_on_is_read_too() -> None:
    body = "from pipeline import build\nbuild(args.num_workers)\n"
    counts = "def build(n):\n    for i in range(n):\n        print(i)\n"
    assert _kept(body, ("--num_workers", "4"), counts) == ["--num_workers"]
    assert _kept(body, ("--num_workers", "4"), "def build(n):\n    return load(n)\n") == []
    # a global another module reads as an attribute of the program's (``batch.W``)
    reader = "import batch\ndef go():\n    mylib.fit(workers=batch.W)\n"
    assert _kept("W = args.num_workers\nimport pipeline\npipeline.go()\n", ("--num_workers", "4"), reader) == []


def test_a_flag_two_options_declare_is_not_followed() -> None:
    """Subcommands or two parsers that both declare ``--num_workers``: which one's value the command line gives is
    not known, so neither is followed (review: the last dest was checked)."""
    text = (
        _PARSER
        + "q = argparse.ArgumentParser()\nq.add_argument('--num_workers', dest='nw')\nmylib.fit(q.parse_args().nw)\n"
    )
    declared = options(list(ast.walk(ast.parse(text))))
    assert kept_options([("batch.py", text)], ("--num_workers", "4"), declared, "batch.py") == ()


@pytest.mark.parametrize("value", ["\u00b2", "9" * 5000, "0x4"])
def test_a_count_argparse_would_not_read_is_not_followed(value: str) -> None:
    """``'²'.isdigit()`` holds and ``int`` refuses it; a 5000-digit count passes ``isdigit`` and ``int`` refuses it
    too: neither may stop the check of the file (review: an internal error lost every finding)."""
    assert _kept("", ("--num_workers", value)) == []


@pytest.mark.parametrize(
    ("arguments", "kept"),
    [
        (("--num_workers", "0"), []),  # no count: nothing to decide
        (("--num_workers", "$N"), []),
        (("--workers", "4"), []),  # not an option the program declares
        (("--model", "4", "--num_workers=2"), ["--model", "--num_workers"]),  # every declared count, each alone
    ],
)
def test_only_counts_of_declared_options_are_followed(arguments: tuple[str, ...], kept: list[str]) -> None:
    assert _kept("", arguments) == kept


def test_a_file_that_does_not_parse_proves_nothing() -> None:
    assert _kept("", ("--num_workers=4",)) == ["--num_workers"]
    assert _kept("", ("--num_workers=4",), "def broken(:\n") == []


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.lists(st.sampled_from(["--num_workers", "4", "--x=2", "-n", "7"]), max_size=6))
def test_following_never_raises(module: str, arguments: list[str]) -> None:
    kept = _kept("", tuple(arguments), module)
    assert set(kept) <= {"--num_workers", "--model"}


_RAY_BATCH = _PARSER + (
    "import ray, torch\n"
    "ray.init(num_gpus=torch.cuda.device_count())\n"
    "class Orchestrator:\n"
    "    def __init__(self, model, num_workers=4):\n"
    "        self.actors = [Actor.remote(model) for _ in range(num_workers)]\n"
    "Orchestrator(args.model, num_workers=args.num_workers)\n"
)
_LOADER = _PARSER + "import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=args.num_workers)\n"


def _shm001(root: Path) -> list[tuple[str, str]]:
    return [(f.severity.label, f.message) for f in check_paths(Settings(), [root]).findings if f.code == "SHM001"]


@pytest.mark.parametrize("run", ["docker run", "k8s"])
def test_an_option_the_program_keeps_is_not_the_gates_evidence(tmp_path: Path, run: str) -> None:
    """The same command line fails the gate where the program hands ``--num_workers`` to a DataLoader, and is an
    undecided need (info, saying why) where its code sizes Ray actors with it."""
    if run == "docker run":
        (tmp_path / "run.sh").write_text("docker run --gpus all img python batch.py --num_workers 4\n")
    else:
        (tmp_path / "job.yaml").write_text(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: b\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - name: b\n        image: img\n"
            "        command: [python, batch.py, --num_workers=4]\n"
            "        resources:\n          limits:\n            nvidia.com/gpu: 1\n"
        )
    (tmp_path / "batch.py").write_text(_LOADER)
    [(severity, message)] = _shm001(tmp_path)
    assert severity == "error" and "--num_workers" in message
    (tmp_path / "batch.py").write_text(_RAY_BATCH)
    assert _shm001(tmp_path) == []  # undecided: counted in the summary, listed on request
    report = check_paths(Settings(undecided="show"), [tmp_path])
    [finding] = [f for f in report.findings if f.code == "SHM001"]
    assert finding.severity.label == "info"
    assert "--num_workers is batch.py's own option (batch.py:3), which its code gives to no loader" in finding.detail


def test_an_option_of_a_program_the_repository_does_not_hold_stays_evidence(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("docker run --gpus all img python /opt/elsewhere/batch.py --num_workers 4\n")
    [(severity, message)] = _shm001(tmp_path)
    assert severity == "error" and "--num_workers 4" in message


def test_the_need_without_the_kept_option_is_still_decided_by_the_rest(tmp_path: Path) -> None:
    """Leaving the kept option out leaves the command's other evidence: a launcher's processes still decide."""
    (tmp_path / "run.sh").write_text("docker run --gpus all img torchrun --nproc_per_node 4 batch.py --num_workers 4\n")
    (tmp_path / "batch.py").write_text(_RAY_BATCH)
    [(severity, message)] = _shm001(tmp_path)
    assert severity == "error" and "nproc_per_node" in message


@pytest.mark.parametrize(
    ("command", "program", "tier"),
    [
        ("python batch.py --num_workers 4", "batch.py", Tier.UNKNOWN),
        ("python /app/batch.py --num_workers=4", "/app/batch.py", Tier.UNKNOWN),
        ("python b/batch.py --num_workers 4", "batch.py", Tier.NEEDS),  # another program of the same name
        # typed one after another: batch.py keeping its option says nothing of train.py's
        ("python batch.py --num_workers 4 ; python train.py --num_workers 4", "batch.py", Tier.NEEDS),
        ("python batch.py --workers 2 --num_workers 4", "batch.py", Tier.UNKNOWN),
        # after a ``cd`` the same name is another folder's program
        ("python batch.py --num_workers 4 && cd sub && python batch.py --num_workers 8", "batch.py", Tier.NEEDS),
    ],
)
def test_an_option_is_left_out_only_where_its_program_runs(command: str, program: str, tier: Tier) -> None:
    kept = ProjectFacts(kept=(Kept("--num_workers", "batch.py:3", program),))
    need = decide(pod_workload(command=command, project=kept), builtin())
    assert need is not None and need.tier is tier


def test_a_program_past_the_node_bound_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Following is bounded: a program of more nodes than ``MAX_NODES`` proves nothing (review: a 500 KB program took
    seconds per workload)."""
    from shmlint.project import pyoption_flow

    assert _kept("") == ["--num_workers"]
    monkeypatch.setattr(pyoption_flow, "MAX_NODES", 20)
    assert _kept("") == []
