"""Loader helpers (``shmlint.project.pyhelpers``): a function that makes a DataLoader with the workers its
parameters say is judged at each call, in its file or in a module importing it by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.model import Launch
from shmlint.project.follow import MAX_HELPERS
from shmlint.project.pycode import MAX_FACTS
from tests.support import gather_facts as _gather
from tests.support import read_python as _read

_HELPER = "def make(ds, bs=2, workers=4):\n    return DataLoader(ds, batch_size=bs, num_workers=workers)\n"
_MIN_HELPER = "import os\ndef make(ds, bs):\n    return DataLoader(ds, num_workers=min(bs, os.cpu_count()))\n"
_MADE = "make(...) makes DataLoader(num_workers=workers) at line 2"
_W = "def make(ds, w=4):\n    return DataLoader(ds, num_workers=w)\n"


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        (_HELPER + "make(d)\n", [f"3 {_MADE}, workers=4 by default"]),
        (_HELPER + "make(d, 8, 2)\n", [f"3 {_MADE}, workers=2 at the call"]),
        (_HELPER + "make(ds=d, workers=3)\n", [f"3 {_MADE}, workers=3 at the call"]),
        (_HELPER + "make(d, workers=0)\n", []),
        (_HELPER + "make(d, 8, 0)\n", []),
        (_HELPER + "make(d, workers=n)\n", []),  # a value not followed
        (_HELPER + "make(*a)\n", []),  # arguments Python binds at run time
        (_HELPER + "make(d, **kw)\n", []),
        (_HELPER + "make(d, 8, 2, 1)\n", []),  # more than it takes: Python refuses the call
        (_HELPER + "make(d, nw=4)\n", []),
        (_HELPER + "make(d, bs=4, bs=2)\n", []),
        (_HELPER + "make()\n", []),  # ds is required
        (_HELPER + "m.make(d)\n", []),  # another object's method of the same name
        (_HELPER, []),  # never called
        ("make(d)\n" + _HELPER, []),  # runs before the def
        (_HELPER + "def run():\n    make(d)\n", [f"4 {_MADE}, workers=4 by default"]),  # runs later: it exists
        # the name is not (only) the helper where it is called
        (_HELPER + "make = functools.partial(make, workers=0)\nmake(d)\n", []),
        (_HELPER + "def make(ds):\n    return DataLoader(ds)\nmake(d)\n", []),
        (_HELPER + "from other import make\nmake(d)\n", []),
        (_HELPER + "def run(make):\n    make(d)\n", []),
        (_HELPER + "def run():\n    def make(x):\n        pass\n    make(d)\n", []),
        (
            _MIN_HELPER + "p.add_argument('--bs', type=int, default=3)\nmake(d, bs=args.bs)\n",
            ["5 make(...) makes DataLoader(num_workers=min(bs, os.cpu_count())) at line 3, --bs default 3 at line 4"],
        ),
        (_MIN_HELPER + "make(d, 0)\n", []),
        # the argument is the calling function's own name: its value is whoever calls that
        ("n = 8\n" + _HELPER + "def main(n):\n    make(d, workers=n)\nmain(0)\n", []),
        (
            "p.add_argument('--w', type=int, default=3)\n" + _HELPER + "def main(args):\n    make(d, workers=args.w)\n",
            [f"5 {_MADE.replace('line 2', 'line 3')}, --w default 3 at line 1"],
        ),
        ("def make(ds, w, *rest):\n    return DataLoader(ds, num_workers=w)\nmake(d, 4)\n", []),  # may land in rest
        ("def make(ds, **kw):\n    return DataLoader(ds, num_workers=w)\nmake(d, w=4)\n", []),
        ("def make(ds, w):\n    return DataLoader(ds, num_workers=w + extra)\nmake(d, 4)\n", []),  # not only w
        ("def make(ds, w):\n    return DataLoader(ds, num_workers=cfg.w)\nmake(d, 4)\n", []),
        ("class A:\n    def make(self, w):\n        return DataLoader(d, num_workers=w)\nA().make(4)\n", []),
        ("def make(ds, *, w=4):\n    return DataLoader(ds, num_workers=w)\nmake(d)\n", ["3 make(...) makes"]),
        ("def make(ds, *, w=4):\n    return DataLoader(ds, num_workers=w)\nmake(d, 4)\n", []),  # w is keyword-only
        ("def make(ds, w=0, /):\n    return DataLoader(ds, num_workers=w)\nmake(d, w=4)\n", []),  # positional-only
        ("def make(ds, w=0, /):\n    return DataLoader(ds, num_workers=w)\nmake(d, 4)\n", ["3 make(...) makes"]),
        # the helper's body must give the loader the parameter as called
        ("def make(ds, w=4):\n    w = cfg.w\n    return DataLoader(ds, num_workers=w)\nmake(d)\n", []),
        ("def make(ds, w=4):\n    return (lambda w: DataLoader(ds, num_workers=w))(0)\nmake(d)\n", []),
        ("def make(ds, w=4):\n    return [DataLoader(ds, num_workers=w) for w in (0,)]\nmake(d)\n", []),
        (
            "def make(ds, w=4, v=2):\n    a = DataLoader(ds, num_workers=w)\n    return DataLoader(ds, num_workers=v)\nmake(d)\n",
            [],
        ),
        ("@click.option('--w', default=0)\n" + _W + "make(d)\n", []),  # a decorator may give arguments
        ("def make(ds, w=4):\n    return MyDataLoader(ds, 1, 2, 3, 4, w)\nmake(d)\n", []),  # its own sixth
        (
            "def make(ds, w=4):\n    return DataLoader(ds, 1, 2, 3, 4, w)\nmake(d)\n",
            ["3 make(...) makes DataLoader(num_workers=w) at line 2, w=4 by default"],
        ),
        ("def make(ds, w=4):\n    return DataLoader(ds, num_workers=min(w, foo.count()))\nmake(d)\n", []),
        ("def make(ds, w=4):\n    return DataLoader(ds, num_workers=min(w, cfg.cpu_count()))\nmake(d)\n", []),
        ("max = min\ndef make(ds, w=4):\n    return DataLoader(ds, num_workers=max(w, 0))\nmake(d)\n", []),
        ("def make(ds, min, w=4):\n    return DataLoader(ds, num_workers=min(w, 2))\nmake(d, max)\n", []),
        (
            "import os\ndef make(ds, w=4):\n    return DataLoader(ds, num_workers=min(w, os.cpu_count()))\nmake(d)\n",
            ["4 make(...) makes DataLoader(num_workers=min(w, os.cpu_count())) at line 3, w=4 by default"],
        ),
        # a second loader, whose workers are known, may be the one the call gets
        (
            "def make(ds, w=8, train=True):\n    if not train:\n        return DataLoader(ds, batch_size=1)\n"
            "    return DataLoader(ds, num_workers=w)\nmake(d, train=False)\n",
            [],
        ),
        ("from other import *\n" + _HELPER + "make(d)\n", []),  # the star import may bind make
        (_HELPER + "from other import *\nmake(d)\n", []),
        (_HELPER + "del make\nmake(d)\n", []),
        # another loader in a nested function may be the one the call gets; a generator makes nothing when called
        (
            "def make(ds, w=4):\n    def inner():\n        return DataLoader(ds, num_workers=0)\n"
            "    return DataLoader(ds, num_workers=w) if ds else inner()\nmake(d)\n",
            [],
        ),
        ("def make(ds, w=4):\n    yield DataLoader(ds, num_workers=w)\nmake(d)\n", []),
        (_HELPER + "if __name__ == '__main__':\n    make(d)\n", [f"4 {_MADE}, workers=4 by default"]),  # run
        # YOLO's create_dataloader (audit81a): the workers through a name of its own assigned once above the loader,
        # ``min`` of a list, and a name bound only to loader classes
        (
            "import os\ndef make(ds, w=8):\n    nw = min([os.cpu_count(), w])\n"
            "    loader = DataLoader if ds else InfiniteDataLoader\n    return loader(ds, num_workers=nw)\nmake(d)\n",
            ["6 make(...) makes loader(num_workers=nw) at line 5, w=8 by default"],
        ),
        ("def make(ds, w=8):\n    nw = w\n    return DataLoader(ds, num_workers=nw)\nmake(d, 0)\n", []),
        ("def make(ds, w=8):\n    nw = cfg.w\n    return DataLoader(ds, num_workers=nw)\nmake(d)\n", []),
        # assigned in a branch, twice, or after the loader: not the one value the loader gets
        ("def make(ds, w=8):\n    if ds:\n        nw = w\n    return DataLoader(ds, num_workers=nw)\nmake(d)\n", []),
        ("def make(ds, w=8):\n    nw = w\n    nw = 0\n    return DataLoader(ds, num_workers=nw)\nmake(d)\n", []),
        (
            "def make(ds, w=8):\n    nw = w\n    if ds:\n        nw = 0\n    return DataLoader(ds, num_workers=nw)\nmake(d)\n",
            [],
        ),
        # a name bound to something else as well is no loader class
        (
            "def make(ds, w=8):\n    loader = DataLoader if ds else InfiniteDataLoader\n    loader = print\n"
            "    return loader(ds, num_workers=w)\nmake(d)\n",
            [],
        ),
        (
            "def make(ds, w=8):\n    loader = DataLoader if ds else print\n    return loader(ds, num_workers=w)\nmake(d)\n",
            [],
        ),
        # the review: an added-to local, no list to compare, another object's attribute of the alias's name
        ("def make(ds, w=8):\n    nw = w\n    nw += -8\n    return DataLoader(ds, num_workers=nw)\nmake(d)\n", []),
        ("def make(ds, w=8):\n    return DataLoader(ds, num_workers=min([]))\nmake(d)\n", []),
        (
            "def make(ds):\n    loader = DataLoader if ds else InfiniteDataLoader\n    return loader(ds, num_workers=0)\n"
            "class A:\n    def f(self):\n        return self.loader('x', num_workers=8)\n",
            [],
        ),
    ],
)
def test_a_loader_helper_is_judged_by_what_each_call_gives_it(code: str, needs: list[str]) -> None:
    """A function that makes a DataLoader with the workers its parameters say: each call that binds them, as Python
    would, to known values is evidence, said with the loader's line and the value; a call Python would refuse or
    binds at run time, a name that is not (only) the helper where it is called, a helper whose body, decorator or
    worker expression could change what the parameters give, says nothing."""
    facts = _read(code)
    assert [f"{fact.line} {fact.text}"[: len(need)] for fact, need in zip(facts.needs, needs, strict=False)] == needs
    assert len(facts.needs) == len(needs)


_CLASS = (
    "class Data:\n    def __init__(self, root, bs=32, num_workers: int = 4):\n        self.num_workers = num_workers\n"
    "    def loaders(self):\n        return {s: DataLoader(s, num_workers=self.num_workers) for s in self.splits}\n"
)
_CLASS_MADE = "Data(...) makes DataLoader(num_workers=self.num_workers) at line 5"


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        (_CLASS + "data = Data(root=r, bs=8)\n", [f"6 {_CLASS_MADE}, num_workers=4 by default"]),
        (_CLASS + "data = Data(r, 8, 2)\n", [f"6 {_CLASS_MADE}, num_workers=2 at the call"]),
        (_CLASS + "data = Data(r, num_workers=0)\n", []),
        (_CLASS, []),  # never made
        (_CLASS + "data = Data(r)\ndata.num_workers = 0\n", []),  # set again outside: which object's is not read
        (_CLASS + "setattr(d, k, 0)\nData(r)\n", []),
        (_CLASS.replace("self.num_workers = num_workers", "self.num_workers = num_workers + n") + "Data(r)\n", []),
        (_CLASS.replace("class Data:", "@register\nclass Data:") + "Data(r)\n", []),  # a decorator may wrap it
        (_CLASS.replace("num_workers: int = 4):", "num_workers: int = 4, **kw):") + "Data(r)\n", []),
        (  # set in a branch of __init__: not its own block
            _CLASS.replace("        self.num_workers", "        if root:\n            self.num_workers") + "Data(r)\n",
            [],
        ),
        # the review: a property or class attribute of that name, or attribute hooks, decide what it holds
        (
            _CLASS.replace(
                "    def loaders", "    @property\n    def num_workers(self):\n        return 0\n    def loaders"
            )
            + "Data(r)\n",
            [],
        ),
        (_CLASS.replace("    def loaders", "    num_workers = 0\n    def loaders") + "Data(r)\n", []),
        (
            _CLASS.replace("    def loaders", "    def __setattr__(self, k, v):\n        pass\n    def loaders")
            + "Data(r)\n",
            [],
        ),
        (  # two loaders in the class: which one a construction leads to is not read
            _CLASS + "    def more(self):\n        return DataLoader(x, num_workers=self.num_workers)\nData(r)\n",
            [],
        ),
    ],
)
def test_a_class_whose_constructor_sets_its_loaders_workers_is_judged_at_each_construction(
    code: str, needs: list[str]
) -> None:
    """audit84a: ``CustomDatasetXray(root=..., batch_size=args.bs)`` takes ``num_workers: int = 4``, kept as
    ``self.num_workers`` and given to the one DataLoader its method makes."""
    facts = _read(code)
    assert [f"{fact.line} {fact.text}"[: len(need)] for fact, need in zip(facts.needs, needs, strict=False)] == needs
    assert len(facts.needs) == len(needs)


def test_a_class_another_module_makes_is_not_judged_where_that_module_sets_its_attribute(tmp_path: Path) -> None:
    """The review: ``data = Data("/d"); data.num_workers = 0`` in the training program, the class in ``data.py``."""
    (tmp_path / "data.py").write_text("from torch.utils.data import DataLoader\n" + _CLASS)
    (tmp_path / "train.py").write_text("from data import Data\ndata = Data('/d')\nfor b in data.loaders():\n    pass\n")
    (tmp_path / "reset.py").write_text("from data import Data\ndata = Data('/d')\ndata.num_workers = 0\n")
    (tmp_path / "other.py").write_text("from data import Data\ndata = Data('/d')\nsetattr(data, name, 0)\n")
    made = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py"))).needs
    assert [str(fact) for fact in made] == [
        "train.py:2 Data(...) makes DataLoader(num_workers=self.num_workers) at data.py:6, num_workers=4 by default"
    ]
    for program in ("reset.py", "other.py"):
        assert not _gather(tmp_path, Launch(str(tmp_path), ("python", program))).needs, program


_LOADERS = "import os\nfrom torch.utils.data import DataLoader\n\ndef build(ds, batch_size, w=0):\n"


def test_a_loader_helper_of_an_imported_module_is_judged_at_the_importers_call(tmp_path: Path) -> None:
    """``from data.loaders import build as make_loader``: the call in the training program binds the helper's
    parameters there (an option of the program's own); a module imported whole, a same-named function of another
    module, or another module's helper of that name is not that helper."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("")
    (tmp_path / "data" / "loaders.py").write_text(
        _LOADERS + "    return DataLoader(ds, num_workers=min(batch_size, os.cpu_count()))\n"
    )
    (tmp_path / "other.py").write_text(_LOADERS + "    return DataLoader(ds, num_workers=w)\n")
    options = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--batch_size', type=int, default=2)\n"
    (tmp_path / "train.py").write_text(
        options
        + "args = p.parse_args()\nfrom data.loaders import build as make_loader\nmake_loader(ds, args.batch_size)\n"
    )
    (tmp_path / "whole.py").write_text(options + "import data.loaders\ndata.loaders.build(ds, 4)\n")
    # the module read first defines a helper named build; the one this file imports by that name is another's
    (tmp_path / "apart.py").write_text("import data.loaders\nfrom other import build\nbuild(ds, 4)\n")
    (tmp_path / "text.py").write_text("import data.loaders\nfrom textlib import build\nbuild(ds, 4)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    assert [str(fact) for fact in facts.needs] == [
        "train.py:6 make_loader(...) makes DataLoader(num_workers=min(batch_size, os.cpu_count())) at "
        "data/loaders.py:5, --batch_size default 2 at line 3"
    ]
    assert not _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py", "--batch_size", "0"))).needs
    # the one binding of ``build`` in the module is another function; the import is a function's or a class's
    (tmp_path / "local.py").write_text(
        "def setup():\n    from data.loaders import build\n    return build\n"
        "class A:\n    from data.loaders import build\n"
        "def build(ds, batch_size):\n    return ds\nbuild(d, 8)\n"
    )
    (tmp_path / "before.py").write_text("build(ds, 4)\nfrom data.loaders import build\n")  # runs before the import
    # a self-test in the helper's module never runs when the program imports it
    (tmp_path / "data" / "tested.py").write_text(
        _LOADERS + "    return DataLoader(ds, num_workers=w)\nif __name__ == '__main__':\n    build(ds, 1, w=4)\n"
    )
    (tmp_path / "selftest.py").write_text("from data.tested import build\nbuild(ds, 8, w=0)\n")
    assert _gather(tmp_path, Launch(str(tmp_path), ("python", "data/tested.py"))).needs  # run itself, it does
    for program in ("whole.py", "apart.py", "text.py", "local.py", "before.py", "selftest.py"):
        assert not _gather(tmp_path, Launch(str(tmp_path), ("python", program))).needs, program


def test_a_helpers_name_in_a_comment_changes_nothing(tmp_path: Path) -> None:
    """Only an import of the helper makes a module be read with its helpers: its name in a comment is nothing."""
    (tmp_path / "loaders.py").write_text(_LOADERS + "    return DataLoader(ds, num_workers=batch_size)\n")
    (tmp_path / "opts.py").write_text("p.add_argument('--workers', type=int, default=4)\n")
    train = "import loaders\nimport opts\nTrainingArguments(dataloader_num_workers=args.workers)\n"
    (tmp_path / "train.py").write_text(train)
    plain = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    (tmp_path / "train.py").write_text(train + "# build is mentioned here\n")
    assert _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py"))).needs == plain.needs


@pytest.mark.parametrize(("called", "followed"), [(0, True), (MAX_HELPERS - 1, True), (MAX_HELPERS, False)])
def test_a_program_keeps_a_bounded_number_of_loader_helpers(tmp_path: Path, called: int, followed: bool) -> None:
    """A program keeps its modules' loader helpers for the modules that import them, in the order it reads them:
    past ``MAX_HELPERS`` they are not kept (so not followed). Twelve a module, three modules."""
    for module in range(3):
        helpers = "".join(
            f"def make{12 * module + i}(ds, w=2):\n    return DataLoader(ds, num_workers=w)\n" for i in range(12)
        )
        (tmp_path / f"loaders{module}.py").write_text(helpers)
    imports = "import loaders0\nimport loaders1\nimport loaders2\n"
    (tmp_path / "train.py").write_text(f"{imports}from loaders{called // 12} import make{called}\nmake{called}(ds)\n")
    facts = _gather(tmp_path, Launch(str(tmp_path), ("python", "train.py")))
    assert bool(facts.needs) is followed


def test_a_files_facts_are_quoted_up_to_a_bound() -> None:
    """Each quote reads the file's text again: past ``MAX_FACTS`` a fact is kept with ``...`` for its value."""
    facts = _read("".join(f"DataLoader(ds{i}, num_workers=4)\n" for i in range(MAX_FACTS + 5)))
    assert len(facts.needs) == MAX_FACTS + 5
    assert [f.text for f in facts.needs[MAX_FACTS - 1 : MAX_FACTS + 1]] == [
        "DataLoader(num_workers=4)",
        "DataLoader(num_workers=...)",
    ]


_PCDET = "from pcdet.datasets import build_dataloader\n"


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        # OpenPCDet's build_dataloader(dataset_cfg, class_names, batch_size, dist, root_path=None, workers=4, ...)
        (
            _PCDET + "build_dataloader(cfg, names, 4, False)\n",
            ["2 build_dataloader(...): OpenPCDet's DataLoader workers default to 4"],
        ),
        (
            _PCDET + "build_dataloader(cfg, names, 4, False, workers=2)\n",
            ["2 build_dataloader(...): OpenPCDet's DataLoader with workers=2"],
        ),
        (
            _PCDET + "build_dataloader(cfg, names, 4, False, None, 3)\n",
            ["2 build_dataloader(...): OpenPCDet's DataLoader with workers=3"],
        ),
        (_PCDET + "build_dataloader(cfg, names, 4, False, workers=0)\n", []),
        (_PCDET + "build_dataloader(cfg, names, 4, False, workers=n)\n", []),  # a number the code does not say
        (_PCDET + "build_dataloader(cfg, names, **kw)\n", []),
        (_PCDET + "def build_dataloader(*a):\n    pass\nbuild_dataloader(cfg, names, 4, False)\n", []),  # its own
        ("from mylib.datasets import build_dataloader\nbuild_dataloader(cfg, names, 4, False)\n", []),
        (_PCDET + "x.build_dataloader(cfg, names, 4, False)\n", []),  # another object's method
    ],
)
def test_a_known_librarys_loader_function_is_judged_by_its_workers(code: str, needs: list[str]) -> None:
    """audit82c: OpenPCDet trainers make their loaders through the library's ``build_dataloader``."""
    facts = _read(code)
    assert [f"{fact.line} {fact.text}"[: len(need)] for fact, need in zip(facts.needs, needs, strict=False)] == needs
    assert len(facts.needs) == len(needs)


