#!/usr/bin/env python3
"""Runs the shared conformance scenario (tests/conformance/scenario.json) on
this package and prints every step's normalised output as JSON, with the
names of the store checks (``store_checks``) its store passed. The Rust
test tests/tests/hosts.rs runs the same scenario on the Rust host, the npm
package and the browser, and requires identical output.

    python -m engram_memory.conformance --scenario PATH [--component FILE]
                                        [--store sqlite|sqlite:FILE] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Dict, Optional

from . import Engram, EngramError, SqliteStore
from .store_checks import check_store


def normalise(value: Any) -> Any:
    """Round every non-integer number to 6 decimals (the same IEEE steps in every host)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        if float(value).is_integer():
            return value
        return math.floor(value * 1e6 + 0.5) / 1e6
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    return value


def resolve_ids(value: Any, ids: Dict[str, str]) -> Any:
    """Replace "$ID" in ``id``/``memory_id`` fields with the memory id an earlier step gave ID."""
    if isinstance(value, list):
        return [resolve_ids(v, ids) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("id", "memory_id") and isinstance(v, str) and v.startswith("$"):
                out[k] = ids.get(v[1:], v)
            else:
                out[k] = resolve_ids(v, ids)
        return out
    return value


def run_scenario(scenario: Dict[str, Any], component: Optional[str], store: Any) -> Dict[str, Any]:
    now = {"value": scenario["now"]}
    engram = Engram(component, principal=scenario["principal"], store=store, now=lambda: now["value"])
    ids: Dict[str, str] = {}
    steps = []
    with engram:
        for step in scenario["steps"]:
            now["value"] = step.get("now", scenario["now"])
            principal = step.get("principal", scenario["principal"])
            s = resolve_ids(step, ids)
            entry: Dict[str, Any] = {"name": step["name"], "op": step["op"]}
            op = step["op"]
            try:
                if op in ("remember", "classify"):
                    ok = getattr(engram, op)(s["candidates"], principal=principal)
                    if op == "remember":
                        ids.update({d["id"]: d["memory_id"] for d in ok if d["id"] is not None and d["memory_id"]})
                elif op == "import":
                    ok = engram.import_records(s["records"], principal=principal)
                    ids.update({r["external_id"]: r["memory_id"] for r in ok})
                elif op == "recall":
                    ok = engram.recall(s["queries"], principal=principal)
                elif op == "pack":
                    ok = engram.pack(s["request"], principal=principal)
                elif op == "forget":
                    ok = engram.forget(s["selectors"], principal=principal)
                elif op == "sweep":
                    ok = engram.sweep(s["scope"], principal=principal)
                elif op == "list":
                    ok = engram.list_memories(s["scope"], s.get("statuses") or [], principal=principal)
                elif op == "review":
                    ok = engram.review(s["items"], principal=principal)
                elif op == "record-operations":
                    ok = engram.record_operations(s["records"], principal=principal)
                elif op == "get-operations":
                    ok = engram.get_operations(s["lookups"], principal=principal)
                elif op == "history":
                    ok = engram.history(s["id"], principal=principal)
                else:
                    raise ValueError(f"unknown scenario op {op!r}")
                entry["ok"] = normalise(ok)
            except EngramError as e:
                entry["error"] = {"kind": e.kind, "message": e.detail, "field": e.field, "index": e.index}
            steps.append(entry)
    return {"host": "python", "component_sha256": engram.sha256, "steps": steps}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scenario", required=True, help="tests/conformance/scenario.json in the repository")
    parser.add_argument("--component", help="a component of your own (default: the one in this package)")
    parser.add_argument("--store", default="sqlite", help="sqlite (in memory) or sqlite:FILE")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.store == "sqlite":
        store = SqliteStore(":memory:")
    elif args.store.startswith("sqlite:"):
        store = SqliteStore(args.store[len("sqlite:") :])
    else:
        parser.error(f"--store must be sqlite or sqlite:FILE (got {args.store!r})")
    scenario = json.loads(Path(args.scenario).read_text(encoding="utf-8"))
    result = run_scenario(scenario, args.component, store)
    result["store"] = args.store
    # The tenancy checks on fresh stores (in memory).
    with Engram(args.component, principal=scenario["principal"]) as rows:
        result["store_checks"] = check_store(lambda: SqliteStore(":memory:"), rows.codec)
    text = json.dumps(result, ensure_ascii=False, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
