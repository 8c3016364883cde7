"""What the engram-memory wheel must carry, put into ``src/engram_memory/``
before setuptools packs it: the component and the Rust host's SQLite
migrations. Used by the build backend (``engram_build``) and by
``build_wheel.py``; needs only the standard library.

The component is, in this order:

1. ``$ENGRAM_WHEEL_COMPONENT`` (``build_wheel.py --component FILE`` sets it);
2. in a clone of the repository, ``target/engram-memory.wasm`` (under
   ``$CARGO_TARGET_DIR`` if set), what ``cargo build --release`` writes,
   built first with ``cargo build --release -p engram-host`` when it is
   absent and cargo is on PATH;
3. outside a clone (an sdist), the copy the source tree already carries.

Failing all three, the build stops with a message naming
``build_wheel.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

HERE = Path(__file__).resolve().parent.parent  # packages/python
REPO = HERE.parent.parent
PACKAGE = HERE / "src" / "engram_memory"
COMPONENT_NAME = "engram-memory.wasm"
ENV_COMPONENT = "ENGRAM_WHEEL_COMPONENT"

HOW_TO = (
    "build the wheel from a clone of the repository (Rust stable): `cargo build --release`, "
    "then `python3 packages/python/build_wheel.py` (see packages/python/README.md)"
)

# The first bytes of a WebAssembly component (magic, then version 0x0d layer 1).
_COMPONENT_MAGIC = b"\0asm\x0d\x00\x01\x00"


def fail(message: str) -> None:
    """Stop the build with `message` (pip shows it; exit status 1)."""
    raise SystemExit(f"engram-memory: {message}")


def in_repository() -> bool:
    """Is this source tree packages/python of a clone of the repository?"""
    return (REPO / "Cargo.toml").is_file() and (REPO / "host" / "schema").is_dir() and (REPO / "wit" / "world.wit").is_file()


def versions() -> Dict[str, str]:
    """The version each place states; they must agree."""

    def find(path: Path, pattern: str) -> str:
        m = re.search(pattern, path.read_text(encoding="utf-8"), re.M | re.S)
        return m.group(1) if m else "(none)"

    found = {
        "pyproject.toml": find(HERE / "pyproject.toml", r'^version\s*=\s*"([^"]+)"'),
        "engram_memory.__version__": find(PACKAGE / "__init__.py", r'^__version__\s*=\s*"([^"]+)"'),
    }
    if in_repository():
        found["Cargo.toml workspace"] = find(REPO / "Cargo.toml", r'\[workspace\.package\][^\[]*?^version\s*=\s*"([^"]+)"')
        found["WIT package"] = find(REPO / "wit" / "world.wit", r"^package\s+[\w-]+:[\w-]+@([^;\s]+);")
    return found


def version() -> str:
    found = versions()
    if len(set(found.values())) != 1:
        fail("version mismatch: " + ", ".join(f"{k} {v}" for k, v in found.items()))
    return next(iter(found.values()))


def _target_dir() -> Path:
    # The rule of host/build_wasm.rs, which writes the component there.
    d = os.environ.get("CARGO_TARGET_DIR")
    if not d:
        return REPO / "target"
    return Path(d) if os.path.isabs(d) else REPO / d


def _build_with_cargo(built: Path) -> None:
    cargo = shutil.which("cargo")
    if cargo is None:
        fail(f"no component at {built} and no `cargo` on PATH to build it; {HOW_TO}")
    print(
        f"engram-memory: no component at {built}; building it: cargo build --release -p engram-host "
        "(minutes on a fresh clone)",
        file=sys.stderr,
        flush=True,
    )
    # Its output goes to stderr: a PEP 517 hook's stdout is the frontend's.
    done = subprocess.run([cargo, "build", "--release", "-p", "engram-host"], cwd=REPO, stdout=sys.stderr)
    if done.returncode != 0 or not built.is_file():
        fail(f"`cargo build --release -p engram-host` did not write {built} (exit status {done.returncode}); {HOW_TO}")


def find_component(explicit: Optional[str] = None) -> Path:
    """The component to put in the wheel (see the module's documentation)."""
    explicit = explicit or os.environ.get(ENV_COMPONENT)
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            fail(f"no component at {path} (${ENV_COMPONENT} or --component)")
        return path
    if in_repository():
        built = _target_dir() / COMPONENT_NAME
        if not built.is_file():
            _build_with_cargo(built)
        return built
    packaged = PACKAGE / COMPONENT_NAME
    if packaged.is_file():
        return packaged
    fail(f"this source tree carries no {COMPONENT_NAME} and is not in a clone of the repository; {HOW_TO}")
    raise AssertionError("unreachable")


def prepare(component: Optional[str] = None) -> Path:
    """Check the versions and copy the component and the migrations into
    src/engram_memory/; returns the component used."""
    version()
    source = find_component(component)
    head = source.read_bytes()[: len(_COMPONENT_MAGIC)]
    if head != _COMPONENT_MAGIC:
        fail(f"{source} is not a WebAssembly component (it starts with {head!r})")
    target = PACKAGE / COMPONENT_NAME
    if source.resolve() != target.resolve():
        shutil.copyfile(source, target)
    schema = PACKAGE / "schema"
    if in_repository():
        shutil.rmtree(schema, ignore_errors=True)
        schema.mkdir()
        for sql in sorted((REPO / "host" / "schema").glob("*.sql")):
            shutil.copyfile(sql, schema / sql.name)
    if not any(schema.glob("*.sql")):
        fail(f"no SQLite migrations in {schema}; {HOW_TO}")
    # A stale build/ would let setuptools reuse old copies of the files.
    shutil.rmtree(HERE / "build", ignore_errors=True)
    # Fixed timestamps in the archive: the same inputs give the same wheel.
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1767225600")
    return source