_IMPORT = "from torch.utils.data import DataLoader\n"


@pytest.mark.parametrize(
    ("code", "needs", "zero", "unknown"),
    [
        ("kw = dict(num_workers=8, pin_memory=True)\nl = DataLoader(ds, **kw)\n", ["DataLoader(num_workers=8)"], 0, 0),
        (
            'kw = {"num_workers": 6, "batch_size": 4}\nl = DataLoader(ds, shuffle=True, **kw)\n',
            ["DataLoader(num_workers=6)"],
            0,
            0,
        ),
        ('kw = {"batch_size": 4}\nl = DataLoader(ds, **kw)\n', [], 1, 0),  # a dict without workers: none
        ('kw = {"num_workers": 0}\nl = DataLoader(ds, **kw)\n', [], 1, 0),
        # what the dict holds when the loader is made is not what it was written with: not known
        ('kw = {"num_workers": 0}\nkw["num_workers"] = 8\nl = DataLoader(ds, **kw)\n', [], 0, 1),
        ('kw = {"num_workers": 0}\nkw.update(extra)\nl = DataLoader(ds, **kw)\n', [], 0, 1),
        ('kw = {"num_workers": 0} if cuda else {}\nl = DataLoader(ds, **kw)\n', [], 0, 1),
        ("kw = {k: 4 for k in names}\nl = DataLoader(ds, **kw)\n", [], 0, 1),
        ('kw = {**base, "num_workers": 0}\nl = DataLoader(ds, **kw)\n', [], 0, 1),
        ("def dict(**a):\n    return {}\nkw = dict(num_workers=4)\nl = DataLoader(ds, **kw)\n", [], 0, 1),
    ],
)
def test_a_loaders_keywords_given_as_a_dict_written_in_the_file_are_read(
    code: str, needs: list[str], zero: int, unknown: int
) -> None:
    """audit86 (left from the reports): ``DataLoader(ds, **loader_kwargs)`` of a dict the file writes out once and
    never changes gives its keywords as written out."""
    facts = _read(_IMPORT + code)
    assert [fact.text for fact in facts.needs] == needs
    assert (len(facts.zero_loaders), facts.unknown_loaders) == (zero, unknown)
