"""The bad-input cases (cases.json) through the installed Python wheel:
python python.py CASES — prints {before, after, results: [{name, refused, message}]}."""

import json
import sys

from engram_memory import Engram

cases = json.load(open(sys.argv[1], encoding="utf-8"))["cases"]
scope = {"tenant": "acme", "user": "u42"}
with Engram(principal="acme", now="2026-08-01T10:00:00+08:00") as engram:
    engram.remember({"text": "The build server is ci-7", "scope": scope, "source": {"kind": "system"}})
    before = len(engram.list_memories({"tenant": "acme"}))
    results = []
    for c in cases:
        try:
            engram.call(c["op"], c["input"])
            results.append({"name": c["name"], "refused": False})
        except Exception as e:  # the refusal, whatever its class
            results.append({"name": c["name"], "refused": True, "message": str(e)})
    print(json.dumps({"before": before, "after": len(engram.list_memories({"tenant": "acme"})), "results": results}))
