#!/usr/bin/env python3
"""Per-call overhead of the Python host: a trivial ``info()`` and a small
``recall`` (20 memories, k = 5), timed in a loop after warm-up; medians.

    python bench.py [--component FILE] [--iterations N]   (with the wheel installed)

``call_raw`` passes WIT values straight to ``wasmtime`` (no JSON conversion);
the ``Engram`` methods hand the CLI's JSON shapes to the component's contract.
"""

import argparse
import statistics
import sys
import time

from engram_memory import COMPONENT, Engram, SqliteStore
from engram_memory.records import rec



def median_us(f, n):
    for _ in range(min(200, n)):
        f()
    samples = []
    for _ in range(n):
        t = time.perf_counter_ns()
        f()
        samples.append((time.perf_counter_ns() - t) / 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--component", default=str(COMPONENT))
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()
    n = args.iterations
    services = ["payment", "order", "billing", "search", "auth"]
    rows = []
    for timeout in (120.0, None):
        engram = Engram(args.component, principal="acme", store=SqliteStore(":memory:"),
                        now="2026-08-01T10:00:00+08:00", timeout=timeout)
        for i in range(20):
            svc = f"{services[i % 5]}-service"
            engram.remember({
                "id": f"c{i}", "text": f"{svc} setting {i} is value-{i}", "scope": {"tenant": "acme"},
                "source": {"kind": "system", "ref": f"cmdb-{i}"}, "subject": f"service:{svc}",
                "predicate": f"setting-{i}", "object": f"value-{i}", "entities": {"service": svc},
            })
        query = {"id": "q", "query": "what is the setting of payment-service?", "scope": {"tenant": "acme", "user": "u42"}, "k": 5}
        # The same query as the WIT record `call_raw` takes.
        wit_query = rec(
            id="q", text=query["query"], k=5, as_of=None, kinds=[], entities=[], embedding=None,
            scope=rec(tenant="acme", user="u42", project=None, thread=None, agent=None),
            sensitivity_ceiling=None, explain_rejected=False,
        )
        label = "epoch deadline on" if timeout else "no deadline"
        rows.append((label, "call_raw info()", median_us(lambda: engram.call_raw("info", principal="acme"), n)))
        rows.append((label, "Engram.info()", median_us(engram.info, n)))
        rows.append((label, "call_raw recall (WIT values)", median_us(lambda: engram.call_raw("recall", [wit_query]), min(n, 300))))
        rows.append((label, "Engram.recall (JSON in/out)", median_us(lambda: engram.recall(query), min(n, 300))))
        engram.close()
    from importlib.metadata import version

    print(f"Python {sys.version.split()[0]}, wasmtime {version('wasmtime')}, {n} iterations (recall: {min(n, 300)}), median µs per call")
    for label, what, us in rows:
        print(f"{label:<18} {what:<30} {us:>9.1f} µs")


if __name__ == "__main__":
    main()
