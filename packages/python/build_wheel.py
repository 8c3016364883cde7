#!/usr/bin/env python3
"""Builds the engram-memory wheel from the repository:

    python3 packages/python/build_wheel.py [--component FILE] [--out DIR]

Checks that pyproject.toml's version is the workspace crate version and the
WIT package version, copies the component (default
target/engram-memory.wasm, what `cargo build --release` writes) and the Rust
host's SQLite migrations (host/schema/*.sql) into src/engram_memory/, then
runs `pip wheel` (which fetches setuptools from the package index into an
isolated build environment). Prints the wheel's path.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PACKAGE = HERE / "src" / "engram_memory"


def versions() -> dict:
    def find(path: Path, pattern: str) -> str:
        m = re.search(pattern, path.read_text(encoding="utf-8"), re.M | re.S)
        return m.group(1) if m else "(none)"

    return {
        "pyproject.toml": find(HERE / "pyproject.toml", r'^version\s*=\s*"([^"]+)"'),
        "Cargo.toml workspace": find(REPO / "Cargo.toml", r'\[workspace\.package\][^\[]*?^version\s*=\s*"([^"]+)"'),
        "WIT package": find(REPO / "wit" / "world.wit", r"^package\s+[\w-]+:[\w-]+@([^;\s]+);"),
        "engram_memory.__version__": find(PACKAGE / "__init__.py", r'^__version__\s*=\s*"([^"]+)"'),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="Build the engram-memory wheel")
    parser.add_argument("--component", default=str(REPO / "target" / "engram-memory.wasm"))
    parser.add_argument("--out", default=str(HERE / "dist"))
    args = parser.parse_args()

    found = versions()
    if len(set(found.values())) != 1:
        print("version mismatch: " + ", ".join(f"{k} {v}" for k, v in found.items()), file=sys.stderr)
        return 1
    component = Path(args.component)
    if not component.is_file():
        print(f"no component at {component}: run `cargo build --release` first", file=sys.stderr)
        return 1
    shutil.copyfile(component, PACKAGE / "engram-memory.wasm")
    schema = PACKAGE / "schema"
    shutil.rmtree(schema, ignore_errors=True)
    schema.mkdir()
    for sql in sorted((REPO / "host" / "schema").glob("*.sql")):
        shutil.copyfile(sql, schema / sql.name)
    # A stale build/ would let setuptools reuse old copies of the files.
    shutil.rmtree(HERE / "build", ignore_errors=True)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    version = next(iter(found.values()))
    for old in out.glob(f"engram_memory-{version}-*.whl"):
        old.unlink()
    # Fixed timestamps in the zip: the same inputs give the same wheel.
    env = dict(os.environ)
    env.setdefault("SOURCE_DATE_EPOCH", "1767225600")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", "-w", str(out), str(HERE)],
        check=True,
        env=env,
    )
    wheels = sorted(out.glob(f"engram_memory-{version}-*.whl"))
    if not wheels:
        print(f"pip wheel wrote no engram_memory-{version} wheel into {out}", file=sys.stderr)
        return 1
    print(wheels[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
