"""Python read with ``ast`` for the project walk (``shmlint.project.pycode`` and the modules it uses): loaders and
their workers, launchers a program starts, options, configs and the values they are followed through."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.engine import Engine
from shmlint.model import (
    CodeFact,
    ProjectFacts,
    Tier,
)
from shmlint.need import builtin, decide
from shmlint.project import configs, pycode
from shmlint.project.launchers import known
from shmlint.runner import check_paths
from shmlint.settings import Settings
from tests.support import pod_workload as _workload
from tests.support import read_python as _read


def test_loader_literal_and_default() -> None:
    facts = _read("DataLoader(ds, num_workers=4)\nDataLoader(ds)\n")
    assert [f.line for f in facts.needs] == [1]
    assert [f.line for f in facts.zero_loaders] == [2]


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        ("n = 8\nif lang == 'ja':\n    n = 0\nDataLoader(ds, num_workers=n)\n", ["num_workers=n), n = 8 at line 1"]),
        (
            "def f(lang):\n    n = 8\n    if lang == 'ja':\n        n = 0\n    Cfg(num_loader_workers=n)\n",
            ["num_loader_workers=n), n = 8 at line 2"],
        ),
        ("n = 0\nif fast:\n    n = 8\nDataLoader(ds, num_workers=n)\n", []),  # workers only when asked for
        ("n = 8\nn = 0\nDataLoader(ds, num_workers=n)\n", []),  # both unguarded: which one is not read here
        ("n = 8\nfor x in y:\n    n = 0\nDataLoader(ds, num_workers=n)\n", []),
        ("if a:\n    n = 8\nelse:\n    n = 0\nDataLoader(ds, num_workers=n)\n", []),
        ("n = 8\nif a:\n    n = 0\nelse:\n    n = 0\nDataLoader(ds, num_workers=n)\n", []),  # no path keeps 8
        (
            "n = 8\nif a:\n    n = 0\nelif b:\n    n = 2\nDataLoader(ds, num_workers=n)\n",
            ["num_workers=n), n = 8 at line 1"],
        ),
        ("n = 8\nif debug:\n    n = 0\n    DataLoader(ds, num_workers=n)\n", []),  # used where it is 0
        # a cap reads it: not a default, but every way it is assigned is a count above zero
        ("n = 8\nif n > 4:\n    n = 4\nDataLoader(ds, num_workers=n)\n", ["num_workers=n), n = 4 at line 3"]),
        ("if a:\n    n = 0\nDataLoader(ds, num_workers=n)\nn = 8\n", []),  # assigned after the use
        ("n = 8\ndef f(n):\n    if n is None:\n        n = 0\n    DataLoader(ds, num_workers=n)\n", []),
        ("def a():\n    n = 8\ndef b():\n    if x:\n        n = 0\n    DataLoader(ds, num_workers=n)\n", []),
        ("class C:\n    n = 8\nif x:\n    n = 0\nDataLoader(ds, num_workers=n)\n", []),
        ("n = 8\nwhile True:\n    if c:\n        n = 0\n        break\nDataLoader(ds, num_workers=n)\n", []),
        ("try:\n    n = 8\nexcept E:\n    if x:\n        n = 0\nDataLoader(ds, num_workers=n)\n", []),
        ("n = 8\nif x:\n    n = 0\nn, m = cfg.w, cfg.b\nDataLoader(ds, num_workers=n)\n", []),  # unpacked too
        ("n = 8\nDataLoader(ds, num_workers=n)\n[n] = [0]\n", []),  # no longer assigned once
        ("n = 8\ncfg[n] = 1\nDataLoader(ds, num_workers=n)\n", ["num_workers=n), n = 8 at line 1"]),  # reads n
        ("n = 8\nif x:\n    n += 1\nDataLoader(ds, num_workers=n)\n", []),  # the if reads it
        ("n = 8\nif x:\n    n, m = 0, 1\nDataLoader(ds, num_workers=n)\n", ["num_workers=n), n = 8 at line 1"]),
        ("n = 8\nif x:\n    n = 0\ndef n():\n    pass\nDataLoader(ds, num_workers=n)\n", []),
        ("n = 8\nif x:\n    n = 0\nmatch y:\n    case n:\n        pass\nDataLoader(ds, num_workers=n)\n", []),
        ("from cfg import *\nn = 8\nif x:\n    n = 0\nDataLoader(ds, num_workers=n)\n", []),
    ],
)
def test_a_count_set_once_and_otherwise_only_under_a_condition_is_its_default(code: str, needs: list[str]) -> None:
    """``num_workers = 8`` and ``if language == "ja": num_workers = 0``: 8 unless the condition holds, evidence
    of workers; a zero default that a condition raises, or two assignments outside any ``if``, stay unknown."""
    assert [fact.text.partition("(")[2] for fact in _read(code).needs] == needs


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        ("if k:\n    n = 2\nelse:\n    n = 8\nDataLoader(ds, num_workers=n)\n", ["num_workers=n), n = 2 at line 2"]),
        ("n = 8\nif k:\n    n = 4\nDataLoader(ds, num_workers=n)\n", ["num_workers=n), n = 8 at line 1"]),  # default
        ("if k:\n    n = 2\nelse:\n    n = 0\nDataLoader(ds, num_workers=n)\n", []),  # one way is none
        ("if k:\n    n = 2\nelse:\n    n = cfg.w\nDataLoader(ds, num_workers=n)\n", []),  # one way unknown
        ("if k:\n    n = 2\nelse:\n    n = True\nDataLoader(ds, num_workers=n)\n", []),  # no count
        ("n = 2\nfor n in r:\n    pass\nn = 4\nDataLoader(ds, num_workers=n)\n", []),  # a loop binds it too
        ("if k:\n    n = m = 2\nelse:\n    n = 8\nDataLoader(ds, num_workers=n)\n", []),  # chained: not read
    ],
)
def test_a_count_every_assignment_sets_above_zero_is_above_zero(code: str, needs: list[str]) -> None:
    """A name every assignment of the file gives a count above zero (two branches, 2 or 8; audit51a) has workers
    whichever runs: its smallest count is quoted."""
    assert [fact.text.partition("(")[2] for fact in _read(code).needs] == needs


def test_loader_followed_to_argparse_default_and_command_line() -> None:
    code = "p.add_argument('--workers', type=int, default=6)\nDataLoader(ds, num_workers=args.workers)\n"
    assert "default 6 at line 1" in _read(code).needs[0].text
    assert not _read(code, ("--workers", "0")).needs
    assert _read(code, ("--workers", "0")).zero_loaders
    assert "--workers 2 on the command line" in _read(code, ("--workers=2",)).needs[0].text
    assert _read(code, ("--workers", "²")).unknown_loaders == 1  # not an ASCII number: not followed


def test_loader_followed_to_config_key_name_and_cpu_count() -> None:
    setting = configs.Setting("num_workers", 3, 7)
    assert _read("DataLoader(ds, num_workers=cfg['num_workers'])", config={"num_workers": setting}).needs
    assert _read("W = 2\nDataLoader(ds, num_workers=W)").needs
    assert _read("DataLoader(ds, num_workers=os.cpu_count())").needs
    assert _read("W = 2\nW = 0\nDataLoader(ds, num_workers=W)").unknown_loaders == 1  # assigned twice: unknown
    assert _read("DataLoader(ds, **kwargs)").unknown_loaders == 1


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        ("N = os.cpu_count()\nDataLoader(ds, num_workers=N)\n", "cpu_count() is at least 1"),
        # audit86c: a count capped by a number, the CPU count with a fallback
        ("c = os.cpu_count() or 1\nN = min(c, 16)\nDataLoader(ds, num_workers=N)\n", "cpu_count() is at least 1"),
        ("DataLoader(ds, num_workers=min(os.cpu_count() or 1, 16))\n", "cpu_count() is at least 1"),
        ("N = args.workers or 4\nDataLoader(ds, num_workers=N)\n", "num_workers=N)"),  # a falsy count takes 4
        ("N = args.workers or 0\nDataLoader(ds, num_workers=N)\n", None),  # may be none
        ("N = min(args.workers, 16)\nDataLoader(ds, num_workers=N)\n", None),  # not known above zero
        ("N = len(os.sched_getaffinity(0))\nD = N\nDataLoader(ds, num_workers=D)\n", "sched_getaffinity() is at"),
        ("N = os.cpu_count()\np.add_argument('--workers', type=int, default=N)\n"
         "DataLoader(ds, num_workers=args.workers)\n", "cpu_count() is at least 1"),
        ("class DM:\n    def __init__(self, args):\n        self.workers = args.get('num_workers', 4)\n"
         "    def loader(self):\n        return DataLoader(ds, num_workers=self.workers)\n", "self.workers = 4 at line 3"),
        ("class DM:\n    def __init__(self, n):\n        self.workers = n\n"
         "    def loader(self):\n        return DataLoader(ds, num_workers=self.workers)\n", None),  # a parameter
        ("class DM:\n    def __init__(self):\n        self.workers = 4\n    def fast(self):\n        self.workers = 0\n"
         "    def loader(self):\n        return DataLoader(ds, num_workers=self.workers)\n", None),  # set twice
        ("class DM:\n    def __init__(self):\n        self.workers, self.b = 4, 1\n"
         "    def loader(self):\n        return DataLoader(ds, num_workers=self.workers)\n", None),  # unpacked
        ("N = os.cpu_count()\nN = 0\nDataLoader(ds, num_workers=N)\n", None),
        ("P = (4, 0)\nN, M = P\nDataLoader(ds, num_workers=N)\n", None),  # unpacked: not the whole of P
        # a condition's branch that gives workers (audit72d: ``0 if (device == "cpu" and ...) else 8``)
        ("DataLoader(ds, num_workers=0 if device == 'cpu' else 8)\n", "0 where device == 'cpu' is true"),
        ("W = 4\nDataLoader(ds, num_workers=W if gpu else 0)\n", "0 where gpu is false"),
        # both give workers: the larger, whichever way the condition is written (the review: 2 of 64 was taken)
        ("DataLoader(ds, num_workers=2 if debug else 64)\n", "num_workers=2 if debug else 64), 2 where debug is"),
        ("DataLoader(ds, num_workers=64 if not debug else 2)\n", "2 where not debug is false"),
        ("DataLoader(ds, num_workers=2 if debug else os.cpu_count())\n", "2 where debug is true"),
        ("DataLoader(ds, num_workers=0 if a else 0)\n", None),
        ("DataLoader(ds, num_workers=0 if a else n)\n", None),  # a branch not known
        # the review: another class's attribute, or a field's default of the reading class, is not told apart
        ("class A:\n    def __init__(self):\n        self.workers = 16\n@dataclass\nclass B:\n    workers: int = 0\n"
         "    def loader(self):\n        return DataLoader(ds, num_workers=self.workers)\n", None),
        ("class B:\n    workers = 0\n    def __init__(self):\n        self.workers = 16\n"
         "    def loader(self):\n        return DataLoader(ds, num_workers=self.workers)\n", None),
    ],
)  # fmt: skip
def test_a_count_reached_through_a_name_or_an_attribute_is_followed(code: str, needs: str | None) -> None:
    """Audit69a's probes: ``N = os.cpu_count()`` then ``num_workers=N`` (or an argparse default ``N``), ``D = N``,
    ``len(os.sched_getaffinity(0))``, and ``self.workers`` set once in the file, as ``num_workers=os.cpu_count()``
    written in place already was; a parameter, a second assignment or an unpacking stays unknown."""
    facts = _read(code)
    assert [needs in fact.text for fact in facts.needs] == ([True] if needs else [])
    assert facts.unknown_loaders + len(facts.zero_loaders) == (0 if needs else 1)


_PASSED_ON = (
    "from ultralytics import YOLO\nclass Service:\n    def fit(self, data, epochs=1, **kwargs):\n"
    "        model = YOLO('y.pt')\n        return model.train(data=data, epochs=epochs, **kwargs)\n"
    "service = Service()\n{call}\n"
)


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel.train(data='d.yaml')", True),  # 8 by default
        ("from ultralytics import RTDETR as R\nR('r.pt').train(data='d.yaml', workers=4)", True),
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel.train(workers=0)", False),
        ("model = YOLO('y.pt')\nmodel.train()", False),  # not Ultralytics' YOLO: nothing known of it
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\ntrainer.train()", False),  # another object
        # a torch module's train mode in another function of a file that also uses YOLO
        (
            "from ultralytics import YOLO\ndef detect():\n    model = YOLO('y.pt')\n"
            "def finetune():\n    model = resnet50()\n    model.train()",
            False,
        ),
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel = model.model\nmodel.train()", False),
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel.train(False)", False),  # torch's mode
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel.train(**args)", False),  # workers not said
        ("from ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel.train(cfg='my.yaml')", False),
        ("from .ultralytics import YOLO\nmodel = YOLO('y.pt')\nmodel.train()", False),  # a local module
        (  # a function rebinds the module's name
            "from ultralytics import YOLO\nmodel = YOLO('y.pt')\ndef swap():\n    global model\n"
            "    model = torch.nn.Linear(4, 4)\nswap()\nmodel.train()",
            False,
        ),
        # a parameter the function's body replaces with the model (audit65a: hunyuan-train-framework's YOLO11)
        ("from ultralytics import YOLO\ndef fit(model, d):\n    model = YOLO(model)\n    model.train(data=d)", True),
        (  # replaced only in a branch: what the caller gave may still hold
            "from ultralytics import YOLO\ndef fit(model, d):\n    if d:\n        model = YOLO(model)\n"
            "    model.train(data=d)",
            False,
        ),
        (  # replaced after the call
            "from ultralytics import YOLO\ndef fit(model, d):\n    model.train(data=d)\n    model = YOLO(model)",
            False,
        ),
        (  # a loop binds the parameter's name again
            "from ultralytics import YOLO\ndef fit(model, d):\n    model = YOLO(model)\n"
            "    for model in d:\n        model.train(data=d)",
            False,
        ),
        # a ``**`` that passes on the function's own keywords: what the file's calls of it give decides
        (_PASSED_ON.format(call="service.fit(data='d.yaml', epochs=3)"), True),
        (_PASSED_ON.format(call="service.fit(data='d.yaml')\nservice.fit(data='e.yaml', batch=4)"), True),
        (  # a function that passes its own keywords on again: what reaches the call is not seen
            _PASSED_ON.format(call="def run(**options):\n    service.fit('d.yaml', **options)\nrun()"),
            False,
        ),
        (_PASSED_ON.format(call="service.fit(data='d.yaml', workers=0)"), False),
        (_PASSED_ON.format(call="service.fit(data='d.yaml', **options)"), False),
        (_PASSED_ON.format(call="pass"), False),  # no call seen: a caller elsewhere may give any
        (_PASSED_ON.format(call="service.fit(data='d.yaml', cfg='my.yaml')"), False),  # a file that may set workers
        (_PASSED_ON.format(call="scaler.fit(X)"), False),  # another class's method of that name: not a call of it
        (
            _PASSED_ON.replace("epochs=epochs, **kwargs", "**kwargs").format(call="service.fit('d.yaml', epochs=2)"),
            True,
        ),
        (  # the keywords changed before they are passed on
            _PASSED_ON.replace(
                "        model = YOLO", "        kwargs.setdefault('workers', 0)\n        model = YOLO"
            ).format(call="service.fit(data='d.yaml')"),
            False,
        ),
        (
            _PASSED_ON.replace("    def fit", "    @patched\n    def fit").format(call="service.fit(data='d.yaml')"),
            False,
        ),
        (  # a function of the module, called by its name
            "from ultralytics import YOLO\ndef fit(data, **kwargs):\n    YOLO('y.pt').train(data=data, **kwargs)\n"
            "fit('d.yaml')\n",
            True,
        ),
        (  # not the function's own ``**`` parameter
            "from ultralytics import YOLO\ndef fit(data, **kwargs):\n    extra = load()\n"
            "    YOLO('y.pt').train(data=data, **extra)\nfit(data='d.yaml')",
            False,
        ),
    ],
)
def test_ultralytics_training(code: str, needs: bool) -> None:
    assert bool(_read(code).needs) is needs


_FIT = "from ultralytics import YOLO\ndef fit(weights, workers=4):\n    YOLO(weights).train(data='d.yaml', workers=workers)\n"


@pytest.mark.parametrize(
    ("call", "said"),
    [
        # audit87a: a train() helper whose workers its caller gives, as a loader helper's are
        (
            "fit('y.pt', workers=6)",
            "fit(...) makes YOLO(weights).train(workers=workers) at line 3, workers=6 at the call",
        ),
        ("fit('y.pt')", "workers=4 by default"),
        ("fit('y.pt', workers=0)", None),
        ("fit('y.pt', workers=n)", None),  # a value not followed
    ],
)
def test_an_ultralytics_train_helper_is_judged_at_its_calls(call: str, said: str | None) -> None:
    needs = [fact.text for fact in _read(_FIT + call + "\n").needs]
    assert needs == [] if said is None else len(needs) == 1 and said in needs[0], needs


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        # batchgenerators' augmenters with worker processes (audit66b: nnUNet-Studio's patched trainer)
        (
            "from batchgenerators.dataloading.multi_threaded_augmenter import MultiThreadedAugmenter\n"
            "MultiThreadedAugmenter(loader, transforms, 4)",
            True,
        ),
        ("NonDetMultiThreadedAugmenter(loader, transforms, num_processes=0)", False),
        ("MultiThreadedAugmenter(loader, transforms, n)", False),  # not known
        ("MultiThreadedAugmenter(loader, transforms, **kw)", False),
        # nnU-Net's trainer through its Python API, in a file that imports from nnU-Net
        (
            "from nnunetv2.paths import nnUNet_preprocessed\nfrom trainers import nnUNetTrainerFast\n"
            "t = nnUNetTrainerFast(plans, 'c', 0, ds)\nt.run_training()",
            True,
        ),
        ("from nnunetv2.run.run_training import run_training\nrun_training('Dataset001', '3d_fullres', 0)", True),
        (
            "from nnunetv2.run.run_training import get_trainer_from_args\n"
            "t = get_trainer_from_args('1', '3d', 0)\nt.run_training()",
            True,
        ),
        ("from nnunetv2.paths import p\nt = Other()\nt.run_training()", False),  # another object
        ("from trainers import nnUNetTrainerFast\nnnUNetTrainerFast(p).run_training()", False),  # no nnU-Net import
        # nnU-Net v2's predictor through its Python API (audit84a): preprocessing workers, at least one
        (
            "from nnunetv2.inference.predict_from_raw_data import nnUNetPredictor\np = nnUNetPredictor(device=d)\n"
            "p.predict_from_files(inputs, out, num_processes_preprocessing=1)",
            True,
        ),
        (
            "from nnunetv2.inference.predict_from_raw_data import nnUNetPredictor\n"
            "nnUNetPredictor().predict_from_files(inputs, out)",
            True,
        ),
        ("from nnunetv2.inference.predict_from_raw_data import nnUNetPredictor\nother.predict_from_files(i, o)", False),
        ("from mypredictor import nnUNetPredictor\nnnUNetPredictor().predict_from_files(i, o)", False),
    ],
)
def test_nnunet_and_batchgenerators(code: str, needs: bool) -> None:
    assert bool(_read(code).needs) is needs


def test_nnunet_told_to_train_single_threaded_is_no_need() -> None:
    code = "from nnunetv2.run.run_training import run_training\nrun_training('Dataset001', '3d_fullres', 0)"
    assert not pycode.read(code, (), {}, 1, env={"nnUNet_n_proc_DA": "0"}).needs  # type: ignore[union-attr]
    assert pycode.read(code, (), {}, 1, env={"nnUNet_n_proc_DA": "8"}).needs  # type: ignore[union-attr]
    itself = "import os\nos.environ['nnUNet_n_proc_DA'] = '0'\n" + code  # the script turns them off itself
    assert not pycode.read(itself, (), {}, 1).needs  # type: ignore[union-attr]


_NCCL_RANK = "import torch.distributed as dist\ndef run(rank, n):\n    dist.init_process_group(backend='nccl')\n"


@pytest.mark.parametrize(
    ("start", "devices", "needs"),
    [
        (
            "import torch.multiprocessing as mp\nps = [mp.Process(target=run, args=(i, 4)) for i in range(4)]",
            None,
            True,
        ),
        (
            "from multiprocessing import Process\nfor i in range(2):\n    Process(target=run, args=(i, 2)).start()",
            2,
            True,
        ),
        (
            "p.add_argument('--n', type=int, default=3)\nfor i in range(args.n):\n    mp.Process(target=run).start()",
            None,
            True,
        ),
        ("for i in range(1):\n    mp.Process(target=run).start()", None, False),  # one rank: no peer
        ("for i in range(n):\n    mp.Process(target=run).start()", None, False),  # a count not said may be one
        ("mp.Process(target=run).start()", None, False),  # one, outside a loop
        ("for i in range(4):\n    mp.Process(target=run).start()", 1, False),  # one GPU: not one each
        ("for i in range(4):\n    mp.Process(target=other).start()", None, False),  # the target joins no group
        ("for i in range(4):\n    mp.Process(target=lambda: run(0, 4)).start()", None, False),
    ],
)
def test_processes_a_program_starts_that_join_an_nccl_group(start: str, devices: int | None, needs: bool) -> None:
    """audit84d: a GNN system's ``mp.Process(target=run_train)`` for each of ``--num-train-worker 4`` ranks, each
    ``init_process_group(backend="nccl")``, on an uncounted ``--gpus all``: NCCL between local ranks, whatever the
    start method."""
    facts = _read(_NCCL_RANK + "def other():\n    pass\n" + start, devices=devices)
    assert bool(facts.needs) is needs
    if needs:
        said = "starts ranks that join an NCCL group (init_process_group(backend='nccl') at line 3)"
        assert any(said in fact.text for fact in facts.needs)


def test_trainer_arguments_multiprocessing_and_nccl() -> None:
    assert _read("TrainingArguments(output_dir='o', dataloader_num_workers=4)").needs
    assert _read("GPTTrainerConfig(batch_size=2, num_loader_workers=8)").needs  # Coqui TTS's trainer config
    assert not _read("GPTTrainerConfig(num_loader_workers=0)").needs
    assert _read("VitsConfig(num_loader_workers=0, num_eval_loader_workers=4)").needs  # audit60b: its eval loader
    assert _read("LLM(model='m', tensor_parallel_size=2)").needs
    assert not _read("LLM(model='m', tensor_parallel_size=1)").needs  # one process: no NCCL between processes
    assert _read("import torch.multiprocessing as mp\nmp.spawn(main, nprocs=2)").needs
    nccl = "import torch.distributed as dist\ndist.init_process_group(backend='nccl')"
    assert _read(nccl, devices=4).needs
    assert not _read(nccl, devices=1).needs  # one GPU: no NCCL between local processes
    assert _read(nccl, devices=1).busy  # but never called free
    assert _read("pl.Trainer(accelerator='gpu', devices=4)", devices=4).needs
    assert _read("L.Trainer(strategy='ddp_find_unused_parameters_true')", devices=2).needs
    assert not _read("Trainer(model=m, args=training_args)", devices=4).needs  # Hugging Face's Trainer
    assert _read("L.Fabric(accelerator='cuda', strategy='fsdp')", devices=2).needs  # audit82a: launch() starts them
    assert not _read("L.Fabric(accelerator='cuda', strategy='fsdp')", devices=1).needs
    assert not _read("L.Fabric(devices=1, strategy='deepspeed_stage_2')", devices=2).needs  # one process (the review)


_OPTION = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--strategy', default='ddp')\nargs = p.parse_args()\n"


@pytest.mark.parametrize(
    ("code", "arguments", "said"),
    [
        ("L.Trainer(strategy=os.getenv('STRATEGY', 'ddp'))", (), "STRATEGY default 'ddp'"),  # audit86 (left)
        ("L.Trainer(strategy=os.environ.get('STRATEGY', 'auto'))", (), None),
        ("S = 'fsdp'\nL.Trainer(strategy=S)", (), "S = 'fsdp' at line 1"),
        (_OPTION + "L.Trainer(strategy=args.strategy)", (), "--strategy default 'ddp' at line 3"),
        (_OPTION + "L.Trainer(strategy=args.strategy)", ("--strategy", "auto"), None),  # the command line's
        ("L.Trainer(strategy=os.getenv('STRATEGY'))", (), None),  # not known
        ("L.Trainer(strategy=name)", (), None),
        ("L.Trainer(strategy=DDPStrategy(find_unused_parameters=False))", (), "strategy=DDPStrategy("),  # audit87a
        ("L.Trainer(strategy=SingleDeviceStrategy(device=0))", (), None),
    ],
)
def test_a_lightning_strategy_is_followed_to_the_string_it_is(code: str, arguments: tuple, said: str | None) -> None:
    needs = _read(code, arguments, devices=4).needs
    assert [said in fact.text for fact in needs] == ([True] if said else [])


def test_a_lightning_strategy_from_the_environment_is_the_containers() -> None:
    code = "L.Trainer(strategy=os.getenv('STRATEGY', 'auto'))"
    facts = pycode.read(code, (), {}, 4, env={"STRATEGY": "ddp"})
    assert facts is not None and "STRATEGY=ddp in the environment" in facts.needs[0].text


def _launches(code: str) -> list[tuple[int, str]]:
    return [(c.line, c.text) for c in _read(code).launches]


def test_launcher_commands_written_in_code() -> None:
    template = 'def sh(w):\n    return f"""accelerate launch {LB}\n  train/sdxl_train_network.py --workers {w}\n"""\n'
    assert _launches(template) == [(2, "accelerate launch ? train/sdxl_train_network.py --workers ?")]  # holes shown
    as_list = "import sys\ncmd = [sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node', str(n), 't.py']"
    assert _launches(as_list) == [(2, "python -m torch.distributed.run --nproc_per_node ? t.py")]
    assert _launches("run('deepspeed --num_gpus ' + str(n) + ' train.py')") == [(1, "deepspeed --num_gpus ? train.py")]
    assert _read(template).busy is False and _read(template).needs == ()  # a command, not code that uses /dev/shm


@pytest.mark.parametrize(
    "code",
    [
        '"""Run it as: torchrun --nproc_per_node 8 train.py"""',  # prose
        '"""torchrun --nproc_per_node 8 train.py"""',  # a docstring: how people run it, not what it runs
        "p.add_argument('--x', help='torchrun --nproc_per_node 2 t.py')",
        "argparse.ArgumentParser(description='deepspeed t.py')",
        "print('accelerate launch t.py')",
        "logger.info(f'torchrun {a} t.py')",
        "raise RuntimeError('torchrun --standalone t.py failed')",
        "REQUIRES = ['accelerate>=0.20', 'deepspeed==0.14']",  # package pins
        "cmd = 'torchrun --nproc_per_node 8'",  # no program after the launcher
        "cmd = [launcher, 'launch', 't.py']",  # the program word is not in the text
        "x = 'train.py'",  # a file's name starts nothing
        "y = ['./run.py', '--a']",  # nor does a list that only names one
        "print('python train.py --num_workers 4')",  # how to run it, for people
        "p = 'setup.py'\np = 'other.py'\nc = ['python', p]",  # a name assigned twice holds no one path
    ],
)
def test_launcher_shaped_text_that_is_not_a_command(code: str) -> None:
    assert _launches(code) == []


def test_python_programs_the_code_starts() -> None:
    """A web UI starts its training with the Python running it: ``sys.executable`` through a name, a path joined
    from strings, a printf-style shell string whose program the code fills in; each given to a call that runs it."""
    applio = (
        "import os, sys, subprocess\npython = sys.executable\ndef train():\n"
        "    path = os.path.join('rvc', 'train', 'train.py')\n"
        "    subprocess.run([python, path, *map(str, [model, epochs])])\n"
    )
    assert _launches(applio) == [(5, "python rvc/train/train.py ?")]
    rvc = "from subprocess import Popen\n"
    rvc += 'cmd = \'"%s" infer/modules/train/train.py -e "%s" -sr %s\' % (config.python_cmd, exp, sr)\nPopen(cmd)\n'
    assert _launches(rvc) == [(2, "python infer/modules/train/train.py -e ? -sr ?")]  # once: the template is read
    # with what fills it in
    branches = "from subprocess import Popen\ndef train(gpus):\n    if gpus:\n"
    branches += "        cmd = '\"%s\" train.py -g %s' % (py, gpus)\n    else:\n        cmd = '\"%s\" train.py' % py\n"
    branches += "    cmd += ' -a %s' % author\n    Popen(cmd, shell=True)\n"  # added to, not replaced
    assert _launches(branches) == [(4, "python train.py -g ?"), (6, "python train.py")]  # either may run
    functions = "import subprocess, sys\npython = sys.executable\n"
    functions += "def prep():\n    command = [python, 'prep.py']\n    subprocess.run(command)\n"
    functions += "def train():\n    command = [python, 'train.py']\n    subprocess.run(command)\n"
    assert _launches(functions) == [(4, "python prep.py"), (7, "python train.py")]  # each function its own name
    outer = "import subprocess, sys, os\nTRAIN = [sys.executable, os.path.join('rvc', 'train.py'), '-e', 'x']\n"
    outer += "def start():\n    subprocess.Popen(TRAIN)\n"
    assert _launches(outer) == [(2, "python rvc/train.py -e x")]  # the module's name, run in a function
    shell = "import subprocess\nsubprocess.run(shlex.split('python train.py --num_workers 4'))"
    assert _launches(shell) == [(2, "python train.py --num_workers 4")]
    aliased = "from subprocess import run as start\nimport os as system\nstart(['python3', 'a.py'])\n"
    aliased += "system.system('python train.py --lr %s --pct 50%%' % lr)"
    assert _launches(aliased) == [(3, "python3 a.py"), (4, "python train.py --lr ? --pct 50%")]
    assert _launches("x = 'torchrun --nproc_per_node %d train.py' % n") == [(1, "torchrun --nproc_per_node ? train.py")]
    # a shell string joined from a list (audit78b: a Streamlit page's training), each item maybe several words
    joined = "import subprocess\ncmd = ' '.join(str(i) for i in [config.python_cmd, 'training_cli.py -e', name,\n"
    joined += "    '-bs', 1 if big else 0])\nsubprocess.Popen(cmd, shell=True)\n"
    assert _launches(joined) == [(2, "python training_cli.py -e ? -bs ?")]
    listed = "import subprocess\nsubprocess.run(' '.join(['python', 'train.py', '--epochs', '3']), shell=True)\n"
    assert _launches(listed) == [(2, "python train.py --epochs 3")]


@pytest.mark.parametrize(
    "code",
    [
        "HOWTO = 'python train.py --epochs 10'\ngr.Code(HOWTO)",  # a how-to shown in a UI runs nothing
        "cmd = 'python train.py'\nprint(cmd)",
        "def a():\n    s = 'eval.py'\ndef b(s):\n    subprocess.run([sys.executable, s])",  # a parameter: not that path
        "for s in scripts:\n    pass\ns = 'eval.py'\nsubprocess.run([sys.executable, s])",  # bound twice
        "cmd = '%s x' % editor\nsubprocess.run(cmd)",  # no .py file after the program
        # another container, another host: a method called run is not subprocess's
        "import subprocess\nclient.containers.run('img', ['python', 'train.py'])\nconn.run('python train.py')",
        # a name bound in two functions: the one given to the call is not known to be the command
        "import subprocess\ndef a():\n    cmd = 'python train.py'\ndef b():\n    cmd = ['nvidia-smi']\n"
        "    subprocess.run(cmd)",
        "import subprocess, sys\nsubprocess.check_output([sys.executable, 'train.py', '--help'])",  # prints only
        "import subprocess, sys\nsubprocess.run([sys.executable, '-m', 'pytest', 'tests/test_loader.py'])",
        "import os, subprocess\nsubprocess.Popen([os.environ.get('EDITOR', 'vi'), 'train.py'])",  # not Python
        "TITLE = ' '.join(['python', 'train.py'])\nprint(TITLE)",  # joined, but given to no call that runs it
        "import subprocess\nsubprocess.run(', '.join(['python', 'train.py']))",  # not a shell's words
        # replaced before anything runs it
        "import subprocess\ncmd = 'python train.py'\nprint(cmd)\ncmd = ['nvidia-smi']\nsubprocess.run(cmd)",
        # a method does not see its class's names; the module's cmd is what runs
        "import subprocess\ncmd = ['nvidia-smi']\nclass T:\n    cmd = 'python train.py'\n"
        "    def go(self):\n        subprocess.run(cmd)",
        # a name an except clause or a match capture binds holds what they give
        "import subprocess\ncmd = 'python train.py'\ntry:\n    pass\nexcept Exception as cmd:\n    subprocess.run(cmd)",
        "import subprocess\ncmd = 'python train.py'\nmatch job:\n    case {'cmd': cmd}:\n        subprocess.run(cmd)",
    ],
)
def test_python_programs_that_are_not_started(code: str) -> None:
    assert _launches(code) == []


@pytest.mark.parametrize(
    ("code", "started"),
    [
        ("import subprocess\nsubprocess.run(['svc', 'train', '-t'], check=True)", [(2, "svc train -t")]),
        ("import os\nos.system('svc train -t')", [(2, "svc train -t")]),
        ("import subprocess\nsubprocess.run(['svc', 'train', '--help'])", []),  # prints only
        ("NEXT = 'svc train -t'\nprint(NEXT)", []),  # text, given to no call that runs it
        ("import subprocess\nsubprocess.run([tool, 'train'])", []),  # the program is not known
        ("import subprocess\nsubprocess.run(['nvidia-smi'])", []),  # one word: as often an exec call's argument
    ],
)
def test_programs_by_name_given_to_a_run_call_are_kept_apart(code: str, started: list[tuple[int, str]]) -> None:
    """A program a run call starts by name is kept for the data's patterns, never followed as a program."""
    facts = _read(code)
    assert [(c.line, c.text) for c in facts.by_name] == started and facts.launches == ()


