#!/usr/bin/env python3
"""A short agent turn through the Python host: remember what the user and the
systems said, recall what matters for a question, and pack a context.

    python example.py              # in-memory SQLite
    python example.py memory.db    # a database file (the Rust CLI opens it too)
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engram import Engram, EngramError, SqliteStore  # noqa: E402

COMPONENT = Path(__file__).resolve().parents[2] / "target" / "engram-memory.wasm"
store = SqliteStore(sys.argv[1] if len(sys.argv) > 1 else ":memory:")

# A fixed clock makes the run reproducible; omit `now` for the system clock.
with Engram(COMPONENT, principal={"tenant": "acme"}, store=store, now="2026-08-01T10:00:00+08:00") as engram:
    scope = {"tenant": "acme", "user": "u42"}
    decisions = engram.remember(
        [
            {"id": "name", "text": "以后请叫我林工", "scope": scope, "source": {"kind": "user", "ref": "evt-1001"}},
            {
                "id": "db",
                "text": "payment-service uses PostgreSQL 16",
                "scope": {"tenant": "acme"},
                "source": {"kind": "system", "ref": "cmdb-42"},
                "subject": "service:payment-service",
                "predicate": "database",
                "object": "PostgreSQL 16",
                "entities": {"service": "payment-service"},
            },
            {"id": "secret", "text": "the prod password is hunter2", "scope": scope, "source": {"kind": "user", "ref": "evt-1002"}},
        ]
    )
    for d in decisions:
        print(f"{d['id']:<7} → {d['kind']}/{d['disposition']} ({d['action']})  {'; '.join(d['reasons'])}")

    recalled = engram.recall({"query": "which database does payment-service use?", "scope": scope, "k": 3})
    for r in recalled["results"]:
        print(f"recall: {r['score']:.3f}  {r['text']}")

    try:
        packed = engram.pack(
            {"budget": 300, "scope": scope, "query": "upgrade the payment-service database", "system": "You are a careful SRE."}
        )
        print(f"\npacked {packed['tokens']}/{packed['budget']} tokens:\n{packed['text']}")
    except EngramError as e:
        print(f"pack: {e}")
