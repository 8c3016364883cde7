"""The engram-memory build backend (PEP 517, in-tree through
``backend-path``): setuptools' hooks, after ``engram_files.prepare()`` has
put the component and the migrations into the package, so that ``pip wheel
packages/python`` and ``pip install packages/python`` give a working
package, or fail saying how to build one (``build_wheel.py``) — never a
wheel without its component.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the hooks not wrapped below)

from engram_files import COMPONENT_NAME, fail, prepare


def _check_wheel(path: Path, component: Path) -> None:
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        inside = f"engram_memory/{COMPONENT_NAME}"
        if inside not in names or z.read(inside) != component.read_bytes():
            fail(f"{path.name} does not carry {component} as {inside}")
        if not any(n.startswith("engram_memory/schema/") and n.endswith(".sql") for n in names):
            fail(f"{path.name} carries no SQLite migrations (engram_memory/schema/*.sql)")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    component = prepare()
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    _check_wheel(Path(wheel_directory) / name, component)
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    prepare()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    prepare()
    return _setuptools.build_sdist(sdist_directory, config_settings)