@pytest.mark.parametrize(
    ("code", "launches", "by_name"),
    [
        ("import subprocess\nsubprocess.run(['bash', 'train.sh'])", ["bash train.sh"], []),  # a script: followed
        ("import os\nos.system('sh run.sh')", ["sh run.sh"], []),
        ("import subprocess\nsubprocess.Popen(['streamlit', 'run', 'ui.py'])", ["streamlit run ui.py"], []),
        ("import os\nos.system('cd /app && CUDA_VISIBLE_DEVICES=0 svc train -t')", [], ["svc train -t"]),
        ("import subprocess\nsubprocess.run(['sudo', 'nohup', 'svc', 'train'])", [], ["svc train"]),
        # after a ``cd`` the files are not where they would be looked for: the command is kept for the patterns only
        ("import os\nos.system('cd x && python train.py')", [], ["python train.py"]),
        ("import os\nos.system('nvidia-smi && python -u train.py')", ["python -u train.py"], []),
        # an installed package's module: kept for the data's patterns
        (
            "import os\nos.system('python3 -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2')",
            [],
            ["python3 -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2"],
        ),
        ("import os\nos.system('python -m pytest tests/test_x.py')", [], []),  # a test run
        ("import subprocess\nsubprocess.run(['pytest', 'tests/test_x.py'])", [], []),
        (
            "import subprocess\nsubprocess.run(['python', 'train.py', '-m', 'lr=0.1,0.01'])",
            ["python train.py -m lr=0.1,0.01"],
            [],
        ),  # Hydra's multirun
        # a separator inside quotes, or a word of an argument list, separates nothing
        (
            "import os\nos.system('git commit -m \"wip && deepspeed train.py\"')",
            [],
            ['git commit -m "wip && deepspeed train.py"'],
        ),
        (
            "import subprocess\nsubprocess.run(['python', 'train.py', '--sep', ';', '--n', '4'])",
            ["python train.py --sep ; --n 4"],
            [],
        ),
        # a launcher whose script the code fills in: its options are the tier data's to judge
        (
            "import subprocess\nsubprocess.run(['torchrun', '--nproc_per_node', '4', script])",
            ["torchrun --nproc_per_node 4 ?"],
            [],
        ),
    ],
)
def test_each_command_a_run_call_starts_is_read_past_its_prefixes(
    code: str, launches: list[str], by_name: list[str]
) -> None:
    facts = _read(code)
    assert [c.text for c in facts.launches] == launches and [c.text for c in facts.by_name] == by_name


