#!/usr/bin/env python3
"""Builds the engram-memory wheel from the repository:

    python3 packages/python/build_wheel.py [--component FILE] [--out DIR]

Checks that pyproject.toml's version is the workspace crate version and the
WIT package version, copies the component (default
target/engram-memory.wasm, what `cargo build --release` writes) and the Rust
host's SQLite migrations (host/schema/*.sql) into src/engram_memory/, then
runs `pip wheel` (which fetches setuptools from the package index into an
isolated build environment). Prints the wheel's path.

The steps are the in-tree build backend's (build_backend/engram_files.py),
which `pip wheel packages/python` and `pip install packages/python` run
too; this script adds --component, --out and an early, plain error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "build_backend"))

import engram_files  # noqa: E402  (the build backend's steps)


def main() -> int:
    parser = argparse.ArgumentParser(description="Build the engram-memory wheel")
    parser.add_argument("--component", default=None, help="default: target/engram-memory.wasm")
    parser.add_argument("--out", default=str(HERE / "dist"))
    args = parser.parse_args()

    component = engram_files.prepare(args.component)
    version = engram_files.version()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"engram_memory-{version}-*.whl"):
        old.unlink()
    env = dict(os.environ)
    # The backend, run again by pip, takes the same component.
    env[engram_files.ENV_COMPONENT] = str(component.resolve())
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
