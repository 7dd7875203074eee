"""The package's layers, bottom to top, and the one rule between them.

Inside ``_engine`` the folders are layers too: ``timing`` and the plain
records (``_records``) at the bottom, the certifier families ``binary`` and
``multiclass`` above them (siblings that never import each other), and
``session`` (the audit contract and its implementations) on top.

``_core`` -> ``_mip`` -> ``backends`` -> ``_engine`` -> estimators -> ``_cli``:
a module imports from its own layer or from layers below, never from above.
Only ``_engine`` holds audit state; the estimators reach it through the
session's methods.

The estimators' level is three folders, declared in ``LAYERS``:
``_estimators`` (the estimators and what opens and answers their audits),
``_reporting`` (tables, frames, Displays, scorers, progress and the
sentences of warnings) and ``_probabilistic`` (the probabilistic auditor).
They may import ``_core``, ``_mip``, ``backends``, ``_engine`` and each
other, never ``_cli``.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sklearn_multiplicity"
NAME = "sklearn_multiplicity"

#: Layer of each subpackage, bottom (0) to top; other modules are estimators.
ESTIMATORS = 4
LAYERS = {
    "_core": 0,
    "_mip": 1,
    "backends": 2,
    "_engine": 3,
    "_estimators": ESTIMATORS,
    "_reporting": ESTIMATORS,
    "_probabilistic": ESTIMATORS,
    "_cli": 5,
}
LAYER_NAMES = ["_core", "_mip", "backends", "_engine", "estimators", "_cli"]


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module):
    parts = module.split(".")
    if module == NAME:
        return ESTIMATORS  # the public API re-exports estimators
    if parts[1] == "__main__":
        return LAYERS["_cli"]
    return LAYERS.get(parts[1], ESTIMATORS)


def imported_modules(path, module=None):
    """Absolute names of the package modules that ``path`` imports."""
    tree = ast.parse(path.read_text())
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if node.module is None or target == NAME:
                # ``from . import x``: each name may be a module.
                found.update(f"{target}.{alias.name}" for alias in node.names)
            else:
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == NAME or m.startswith(NAME + ".")}


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_layer_is_a_folder_of_the_tree():
    for folder in LAYERS:
        assert (PACKAGE / folder / "__init__.py").is_file(), folder


def test_the_package_root_holds_only_public_modules_and_layers():
    modules = {p.name for p in PACKAGE.glob("*.py")}
    assert modules == {"__init__.py", "__main__.py", "_exceptions.py", "constraints.py"}
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(LAYERS) | {"datasets"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_module_imports_from_a_layer_above_its_own(path):
    own = layer_of(module_name(path))
    for target in imported_modules(path):
        if target == "sklearn_multiplicity.__version__":
            continue  # the version string, read for reports
        assert layer_of(target) <= own, (
            f"{module_name(path)} ({LAYER_NAMES[own]}) imports {target} "
            f"({LAYER_NAMES[layer_of(target)]})"
        )


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if "_engine" not in p.parts],
    ids=lambda p: module_name(p),
)
def test_engine_state_stays_inside_the_engine(path):
    """Outside ``_engine`` nothing imports the state or reads ``.state``."""
    source = path.read_text()
    assert "binary._state" not in source and "AuditState" not in source
    tree = ast.parse(source)
    reads = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "state"
    ]
    assert not reads, f"{module_name(path)} reads .state at lines {reads}"


def test_the_checker_sees_an_upward_import(tmp_path):
    source = tmp_path / "_fake.py"
    source.write_text(
        "from .._auditor import MultiplicityAuditor\n"
        "from . import _state\n"
        "from ..backends import get_backend\n"
    )
    fake = "sklearn_multiplicity._engine._fake"
    names = imported_modules(source, module=fake)
    assert names == {
        "sklearn_multiplicity._auditor",
        "sklearn_multiplicity._engine._state",
        "sklearn_multiplicity.backends",
    }
    above = [n for n in names if layer_of(n) > layer_of(fake)]
    assert above == ["sklearn_multiplicity._auditor"]


def _resolved_package(path, node):
    """The directory an ``ImportFrom`` with dots refers to."""
    base = path.parent
    for _ in range(node.level - 1):
        base = base.parent
    for part in (node.module or "").split("."):
        if part:
            base = base / part
    return base


def test_no_private_name_is_imported_from_another_module():
    # Modules may be private (``from .._mip import _formulations``); a private
    # function or constant belongs to its own module.
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            target = _resolved_package(path, node)
            for alias in node.names:
                name = alias.name
                is_module = (target / f"{name}.py").exists() or (target / name).is_dir()
                if name.startswith("_") and not is_module:
                    offenders.append(f"{path.relative_to(PACKAGE)}: {name}")
    assert offenders == []


#: Layer of each folder of ``_engine``, bottom (0) to top; ``None``: the
#: engine's own ``__init__``, which re-exports from every folder.
ENGINE_LAYERS = {"_records": 0, "timing": 0, "binary": 1, "multiclass": 1, "session": 2}
ENGINE = PACKAGE / "_engine"


def engine_part(module):
    parts = module.split(".")
    if len(parts) < 3 or parts[1] != "_engine":
        return None
    return parts[2] if len(parts) > 2 else None


@pytest.mark.parametrize(
    "path",
    [p for p in ENGINE.rglob("*.py") if p != ENGINE / "__init__.py"],
    ids=lambda p: module_name(p),
)
def test_engine_folders_import_only_below_or_beside_themselves(path):
    own = engine_part(module_name(path))
    assert own in ENGINE_LAYERS, f"{module_name(path)} is in no engine layer"
    for target in imported_modules(path):
        other = engine_part(target)
        if other is None or other == own:
            continue
        assert ENGINE_LAYERS[other] < ENGINE_LAYERS[own], (
            f"{module_name(path)} ({own}) imports {target} ({other})"
        )