def test_programs_by_name_do_not_crowd_out_the_training_script() -> None:
    """Many tools run by name before the training script: the script is still a launch, followed."""
    tools = "".join(f"subprocess.run(['ffmpeg', '-i', 'in{i}.wav', 'out{i}.wav'])\n" for i in range(20))
    facts = _read(f"import subprocess, sys\n{tools}subprocess.Popen([sys.executable, 'train.py'])\n")
    assert [c.line for c in facts.launches] == [22]
    assert len(facts.by_name) == 16


def test_a_free_program_started_by_name_does_not_make_a_setting_evidence() -> None:
    """``subprocess.run(["ray", "job", "submit", ..., "--", "python", "t.py", "--tensor-parallel-size", "4"])``: the
    data knows ``ray job submit`` as a client that hands the job to a cluster elsewhere (free)."""
    command = "ray job submit --address http://h:8265 -- python t.py --tensor-parallel-size 4"
    need = decide(
        _workload(project=ProjectFacts(by_name=(CodeFact("app.py:6", command),)), accelerator_count=4), builtin()
    )
    assert need is not None and need.tier is not Tier.NEEDS


@pytest.mark.parametrize(
    ("command", "known"),
    [
        ("svc train -t", True),
        ("vllm serve meta/llama --tensor-parallel-size 2", True),
        ("pip install deepspeed", False),  # names the software, runs none of it
        ("git clone https://github.com/microsoft/DeepSpeed", False),
        ("kubectl get svc train-api -o json", False),
        ("ssh gpu-host vllm serve meta/llama", False),  # another host's
        ("docker run --rm img deepspeed train.py", False),  # another container's
        ("huggingface-cli upload-large-folder repo out --num-workers 8", False),  # an uploader's threads
        ("python3 -m pip install deepspeed", False),  # Python installs it: nothing of it runs
        ("python3 -u -m pip install deepspeed", False),
        ("python3 -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 2", True),
        # a program the data knows as free runs nothing that uses the setting its words name
        ('echo "hint: pass --tensor-parallel-size 8 to serve faster"', False),
    ],
)
def test_a_program_by_name_is_evidence_only_when_the_data_knows_it_by_its_name(command: str, known: bool) -> None:
    for started in (
        ProjectFacts(by_name=(CodeFact("app.py:6", command),)),
        ProjectFacts(commands=(CodeFact("app.py:6", command),)),
    ):
        need = decide(_workload(project=started, accelerator_count=4), builtin())
        assert need is not None and (need.tier is Tier.NEEDS) is known
        assert not known or f"(app.py:6 {command[:40]}" in need.because


