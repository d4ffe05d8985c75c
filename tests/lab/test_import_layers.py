"""Imports point one way: the labs build on the generic parts of femu_lab (vm/, run/ and
the shared modules), never the reverse; femu_lab builds on femu_analysis, which builds on
femu_common. Read from the source (ast), so an import inside a function counts too."""
import ast
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

# The order, written once: each layer may import its own layer and those above it here.
PACKAGE_LAYERS = (("femu_common",), ("femu_analysis",), ("femu_lab",))
LAB_LAYERS = (
    # generic: QEMU and the guest, one run, the shared modules (tangled among themselves)
    ("paths", "devconfig", "ftl_sim", "sim_folder", "file_tail", "length", "output_file",
     "lab_options", "setup_steps", "workloads", "vm", "traces", "run"),
    # labs: each a study built from runs
    ("bench", "crash", "dftl", "energy", "fdp", "hotcold", "mapping", "presets", "soak",
     "sweep", "zns"),
    ("slurm",),                      # a sweep as a Slurm array job
    ("commands", "cli", "__main__", "__init__"),  # the femu-lab command line and its registry
)
PACKAGE_DIRS = {"femu_common": "scripts/common/femu_common",
                "femu_analysis": "analysis/femu_analysis", "femu_lab": "scripts/femu_lab"}


def _rank(layers: Tuple[Tuple[str, ...], ...]) -> Dict[str, int]:
    return {name: depth for depth, names in enumerate(layers) for name in names}


def _imports(path: Path, package: str, root: Path) -> Iterator[Tuple[int, List[str]]]:
    """(line, dotted name split) of every module path imports, relative ones resolved."""
    relative = path.relative_to(root).with_suffix("").parts
    here = [package, *relative[:-1]]   # the package this file is in
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            if node.module:
                yield node.lineno, module
            else:   # `from .. import a, b`: each name is a module of that package
                for alias in node.names:
                    yield node.lineno, module + [alias.name]


def upward_imports(root: Path, package: str) -> List[str]:
    """Every import in package (at root) that points up the layers, one line each; a
    part that no layer names counts too (a new part must take its place in the order)."""
    packages, parts = _rank(PACKAGE_LAYERS), _rank(LAB_LAYERS)
    found = []
    for path in sorted(root.rglob("*.py")):
        where = f"{package}/{path.relative_to(root)}"
        own_part = path.relative_to(root).with_suffix("").parts[0]
        for line, name in _imports(path, package, root):
            if name[0] not in packages:
                continue   # the standard library or a third-party package
            if packages[name[0]] > packages[package]:
                found.append(f"{where}:{line}: imports {'.'.join(name)}")
            elif package == name[0] == "femu_lab" and len(name) > 1:
                target = name[1]
                if own_part not in parts or target not in parts:
                    unnamed = own_part if own_part not in parts else target
                    found.append(f"{where}:{line}: {unnamed} is in no layer of LAB_LAYERS")
                elif parts[target] > parts[own_part]:
                    found.append(f"{where}:{line}: imports {'.'.join(name)}")
    return found


@pytest.mark.parametrize("package", sorted(PACKAGE_DIRS))
def test_imports_point_down_the_layers(repo_root, package):
    assert upward_imports(repo_root / PACKAGE_DIRS[package], package) == []


def test_the_analysis_starts_no_process(repo_root):
    """femu_analysis only analyses: running ftl-sim (or anything) is femu_lab's."""
    root = repo_root / PACKAGE_DIRS["femu_analysis"]
    starts = [f"{path.name}:{line}" for path in sorted(root.rglob("*.py"))
              for line, name in _imports(path, "femu_analysis", root)
              if name[0] in ("subprocess", "multiprocessing")]
    assert starts == []


def test_the_generic_parts_import_no_lab():
    lab = set(LAB_LAYERS[1])
    assert {"vm", "run"} <= set(LAB_LAYERS[0]) and not lab & set(LAB_LAYERS[0])


def test_an_upward_import_is_found(tmp_path):
    """The check itself: a run/ module borrowing from a lab, a lab with no layer, and
    femu_analysis importing femu_lab are each named."""
    lab = tmp_path / "femu_lab"
    (lab / "run").mkdir(parents=True)
    (lab / "run" / "vm_run.py").write_text("import os\nfrom ..crash.cut_spec import CutSpec\n"
                                           "from .. import paths\n")
    (lab / "crash").mkdir()
    (lab / "crash" / "lab.py").write_text("def f():\n    from ..run import vm_run\n")
    (lab / "newlab").mkdir()
    (lab / "newlab" / "x.py").write_text("from ..run import vm_run\n")
    assert upward_imports(lab, "femu_lab") == [
        "femu_lab/newlab/x.py:1: newlab is in no layer of LAB_LAYERS",
        "femu_lab/run/vm_run.py:2: imports femu_lab.crash.cut_spec"]
    analysis = tmp_path / "femu_analysis"
    analysis.mkdir()
    (analysis / "bench.py").write_text("from femu_lab.ftl_sim import run_ftl_sim\n")
    assert upward_imports(analysis, "femu_analysis") == [
        "femu_analysis/bench.py:1: imports femu_lab.ftl_sim"]