@pytest.mark.parametrize(
    "command",
    [
        "torchrun --nproc_per_node 4 train.py",  # a launcher's options say what it starts
        "python train.py --num_workers 4",  # so do a Python program's
        "FORCE_TORCHRUN=1 llamafactory-cli train examples/sft.yaml",  # the program's name, behind its environment
        "nohup svc train -t",
        "vllm bench throughput --model m --tensor-parallel-size 2",  # a script's program, judged by its options
        "bash tools/dist_train.sh configs/x.py 8",
        "tritonserver --model-repository=/models --backend-config=python,shm-default-byte-size=1048576",
        "nice -n 10 python train.py --num_workers 4",  # a wrapper's options
        "timeout 36000 python train.py --num_workers 4",
    ],
)
def test_a_command_a_script_runs_that_starts_known_software_is_evidence(command: str) -> None:
    started = ProjectFacts(commands=(CodeFact("run.sh:3", command),))
    need = decide(_workload(project=started, accelerator_count=4), builtin())
    assert need is not None and need.tier is Tier.NEEDS


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["torchrun", "accelerate", "launch", "t.py", "-m", "x", "{a}", " ", "\\\n"]), max_size=30)
)
def test_launcher_commands_never_raise(parts: list[str]) -> None:
    text = "".join(parts).replace('"', "")
    for code in (f'c = f"{text}"', f'c = "{text}"', f"c = {text.split()!r}"):
        facts = pycode.read(code, (), {}, 1)
        assert facts is None or all(known(w) for c in facts.launches for w in c.text.split())


def test_kohya_trainer_entry_follows_the_worker_option() -> None:
    kohya = next(e for e in builtin().entries if e.id == "kohya-sd-scripts")
    assert kohya.commands is not None
    assert kohya.commands.search("accelerate launch sd-scripts/flux_train_network.py --network_module x")
    assert kohya.commands.search("python sdxl_train.py --max_data_loader_n_workers 2")
    assert not kohya.commands.search("python sdxl_train.py --max_data_loader_n_workers 0")
    assert not kohya.commands.search("python sdxl_train.py --max_data_loader_n_workers='0'")
    assert not kohya.commands.search("python train.py --network_module x")  # not sd-scripts' own name


def test_options_fields_and_default_configs() -> None:
    imported = {"workers": pycode.imported_option("opts.py", ("workers", 5, ("--workers",), 3, False))}
    loader = "DataLoader(ds, num_workers=args.workers)"
    assert "default 3 at opts.py:5" in _read_imported(loader, imported).needs[0].text
    own = "p.add_argument('--workers', default=0)\n" + loader
    assert _read_imported(own, imported).zero_loaders  # the file's own option wins over an imported one
    field = "@dataclass\nclass A:\n    workers: int = field(default=2)\nDataLoader(ds, num_workers=a.workers)"
    assert "field workers default 2 at line 3" in _read(field).needs[0].text
    assert _read(field, ("--workers", "0")).zero_loaders  # HfArgumentParser: the command line sets a field
    zero = {"workers": configs.Setting("workers", 0, 1)}
    assert _read(field, config=zero).zero_loaders  # a config the command line names wins over a field's default
    named = "p.add_argument('--config', default='configs/a.yaml')\np.add_argument('--n', default='x.yaml')"
    assert _read(named).config_defaults == ("configs/a.yaml", "x.yaml")
    assert _read(named, ("--config", "b.yaml")).config_defaults == ("x.yaml",)  # the command line names its own


def test_absl_flags_are_options_the_command_line_sets() -> None:
    code = "flags.DEFINE_integer('num_workers', 8, 'workers')\nDataLoader(ds, num_workers=FLAGS.num_workers)"
    assert "--num_workers default 8 at line 1" in _read(code).needs[0].text
    assert _read(code, ("--num_workers=0",)).zero_loaders
    assert _read(code.replace("'num_workers', 8, 'workers'", "name='num_workers', default=2")).needs
    assert _read(code.replace("'num_workers'", "prefix + 'w'")).unknown_loaders == 1  # a name not written
    # the review: absl takes one dash too, and options from a flag file; a default set again is not the written one
    assert _read(code, ("-num_workers=0",)).zero_loaders
    assert not _read(code, ("--flagfile=flags.cfg",)).needs
    assert not _read(code, ("-flagfile", "flags.cfg")).needs
    assert not _read(code + "\nFLAGS.set_default('num_workers', 0)").needs
    argparse = "p.add_argument('--workers', type=int, default=4)\nDataLoader(ds, num_workers=args.workers)"
    assert _read(argparse).needs and not _read(argparse + "\np.set_defaults(workers=0)").needs


def test_config_files_the_code_names_and_command_line_overrides() -> None:
    code = "import yaml\ncfg = yaml.safe_load(open('configs/a.yaml'))\nOmegaConf.load('b.yml')\nopen('data.csv')"
    assert set(_read(code).config_defaults) == {"configs/a.yaml", "b.yml"}
    own = "from cfg import read_config\ncfg = read_config('../cfg/train.yaml')\nload_data('data.json')"  # audit83c
    assert _read(own).config_defaults == ("../cfg/train.yaml",)
    hydra = "@hydra.main(config_path='conf', config_name='train')\ndef main(cfg):\n    pass"
    assert _read(hydra).beside_configs == ("conf/train.yaml",)
    setting = {"num_workers": configs.Setting("num_workers", 6, 2)}
    loader = "DataLoader(ds, num_workers=cfg.num_workers)"
    assert _read(loader, config=setting).needs
    assert _read(loader, ("data.num_workers=0",), setting).zero_loaders  # a Hydra override on the command line
    assert _read(loader, ("++num_workers=0",), setting).zero_loaders
    assert _read(loader, ("fit", "--data.num_workers", "0"), setting).zero_loaders  # LightningCLI's (audit86a)
    assert _read(loader, ("--num_workers=0",), setting).needs  # an option, not an override: argparse's business


def test_environment_and_positional_workers() -> None:
    code = "import os\nDataLoader(ds, num_workers=int(os.environ.get('WORKERS', '4')))"
    assert "WORKERS default 4" in _read(code).needs[0].text
    zero = pycode.read(code, (), {}, 1, None, {"WORKERS": "0"})
    assert zero is not None and zero.zero_loaders  # the container's env wins over the code's default
    env = pycode.read("DataLoader(ds, num_workers=int(os.environ['W']))", (), {}, 1, None, {"W": "3"})
    assert env is not None and "W=3 in the environment" in env.needs[0].text
    assert _read("DataLoader(ds, num_workers=os.getenv('W'))").unknown_loaders == 1  # no value anywhere
    assert _read("DataLoader(ds, 8, True, None, None, 4)").needs  # positional: torch's sixth parameter
    assert _read("MyDataLoader(ds, 8, True, None, None, 4)").unknown_loaders == 1  # another class's is its own


def _read_imported(code: str, imported: dict) -> pycode.PyFacts:
    facts = pycode.read(code, (), {}, 1, imported)
    assert facts is not None
    return facts


@pytest.mark.parametrize(
    ("args", "tier"),
    [
        ('["--num_workers", "$(W)"]', "error"),  # Kubernetes expands it from the env: 4 workers
        ('["--num_workers", "$$(W)"]', "info"),  # escaped: the program gets the text $(W)
        ('["--num_workers", "$(OTHER)"]', "info"),  # not in the env: stays as written
    ],
)
def test_kubernetes_expands_env_references_in_args(args: str, tier: str) -> None:
    from shmlint.discover import FileKind
    from shmlint.source import SourceText

    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: example/t\n"
        f'    command: ["python", "t.py"]\n    args: {args}\n    env: [{{name: W, value: "4"}}]\n'
        "    resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    findings = Engine(Settings(undecided="show")).check_source(SourceText("p.yaml", pod), FileKind.YAML, "p.yaml")
    assert [f.severity.label for f in findings.findings] == [tier]


@pytest.mark.parametrize(
    ("manifest", "name", "tier"),
    [
        # the container's environment reaches the shell that runs the -c string
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            "    image: acme/server\n    env: [{name: TP, value: '4'}]\n"
            '    command: ["/bin/sh", "-c", "exec python3 serve.py --tensor-parallel-size $TP"]\n'
            "    resources: {limits: {nvidia.com/gpu: 4}}\n",
            "p.yaml",
            "error",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            "    image: acme/server\n    env: [{name: TP, value: '1'}]\n"
            '    command: ["/bin/sh", "-c", "exec python3 serve.py --tensor-parallel-size $TP"]\n'
            "    resources: {limits: {nvidia.com/gpu: 4}}\n",
            "p.yaml",
            "info",
        ),
        # compose leaves $$TP to the container's shell, which takes it from the service's environment
        (
            "services:\n  s:\n    image: acme/server\n    environment: {TP: '2'}\n    gpus: all\n"
            '    command: ["sh", "-c", "python serve.py --tensor-parallel-size $$TP"]\n',
            "compose.yaml",
            "error",
        ),
        ("docker run --gpus all -e TP=4 acme/server sh -c 'python serve.py --tp $TP'\n", "run.sh", "error"),
        ("docker run --gpus all acme/server sh -c 'python serve.py --tp $TP'\n", "run.sh", "info"),
        # the host's shell expands a double-quoted string with its own variables, not the container's
        ('TP=1\ndocker run --gpus all -e TP=4 acme/server sh -c "python serve.py --tp $TP"\n', "run.sh", "info"),
        # set from elsewhere (a ConfigMap, the host): its value is not known, so the default is not taken
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            "    image: acme/server\n    env: [{name: TP, valueFrom: {configMapKeyRef: {name: m, key: tp}}}]\n"
            '    command: ["/bin/sh", "-c", "exec python3 serve.py --tensor-parallel-size ${TP:-4}"]\n'
            "    resources: {limits: {nvidia.com/gpu: 4}}\n",
            "p.yaml",
            "info",
        ),
        ("docker run --gpus all -e TP acme/server sh -c 'python serve.py --tp ${TP:-4}'\n", "run.sh", "info"),
        (
            "services:\n  s:\n    image: acme/server\n    environment: [TP]\n    gpus: all\n"
            '    command: ["sh", "-c", "python serve.py --tensor-parallel-size $${TP:-2}"]\n',
            "compose.yaml",
            "info",
        ),
        # a value not known keeps its option's name: not "accelerate launch without --num_processes"
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
            '    image: acme/server\n    command: ["/bin/sh", "-c", "accelerate launch --num_processes=$N t.py"]\n'
            "    resources: {limits: {nvidia.com/gpu: 4}}\n",
            "p.yaml",
            "info",
        ),
    ],
)
def test_a_c_strings_variables_come_from_the_containers_environment(
    tmp_path: Path, manifest: str, name: str, tier: str
) -> None:
    (tmp_path / name).write_text(manifest)
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    assert [f.severity.label for f in report.findings] == [tier]
    if tier == "error":
        assert "-c string: " in report.findings[0].detail and "$TP" not in report.findings[0].detail


def test_a_script_is_not_a_walkthrough(tmp_path: Path) -> None:
    """A script's lines after ``docker run -it ... bash`` run on the host once the shell exits: only a document has
    the reader type them into the container (fixtures/project/readme-walkthrough-shell)."""
    text = "docker run -it --gpus all acme/dev bash\npython3 scripts/launch_triton_server.py --world_size 1\n"
    (tmp_path / "run.sh").write_text(text)
    (tmp_path / "README.md").write_text(f"```bash\n{text}```\n")
    report = check_paths(Settings(undecided="show"), [tmp_path], jobs=1)
    found = {(Path(f.span.path).name, f.severity.label) for f in report.findings}
    assert found == {("run.sh", "info"), ("README.md", "error")}


def test_unparsable_and_hostile_python() -> None:
    assert pycode.read("def (:", (), {}, 1) is None
    assert pycode.read("x = " + "(" * 200_000 + ")" * 200_000, (), {}, 1) is None


def test_config_settings() -> None:
    text = 'a: 1\n  num_workers: 8\n{"tensor_parallel_size": 1}\ndataloader_num_workers = 0\n"num_loader_workers": 4,\n'
    text += '"num_eval_loader_workers": 2,\n'
    assert configs.settings(text) == [
        configs.Setting("num_workers", 8, 2),
        configs.Setting("tensor_parallel_size", 1, 3),
        configs.Setting("dataloader_num_workers", 0, 4),
        configs.Setting("num_loader_workers", 4, 5),
        configs.Setting("num_eval_loader_workers", 2, 6),
    ]
    assert configs.named_configs(["--config=a.yaml", "b.json", "c.txt"]) == ["a.yaml", "b.json"]


def test_a_projects_own_worker_key_is_a_value_the_code_reads_and_no_fact_by_itself() -> None:
    """audit83c: ``no_workers: 8`` read by ``DataLoader(num_workers=cfg["no_workers"])``; ``workers: 4`` alone may be
    a web server's."""
    found = configs.settings("no_workers: 8\nworkers: 4\nnumWorkers: 2\nworker_port: 80\nhomeworkers_x: 1\n")
    assert found == [configs.Setting("no_workers", 8, 1), configs.Setting("numWorkers", 2, 3)]  # not a bare workers
    assert not any(setting.uses_shm for setting in found)
    assert configs.Setting("num_workers", 1, 1).uses_shm
    # a project's own key given two values: which one the code reads is not known (the review)
    nested = "train:\n  n_workers: 8\nserve:\n  n_workers: 0\n  num_workers: 2\nnum_workers: 4\n"
    assert configs.unambiguous(configs.settings(nested)) == [
        configs.Setting("num_workers", 2, 5),
        configs.Setting("num_workers", 4, 6),
    ]
    assert configs.unambiguous(configs.settings("a:\n  n_workers: 8\nb:\n  n_workers: 8\n")) == [
        configs.Setting("n_workers", 8, 2),
        configs.Setting("n_workers", 8, 4),
    ]


def test_a_deep_condition_is_not_unparsed() -> None:
    """The review: ``8 if a+a+...(400 terms) else 0`` overflowed ``ast.unparse``'s recursion (SHM000, the run script
    blamed); such a condition is said as "its condition"."""
    condition = "+".join(["a"] * 400)
    facts = _read(f"DataLoader(ds, num_workers=8 if {condition} else 0)\n")
    assert [fact.text.endswith("0 where its condition is false") for fact in facts.needs] == [True]


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        # audit89c's probe: PyG's sampling loaders are torch DataLoaders with worker processes
        (
            "from torch_geometric.loader import NeighborLoader\nNeighborLoader(data, batch_size=128, num_workers=8)",
            True,
        ),
        ("import torch_geometric.loader as L\nL.LinkNeighborLoader(data, num_workers=4)", True),
        ("from torch_geometric.loader import HGTLoader\nHGTLoader(data, num_workers=0)", False),
        ("from mylib import NeighborLoader\nNeighborLoader(data, num_workers=8)", False),  # another library's
    ],
)
def test_pyg_sampling_loaders_have_worker_processes(code: str, needs: bool) -> None:
    assert bool(_read(code).needs) is needs


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        # audit90a: the program's own classes take these as parameters of their own; what they do decides
        ("class Trainer2:\n    def __init__(self, dataloader_num_workers=8):\n        self.w = dataloader_num_workers\n"
         "Trainer2(dataloader_num_workers=8)", False),
        ("class JSONLDataLoader:\n    def __init__(self, num_workers=4):\n        self.n = num_workers\n"
         "JSONLDataLoader(num_workers=4)", False),
        ("from torch.utils.data import DataLoader\nclass MyDataLoader(DataLoader):\n    pass\n"
         "MyDataLoader(ds, num_workers=4)", True),  # a loader of its own is torch's
        ("from transformers import TrainingArguments\nTrainingArguments(output_dir='o', dataloader_num_workers=4)", True),
        ("from lib import JSONLDataLoader\nJSONLDataLoader(num_workers=4)", True),  # another module's: by its name
    ],
)  # fmt: skip
def test_the_programs_own_classes_are_read_through_what_they_do(code: str, needs: bool) -> None:
    assert bool(_read(code).needs) is needs
